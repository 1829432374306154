"""Oracles of the grammar charts.line_chart (grammars/charts/line_chart.yaml, programs/charts/line_chart/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from fractions import Fraction

from tests.tasks.registry import oracle


@oracle("charts.line_chart.largest_change")
def _line_change(tr):
    pts = tr["state"]["points"]
    diffs = [(pts[i + 1]["value"] - pts[i]["value"], pts[i + 1]["month"]) for i in range(len(pts) - 1)]
    pick = max if tr["query"]["direction"] == "increase" else min
    return pick(diffs)[1]


@oracle("charts.line_chart.count_rises")
def _line_rises(tr):
    pts = tr["state"]["points"]
    return sum(pts[i + 1]["value"] > pts[i]["value"] for i in range(len(pts) - 1))


@oracle("charts.line_chart.mean_value")
def _line_mean(tr):
    # the mean to one decimal place, as the prompt asks: exact arithmetic, a tie rounded half to even
    vals = [p["value"] for p in tr["state"]["points"]]
    return float(round(Fraction(sum(vals), len(vals)), 1))
