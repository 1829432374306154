"""Oracles of the grammar physics.ray_optics (grammars/physics/ray_optics.yaml, programs/physics/ray_optics/): each
task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import option_fit, oracle


def _lens_image(state):
    """The image position from the thin-lens equation 1/v = 1/f - 1/u (v < 0: a virtual image on the object's side)."""
    from fractions import Fraction

    u, f = state["u"], state["f"]
    inv = Fraction(1, f) - Fraction(1, u)
    assert inv != 0
    v = 1 / inv
    assert v.denominator == 1
    return int(v)


@oracle("physics.ray_optics.image_point")
def _lens_point(tr):
    v = _lens_image(tr["state"])
    names = [p["name"] for p in tr["state"]["points"] if p["x"] == v]
    assert len(names) == 1
    return names[0]


@oracle("physics.ray_optics.image_nature")
def _lens_nature(tr):
    s = tr["state"]
    v = _lens_image(s)
    prop = tr["query"]["property"]
    if prop in ("real", "inverted"):  # a converging lens: a real image is always inverted, a virtual one upright
        return v > 0
    return abs(v) > s["u"]  # magnification |v| / u


@option_fit("physics.ray_optics.image_point")
def _lens_fits(tr):
    """Indices in the listed (alphabetical) order of the points, lettered in random order along the axis."""
    v = _lens_image(tr["state"])
    listed = sorted(tr["state"]["points"], key=lambda p: p["name"])
    return [i for i, p in enumerate(listed) if p["x"] == v]
