"""Oracles of the grammar charts.box_plot (grammars/charts/box_plot.yaml, programs/charts/box_plot/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


@oracle("charts.box_plot.largest_median")
def _box_median(tr):
    boxes = tr["state"]["boxes"]
    pick = max if tr["query"]["extreme"] == "highest" else min
    return pick(boxes, key=lambda b: b["med"])["name"]


@oracle("charts.box_plot.widest_box")
def _box_iqr(tr):
    boxes = tr["state"]["boxes"]
    pick = max if tr["query"]["extreme"] == "largest" else min
    return pick(boxes, key=lambda b: b["q3"] - b["q1"])["name"]
