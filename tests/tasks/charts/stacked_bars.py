"""Oracles of the grammar charts.stacked_bars (grammars/charts/stacked_bars.yaml, programs/charts/stacked_bars/): each
task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


@oracle("charts.stacked_bars.fruit_total")
def _stacked_total(tr):
    fruit = step(tr, "fruit")
    return sum(s["value"] for s in tr["state"]["segs"] if s["fruit"] == fruit)


@oracle("charts.stacked_bars.top_store")
def _stacked_top(tr):
    fruit = step(tr, "fruit")
    mine = [s for s in tr["state"]["segs"] if s["fruit"] == fruit]
    return "Store " + max(mine, key=lambda s: s["value"])["store"]
