"""3-D marks for the camera frame: box, prism, cylinder, sphere, cone, torus, pyramid, face (solids) and text3 (text
at a world point).

Positions are world units (x right, y forward, z up): in these marks `z` is the world height and `dx dy dz` a box's
sizes, not the draw order and pixel offsets of 2-D marks. Solids are not drawn one by one: the camera frame collects
every one of them and paints them together in depth order (see camera.py), shading each face by its direction and
outlining it in `stroke` (ink unless given). `text3` is drawn after the solids, in the same operation, so labels on
top of bars are never painted over (give them `halo: true`); its `dx`/`dy` stay pixel offsets.

Curved solids are tessellated into a stated number of flat facets (below), the same for every size: fine enough that
a sphere's outline at 512 px (r ≈ 200 px) stays within a pixel of the circle (32 segments: r·(1 − cos(π/32)) ≈ 1 px),
and paid for face by face like every solid (work.FACE_STEPS, POINT3_STEPS: a sphere ≈ 16,000 steps, a box ≈ 560).
Their facets are outlined on the silhouette and at creases only (space.mesh_edges), not as a wire grid.

Options: `occluded: redraw` on a solid rejects a render in which one of its bound objects is less than a quarter
visible (it is drawn again, e.g. from another camera angle chosen in a `let`); by default such objects simply stay
out of the render map.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from ..errors import EvalError
from .frames import CanvasFrame, _number
from .marks import Ctx, draw_text, mark, points_of
from .space import (Face, box_faces, cone_faces, cylinder_faces, mesh_edges, polygon3, prism_faces, pyramid_faces,
                    sphere_faces, torus_faces)

CYLINDER_SEGMENTS = 32
SPHERE_SEGMENTS, SPHERE_BANDS = 32, 16  # meridians and bands of latitude: 512 facets
CONE_SEGMENTS = 32  # triangles of a cone's side (and corners of its base)
TORUS_SEGMENTS, TORUS_TUBE = 32, 12  # quads around the axis and around the tube: 384 facets
CREASE_DEG = 40.0  # facets of a curved solid meeting at more than this are outlined where they meet (a cone's rim)


@dataclass
class Shape3:
    faces: list[Face]
    box: tuple | None = None  # (lo, hi) world corners of an axis-aligned box, recorded in the render map
    smooth: bool = False  # a curved side made of facets (a cylinder): outlined on its silhouette only
    # A curved surface of facets (sphere, cone, torus): per face tag and edge, True (always inked) or the tag of the
    # neighbouring facet (inked only when that one is turned away: the silhouette). See space.mesh_edges.
    mesh: dict[str, list[bool | str]] | None = None


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


@mark("sphere")
def draw_sphere(ctx: Ctx, v: dict, opts: dict) -> Shape3:
    _camera(ctx)
    x, y, z = (_number(v.get(k, 0.0), k) for k in ("x", "y", "z"))
    faces = sphere_faces(x, y, z, _positive(v.get("r", 0.5), "r"), SPHERE_SEGMENTS, SPHERE_BANDS)
    return Shape3(faces, mesh=_mesh("sphere"))


@mark("cone")
def draw_cone(ctx: Ctx, v: dict, opts: dict) -> Shape3:
    _camera(ctx)
    x, y, z = (_number(v.get(k, 0.0), k) for k in ("x", "y", "z"))
    r, height = _positive(v.get("r", 0.5), "r"), _positive(v.get("height", 1.0), "height")
    faces = cone_faces(x, y, z, z + height, r, CONE_SEGMENTS)
    return Shape3(faces, mesh=_mesh("cone"))


@mark("torus")
def draw_torus(ctx: Ctx, v: dict, opts: dict) -> Shape3:
    _camera(ctx)
    x, y, z = (_number(v.get(k, 0.0), k) for k in ("x", "y", "z"))
    r = _positive(v.get("r", 0.5), "r")
    r_inner = _positive(v.get("r_inner", 0.25), "r_inner")
    if not r_inner < r:
        raise EvalError(f"r_inner must be < r, got r_inner {r_inner:g} and r {r:g}")
    faces = torus_faces(x, y, z, r, r_inner, TORUS_SEGMENTS, TORUS_TUBE)
    return Shape3(faces, mesh=_mesh("torus"))


@mark("pyramid")
def draw_pyramid(ctx: Ctx, v: dict, opts: dict) -> Shape3:
    _camera(ctx)
    x, y, z = (_number(v.get(k, 0.0), k) for k in ("x", "y", "z"))
    half = _positive(v.get("size", 1.0), "size") / 2
    base = [(x - half, y - half, z), (x + half, y - half, z), (x + half, y + half, z), (x - half, y + half, z)]
    return Shape3(pyramid_faces(base, (x, y, z + _positive(v.get("height", 1.0), "height"))))


@functools.lru_cache(maxsize=8)
def _mesh(kind: str) -> dict[str, list[bool | str]]:
    """Which edges of a curved solid's facets are inked (space.mesh_edges): worked out once per kind, on a solid of
    unit size. It depends on the tessellation only — neighbours by tag, and creases that are such at any size (a
    cone's rim meets its base at more than CREASE_DEG however flat; the sphere's and torus' facets turn 11.25° and
    30° from their neighbours) — not on where the solid is or how large."""
    faces = {"sphere": lambda: sphere_faces(0.0, 0.0, 0.0, 1.0, SPHERE_SEGMENTS, SPHERE_BANDS),
             "cone": lambda: cone_faces(0.0, 0.0, 0.0, 1.0, 1.0, CONE_SEGMENTS),
             "torus": lambda: torus_faces(0.0, 0.0, 0.0, 1.0, 0.5, TORUS_SEGMENTS, TORUS_TUBE)}[kind]()
    return mesh_edges(faces, CREASE_DEG)


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
