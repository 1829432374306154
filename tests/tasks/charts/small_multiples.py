"""Oracles of the grammar charts.small_multiples (grammars/charts/small_multiples.yaml,
programs/charts/small_multiples/): each task's answer recomputed by plain Python from the recorded trace, never the
expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


@oracle("charts.small_multiples.highest_in_month")
def _multiples_month(tr):
    month = step(tr, "month")
    row = [p for p in tr["state"]["points"] if p["month"] == month]
    pick = max if tr["query"]["extreme"] == "most" else min
    return pick(row, key=lambda p: p["value"])["city"]


@oracle("charts.small_multiples.largest_rise")
def _multiples_rise(tr):
    series: dict[str, list] = {}
    for p in tr["state"]["points"]:
        series.setdefault(p["city"], []).append((p["mi"], p["value"]))
    rise = {c: max(v)[1] - min(v)[1] for c, v in series.items()}  # last month minus first month
    return max(rise, key=rise.get)
