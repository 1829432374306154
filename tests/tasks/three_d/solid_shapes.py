"""Oracles of the grammar three_d.solid_shapes (grammars/three_d/solid_shapes.yaml, programs/three_d/solid_shapes/):
each task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


def _height(o) -> float:
    # the top of each solid above the floor, from its shape and size: a sphere resting on the floor rises to its
    # diameter, a torus to its tube's diameter ((0.55 - 0.25) drawn), the others to their own height
    return {"sphere": 2 * o["size"], "torus": 0.55 - 0.25}.get(o["shape"], o["size"])


@oracle("three_d.solid_shapes.count_shape")
def _solids_count_shape(tr):
    return sum(o["shape"] == tr["query"]["shape"] for o in tr["state"]["objects"])


@oracle("three_d.solid_shapes.count_color_shape")
def _solids_count_color_shape(tr):
    t = step(tr, "target")
    return sum((o["color"], o["shape"]) == (t["color"], t["shape"]) for o in tr["state"]["objects"])


@oracle("three_d.solid_shapes.tallest")
def _solids_tallest(tr):
    best = max(tr["state"]["objects"], key=_height)
    return f"{best['color']} {best['shape']}"
