"""Oracles of the grammar physics.gear_train (grammars/physics/gear_train.yaml, programs/physics/gear_train/): each
task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


# ---- physics.gear_train: each mesh reverses the turn; teeth per minute pass equally on both sides of a mesh
@oracle("physics.gear_train.turn_direction")
def _gear_direction(tr):
    s = tr["state"]
    i = [g["name"] for g in s["gears"]].index(step(tr, "gear")["name"])
    cw = s["clockwise"]
    for _ in range(i):
        cw = not cw
    return "clockwise" if cw else "anticlockwise"


@oracle("physics.gear_train.gear_speed")
def _gear_speed(tr):
    from fractions import Fraction

    gears = tr["state"]["gears"]
    i = [g["name"] for g in gears].index(step(tr, "gear")["name"])
    speed = Fraction(step(tr, "rpm"))
    for a, b in zip(gears[:i], gears[1:i + 1]):
        speed = speed * a["teeth"] / b["teeth"]
    assert speed.denominator == 1
    return int(speed)


@oracle("physics.gear_train.count_teeth")
def _gear_teeth(tr):
    return step(tr, "gear")["teeth"]


@oracle("physics.gear_train.fastest_gear")
def _gear_fastest(tr):
    gears = tr["state"]["gears"]
    key = min if tr["query"]["extreme"] == "fastest" else max
    best = key(g["teeth"] for g in gears)
    (name,) = [g["name"] for g in gears if g["teeth"] == best]
    return name
