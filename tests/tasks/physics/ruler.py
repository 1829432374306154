"""Oracles of the grammar physics.ruler (grammars/physics/ruler.yaml, programs/physics/ruler/): each task's answer
recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


# ---- physics.ruler: a length is the difference of two end readings (positions kept in tenths of a cm)
def _pencil_cm(p):
    return (p["t1"] - p["t0"]) / 10


@oracle("physics.ruler.pencil_length")
def _ruler_length(tr):
    name = step(tr, "p")["name"]
    (p,) = [p for p in tr["state"]["pencils"] if p["name"] == name]
    return _pencil_cm(p)


@oracle("physics.ruler.length_difference")
def _ruler_difference(tr):
    lengths = [_pencil_cm(p) for p in tr["state"]["pencils"]]
    return round(max(lengths) - min(lengths), 1)
