"""Oracles for the physics domain's mechanics, instruments and motion graphs (independent Python over the recorded
state; the circuit and lens oracles live in oracles_games.py)."""
from __future__ import annotations

from tests.oracles import step

ORACLES: dict = {}


# ---- physics.lever: moments about the pivot (distance signed: left of the pivot negative)
def _lever_turns(weights):
    left = sum(w["mass"] * -w["d"] for w in weights if w["d"] < 0)
    right = sum(w["mass"] * w["d"] for w in weights if w["d"] > 0)
    return left, right


def _lever_tip(tr):
    left, right = _lever_turns(tr["state"]["weights"])
    return "left" if left > right else "right" if right > left else "level"


def _lever_mass(tr):
    ws = tr["state"]["weights"]
    (ask,) = [w for w in ws if w["ask"]]
    left, right = _lever_turns([w for w in ws if not w["ask"]])
    mass, rem = divmod(abs(left - right), abs(ask["d"]))
    assert rem == 0 and (ask["d"] < 0) == (right > left)
    return mass


def _lever_distance(tr):
    s = tr["state"]
    left, right = _lever_turns(s["weights"])
    dist, rem = divmod(abs(left - right), s["extra"])
    assert rem == 0 and 1 <= dist <= s["L"]
    return dist


ORACLES.update({
    "physics.lever.tip_side": _lever_tip,
    "physics.lever.missing_mass": _lever_mass,
    "physics.lever.balance_distance": _lever_distance,
})
