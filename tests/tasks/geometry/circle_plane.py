"""Oracles of the grammar geometry.circle_plane (grammars/geometry/circle_plane.yaml, programs/geometry/circle_plane/):
each task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


@oracle("geometry.circle_plane.points_in_circle")
def _points_in_circle(tr):
    c = step(tr, "ring")
    # Squared distances are integers on the lattice: no rounding at all.
    return sum((q["x"] - c["x"]) ** 2 + (q["y"] - c["y"]) ** 2 < c["r"] ** 2 for q in tr["state"]["points"])


@oracle("geometry.circle_plane.circles_overlap")
def _circles_overlap(tr):
    a, b = step(tr, "pair")
    return (a["x"] - b["x"]) ** 2 + (a["y"] - b["y"]) ** 2 < (a["r"] + b["r"]) ** 2


@oracle("geometry.circle_plane.area_multiple_of_pi")
def _area_multiple_of_pi(tr):
    # the circles the prompt names (1 + level // 4 of them), their areas or circumferences added up
    rings = [c for c in tr["state"]["circles"] if c["name"] in step(tr, "names")]
    assert len(rings) == min(len(tr["state"]["circles"]), 1 + tr["level"] // 4)
    area = tr["query"]["measure"] == "area"
    return sum(c["r"] * c["r"] if area else 2 * c["r"] for c in rings)


@oracle("geometry.circle_plane.nearest_point")
def _nearest_point(tr):
    c = step(tr, "ring")
    squared = {q["name"]: (q["x"] - c["x"]) ** 2 + (q["y"] - c["y"]) ** 2 for q in tr["state"]["points"]}
    pick = min if tr["query"]["extreme"] == "closest to" else max
    best = pick(squared, key=squared.get)
    assert list(squared.values()).count(squared[best]) == 1
    return best
