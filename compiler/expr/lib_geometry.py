"""Plane geometry: polygons, lattice points, reflections and rotations, angles.

These operators work in *plane* coordinates as drawn by the `coordinate_plane` and `figure` components: x to the right,
y **up** (unlike the image-space helpers left_of/above in builtins.py, where y grows downward). A point is any
record with numeric `x` and `y` fields; a polygon is a list of points in order (closed implicitly). Operators that
move a point return a copy of the record with new `x`, `y`, so other fields (a vertex name) ride along and the
result has the argument's type. Integer coordinates stay integers: only moves that map the lattice onto itself
(reflections in the axes and diagonals, quarter turns about a lattice point, whole-number shifts) are allowed on
them.
"""
from __future__ import annotations

import math
from typing import Any

from ..errors import EvalError
from .builtins import _charge, _fail, _list_arg, _nonempty, _sort_cost, _where, builtin
from .compile import _checked_number
from .compile import Compiled
from .types import ANY, BOOL, FLOAT, INT, STR, ListT, RecordT, Type, has_xy, is_numeric, record

EPS = 1e-9
MAX_LATTICE_BOX = 100_000  # grid points a lattice count may visit

# Named plane transformations (used as option texts by tasks): name → (kind, argument).
TRANSFORMS: dict[str, tuple[str, Any]] = {  # (kind, its argument: an axis for reflect, an angle for rotate)
    "reflection in the x-axis": ("reflect", "x"),
    "reflection in the y-axis": ("reflect", "y"),
    "reflection in the line y = x": ("reflect", "y=x"),
    "reflection in the line y = -x": ("reflect", "y=-x"),
    "rotation of 90° counterclockwise about the origin": ("rotate", 90),
    "rotation of 90° clockwise about the origin": ("rotate", -90),
    "rotation of 180° about the origin": ("rotate", 180),
}
AXES = ("x", "y", "y=x", "y=-x", "origin")


# -- argument helpers -------------------------------------------------------------------------------------------
def _point_arg(ck, node, what: str):
    c = ck.compile(node)
    if c.type != ANY and not has_xy(c.type):
        ck.error(node, f"{what} must be a point (a record with numeric x and y), got {c.type}", code="type-mismatch")
        return None
    return c


def _polygon_arg(ck, node, what: str):
    c, elem = _list_arg(ck, node, what)
    if c is None:
        return None, None
    if elem != ANY and not has_xy(elem):
        ck.error(node, f"{what} must be a list of points (records with numeric x and y), got {c.type}",
                code="type-mismatch")
        return None, None
    return c, elem


def _int_coords(t: Type) -> bool:
    return isinstance(t, RecordT) and (t.field("x") == INT or t.field("y") == INT)


def _moved(p: dict, x, y, where: str = "", name: str = "") -> dict:
    """A copy of the point record with new coordinates (floats rounded so equal points compare equal), checked like
    arithmetic: integers inside the bound, floats finite."""
    for v in (x, y):
        _checked_number(v, where, lambda: f"{name}() of ({p['x']}, {p['y']})")
    if isinstance(x, float):
        x = round(x, 6) + 0.0
    if isinstance(y, float):
        y = round(y, 6) + 0.0
    return {**p, "x": x, "y": y}


def _xy(p) -> tuple:
    return p["x"], p["y"]


def _cross(o, a, b) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _polygon(pts: list, name: str, at_least: int = 3) -> list[tuple]:
    if len(pts) < at_least:
        raise EvalError(f"{name}() needs a polygon of at least {at_least} points, got {len(pts)}")
    return [_xy(p) for p in pts]


# -- measurement ------------------------------------------------------------------------------------------------
def signed_area(poly: list[tuple]) -> float:
    """Shoelace formula: positive for counter-clockwise order (y up)."""
    s = 0.0
    for (x0, y0), (x1, y1) in zip(poly, poly[1:] + poly[:1]):
        s += x0 * y1 - x1 * y0
    return s / 2


def on_segment(p, a, b) -> bool:
    if abs(_cross(a, b, p)) > EPS * max(1.0, abs(b[0] - a[0]) + abs(b[1] - a[1])):
        return False
    return min(a[0], b[0]) - EPS <= p[0] <= max(a[0], b[0]) + EPS and \
        min(a[1], b[1]) - EPS <= p[1] <= max(a[1], b[1]) + EPS


def on_boundary(p, poly: list[tuple]) -> bool:
    return any(on_segment(p, a, b) for a, b in zip(poly, poly[1:] + poly[:1]))


def strictly_inside(p, poly: list[tuple]) -> bool:
    """Even-odd ray casting; points on the boundary are not inside."""
    if on_boundary(p, poly):
        return False
    x, y = p
    inside = False
    for (x0, y0), (x1, y1) in zip(poly, poly[1:] + poly[:1]):
        if (y0 > y) != (y1 > y):
            xc = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
            if xc > x:
                inside = not inside
    return inside


def _segments_touch(a, b, c, d) -> bool:
    """Closed segments ab and cd share at least one point."""
    d1, d2, d3, d4 = _cross(c, d, a), _cross(c, d, b), _cross(a, b, c), _cross(a, b, d)
    if ((d1 > EPS and d2 < -EPS) or (d1 < -EPS and d2 > EPS)) and \
            ((d3 > EPS and d4 < -EPS) or (d3 < -EPS and d4 > EPS)):
        return True
    return on_segment(a, c, d) or on_segment(b, c, d) or on_segment(c, a, b) or on_segment(d, a, b)


def is_simple(poly: list[tuple]) -> bool:
    """At least three distinct vertices, no straight angle or spike at a vertex, no edges meeting except
    neighbours at their shared vertex."""
    n = len(poly)
    if n < 3 or len(set(poly)) != n:
        return False
    for i in range(n):
        if abs(_cross(poly[i - 1], poly[i], poly[(i + 1) % n])) <= EPS:
            return False
    edges = [(poly[i], poly[(i + 1) % n]) for i in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            if j == i + 1 or (i == 0 and j == n - 1):
                continue
            if _segments_touch(*edges[i], *edges[j]):
                return False
    return True


def interior_angles(poly: list[tuple]) -> list[float]:
    """Interior angle at each vertex of a simple polygon, in degrees (either orientation)."""
    orient = 1.0 if signed_area(poly) >= 0 else -1.0
    n = len(poly)
    out = []
    for i in range(n):
        a, b, c = poly[i - 1], poly[i], poly[(i + 1) % n]
        e1 = (b[0] - a[0], b[1] - a[1])
        e2 = (c[0] - b[0], c[1] - b[1])
        turn = math.degrees(math.atan2(e1[0] * e2[1] - e1[1] * e2[0], e1[0] * e2[0] + e1[1] * e2[1]))
        out.append(round(180.0 - orient * turn, 6))
    return out


def polygon_with_angles(angles: list[float], min_side: float = 0.3) -> list[tuple[float, float]]:
    """A convex polygon (counter-clockwise, y up) with the given interior angles, in order.

    Side directions follow from the angles (each vertex turns by 180° minus its angle); the side lengths are the
    lengths closest to all-equal that close the polygon (a least-norm correction of the all-ones vector). The result
    is scaled so its larger extent is 1 and shifted to start at (0, 0)."""
    n = len(angles)
    if n < 3:
        raise EvalError(f"polygon_with_angles() needs at least 3 angles, got {n}")
    if any(not 0 < a < 180 for a in angles):
        raise EvalError("polygon_with_angles(): every angle of a convex polygon lies strictly between 0 and 180")
    if abs(sum(angles) - (n - 2) * 180) > 1e-6:
        raise EvalError(f"polygon_with_angles(): the angles of a {n}-gon sum to {(n - 2) * 180}, not {sum(angles):g}")
    heading, dirs = 0.0, []
    for k in range(n):
        if k:
            heading += 180.0 - angles[k]
        dirs.append((math.cos(math.radians(heading)), math.sin(math.radians(heading))))
    # Solve min |l - 1|² subject to Σ l_k u_k = 0:  l = 1 - Uᵀ (U Uᵀ)⁻¹ U 1.
    sxx = sum(u[0] * u[0] for u in dirs)
    sxy = sum(u[0] * u[1] for u in dirs)
    syy = sum(u[1] * u[1] for u in dirs)
    rx, ry = sum(u[0] for u in dirs), sum(u[1] for u in dirs)
    det = sxx * syy - sxy * sxy
    if abs(det) < 1e-12:  # pragma: no cover - impossible for convex angles
        raise EvalError("polygon_with_angles(): degenerate directions")
    lx = (syy * rx - sxy * ry) / det
    ly = (sxx * ry - sxy * rx) / det
    lengths = [1.0 - (u[0] * lx + u[1] * ly) for u in dirs]
    if min(lengths) < min_side * max(lengths):
        raise EvalError("polygon_with_angles(): these angles need sides of very unequal length")
    pts, x, y = [], 0.0, 0.0
    for (ux, uy), length in zip(dirs, lengths):
        pts.append((x, y))
        x, y = x + ux * length, y + uy * length
    x0, y0 = min(p[0] for p in pts), min(p[1] for p in pts)
    scale = max(max(p[0] for p in pts) - x0, max(p[1] for p in pts) - y0)
    return [(round((px - x0) / scale, 4), round((py - y0) / scale, 4)) for px, py in pts]


# -- moves ------------------------------------------------------------------------------------------------------
def reflect_xy(x, y, axis: str) -> tuple[Any, Any]:  # numbers: ints stay ints
    if axis == "x":
        return x, -y
    if axis == "y":
        return -x, y
    if axis == "y=x":
        return y, x
    if axis == "y=-x":
        return -y, -x
    if axis == "origin":
        return -x, -y
    raise EvalError(f"reflect(): unknown axis '{axis}' (known: {', '.join(AXES)})")


def rotate_xy(x, y, cx, cy, degrees, integral: bool) -> tuple[Any, Any]:
    dx, dy = x - cx, y - cy
    if degrees % 90 == 0:
        k = int(degrees // 90) % 4
        dx, dy = [(dx, dy), (-dy, dx), (-dx, -dy), (dy, -dx)][k]
        return cx + dx, cy + dy
    if integral:
        raise EvalError(f"rotate() by {degrees}° would move integer coordinates off the lattice "
                        f"(only multiples of 90° keep them integers)")
    a = math.radians(degrees)
    return cx + dx * math.cos(a) - dy * math.sin(a), cy + dx * math.sin(a) + dy * math.cos(a)


def transform_xy(x, y, name: str) -> tuple[Any, Any]:
    spec = TRANSFORMS.get(name)
    if spec is None:
        raise EvalError(f"transform(): unknown transformation '{name}' (known: {'; '.join(TRANSFORMS)})")
    kind, arg = spec
    if kind == "reflect":
        return reflect_xy(x, y, arg)
    return rotate_xy(x, y, 0, 0, arg, True)


# -- builtins ---------------------------------------------------------------------------------------------------
def _poly_measure(name: str, fn, result: Type, doc: str, at_least: int = 3):
    @builtin(name, f"{name}(points)", 1, doc=doc)
    def typer(ck, node, args):
        c, _ = _polygon_arg(ck, args[0], f"the argument of {name}()")
        if c is None:
            return _fail(ck)
        f = c.fn

        where = _where(ck, node)

        def impl(env):
            pts = f(env)
            _charge(env, len(pts))
            return _checked_number(fn(env, _polygon(pts, name, at_least)), where, lambda: f"{name}()")

        return Compiled(result, impl)


_poly_measure("polygon_area", lambda env, poly: abs(signed_area(poly)), FLOAT,
              "area enclosed by a polygon (shoelace formula)")
_poly_measure("perimeter", lambda env, poly: sum(math.hypot(b[0] - a[0], b[1] - a[1])
                                                 for a, b in zip(poly, poly[1:] + poly[:1])), FLOAT,
              "total length of a polygon's sides")


def _is_simple_charged(env, poly):
    _charge(env, len(poly) * len(poly))
    return is_simple(poly)


def _angles_charged(env, poly):
    _charge(env, len(poly) * len(poly))  # the simplicity check compares every pair of sides
    if not is_simple(poly):
        raise EvalError("interior_angles() needs a simple polygon")
    return interior_angles(poly)


_poly_measure("is_simple", _is_simple_charged, BOOL,
              "true when the points, in order, form a simple polygon: distinct vertices, no straight or "
              "folded-back vertex, no edges crossing or touching except neighbours at their shared vertex",
              at_least=0)
_poly_measure("interior_angles", _angles_charged, ListT(FLOAT),
              "interior angle at each vertex of a simple polygon, in degrees, in vertex order")


def _lattice_inside(env, poly) -> int:
    xs, ys = [p[0] for p in poly], [p[1] for p in poly]
    x0, x1, y0, y1 = math.ceil(min(xs)), math.floor(max(xs)), math.ceil(min(ys)), math.floor(max(ys))
    cells = (x1 - x0 + 1) * (y1 - y0 + 1)
    if cells > MAX_LATTICE_BOX:
        raise EvalError(f"lattice_points_inside(): the polygon spans {cells} grid points "
                        f"(limit {MAX_LATTICE_BOX})")
    _charge(env, cells * len(poly))
    return sum(1 for gx in range(x0, x1 + 1) for gy in range(y0, y1 + 1) if strictly_inside((gx, gy), poly))


_poly_measure("lattice_points_inside", _lattice_inside, INT,
              "number of integer grid points strictly inside a polygon (boundary points excluded)")


def _point_poly(name: str, fn, doc: str):
    @builtin(name, f"{name}(point, points)", 2, doc=doc)
    def typer(ck, node, args):
        p = _point_arg(ck, args[0], f"the first argument of {name}()")
        c, _ = _polygon_arg(ck, args[1], f"the second argument of {name}()")
        if p is None or c is None:
            return _fail(ck)
        pf, f = p.fn, c.fn

        def impl(env):
            poly = f(env)
            _charge(env, len(poly))
            return fn(_xy(pf(env)), _polygon(poly, name, 2))

        return Compiled(BOOL, impl)


_point_poly("point_in_polygon", strictly_inside, "the point lies strictly inside the polygon (not on its boundary)")
_point_poly("on_boundary", on_boundary, "the point lies on a side (or at a vertex) of the polygon")


@builtin("order_around", "order_around(points)", 1,
         doc="the points sorted counter-clockwise (y up) by their angle about the centroid, starting from east; "
             "points of distinct angles in this order form a star-shaped polygon")
def _order_around(ck, node, args):
    c, elem = _polygon_arg(ck, args[0], "the argument of order_around()")
    if c is None:
        return _fail(ck)
    f = c.fn

    def impl(env):
        pts = _nonempty(f(env), "order_around")
        _charge(env, _sort_cost(len(pts)))
        cx = sum(p["x"] for p in pts) / len(pts)
        cy = sum(p["y"] for p in pts) / len(pts)
        keyed = sorted(((math.atan2(p["y"] - cy, p["x"] - cx) % (2 * math.pi),
                         math.hypot(p["x"] - cx, p["y"] - cy), i) for i, p in enumerate(pts)))
        return [pts[i] for _, _, i in keyed]

    return Compiled(ListT(elem), impl)


@builtin("same_points", "same_points(points, points)", 2,
         doc="the two lists hold the same set of positions (order and other fields ignored)")
def _same_points(ck, node, args):
    a, _ = _polygon_arg(ck, args[0], "the first argument of same_points()")
    b, _ = _polygon_arg(ck, args[1], "the second argument of same_points()")
    if a is None or b is None:
        return _fail(ck)
    af, bf = a.fn, b.fn

    def key(p):
        return round(float(p["x"]), 6), round(float(p["y"]), 6)

    def impl(env):
        xs, ys = af(env), bf(env)
        _charge(env, len(xs) + len(ys))
        return {key(p) for p in xs} == {key(p) for p in ys}

    return Compiled(BOOL, impl)


@builtin("reflect", "reflect(point, axis)", 2,
         doc="mirror image of a point: axis 'x' (the x-axis), 'y', 'y=x', 'y=-x' or 'origin' (point reflection)")
def _reflect(ck, node, args):
    p = _point_arg(ck, args[0], "the first argument of reflect()")
    a = ck.expect(args[1], STR, "the axis of reflect()")
    if p is None:
        return _fail(ck)
    pf, af = p.fn, a.fn
    where = _where(ck, node)

    def impl(env):
        pt = pf(env)
        return _moved(pt, *reflect_xy(pt["x"], pt["y"], af(env)), where, "reflect")

    return Compiled(p.type, impl)


@builtin("rotate", "rotate(point, center, degrees)", 3,
         doc="the point turned counter-clockwise (y up) about the center; negative degrees turn clockwise")
def _rotate(ck, node, args):
    p = _point_arg(ck, args[0], "the first argument of rotate()")
    c = _point_arg(ck, args[1], "the center of rotate()")
    d = ck.expect(args[2], FLOAT, "the angle of rotate()")
    if p is None or c is None:
        return _fail(ck)
    if _int_coords(p.type) and c.type != ANY and not _int_coords(c.type):
        return ck.error(args[1], "rotate() of a point with integer coordinates needs a center with integer ones",
                code="type-mismatch")
    integral = _int_coords(p.type)
    pf, cf, df = p.fn, c.fn, d.fn
    where = _where(ck, node)

    def impl(env):
        pt, ct = pf(env), cf(env)
        return _moved(pt, *rotate_xy(pt["x"], pt["y"], ct["x"], ct["y"], df(env), integral), where, "rotate")

    return Compiled(p.type, impl)


@builtin("translate", "translate(point, dx, dy)", 3, doc="the point shifted by (dx, dy)")
def _translate(ck, node, args):
    p = _point_arg(ck, args[0], "the first argument of translate()")
    want = INT if p is not None and _int_coords(p.type) else FLOAT
    dx = ck.expect(args[1], want, "the shift of translate()" + (" (the point has integer coordinates)"
                                                                 if want == INT else ""))
    dy = ck.expect(args[2], want, "the shift of translate()" + (" (the point has integer coordinates)"
                                                                 if want == INT else ""))
    if p is None:
        return _fail(ck)
    pf, xf, yf = p.fn, dx.fn, dy.fn
    where = _where(ck, node)

    def impl(env):
        pt = pf(env)
        return _moved(pt, pt["x"] + xf(env), pt["y"] + yf(env), where, "translate")

    return Compiled(p.type, impl)


@builtin("transform", "transform(point, name)", 2,
         doc="the point under a named plane transformation: " + "; ".join(TRANSFORMS))
def _transform(ck, node, args):
    p = _point_arg(ck, args[0], "the first argument of transform()")
    n = ck.expect(args[1], STR, "the name given to transform()")
    if p is None:
        return _fail(ck)
    pf, nf = p.fn, n.fn
    where = _where(ck, node)

    def impl(env):
        pt = pf(env)
        return _moved(pt, *transform_xy(pt["x"], pt["y"], nf(env)), where, "transform")

    return Compiled(p.type, impl)


@builtin("polygon_with_angles", "polygon_with_angles(angles)", 1,
         doc="vertices {x, y} of a convex polygon with these interior angles in order (degrees, summing to "
             "(n - 2) · 180), sides as equal as the angles allow, scaled into the unit square; fails when the "
             "angles force a side shorter than 0.3 of the longest")
def _polygon_with_angles(ck, node, args):
    c = ck.compile(args[0])
    if c.type != ANY and not (isinstance(c.type, ListT) and is_numeric(c.type.elem)):
        return ck.error(args[0], f"polygon_with_angles() needs a list of numbers, got {c.type}", code="type-mismatch")
    f = c.fn

    def impl(env):
        angles = f(env)
        _charge(env, len(angles))
        return [{"x": x, "y": y} for x, y in polygon_with_angles(angles)]

    return Compiled(ListT(record(x=FLOAT, y=FLOAT)), impl)
