"""Oracles of the grammar physics.motion_graph (grammars/physics/motion_graph.yaml, programs/physics/motion_graph/):
each task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


# ---- physics.motion_graph: slopes and areas of a piecewise straight graph
def _mg_corners(state):
    return list(zip(state["ts"], state["ys"]))


def _mg_stretches(state):
    c = _mg_corners(state)
    return [(chr(65 + i), c[i], c[i + 1]) for i in range(len(c) - 1)]


@oracle("physics.motion_graph.segment_speed")
def _mg_speed(tr):
    name = step(tr, "seg")["name"]
    ((_, (t0, y0), (t1, y1)),) = [s for s in _mg_stretches(tr["state"]) if s[0] == name]
    v, rem = divmod(y1 - y0, t1 - t0)
    assert rem == 0
    return v


@oracle("physics.motion_graph.stopped_time")
def _mg_stopped(tr):
    return sum(t1 - t0 for _, (t0, y0), (t1, y1) in _mg_stretches(tr["state"]) if y0 == y1)


@oracle("physics.motion_graph.fastest_stretch")
def _mg_fastest(tr):
    from fractions import Fraction

    moving = [(Fraction(y1 - y0, t1 - t0), n) for n, (t0, y0), (t1, y1) in _mg_stretches(tr["state"]) if y1 != y0]
    target = (max if tr["query"]["extreme"] == "fastest" else min)(v for v, _ in moving)
    (name,) = [n for v, n in moving if v == target]
    return name


@oracle("physics.motion_graph.area_distance")
def _mg_area(tr):
    start = step(tr, "from")["name"]
    total = 0
    for n, (t0, y0), (t1, y1) in _mg_stretches(tr["state"]):
        if n >= start:
            total += (t1 - t0) * (y0 + y1) / 2  # a trapezium under each stretch
    assert total == int(total)
    return int(total)
