"""Oracles of the grammar symbolic.dice_row (grammars/symbolic/dice_row.yaml, programs/symbolic/dice_row/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


@oracle("symbolic.dice_row.pip_sum")
def _pip_sum(tr):
    return sum(d["value"] for d in tr["state"]["dice"])


@oracle("symbolic.dice_row.face_count")
def _face_count(tr):
    return sum(d["value"] == tr["query"]["face"] for d in tr["state"]["dice"])


@oracle("symbolic.dice_row.color_sum")
def _color_pips(tr):
    hue = step(tr, "hue")
    return sum(d["value"] for d in tr["state"]["dice"] if d["color"] == hue)
