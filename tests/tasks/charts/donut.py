"""Oracles of the grammar charts.donut (grammars/charts/donut.yaml, programs/charts/donut/): each task's answer
recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


@oracle("charts.donut.largest_share")
def _donut_largest(tr):
    slices = tr["state"]["slices"]
    assert sum(s["share"] for s in slices) == 100
    pick = max if tr["query"]["extreme"] == "largest" else min
    return pick(slices, key=lambda s: s["share"])["name"]


@oracle("charts.donut.share_sum")
def _donut_sum(tr):
    pair = step(tr, "pair")
    assert len(pair) == min(len(tr["state"]["slices"]) - 1, 2 + tr["level"] // 4)
    return sum(s["share"] for s in pair)
