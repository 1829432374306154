"""Oracles of the grammar charts.treemap (grammars/charts/treemap.yaml, programs/charts/treemap/): each task's answer
recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


@oracle("charts.treemap.stall_total")
def _tree_stall(tr):
    stall = step(tr, "stall")["name"]
    return sum(t["value"] for t in tr["state"]["items"] if t["stall"] == stall)


@oracle("charts.treemap.kth_largest")
def _tree_kth(tr):
    items = sorted(tr["state"]["items"], key=lambda t: t["value"], reverse=True)
    return items[tr["query"]["k"] - 1]["fruit"]
