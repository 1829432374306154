"""Oracles of the grammar charts.waterfall (grammars/charts/waterfall.yaml, programs/charts/waterfall/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


@oracle("charts.waterfall.final_total")
def _water_final(tr):
    st = tr["state"]
    total = st["start"]
    for c in st["changes"]:
        total += c
    return total


@oracle("charts.waterfall.largest_move")
def _water_move(tr):
    st = tr["state"]
    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    want_up = tr["query"]["direction"] == "increase"
    cands = [(abs(c), months[i]) for i, c in enumerate(st["changes"]) if (c > 0) == want_up]
    return max(cands)[1]
