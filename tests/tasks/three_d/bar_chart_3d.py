"""Oracles of the grammar three_d.bar_chart_3d (grammars/three_d/bar_chart_3d.yaml, programs/three_d/bar_chart_3d/):
each task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


@oracle("three_d.bar_chart_3d.tallest_fruit")
def _bar_tallest_fruit(tr):
    bars = tr["state"]["bars"]
    top = max(b["value"] for b in bars)
    (best,) = [b for b in bars if b["value"] == top]
    return best["fruit"]


@oracle("three_d.bar_chart_3d.bar_value")
def _bar_value(tr):
    bar = step(tr, "bar")
    (match,) = [b for b in tr["state"]["bars"] if b["fruit"] == bar["fruit"] and b["year"] == bar["year"]]
    return match["value"]
