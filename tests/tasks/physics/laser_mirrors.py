"""Oracles of the grammar physics.laser_mirrors (grammars/physics/laser_mirrors.yaml, programs/physics/laser_mirrors/):
each task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


# ---- physics.laser_mirrors: trace the beam cell by cell ('/' swaps right↔up and down↔left, '\' right↔down, left↔up)
def _laser_trace(state):
    size = state["size"]
    at = {(q["row"], q["col"]): q["kind"] for q in state["mirrors"]}
    r, c, dr, dc = state["r0"], -1, 0, 1
    bounces = 0
    for _ in range(4 * size * size + 4):
        r, c = r + dr, c + dc
        if not (0 <= r < size and 0 <= c < size):
            return (r, c), bounces
        kind = at.get((r, c))
        if kind == "/":
            dr, dc = -dc, -dr
            bounces += 1
        elif kind == "\\":
            dr, dc = dc, dr
            bounces += 1
    raise AssertionError("the beam loops")


@oracle("physics.laser_mirrors.beam_target")
def _laser_target(tr):
    spot, _ = _laser_trace(tr["state"])
    (name,) = [t["name"] for t in tr["state"]["targets"] if (t["row"], t["col"]) == spot]
    return name


@oracle("physics.laser_mirrors.bounce_count")
def _bounce_count(tr):
    return _laser_trace(tr["state"])[1]
