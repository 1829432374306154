"""Oracles of the grammar charts.bar_chart (grammars/charts/bar_chart.yaml, programs/charts/bar_chart/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


@oracle("charts.bar_chart.extremum_label")
def _bar_extremum(tr):
    # the extreme bar, or from level 6 the second in that order
    bars = sorted(tr["state"]["bars"], key=lambda b: b["value"], reverse=tr["query"]["extreme"] == "highest")
    return bars[0 if tr["level"] < 6 else 1]["label"]


@oracle("charts.bar_chart.value_difference")
def _bar_difference(tr):
    vals = [b["value"] for b in tr["state"]["bars"]]
    return max(vals) - min(vals)


@oracle("charts.bar_chart.count_above_mean")
def _bar_above_mean(tr):
    vals = [b["value"] for b in tr["state"]["bars"]]
    avg = sum(vals) / len(vals)
    return sum(v > avg for v in vals)


@oracle("charts.bar_chart.sorted_labels")
def _bar_sorted(tr):
    bars = tr["state"]["bars"]
    desc = tr["query"]["order"] == "descending"
    return [b["label"] for b in sorted(bars, key=lambda b: b["value"], reverse=desc)]
