"""3-D marks for the camera frame: box, prism, cylinder, face (solids) and text3 (text at a world point).

Positions are world units (x right, y forward, z up): in these marks `z` is the world height and `dx dy dz` a box's
sizes, not the draw order and pixel offsets of 2-D marks. Solids are not drawn one by one: the camera frame collects
every one of them and paints them together in depth order (see camera.py), shading each face by its direction and
outlining it in `stroke` (ink unless given). `text3` is drawn after the solids, in the same operation, so labels on
top of bars are never painted over (give them `halo: true`); its `dx`/`dy` stay pixel offsets.

Options: `occluded: redraw` on a solid rejects a render in which one of its bound objects is less than a quarter
visible (it is drawn again, e.g. from another camera angle chosen in a `let`); by default such objects simply stay
out of the render map.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import EvalError
from .frames import CanvasFrame, _number
from .marks import Ctx, draw_text, mark, points_of
from .space import Face, box_faces, cylinder_faces, polygon3, prism_faces

CYLINDER_SEGMENTS = 32


@dataclass
class Shape3:
    faces: list[Face]
    box: tuple | None = None  # (lo, hi) world corners of an axis-aligned box, recorded in the render map
    smooth: bool = False  # a curved side made of facets (a cylinder): outlined on its silhouette only


def _camera(ctx: Ctx):
    if not hasattr(ctx.frame, "point3"):
        raise EvalError("3-D marks draw in a camera frame")
    return ctx.frame


def _positive(v, what: str) -> float:
    x = _number(v, what)
    if not x > 0:
        raise EvalError(f"{what} must be > 0, got {x:g}")
    return x


@mark("box")
def draw_box(ctx: Ctx, v: dict, opts: dict) -> Shape3:
    _camera(ctx)
    x, y, z = (_number(v.get(k, 0.0), k) for k in ("x", "y", "z"))
    dx, dy, dz = (_positive(v.get(k, 1.0), k) for k in ("dx", "dy", "dz"))
    return Shape3(box_faces(x, y, z, dx, dy, dz), ((x, y, z), (x + dx, y + dy, z + dz)))


@mark("prism")
def draw_prism(ctx: Ctx, v: dict, opts: dict) -> Shape3:
    _camera(ctx)
    base = [(_number(x, "x"), _number(y, "y")) for x, y in points_of(v["points"], "points")]
    z = _number(v.get("z", 0.0), "z")
    return Shape3(prism_faces(base, z, z + _positive(v["height"], "height")))


@mark("cylinder")
def draw_cylinder(ctx: Ctx, v: dict, opts: dict) -> Shape3:
    _camera(ctx)
    x, y, z = (_number(v.get(k, 0.0), k) for k in ("x", "y", "z"))
    return Shape3(cylinder_faces(x, y, z, z + _positive(v.get("height", 1.0), "height"),
                                 _positive(v.get("r", 0.5), "r"), CYLINDER_SEGMENTS), smooth=True)


def points3_of(value, what: str) -> list[tuple[float, float, float]]:
    """A points3 channel: records with x, y, z, or [x, y, z] triples."""
    if not isinstance(value, list):
        raise EvalError(f"{what} must be a list of 3-D points, got {value!r}")
    out = []
    for p in value:
        if isinstance(p, dict):
            out.append((_number(p["x"], "x"), _number(p["y"], "y"), _number(p["z"], "z")))
        elif isinstance(p, list) and len(p) == 3:
            out.append((_number(p[0], "x"), _number(p[1], "y"), _number(p[2], "z")))
        else:
            raise EvalError(f"{what}: a 3-D point is a record with x, y, z or a triple [x, y, z], got {p!r}")
    return out


@mark("face")
def draw_face(ctx: Ctx, v: dict, opts: dict) -> Shape3:
    _camera(ctx)
    return Shape3(polygon3(points3_of(v["points3"], "points3")))


@mark("text3")
def draw_text3(ctx: Ctx, v: dict, opts: dict):
    px, py = _camera(ctx).point3(v["x"], v["y"], v.get("z", 0.0))
    return draw_text(Ctx(ctx.painter, CanvasFrame((px, py, px, py)), ctx.sizes), {**v, "x": 0.0, "y": 0.0}, opts)
