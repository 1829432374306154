"""Oracles of the grammar geometry.transformed_shape (grammars/geometry/transformed_shape.yaml,
programs/geometry/transformed_shape/): each task's answer recomputed by plain Python from the recorded trace, never
the expression language."""
from __future__ import annotations

from tests.tasks.common import options_matching, step
from tests.tasks.geometry._shared import MATRICES, apply
from tests.tasks.registry import option_fit, oracle


@oracle("geometry.transformed_shape.name_transformation")
def _name_transformation(tr):
    st = tr["state"]
    fits = [name for name in MATRICES
            if all(apply(name, v["x"], v["y"]) == (w["x"], w["y"]) for v, w in zip(st["shape"], st["image"]))]
    assert len(fits) == 1
    return "ABCDEFGH"[step(tr, "options").index(fits[0])]


@oracle("geometry.transformed_shape.reflection_or_rotation")
def _reflection_or_rotation(tr):
    st = tr["state"]
    # A reflection reverses the orientation of the labelled vertices; a rotation keeps it.
    def signed(pts):
        return sum(p["x"] * q["y"] - q["x"] * p["y"] for p, q in zip(pts, pts[1:] + pts[:1]))
    reversed_ = (signed(st["shape"]) > 0) != (signed(st["image"]) > 0)
    return reversed_ == (tr["query"]["kind"] == "reflection")


@oracle("geometry.transformed_shape.apply_to_point")
def _apply_to_point(tr):
    st = tr["state"]
    fits = [name for name in MATRICES
            if all(apply(name, v["x"], v["y"]) == (w["x"], w["y"]) for v, w in zip(st["shape"], st["image"]))]
    return list(apply(fits[0], st["probe"]["x"], st["probe"]["y"]))


@option_fit("geometry.transformed_shape.name_transformation")
def _transformation_fits(tr):
    st = tr["state"]
    return options_matching(tr, [name for name in MATRICES if all(
        apply(name, v["x"], v["y"]) == (w["x"], w["y"]) for v, w in zip(st["shape"], st["image"]))])
