"""Oracles of the grammar charts.heatmap (grammars/charts/heatmap.yaml, programs/charts/heatmap/): each task's answer
recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


@oracle("charts.heatmap.top_row_total")
def _heat_row(tr):
    totals: dict = {}
    for c in tr["state"]["cells"]:
        totals[c["fruit"]] = totals.get(c["fruit"], 0) + c["v"]
    pick = max if tr["query"]["extreme"] == "most" else min
    return pick(totals, key=totals.get)


@oracle("charts.heatmap.count_above")
def _heat_count(tr):
    month = step(tr, "month")
    threshold = int(tr["query"]["fraction"] * tr["state"]["top"])
    return sum(c["month"] == month and c["v"] > threshold for c in tr["state"]["cells"])
