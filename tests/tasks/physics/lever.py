"""Oracles of the grammar physics.lever (grammars/physics/lever.yaml, programs/physics/lever/): each task's answer
recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


# ---- physics.lever: moments about the pivot (distance signed: left of the pivot negative)
def _lever_turns(weights):
    left = sum(w["mass"] * -w["d"] for w in weights if w["d"] < 0)
    right = sum(w["mass"] * w["d"] for w in weights if w["d"] > 0)
    return left, right


@oracle("physics.lever.tip_side")
def _lever_tip(tr):
    left, right = _lever_turns(tr["state"]["weights"])
    return "left" if left > right else "right" if right > left else "level"


@oracle("physics.lever.missing_mass")
def _lever_mass(tr):
    ws = tr["state"]["weights"]
    (ask,) = [w for w in ws if w["ask"]]
    left, right = _lever_turns([w for w in ws if not w["ask"]])
    mass, rem = divmod(abs(left - right), abs(ask["d"]))
    assert rem == 0 and (ask["d"] < 0) == (right > left)
    return mass


@oracle("physics.lever.balance_distance")
def _lever_distance(tr):
    s = tr["state"]
    left, right = _lever_turns(s["weights"])
    dist, rem = divmod(abs(left - right), s["extra"])
    assert rem == 0 and 1 <= dist <= s["L"]
    return dist
