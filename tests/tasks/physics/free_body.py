"""Oracles of the grammar physics.free_body (grammars/physics/free_body.yaml, programs/physics/free_body/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

import math

from tests.tasks.registry import oracle


# ---- physics.free_body: resultant of axis-aligned forces
def _fb_components(forces):
    fx = sum(f["mag"] * f["ux"] for f in forces)
    fy = sum(f["mag"] * f["uy"] for f in forces)
    return fx, fy


@oracle("physics.free_body.net_direction")
def _fb_direction(tr):
    fx, fy = _fb_components(tr["state"]["forces"])
    vert = "up" if fy > 0 else "down" if fy < 0 else ""
    horiz = "right" if fx > 0 else "left" if fx < 0 else ""
    return "-".join(p for p in (vert, horiz) if p) or "none"


@oracle("physics.free_body.net_force")
def _fb_net(tr):
    fx, fy = _fb_components(tr["state"]["forces"])
    assert fx == 0 or fy == 0
    return int(math.hypot(fx, fy))


@oracle("physics.free_body.missing_force")
def _fb_missing(tr):
    forces = tr["state"]["forces"]
    (ask,) = [f for f in forces if f["ask"]]
    axis = "ux" if ask["ux"] else "uy"
    # equilibrium along the asked arrow's axis: ? + (same-way forces) = (opposite forces)
    same = sum(f["mag"] for f in forces if not f["ask"] and f[axis] == ask[axis])
    opposite = sum(f["mag"] for f in forces if f[axis] == -ask[axis])
    assert opposite - same > 0
    return opposite - same
