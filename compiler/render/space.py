"""3-D geometry for the camera frame: cameras, solids as faces, painter's-algorithm order and occluded visibility.

Pure geometry: nothing here draws. The scene language builds solids from this module, asks for the order to paint
their faces in and for the pixel polygons of those faces, draws them with the Painter, and uses `visibility` to decide
which solids are visible enough to be witnesses in the render map.

Conventions (all of them, in one place):

* World: right-handed, x right (east), y forward (north, away from the viewer at azimuth 0), z up. World units are
  whatever the scene uses (a unit cube is 1 × 1 × 1); nothing here assumes a size.
* Camera angles in degrees. `azimuth` is the compass heading of the viewing direction: 0 looks along +y, 90 along
  +x (the camera turns clockwise seen from above as azimuth grows). `elevation` is how far the camera is raised
  above the ground plane, looking down: 0 looks level, 90 straight down.
* Screen: u to the right, v UP, in world units at the target (orthographic: everywhere). `depth` is the distance
  along the viewing direction from the eye (larger = farther). With no eye (orthographic without `distance`) depth
  is measured from the plane through the target, so it can be negative; only differences matter there.
* Pixels: (px, py) with py growing DOWN, as in the Painter. `Fit` maps (u, v) to pixels.
* Faces list their points counter-clockwise seen from outside, so the outward normal follows the right-hand rule.

With the default isometric camera (azimuth 45, elevation atan(1/√2)) a point projects to
    u = k·(x − y)·cos 30°,   v = k·(z + (x + y)·sin 30°),   k = √(2/3),
so a cube shows its top, its x− face (lower left on screen) and its y− face (lower right).

Order and visibility: `paint_order` is exact (every occluder after what it hides) for axis-aligned boxes of any
sizes, and for disjoint convex solids whenever a face plane separates them; `visibility` samples cell centres of an
id buffer, so fractions are exact to the cell (it reads the counts off the runs of cells of each face, as the buffer
would give them, without painting one: see _top_intervals).

Determinism: trigonometric values are rounded to 12 decimals before use (libm implementations may differ in the last
bit between machines) and depths are rounded to 9 decimals where they decide an order, so the same scene gives the
same order and the same pixels everywhere. No randomness anywhere.
"""
from __future__ import annotations

import functools
import heapq
import math
from dataclasses import dataclass, field
from typing import Callable, Hashable, NamedTuple, Sequence

import numpy as np

Vec3 = tuple[float, float, float]
Vec2 = tuple[float, float]

ISO_AZIMUTH = 45.0
ISO_ELEVATION = math.degrees(math.atan(1 / math.sqrt(2)))  # 35.2643897°: the three axes foreshorten equally
PROJECTIONS = ("orthographic", "isometric", "perspective")

# The light comes from above, a little from the front-left of the default view (towards −x, −y). It is a direction
# *towards* the light. Chosen so that tops are lightest and each of the four vertical sides gets a different shade,
# whichever two of them a camera sees (see Face.shade).
LIGHT_DIR: Vec3 = (-0.25 / 1.1247221879201994, -0.45 / 1.1247221879201994, 1.0 / 1.1247221879201994)
SHADE_MIN, SHADE_MAX = 0.55, 1.0

EPS = 1e-9  # geometric tolerance in world units: touching solids (a cube on a cube) count as separated
DEPTH_DECIMALS = 9  # depths are rounded to this before they decide an order (ties then break by id)


def _snap(x: float) -> float:
    # Rounded so that a last-bit difference between libm implementations cannot change an order or a pixel.
    return round(x, 12) + 0.0  # + 0.0 turns -0.0 into 0.0


def _dot(a: Sequence[float], b: Sequence[float]) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _sub(a: Sequence[float], b: Sequence[float]) -> Vec3:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _unit(v: Sequence[float]) -> Vec3:
    n = math.sqrt(_dot(v, v))
    if n < 1e-12:
        raise ValueError("degenerate face: its points do not span a plane")
    return (v[0] / n, v[1] / n, v[2] / n)


# -- camera ------------------------------------------------------------------------------------------------------
class Camera:
    """A camera looking at `target`. `project(x, y, z) -> (u, v, depth)`; see the module docstring for conventions.

    isometric: orthographic with the elevation fixed at atan(1/√2) and the azimuth one of 45, 135, 225, 315 (−45,
    −135): every one of those is a true isometric view, only of another corner. Any other azimuth, or an elevation
    other than the default, is an error rather than silently ignored.
    perspective: a pinhole `distance` world units from the target (required, > 0). u and v are scaled so that at the
    target's depth they equal the orthographic u and v; nearer is larger, farther smaller.
    orthographic: `distance`, when given, only places an eye for `depth` to be measured from.
    """

    def __init__(self, projection: str = "isometric", azimuth: float = ISO_AZIMUTH,
                 elevation: float = ISO_ELEVATION, distance: float | None = None,
                 target: Sequence[float] = (0.0, 0.0, 0.0)):
        if projection not in PROJECTIONS:
            raise ValueError(f"unknown projection '{projection}' (known: {', '.join(PROJECTIONS)})")
        if projection == "isometric":
            if abs(elevation - ISO_ELEVATION) > 1e-3:
                raise ValueError(f"an isometric camera has elevation {ISO_ELEVATION:.3f}, not {elevation}")
            if (azimuth - 45.0) % 90.0 != 0.0:
                raise ValueError(f"an isometric camera has azimuth 45 + 90·k, not {azimuth}")
            elevation = ISO_ELEVATION
        if not 0.0 <= elevation <= 90.0:
            raise ValueError(f"elevation must be within 0..90 degrees, not {elevation}")
        if projection == "perspective" and (distance is None or not distance > 0):
            raise ValueError("a perspective camera needs a distance > 0")
        if distance is not None and not distance > 0:
            raise ValueError(f"distance must be > 0, not {distance}")
        self.projection, self.azimuth, self.elevation, self.distance = projection, azimuth, elevation, distance
        self.target: Vec3 = (float(target[0]), float(target[1]), float(target[2]))
        a, e = math.radians(azimuth), math.radians(elevation)
        ca, sa, ce, se = _snap(math.cos(a)), _snap(math.sin(a)), _snap(math.cos(e)), _snap(math.sin(e))
        # Basis: view_dir heads along the azimuth and dips by the elevation; right stays horizontal (so it is defined
        # even looking straight down); up = right × view_dir.
        self.view_dir: Vec3 = (sa * ce, ca * ce, -se)
        self.right: Vec3 = (ca, -sa, 0.0)
        self.up: Vec3 = (sa * se, ca * se, ce)
        self.perspective = projection == "perspective"
        t, f = self.target, self.view_dir
        self.eye: Vec3 | None = None if distance is None else (
            t[0] - distance * f[0], t[1] - distance * f[1], t[2] - distance * f[2])

    def pinhole(self) -> tuple[float, Vec3]:
        """A perspective camera's distance and eye (__init__ requires the distance, so both are set)."""
        if self.distance is None or self.eye is None:
            raise ValueError("an orthographic camera without a distance has no pinhole")
        return self.distance, self.eye

    def depth(self, p: Sequence[float]) -> float:
        """Distance along view_dir from the eye (or from the target's plane when there is no eye)."""
        o = self.target if self.eye is None else self.eye
        return _dot(_sub(p, o), self.view_dir)

    def project(self, x: float, y: float, z: float) -> tuple[float, float, float]:
        d = _sub((x, y, z), self.target)
        u, v = _dot(d, self.right), _dot(d, self.up)
        depth = self.depth((x, y, z))
        if self.perspective:
            if depth <= EPS:
                raise ValueError(f"point ({x}, {y}, {z}) is not in front of the perspective camera")
            k = self.pinhole()[0] / depth
            u, v = u * k, v * k
        return u, v, depth

    def project_many(self, points: np.ndarray) -> np.ndarray:
        """(N, 3) world points → (N, 3) rows of (u, v, depth); the same arithmetic as `project`, vectorised."""
        pts = np.asarray(points, dtype=float)
        d = pts - np.array(self.target)
        u, v = d @ np.array(self.right), d @ np.array(self.up)
        o = np.array(self.target if self.eye is None else self.eye)
        depth = (pts - o) @ np.array(self.view_dir)
        if self.perspective:
            if (depth <= EPS).any():
                raise ValueError("a point is not in front of the perspective camera")
            k = self.distance / depth
            u, v = u * k, v * k
        return np.stack([u, v, depth], axis=1)

    def faces_camera(self, face: "Face") -> bool:
        """Is the outer side of the face turned towards the camera (back-face culling)? A two-sided face is, from
        either side; any face seen exactly edge-on is not (it would cover no area)."""
        if self.perspective:
            facing = _dot(face.normal, _sub(self.pinhole()[1], face.points[0]))
        else:
            facing = -_dot(face.normal, self.view_dir)
        return abs(facing) > EPS if face.two_sided else facing > EPS


# -- fitting projected points into pixels ------------------------------------------------------------------------
@dataclass(frozen=True)
class Fit:
    """Uniform scale (pixels per world unit on screen) and centring: aspect is preserved, py grows down."""
    scale: float
    center_uv: Vec2  # the (u, v) that lands on center_px
    center_px: Vec2

    def to_px(self, u: float, v: float) -> Vec2:
        return (self.center_px[0] + (u - self.center_uv[0]) * self.scale,
                self.center_px[1] - (v - self.center_uv[1]) * self.scale)


def fit(points_uv: Sequence[Sequence[float]], box: Sequence[float], margin: float = 0.0) -> Fit:
    """The largest uniform scale that puts every (u, v) inside box = (x0, y0, x1, y1) less `margin` px on each side,
    with the points' bounding box centred in the pixel box. Extra items in a point (depth) are ignored."""
    if not points_uv:
        raise ValueError("fit needs at least one point")
    us, vs = [p[0] for p in points_uv], [p[1] for p in points_uv]
    x0, y0, x1, y1 = box
    avail_w, avail_h = (x1 - x0) - 2 * margin, (y1 - y0) - 2 * margin
    if avail_w <= 0 or avail_h <= 0:
        raise ValueError(f"margin {margin} leaves no room in box {tuple(box)}")
    span_u, span_v = max(us) - min(us), max(vs) - min(vs)
    scales = [s for s in (avail_w / span_u if span_u > EPS else None, avail_h / span_v if span_v > EPS else None)
              if s is not None]
    scale = min(scales) if scales else 1.0  # a single point: any scale centres it
    return Fit(scale, ((min(us) + max(us)) / 2, (min(vs) + max(vs)) / 2), ((x0 + x1) / 2, (y0 + y1) / 2))


def box_corners(lo: Sequence[float], hi: Sequence[float]) -> list[Vec3]:
    """The 8 corners of an axis-aligned box: project these for the scene's bounds and fit to them, so the scale does
    not depend on which objects happen to exist."""
    return [(x, y, z) for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]


# -- faces and solids --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Face:
    points: tuple[Vec3, ...]  # counter-clockwise seen from outside
    normal: Vec3  # outward, unit length
    tag: str  # which face of its solid: "top", "bottom", "x-", "x+", "y-", "y+", "side3", "base", "face"
    two_sided: bool = False  # a lone polygon (a sign, a floor tile) is seen from both sides and never culled

    @property
    def centroid(self) -> Vec3:
        n = len(self.points)
        return (sum(p[0] for p in self.points) / n, sum(p[1] for p in self.points) / n,
                sum(p[2] for p in self.points) / n)

    def shade(self, light_dir: Sequence[float] = LIGHT_DIR) -> float:
        """Brightness factor in [0.55, 1.0] to multiply the fill colour by. A squared half-Lambert term
        ((1 + n·l) / 2)² rather than plain Lambert, so faces turned away from the light still differ from each other
        (plain Lambert gives every unlit side the same floor) while tops stay clearly lightest: with LIGHT_DIR a top
        gets 0.95, the four sides 0.72 (x−), 0.77 (y−), 0.62 (x+), 0.59 (y+), a bottom 0.55."""
        l = _unit(light_dir)
        c = _dot(self.normal, l)
        if self.two_sided and c < 0:
            c = -c  # a two-sided face is lit on whichever side faces the light
        return SHADE_MIN + (SHADE_MAX - SHADE_MIN) * ((1.0 + c) / 2.0) ** 2


def _newell_normal(points: Sequence[Vec3]) -> Vec3:
    # Newell's method: robust for any simple planar polygon, convex or not, and follows the winding.
    nx = ny = nz = 0.0
    n = len(points)
    for i in range(n):
        a, b = points[i], points[(i + 1) % n]
        nx += (a[1] - b[1]) * (a[2] + b[2])
        ny += (a[2] - b[2]) * (a[0] + b[0])
        nz += (a[0] - b[0]) * (a[1] + b[1])
    return _unit((nx, ny, nz))


def _face(points: Sequence[Sequence[float]], tag: str, normal: Vec3 | None = None, two_sided: bool = False) -> Face:
    pts = tuple((float(p[0]), float(p[1]), float(p[2])) for p in points)
    return Face(pts, normal if normal is not None else _newell_normal(pts), tag, two_sided)


def box_faces(x: float, y: float, z: float, dx: float, dy: float, dz: float) -> list[Face]:
    """An axis-aligned box from corner (x, y, z) with sizes dx, dy, dz > 0. Tags: x-, x+, y-, y+, bottom, top."""
    if not (dx > 0 and dy > 0 and dz > 0):
        raise ValueError(f"box sizes must be > 0, not {dx}, {dy}, {dz}")
    # Converted once (as _face would convert each point): the 8 corners are shared by the 6 faces.
    x, y, z, dx, dy, dz = float(x), float(y), float(z), float(dx), float(dy), float(dz)
    x1, y1, z1 = x + dx, y + dy, z + dz
    return [
        Face(((x, y, z), (x, y, z1), (x, y1, z1), (x, y1, z)), (-1.0, 0.0, 0.0), "x-"),
        Face(((x1, y, z), (x1, y1, z), (x1, y1, z1), (x1, y, z1)), (1.0, 0.0, 0.0), "x+"),
        Face(((x, y, z), (x1, y, z), (x1, y, z1), (x, y, z1)), (0.0, -1.0, 0.0), "y-"),
        Face(((x, y1, z), (x, y1, z1), (x1, y1, z1), (x1, y1, z)), (0.0, 1.0, 0.0), "y+"),
        Face(((x, y, z), (x, y1, z), (x1, y1, z), (x1, y, z)), (0.0, 0.0, -1.0), "bottom"),
        Face(((x, y, z1), (x1, y, z1), (x1, y1, z1), (x, y1, z1)), (0.0, 0.0, 1.0), "top"),
    ]


def _ccw(base: Sequence[Sequence[float]]) -> list[Vec2]:
    pts = [(float(p[0]), float(p[1])) for p in base]
    if len(pts) < 3:
        raise ValueError("a base polygon needs at least 3 points")
    area2 = sum(pts[i][0] * pts[(i + 1) % len(pts)][1] - pts[(i + 1) % len(pts)][0] * pts[i][1]
                for i in range(len(pts)))
    if abs(area2) < EPS:
        raise ValueError("a base polygon needs a non-zero area")
    return pts if area2 > 0 else pts[::-1]


def prism_faces(base: Sequence[Sequence[float]], z0: float, z1: float) -> list[Face]:
    """A vertical extrusion of a simple polygon (convex or not; either winding) from z0 to z1 > z0.
    Tags: bottom, top, and side{i} for the edge from base point i to i + 1 after the base is made counter-clockwise
    (so side numbering follows the given order when the base is given counter-clockwise)."""
    if not z1 > z0:
        raise ValueError(f"a prism needs z1 > z0, not {z0}, {z1}")
    pts = _ccw(base)
    faces = [_face([(x, y, z0) for x, y in reversed(pts)], "bottom", (0.0, 0.0, -1.0)),
             _face([(x, y, z1) for x, y in pts], "top", (0.0, 0.0, 1.0))]
    n = len(pts)
    for i in range(n):
        (ax, ay), (bx, by) = pts[i], pts[(i + 1) % n]
        normal = _unit((by - ay, ax - bx, 0.0))  # the edge turned clockwise: outward for a counter-clockwise base
        faces.append(_face([(ax, ay, z0), (bx, by, z0), (bx, by, z1), (ax, ay, z1)], f"side{i}", normal))
    return faces


def cylinder_faces(cx: float, cy: float, z0: float, z1: float, r: float, segments: int = 24) -> list[Face]:
    """An upright cylinder as a prism over a regular `segments`-gon inscribed in the circle, its first vertex due
    east (+x) of the axis. Tags: bottom, top, side{i} (i counter-clockwise from east)."""
    if segments < 3 or not r > 0:
        raise ValueError("a cylinder needs r > 0 and at least 3 segments")
    base = [(cx + r * c, cy + r * s) for c, s in _unit_circle(segments)]
    return prism_faces(base, z0, z1)


@functools.lru_cache(maxsize=64)
def _unit_circle(segments: int) -> tuple[tuple[float, float], ...]:
    """The snapped (cos, sin) of the `segments` directions 2πi/segments: the same for every cylinder, so worked out
    once per segment count."""
    return tuple((_snap(math.cos(2 * math.pi * i / segments)), _snap(math.sin(2 * math.pi * i / segments)))
                 for i in range(segments))


def pyramid_faces(base: Sequence[Sequence[float]], apex: Sequence[float]) -> list[Face]:
    """A pyramid over a planar simple polygon of 3-D points (either winding) with an apex off its plane.
    Tags: base, side{i} for the triangle over base edge i → i + 1 (in the given order)."""
    pts = [(float(p[0]), float(p[1]), float(p[2])) for p in base]
    if len(pts) < 3:
        raise ValueError("a pyramid base needs at least 3 points")
    n_base = _newell_normal(pts)
    height = _dot(_sub(apex, pts[0]), n_base)
    if abs(height) < EPS:
        raise ValueError("a pyramid's apex must lie off its base plane")
    if height > 0:  # the base must face away from the apex
        pts, n_base = pts[::-1], (-n_base[0] + 0.0, -n_base[1] + 0.0, -n_base[2] + 0.0)
        reversed_order = True
    else:
        reversed_order = False
    sides = []
    n = len(pts)
    apex3 = (float(apex[0]), float(apex[1]), float(apex[2]))
    for i in range(n):
        a, b = pts[i], pts[(i + 1) % n]
        # With the base counter-clockwise seen from below, a side (b, a, apex) is counter-clockwise from outside.
        j = (n - 2 - i) % n if reversed_order else i  # the edge's index in the order the caller gave
        sides.append((j, _face([b, a, apex3], f"side{j}")))
    return [_face(pts, "base", n_base)] + [f for _, f in sorted(sides, key=lambda t: t[0])]


def _outward(points: Sequence[Vec3], centre: Sequence[float], tag: str) -> Face:
    """A facet of a curved surface, wound counter-clockwise seen from outside: outside is away from `centre` (the
    sphere's centre, the point of the torus' tube circle nearest the facet)."""
    face = _face(points, tag)
    c = face.centroid
    if _dot(face.normal, _sub(c, centre)) < 0:
        face = _face(points[::-1], tag)
    return face


def sphere_faces(cx: float, cy: float, cz: float, r: float, segments: int = 32, bands: int = 16) -> list[Face]:
    """A UV sphere of radius r around (cx, cy, cz): `segments` meridians (the first due east, +x) and `bands` bands
    of latitude, quads between them and a fan of triangles at each pole. Every corner lies on the sphere, so its
    outline seen along any direction is within r·(1 − cos(π/segments)) of the true circle. Tags: cell{band}_{k}.
    The unit sphere is built once per tessellation and moved into place (normals do not change)."""
    if segments < 3 or bands < 2 or not r > 0:
        raise ValueError("a sphere needs r > 0, at least 3 segments and 2 bands")
    cx, cy, cz, r = float(cx), float(cy), float(cz), float(r)
    return [Face(tuple((cx + r * x, cy + r * y, cz + r * z) for x, y, z in f.points), f.normal, f.tag)
            for f in _unit_sphere(segments, bands)]


@functools.lru_cache(maxsize=8)
def _unit_sphere(segments: int, bands: int) -> tuple[Face, ...]:
    ring = _unit_circle(segments)
    lat = [(_snap(math.cos(math.pi * (i / bands - 0.5))), _snap(math.sin(math.pi * (i / bands - 0.5))))
           for i in range(bands + 1)]
    # One tuple per grid point, shared by the faces that meet there (the outline finds neighbours by their corners).
    grid = [[(cl * c, cl * s, sl) for c, s in ring] for cl, sl in lat]
    south, north = (0.0, 0.0, -1.0), (0.0, 0.0, 1.0)
    faces: list[Face] = []
    for i in range(bands):
        for k in range(segments):
            k1 = (k + 1) % segments
            if i == 0:
                pts = [south, grid[1][k1], grid[1][k]]
            elif i == bands - 1:
                pts = [grid[i][k], grid[i][k1], north]
            else:
                pts = [grid[i][k], grid[i][k1], grid[i + 1][k1], grid[i + 1][k]]
            faces.append(_outward(pts, (0.0, 0.0, 0.0), f"cell{i}_{k}"))
    return tuple(faces)


def cone_faces(cx: float, cy: float, z0: float, z1: float, r: float, segments: int = 32) -> list[Face]:
    """An upright cone: a `segments`-gon base of radius r around (cx, cy) at z0 (first corner due east, as a
    cylinder's) and a fan of triangles up to the apex (cx, cy, z1). Tags: base, side{i}."""
    if segments < 3 or not r > 0 or not z1 > z0:
        raise ValueError("a cone needs r > 0, a height > 0 and at least 3 segments")
    return pyramid_faces([(cx + r * c, cy + r * s, z0) for c, s in _unit_circle(segments)], (cx, cy, z1))


def torus_faces(cx: float, cy: float, cz: float, r: float, r_inner: float, segments: int = 32,
                tube: int = 12) -> list[Face]:
    """A ring lying flat around the vertical axis through (cx, cy), its tube's centre circle at height cz: outer
    radius r, hole radius r_inner (0 < r_inner < r), so the tube's radius is (r − r_inner)/2. `segments` quads around
    the axis (the first due east), `tube` around the tube. Not convex: its own facets are painted farthest first.
    Tags: cell{k}_{j}."""
    if segments < 3 or tube < 3 or not 0 < r_inner < r:
        raise ValueError(f"a torus needs 0 < r_inner < r, not r_inner {r_inner}, r {r}")
    big, small = (r + r_inner) / 2, (r - r_inner) / 2
    ring, around = _unit_circle(segments), _unit_circle(tube)
    grid = [[(cx + (big + small * ct) * c, cy + (big + small * ct) * s, cz + small * st) for ct, st in around]
            for c, s in ring]
    faces: list[Face] = []
    for k in range(segments):
        k1 = (k + 1) % segments
        c, s = ring[k]
        c1, s1 = ring[k1]
        for j in range(tube):
            j1 = (j + 1) % tube
            # Outward from the tube's centre circle at the middle of the facet's angular span.
            pts = [grid[k][j], grid[k1][j], grid[k1][j1], grid[k][j1]]
            if not faces:  # every quad is wound alike: the first one tells which way is out
                mid = (cx + big * (c + c1) / 2, cy + big * (s + s1) / 2, cz)
                flip = _outward(pts, mid, "").points != tuple(pts)
            faces.append(_face(pts[::-1] if flip else pts, f"cell{k}_{j}"))
    return faces


def mesh_edges(faces: Sequence[Face], crease_deg: float) -> dict[str, list[bool | str]]:
    """For a curved surface made of facets: per face tag, per edge (point i to i + 1), whether it is drawn whatever
    the view — an open edge, or a crease where the neighbouring facet turns more than `crease_deg` away (a cone's rim
    against its base) — else the tag of the neighbour it is shared with (drawn only when that one is turned away,
    i.e. on the silhouette). Neighbours are found by their shared corner points (equal coordinates: each builder
    works a grid point out once)."""
    owner: dict[frozenset, list[tuple[Face, int]]] = {}
    for f in faces:
        n = len(f.points)
        for i in range(n):
            owner.setdefault(frozenset((f.points[i], f.points[(i + 1) % n])), []).append((f, i))
    limit = math.cos(math.radians(crease_deg))
    out: dict[str, list[bool | str]] = {}
    for f in faces:
        n = len(f.points)
        marks: list[bool | str] = []
        for i in range(n):
            others = [g for g, _ in owner[frozenset((f.points[i], f.points[(i + 1) % n]))] if g is not f]
            if len(others) != 1 or _dot(f.normal, others[0].normal) < limit:
                marks.append(True)
            else:
                marks.append(others[0].tag)
        out[f.tag] = marks
    return out


def polygon3(points: Sequence[Sequence[float]], two_sided: bool = True) -> list[Face]:
    """A single planar face (a floor tile, a sign), as a one-face list like every other builder. Two-sided by
    default, so it is drawn whichever way it faces; its normal follows the given winding."""
    if len(points) < 3:
        raise ValueError("a polygon needs at least 3 points")
    return [_face(points, "face", two_sided=two_sided)]


@dataclass(frozen=True)
class Solid:
    """An id (a render-map path, an int: unique within a scene) and the faces of one object."""
    id: Hashable
    faces: tuple[Face, ...]
    _verts: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        faces = tuple(self.faces)
        if not faces:
            raise ValueError(f"solid {self.id!r} has no faces")
        object.__setattr__(self, "faces", faces)
        # The distinct points in lexicographic order (what np.unique(axis=0) gives, without its cost per call).
        verts = np.array(sorted({p for f in faces for p in f.points}), dtype=float)
        object.__setattr__(self, "_verts", verts)

    @property
    def lo(self) -> np.ndarray:
        return self._verts.min(axis=0)

    @property
    def hi(self) -> np.ndarray:
        return self._verts.max(axis=0)


# -- depth ordering ----------------------------------------------------------------------------------------------
class OrderCharge(NamedTuple):
    """Callbacks paint_order tells of its work before doing it: `candidates` of the array work on pairs of solids
    (screen boxes that overlap along u, then the separating-axis test scaled by silhouette size), `pairs` of the pairs
    that go on to the Python loop, `votes` of those among them that need face planes (_plane_vote). Each may raise to
    stop the order."""
    candidates: Callable[[int], None]
    pairs: Callable[[int], None]
    votes: Callable[[int], None]


class PaintFace(NamedTuple):
    id: Hashable  # the solid's id
    face: Face


def _id_key(i: Hashable) -> tuple:
    # Ints before strings, each in natural order; anything else by its repr. Only used to break exact ties.
    if isinstance(i, bool) or not isinstance(i, (int, str)):
        return (2, repr(i))
    return (0, i, "") if isinstance(i, int) else (1, 0, i)


def _axis_votes(lo: np.ndarray, hi: np.ndarray, I: np.ndarray, J: np.ndarray, camera: Camera):
    """For pairs (I[p], J[p]) of solids, what their bounding boxes say: +1 where I may hide J, −1 where J may hide I,
    0 where neither can; and whether any world axis separates the pair at all.

    Any plane with one solid on each side decides which is nearer along every ray that meets both, so all such
    planes agree whenever the two can overlap on screen (and when two disagree, no ray meets both). The planes
    between bounding boxes along x, y and z are such planes for any solids, and for axis-aligned boxes one always
    exists: so cube stacks, bar charts and shelves are ordered exactly. Along one axis, with I below J (I ≤ hi_i ≤
    lo_j ≤ J): orthographic rays all run along view_dir, so they meet I first when view_dir points up that axis and
    neither when it is square to it; perspective rays fan out from the eye, which sees I first from I's side, J first
    from J's side, and from between the two can look at one or the other but never through both."""
    lo_i, hi_i, lo_j, hi_j = lo[I], hi[I], lo[J], hi[J]
    below = hi_i <= lo_j + EPS  # (pairs, 3): I lies below J along the axis
    above = (hi_j <= lo_i + EPS) & ~below
    if camera.perspective:
        eye = np.array(camera.eye)
        vote_below = np.where(eye <= hi_i + EPS, 1, np.where(eye >= lo_j - EPS, -1, 0))
        vote_above = -np.where(eye <= hi_j + EPS, 1, np.where(eye >= lo_i - EPS, -1, 0))
    else:
        f = np.array(camera.view_dir)
        toward = np.where(f > EPS, 1, np.where(f < -EPS, -1, 0))
        vote_below = np.broadcast_to(toward, below.shape)
        vote_above = -vote_below
    sep = below | above
    vote = np.where(below, vote_below, np.where(above, vote_above, 0))
    pos, neg, none = (sep & (vote > 0)).any(axis=1), (sep & (vote < 0)).any(axis=1), (sep & (vote == 0)).any(axis=1)
    verdict = np.where(pos & ~neg & ~none, 1, np.where(neg & ~pos & ~none, -1, 0))
    return verdict, sep.any(axis=1)


def _plane_vote(a: "_Prepared", b: "_Prepared", camera: Camera) -> int:
    """For two solids no world axis separates: try the face planes of either (each exact for convex solids), as in
    _axis_votes; failing that (they interpenetrate, or are not convex), the farther centroid is painted first."""
    f = np.array(camera.view_dir)
    eye = np.array(camera.eye) if camera.perspective else None
    votes = set()
    for p, q, sign in ((a, b, 1), (b, a, -1)):
        # p lies at n·x ≤ p_hi behind each of its face planes; q is beyond the plane when all of it is at ≥ p_hi.
        normals, plane_hi = p.planes()
        q_lo = (q.verts @ normals.T).min(axis=0)
        for j in np.flatnonzero(q_lo >= plane_hi - EPS):
            n, p_hi, lo_q = normals[j], float(plane_hi[j]), float(q_lo[j])
            if eye is None:
                toward = float(n @ f)
                vote = 1 if toward > EPS else (-1 if toward < -EPS else 0)
            else:
                e = float(n @ eye)
                vote = 1 if e <= p_hi + EPS else (-1 if e >= lo_q - EPS else 0)
            votes.add(sign * vote)
        if votes:
            break
    if not votes:
        return 1 if a.depth < b.depth else (-1 if b.depth < a.depth else 0)
    return votes.pop() if len(votes) == 1 else 0


class _Prepared:
    """A solid with what ordering needs: culled faces (farthest first), vertices, depth, silhouette; its face planes
    only when a pair needs them (_plane_vote: solids no world axis separates, rare in box scenes)."""

    def __init__(self, solid: Solid, camera: Camera, uv: np.ndarray, faces: list[Face]):
        self.solid = solid
        self.verts = solid._verts
        self.depth = round(camera.depth(tuple(self.verts.mean(axis=0))), DEPTH_DECIMALS)
        self.uv = uv
        self.faces = faces
        self._planes: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def hull(self) -> list[Vec2]:
        return _hull2(self.uv)

    def planes(self) -> tuple[np.ndarray, np.ndarray]:
        """(face normals, the solid's extent along each: max n·x over its vertices)."""
        if self._planes is None:
            normals = np.array([f.normal for f in self.solid.faces], dtype=float)
            self._planes = (normals, (self.verts @ normals.T).max(axis=0))
        return self._planes


def _visible_faces(items: Sequence[Solid], camera: Camera) -> list[list[Face]]:
    """Per solid, the faces that face the camera (Camera.faces_camera), farthest centroid first, ties by position.

    The same arithmetic as faces_camera and depth(centroid) face by face (elementwise float64 operations in the same
    order, Python's own round), vectorised over every face of the scene: faces are grouped by their number of points
    so each group is one array."""
    faces = [f for s in items for f in s.faces]
    owner = [k for k, s in enumerate(items) for _ in s.faces]
    m = np.array([len(f.points) for f in faces])
    facing = np.empty(len(faces), dtype=bool)
    depth = np.empty(len(faces))
    f0, f1, f2 = camera.view_dir
    o = camera.target if camera.eye is None else camera.eye
    for size in sorted(set(m.tolist())):
        idx = np.flatnonzero(m == size)
        pts = np.array([faces[i].points for i in idx.tolist()], dtype=float)  # (faces, size, 3)
        nrm = np.array([faces[i].normal for i in idx.tolist()], dtype=float)
        if camera.perspective:
            e = camera.pinhole()[1]
            c = (nrm[:, 0] * (e[0] - pts[:, 0, 0]) + nrm[:, 1] * (e[1] - pts[:, 0, 1])
                 + nrm[:, 2] * (e[2] - pts[:, 0, 2]))
        else:
            c = -(nrm[:, 0] * f0 + nrm[:, 1] * f1 + nrm[:, 2] * f2)
        two = np.array([faces[i].two_sided for i in idx.tolist()], dtype=bool)
        facing[idx] = np.where(two, np.abs(c) > EPS, c > EPS)
        acc = 0.0 + pts[:, 0]  # Face.centroid: sum() from 0, point by point, then / n
        for j in range(1, size):
            acc = acc + pts[:, j]
        cen = acc / size
        depth[idx] = (cen[:, 0] - o[0]) * f0 + (cen[:, 1] - o[1]) * f1 + (cen[:, 2] - o[2]) * f2
    out: list[list] = [[] for _ in items]
    shown = np.flatnonzero(facing)
    for i, d in zip(shown.tolist(), depth[shown].tolist()):
        out[owner[i]].append((-round(d, DEPTH_DECIMALS), i))
    return [[faces[i] for _, i in sorted(keys)] for keys in out]


def _hull2(points: np.ndarray) -> list[Vec2]:
    """Convex hull (Andrew's monotone chain), counter-clockwise, deterministic; 1 or 2 points when degenerate."""
    pts = sorted({(u, v) for u, v in np.asarray(points, dtype=float)[:, :2].tolist()})
    if len(pts) <= 2:
        return pts

    def half(seq):
        out: list = []
        for p in seq:
            while len(out) >= 2 and ((out[-1][0] - out[-2][0]) * (p[1] - out[-2][1]) -
                                     (out[-1][1] - out[-2][1]) * (p[0] - out[-2][0])) <= 0:
                out.pop()
            out.append(p)
        return out

    lower, upper = half(pts), half(pts[::-1])
    hull = lower[:-1] + upper[:-1]
    return hull if len(hull) >= 3 else [pts[0], pts[-1]]  # collinear points: the segment's ends


def _silhouettes_overlap(hulls: list[list[Vec2]], I: np.ndarray, J: np.ndarray, tol: float) -> np.ndarray:
    """For pairs of convex silhouettes, do they share interior (touching along an edge does not count)? The
    separating-axis test on every edge normal of both, vectorised over pairs: hulls are padded to one length by
    repeating a vertex, and edge normals by repeating a normal, which changes no extent."""
    nv = max(len(h) for h in hulls)
    H = np.array([h + [h[0]] * (nv - len(h)) for h in hulls])  # (solids, nv, 2)
    normals = []
    for h in hulls:
        ax = [(b[1] - a[1], a[0] - b[0]) for a, b in zip(h, h[1:] + h[:1]) if a != b]
        ax = [(x / math.hypot(x, y), y / math.hypot(x, y)) for x, y in ax] or [(1.0, 0.0), (0.0, 1.0)]
        normals.append(ax + [ax[0]] * (nv - len(ax)))
    AX = np.array(normals)  # (solids, nv, 2)
    own = np.einsum("svk,sek->sve", H, AX)
    own_lo, own_hi = own.min(axis=1), own.max(axis=1)  # (solids, axes)
    out = np.empty(len(I), dtype=bool)
    step = max(1, 2_000_000 // (nv * nv))  # pairs per batch: bounded memory however detailed the silhouettes
    for s in range(0, len(I), step):
        i, j = I[s:s + step], J[s:s + step]
        sep = np.zeros(len(i), dtype=bool)
        for p, q in ((i, j), (j, i)):
            proj = np.einsum("pvk,pek->pve", H[q], AX[p])
            q_lo, q_hi = proj.min(axis=1), proj.max(axis=1)
            sep |= ((own_hi[p] <= q_lo + tol) | (q_hi <= own_lo[p] + tol)).any(axis=1)
        out[s:s + step] = ~sep
    return out


def _box_pairs(umin: np.ndarray, umax: np.ndarray, vmin: np.ndarray, vmax: np.ndarray,
               tol: float, charge: Callable[[int], None] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The pairs (i < j) of screen boxes that share interior (more than `tol` on both axes), in row-major order as
    np.nonzero of the all-pairs test would list them. A sweep along u: boxes sorted by their left edge, each box is
    tested only against the boxes that start before its right edge, so the work grows with the pairs that overlap
    in u rather than with all n² pairs. `charge` is told how many candidate pairs there are before they are listed."""
    n = len(umin)
    by_left = np.argsort(umin, kind="stable")
    left = umin[by_left]
    # For the box at sorted position p, the candidates are at positions p + 1 .. stop − 1 (they start before its
    # right edge less tol); a box starting at the same u as p is among them, whichever of the two sorts first.
    stop = np.searchsorted(left, umax[by_left] - tol, side="left")
    first = np.arange(n) + 1
    count = np.maximum(stop - first, 0)
    total = int(count.sum())
    if charge is not None:
        charge(total)
    if total == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    p = np.repeat(np.arange(n), count)
    q = np.repeat(first, count) + np.arange(total) - np.repeat(np.cumsum(count) - count, count)
    a, b = by_left[p], by_left[q]
    ok = ((umin[a] < umax[b] - tol) & (umin[b] < umax[a] - tol) &
          (vmin[a] < vmax[b] - tol) & (vmin[b] < vmax[a] - tol))
    a, b = a[ok], b[ok]
    i, j = np.minimum(a, b), np.maximum(a, b)
    order = np.lexsort((j, i))
    return i[order], j[order]


def paint_order(items: Sequence[Solid], camera: Camera, charge: "OrderCharge | None" = None) -> list[PaintFace]:
    """The visible faces (after back-face culling) to paint back to front, each with its solid's id.

    Solids are ordered by a topological sort of "A may hide B ⇒ B is painted first" over the pairs whose screen
    silhouettes overlap (see _axis_votes, _plane_vote). Among solids free to go next, the farthest centroid goes first,
    ties broken by id; should the relation have a cycle (three mutually overlapping rods), the farthest remaining
    solid is painted next regardless. A solid's faces stay together, farthest first.

    The work grows with the pairs of solids whose screen boxes overlap (up to all n² of them, as for a pile of solids
    in one place), and most with the pairs no world axis separates; `charge`, when given, is told of each kind of
    pair before the work on them is done, so a budget can stop it."""
    ids = [s.id for s in items]
    if len(set(ids)) != len(ids):
        raise ValueError("solid ids must be unique")
    n = len(items)
    if n == 0:
        return []
    counts = [len(s._verts) for s in items]
    every = np.concatenate([s._verts for s in items])
    uvd = camera.project_many(every)
    starts = np.cumsum([0] + counts[:-1])
    faces = _visible_faces(items, camera)
    prep = [_Prepared(s, camera, uvd[a:a + c, :2], f) for s, a, c, f in zip(items, starts, counts, faces)]
    after: list[list[int]] = [[] for _ in range(n)]  # i → solids that must be painted after i
    blockers = [0] * n
    if n > 1:
        umin, vmin = np.minimum.reduceat(uvd[:, 0], starts), np.minimum.reduceat(uvd[:, 1], starts)
        umax, vmax = np.maximum.reduceat(uvd[:, 0], starts), np.maximum.reduceat(uvd[:, 1], starts)
        tol = 1e-9 * max(1.0, float(np.abs(uvd[:, :2]).max()))
        I, J = _box_pairs(umin, umax, vmin, vmax, tol, charge.candidates if charge is not None else None)
        lo, hi = np.minimum.reduceat(every, starts, axis=0), np.maximum.reduceat(every, starts, axis=0)
        verdict, separated = _axis_votes(lo, hi, I, J, camera)
        # A pair that a world axis separates with no verdict (neither can hide the other) adds no edge whether or not
        # its silhouettes overlap: the silhouette test is spent only on the pairs that may add one.
        may = (verdict != 0) | ~separated
        I, J, verdict, separated = I[may], J[may], verdict[may], separated[may]
        if len(I):
            involved = np.unique(np.concatenate([I, J]))  # hulls only for the solids in some pair
            slot = np.zeros(n, dtype=np.int64)
            slot[involved] = np.arange(len(involved))
            hulls = [prep[k].hull for k in involved.tolist()]
            if charge is not None:  # the separating-axis test costs (hull vertices)² per pair
                charge.candidates(len(I) * (1 + max(len(h) for h in hulls) ** 2 // 64))
            keep = _silhouettes_overlap(hulls, slot[I], slot[J], tol)
            I, J, verdict, separated = I[keep], J[keep], verdict[keep], separated[keep]
        if charge is not None:
            charge.pairs(len(I))
            charge.votes(int((~separated).sum()))
        for i, j, o, sep in zip(I.tolist(), J.tolist(), verdict.tolist(), separated.tolist()):
            if not sep:
                o = _plane_vote(prep[i], prep[j], camera)
            if o > 0:  # i may hide j: j first
                after[j].append(i)
                blockers[i] += 1
            elif o < 0:
                after[i].append(j)
                blockers[j] += 1
    keys = [(-p.depth, _id_key(p.solid.id), k) for k, p in enumerate(prep)]
    ready = [keys[k] for k in range(n) if blockers[k] == 0]
    heapq.heapify(ready)
    done = [False] * n
    out: list[PaintFace] = []
    for _ in range(n):
        if not ready:  # a cycle: release the farthest solid still waiting
            k = min(keys[k] for k in range(n) if not done[k])[2]
            blockers[k] = 0
            heapq.heappush(ready, keys[k])
        k = heapq.heappop(ready)[2]
        done[k] = True
        out.extend(PaintFace(prep[k].solid.id, f) for f in prep[k].faces)
        for m in after[k]:
            if not done[m]:
                blockers[m] -= 1
                if blockers[m] == 0:
                    heapq.heappush(ready, keys[m])
    return out


# -- projection to pixels ----------------------------------------------------------------------------------------
def project_face(face: Face, camera: Camera, fit_: Fit) -> list[Vec2]:
    """The face's polygon in pixels (py down), in the face's own point order."""
    out = []
    for p in face.points:
        u, v, _ = camera.project(*p)
        out.append(fit_.to_px(u, v))
    return out


def project_px(points: np.ndarray, camera: Camera, fit_: Fit) -> np.ndarray:
    """(N, 3) world points → (N, 2) pixels: Camera.project then Fit.to_px, with the same float64 operations in the
    same order, one array at a time (no dot products, whose summation order numpy does not promise), so every pixel
    coordinate is the double project_face gives."""
    x, y, z = points[:, 0], points[:, 1], points[:, 2]
    t, r, up, f = camera.target, camera.right, camera.up, camera.view_dir
    dx, dy, dz = x - t[0], y - t[1], z - t[2]
    u = dx * r[0] + dy * r[1] + dz * r[2]
    v = dx * up[0] + dy * up[1] + dz * up[2]
    if camera.perspective:
        distance, o = camera.pinhole()
        depth = (x - o[0]) * f[0] + (y - o[1]) * f[1] + (z - o[2]) * f[2]
        if (depth <= EPS).any():
            bad = int(np.argmax(depth <= EPS))
            raise ValueError(f"point ({float(x[bad])}, {float(y[bad])}, {float(z[bad])}) is not in front of the "
                             f"perspective camera")
        k = distance / depth
        u, v = u * k, v * k
    (cu, cv), (cx, cy), s = fit_.center_uv, fit_.center_px, fit_.scale
    return np.stack([cx + (u - cu) * s, cy - (v - cv) * s], axis=1)


def face_points(order: Sequence[PaintFace]) -> tuple[np.ndarray, np.ndarray]:
    """The points of paint_order's faces, one (N, 3) array in order, and the number of points of each face."""
    counts = np.array([len(pf.face.points) for pf in order], dtype=np.int64)
    pts = np.array([q for pf in order for q in pf.face.points], dtype=float).reshape(-1, 3)
    return pts, counts


def project_faces(order: Sequence[PaintFace], camera: Camera, fit_: Fit) -> list[tuple[Hashable, list[Vec2]]]:
    """paint_order's faces as (solid id, pixel polygon), ready for the painter and for `visibility`."""
    pts, counts = face_points(order)
    flat = [tuple(q) for q in project_px(pts, camera, fit_).tolist()]
    out, at = [], 0
    for pf, c in zip(order, counts.tolist()):
        out.append((pf.id, flat[at:at + c]))
        at += c
    return out


# -- occlusion-aware visibility ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class VisibleInfo:
    fraction: float  # visible area / projected area of the whole solid (0.0 when it projects to nothing)
    bbox: tuple[float, float, float, float] | None  # pixel box of the visible part (x0, y0, x1, y1); None if hidden
    visible_px: float  # visible area in square pixels
    total_px: float  # projected area in square pixels, as if nothing else were drawn


def _spans(polys: list[np.ndarray], w: int, h: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """_spans_flat for a list of (points, 2) polygons."""
    return _spans_flat(np.concatenate(polys), np.array([len(p) for p in polys]), w, h)


def _spans_flat(g: np.ndarray, counts: np.ndarray, w: int, h: int,
                charge: Callable[[int], None] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Scan-convert polygons (in cell coordinates) on a w × h grid: the runs of cells, per polygon and row, whose
    centres lie inside by the even-odd rule. → (polygon, row, first column, end column) arrays, one entry per run.

    Edges are half-open in y (a row whose centre is level with a vertex is counted once), and a cell counts as left
    of a crossing at x when its centre is, c + 0.5 < x; so a centre on an edge shared by two polygons belongs to
    exactly one of them, and faces that tile a region cover it without gaps or doubles. Each edge is evaluated in one
    direction (upwards, then rightwards) so that a shared edge gives bit-identical crossings in both polygons."""
    first = np.repeat(np.cumsum(counts) - counts, counts)
    nxt = np.arange(len(g)) + 1
    nxt = np.where(nxt == first + np.repeat(counts, counts), first, nxt)  # each polygon closes on its first point
    a, b = g, g[nxt]
    flip = (a[:, 1] > b[:, 1]) | ((a[:, 1] == b[:, 1]) & (a[:, 0] > b[:, 0]))
    a, b = np.where(flip[:, None], b, a), np.where(flip[:, None], a, b)
    poly_of_edge = np.repeat(np.arange(len(counts)), counts)
    # Rows r with a_y ≤ r + 0.5 < b_y, clipped to the grid (whole rows only, so every row keeps an even count).
    r_lo = np.clip(np.ceil(a[:, 1] - 0.5), 0, h).astype(np.int64)
    r_hi = np.clip(np.ceil(b[:, 1] - 0.5), 0, h).astype(np.int64)
    n_rows = np.maximum(r_hi - r_lo, 0)
    if charge is not None:
        charge(int(n_rows.sum()))
    edge = np.repeat(np.arange(len(g)), n_rows)
    row = np.repeat(r_lo, n_rows) + np.arange(len(edge)) - np.repeat(np.cumsum(n_rows) - n_rows, n_rows)
    dy = b[:, 1] - a[:, 1]
    slope = (b[:, 0] - a[:, 0]) / np.where(dy == 0, 1.0, dy)  # horizontal edges cross no row: they got n_rows 0
    x = a[edge, 0] + (row + 0.5 - a[edge, 1]) * slope[edge]
    col = np.clip(np.ceil(x - 0.5), 0, w).astype(np.int64)  # first cell whose centre is right of the crossing
    poly = poly_of_edge[edge]
    key = (poly * (h + 1) + row) * (w + 1) + col
    order = np.argsort(key, kind="stable")
    poly, row, col = poly[order], row[order], col[order]
    # Sorted by polygon, row and column, crossings pair up: each pair bounds one run of inside cells.
    return poly[0::2], row[0::2], col[0::2], col[1::2]


def _paint(projected: Sequence[tuple[Hashable, Sequence[Vec2]]], pixel_box: Sequence[float], resolution: float):
    """The id buffer (solid index per cell, −1 for none), the id → index map, and the runs of every face."""
    x0, y0, x1, y1 = pixel_box
    w, h = max(1, math.ceil((x1 - x0) * resolution)), max(1, math.ceil((y1 - y0) * resolution))
    index: dict[Hashable, int] = {}
    solids: list[int] = []
    polys = []
    for sid, poly in projected:
        k = index.setdefault(sid, len(index))
        if len(poly) >= 3:
            p = np.asarray(poly, dtype=float)
            polys.append(np.stack([(p[:, 0] - x0) * resolution, (p[:, 1] - y0) * resolution], axis=1))
            solids.append(k)
    solid_of_face = np.array(solids, dtype=np.int64)
    top_face = np.full(h * w, -1, dtype=np.int64)
    runs = (np.zeros(0, np.int64),) * 4
    if polys:
        runs = _spans(polys, w, h)
        face, row, c_lo, c_hi = runs
        lengths = np.maximum(c_hi - c_lo, 0)
        start = row * w + c_lo
        cells = np.repeat(start, lengths) + np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths,
                                                                                      lengths)
        # The face painted last wins each cell: faces are numbered in paint order, so that is the largest number.
        np.maximum.at(top_face, cells, np.repeat(face, lengths))
    owner = np.where(top_face >= 0, solid_of_face[np.maximum(top_face, 0)] if len(solid_of_face) else -1, -1)
    return owner.reshape(h, w).astype(np.int32), index, runs, solid_of_face


def id_buffer(projected: Sequence[tuple[Hashable, Sequence[Vec2]]], pixel_box: Sequence[float],
              resolution: float = 1.0) -> tuple[np.ndarray, dict[Hashable, int]]:
    """Paint the faces, in the order given, into an integer buffer over pixel_box at `resolution` cells per pixel,
    sampling cell centres. → (buffer of solid numbers, −1 where nothing was painted; solid id → its number).
    Cell (r, c) spans pixels x0 + c/res .. x0 + (c+1)/res across and y0 + r/res .. y0 + (r+1)/res down."""
    buf, index, _, _ = _paint(projected, pixel_box, resolution)
    return buf, index


def _top_intervals(runs, solid_of_face: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Which solid is on top where, from the runs alone: the cells of one row between two consecutive run ends (of
    any face) are all covered by the same faces, so the face painted last over such an interval (the largest face
    number, as in the id buffer) owns every one of its cells. → (solid number, row, first column, end column) per
    owned interval. The work grows with the runs and the ends each run spans, not with the canvas or the cells: an
    id buffer costs a full-canvas array and one write per covered cell, repainted cells included."""
    face, row, c_lo, c_hi = runs
    keep = c_hi > c_lo
    face, row, c_lo, c_hi = face[keep], row[keep], c_lo[keep], c_hi[keep]
    if not len(face):
        empty = np.zeros(0, np.int64)
        return empty, empty, empty, empty
    stride = w + 1
    lo_key, hi_key = row * stride + c_lo, row * stride + c_hi
    # Every run end, in row-major order. A stable sort (timsort) rather than np.unique: the ends come as one ascending
    # sequence per face, which it merges at a fraction of the cost of sorting from scratch.
    ends = np.sort(np.concatenate([lo_key, hi_key]), kind="stable")
    ends = ends[np.concatenate([[True], ends[1:] != ends[:-1]])]
    a, b = np.searchsorted(ends, lo_key), np.searchsorted(ends, hi_key)
    spans = b - a  # the elementary intervals [ends[i], ends[i + 1]) a run covers: i = a .. b − 1, all in its row
    interval = np.repeat(a, spans) + np.arange(int(spans.sum())) - np.repeat(np.cumsum(spans) - spans, spans)
    top = np.full(len(ends), -1, dtype=np.int64)
    np.maximum.at(top, interval, np.repeat(face, spans))
    owned = np.flatnonzero(top >= 0)  # the gaps between runs of a row (and the row ends) are owned by no face
    start = ends[owned]
    return solid_of_face[top[owned]], start // stride, start % stride, ends[owned + 1] % stride


def visibility(projected: Sequence[tuple[Hashable, Sequence[Vec2]]], pixel_box: Sequence[float],
               resolution: float = 1.0) -> dict[Hashable, VisibleInfo]:
    """For faces given in paint order as (solid id, pixel polygon), how much of each solid is left visible once every
    later face is painted over it. The pixel box (x0, y0, x1, y1) is rasterised at `resolution` cells per pixel, as
    id_buffer would paint it (cell centres, the last face wins a cell); what falls outside the box counts as neither
    projected nor visible. The buffer itself is never built: counts and boxes come from the runs of cells of each
    face (see _top_intervals), cell for cell the same. Every id in the input gets an entry."""
    ids = [sid for sid, _ in projected]
    counts = np.array([len(poly) for _, poly in projected], dtype=np.int64)
    pts = np.array([q for _, poly in projected for q in poly], dtype=float).reshape(-1, 2)
    return visibility_flat(ids, pts, counts, pixel_box, resolution)


def visibility_flat(ids: Sequence[Hashable], pts: np.ndarray, counts: np.ndarray, pixel_box: Sequence[float],
                    resolution: float = 1.0,
                    charge: Callable[[int], None] | None = None) -> dict[Hashable, VisibleInfo]:
    """`visibility` for faces given as one (N, 2) array of pixel points, the number of points of each face and the
    solid id of each face (in paint order), as the camera frame holds them: no polygon list to convert. `charge`,
    when given, is told how many crossings of face edges with rows of cells there are before they are listed (the
    work grows with them)."""
    x0, y0, x1, y1 = pixel_box
    w, h = max(1, math.ceil((x1 - x0) * resolution)), max(1, math.ceil((y1 - y0) * resolution))
    index: dict[Hashable, int] = {}
    number = [index.setdefault(sid, len(index)) for sid in ids]
    n = len(index)
    drawn = counts >= 3  # a face of fewer points covers no cell
    solid_of_face = np.array(number, dtype=np.int64)[drawn] if len(number) else np.zeros(0, np.int64)
    g = np.stack([(pts[:, 0] - x0) * resolution, (pts[:, 1] - y0) * resolution], axis=1)
    if not drawn.all():
        g = g[np.repeat(drawn, counts)]
        counts = counts[drawn]
    runs = _spans_flat(g, counts, w, h, charge) if len(counts) else (np.zeros(0, np.int64),) * 4
    face, row, c_lo, c_hi = runs
    # Projected area: per solid and row, the union of its faces' runs (faces of a non-convex solid may overlap).
    solid = solid_of_face[face] if len(face) else face
    group = solid * h + row
    order = np.argsort(group * (w + 1) + c_lo, kind="stable")  # by group, then first column (runs come in order)
    group, lo_, hi_ = group[order], c_lo[order], c_hi[order]
    stride = w + 2  # offsets keep a running maximum from leaking across groups
    hi_off, lo_off = hi_ + group * stride, lo_ + group * stride
    reach = np.maximum.accumulate(hi_off) if len(hi_off) else hi_off
    before = np.concatenate([[-1], reach[:-1]]) if len(reach) else reach
    new_group = np.concatenate([[True], group[1:] != group[:-1]]) if len(group) else group.astype(bool)
    before = np.where(new_group, group * stride - 1, before)
    added = np.maximum(hi_off - np.maximum(lo_off, before), 0)
    total = np.bincount(group // h, weights=added, minlength=n) if len(group) else np.zeros(n)
    owner, rows, first, end = _top_intervals(runs, solid_of_face, w)
    visible = np.zeros(n, dtype=np.int64)
    np.add.at(visible, owner, end - first)
    r_min, c_min = np.full(n, h, dtype=np.int64), np.full(n, w, dtype=np.int64)
    r_max, c_max = np.full(n, -1, dtype=np.int64), np.full(n, -1, dtype=np.int64)
    np.minimum.at(r_min, owner, rows)
    np.minimum.at(c_min, owner, first)
    np.maximum.at(r_max, owner, rows)
    np.maximum.at(c_max, owner, end - 1)
    cell_area = 1.0 / (resolution * resolution)
    out: dict[Hashable, VisibleInfo] = {}
    for sid, k, t, v, rl, cl, rh, ch in zip(index, range(n), total.tolist(), visible.tolist(), r_min.tolist(),
                                             c_min.tolist(), r_max.tolist(), c_max.tolist()):
        t = int(round(t))
        bbox = None
        if v:
            bbox = (round(x0 + cl / resolution, 2), round(y0 + rl / resolution, 2),
                    round(x0 + (ch + 1) / resolution, 2), round(y0 + (rh + 1) / resolution, 2))
        out[sid] = VisibleInfo(v / t if t else 0.0, bbox, v * cell_area, t * cell_area)
    return out
