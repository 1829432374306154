"""Oracles of the grammar geometry.lattice_polygon (grammars/geometry/lattice_polygon.yaml,
programs/geometry/lattice_polygon/): each task's answer recomputed by plain Python from the recorded trace, never
the expression language."""
from __future__ import annotations

import math
from fractions import Fraction

from tests.tasks.common import step
from tests.tasks.geometry._shared import apply
from tests.tasks.registry import oracle


def twice_area(pts) -> int:
    return abs(sum(p["x"] * q["y"] - q["x"] * p["y"] for p, q in zip(pts, pts[1:] + pts[:1])))


def boundary_points(pts) -> int:
    return sum(math.gcd(abs(q["x"] - p["x"]), abs(q["y"] - p["y"])) for p, q in zip(pts, pts[1:] + pts[:1]))


def winding(px, py, pts) -> int:
    """Winding number of the closed polygon around (px, py); the point must not lie on it."""
    total = 0.0
    for p, q in zip(pts, pts[1:] + pts[:1]):
        a = math.atan2(p["y"] - py, p["x"] - px)
        b = math.atan2(q["y"] - py, q["x"] - px)
        d = b - a
        while d > math.pi:
            d -= 2 * math.pi
        while d < -math.pi:
            d += 2 * math.pi
        total += d
    return round(total / (2 * math.pi))


@oracle("geometry.lattice_polygon.polygon_area")
def _area(tr):
    return twice_area(tr["state"]["vertices"]) / 2


@oracle("geometry.lattice_polygon.interior_lattice_points")
def _interior(tr):
    pts = tr["state"]["vertices"]
    # Pick's theorem: A = I + B/2 - 1.
    return int(Fraction(twice_area(pts), 2) - Fraction(boundary_points(pts), 2) + 1)


@oracle("geometry.lattice_polygon.points_inside")
def _points_inside(tr):
    pts = tr["state"]["vertices"]
    want = tr["query"]["side"] == "inside"
    return sorted(q["name"] for q in tr["state"]["probes"] if (winding(q["x"], q["y"], pts) != 0) == want)


@oracle("geometry.lattice_polygon.move_vertex")
def _move_vertex(tr):
    v = step(tr, "corner")
    return list(apply(tr["query"]["move"], v["x"], v["y"]))


@oracle("geometry.lattice_polygon.perimeter")
def _perimeter(tr):
    pts = tr["state"]["vertices"]
    return round(sum(math.dist((p["x"], p["y"]), (q["x"], q["y"])) for p, q in zip(pts, pts[1:] + pts[:1])), 1)


@oracle("geometry.lattice_polygon.wide_angles")
def _wide_angles(tr):
    # the turn at each corner from the sides' cross and dot products; inside the polygon by its orientation
    v = [(p["x"], p["y"]) for p in tr["state"]["vertices"]]
    n = len(v)
    area2 = sum(v[i][0] * v[(i + 1) % n][1] - v[(i + 1) % n][0] * v[i][1] for i in range(n))
    out = []
    for i in range(n):
        (px, py), (qx, qy), (rx, ry) = v[i - 1], v[i], v[(i + 1) % n]
        ax, ay, bx, by = px - qx, py - qy, rx - qx, ry - qy
        dot, cross = ax * bx + ay * by, ax * by - ay * bx
        # interior angle > 90: reflex (the corner turns against the orientation) or an obtuse convex corner
        reflex = cross * area2 > 0
        if reflex or dot < 0:
            out.append(tr["state"]["vertices"][i]["name"])
    return out
