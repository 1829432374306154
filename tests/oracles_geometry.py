"""Independent oracles for the geometry domain: plain Python over the recorded state, using other methods than the
operators do where one exists (Pick's theorem for lattice counts, winding numbers for containment, explicit matrices
for the transformations)."""
from __future__ import annotations

import math
from fractions import Fraction

from tests.oracles import step

# name → integer matrix ((a, b), (c, d)) acting on column vectors (x, y)
MATRICES = {
    "reflection in the x-axis": ((1, 0), (0, -1)),
    "reflection in the y-axis": ((-1, 0), (0, 1)),
    "reflection in the line y = x": ((0, 1), (1, 0)),
    "reflection in the line y = -x": ((0, -1), (-1, 0)),
    "rotation of 90° counterclockwise about the origin": ((0, -1), (1, 0)),
    "rotation of 90° clockwise about the origin": ((0, 1), (-1, 0)),
    "rotation of 180° about the origin": ((-1, 0), (0, -1)),
}


def apply(name: str, x: int, y: int) -> tuple[int, int]:
    (a, b), (c, d) = MATRICES[name]
    return a * x + b * y, c * x + d * y


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


def _area(tr):
    return twice_area(tr["state"]["vertices"]) / 2


def _interior(tr):
    pts = tr["state"]["vertices"]
    # Pick's theorem: A = I + B/2 - 1.
    return int(Fraction(twice_area(pts), 2) - Fraction(boundary_points(pts), 2) + 1)


def _points_inside(tr):
    pts = tr["state"]["vertices"]
    want = tr["query"]["side"] == "inside"
    return sorted(q["name"] for q in tr["state"]["probes"] if (winding(q["x"], q["y"], pts) != 0) == want)


def _move_vertex(tr):
    v = step(tr, "corner")
    return list(apply(tr["query"]["move"], v["x"], v["y"]))


def _name_transformation(tr):
    st = tr["state"]
    fits = [name for name in MATRICES
            if all(apply(name, v["x"], v["y"]) == (w["x"], w["y"]) for v, w in zip(st["shape"], st["image"]))]
    assert len(fits) == 1
    return "ABCDEFGH"[step(tr, "options").index(fits[0])]


def _reflection_or_rotation(tr):
    st = tr["state"]
    # A reflection reverses the orientation of the labelled vertices; a rotation keeps it.
    def signed(pts):
        return sum(p["x"] * q["y"] - q["x"] * p["y"] for p, q in zip(pts, pts[1:] + pts[:1]))
    reversed_ = (signed(st["shape"]) > 0) != (signed(st["image"]) > 0)
    return reversed_ == (tr["query"]["kind"] == "reflection")


def _apply_to_point(tr):
    st = tr["state"]
    fits = [name for name in MATRICES
            if all(apply(name, v["x"], v["y"]) == (w["x"], w["y"]) for v, w in zip(st["shape"], st["image"]))]
    return list(apply(fits[0], st["probe"]["x"], st["probe"]["y"]))


def _corner_degrees(tr):
    """Every angle of the figure: the shown ones, and the hidden one from the angle sum (n - 2) · 180."""
    corners = tr["state"]["corners"]
    shown = {c["name"]: int(c["text"].rstrip("°")) for c in corners if c["text"] != "?"}
    hidden = [c["name"] for c in corners if c["text"] == "?"]
    assert len(hidden) == 1
    shown[hidden[0]] = (len(corners) - 2) * 180 - sum(shown.values())
    return shown, hidden[0]


def _missing_angle(tr):
    degrees, hidden = _corner_degrees(tr)
    return degrees[hidden]


def _extreme_angle_vertex(tr):
    degrees, _ = _corner_degrees(tr)
    pick = max if tr["query"]["extreme"] == "largest" else min
    return pick(degrees, key=degrees.get)


def _count_angle_kind(tr):
    degrees, _ = _corner_degrees(tr)
    if tr["query"]["kind"] == "obtuse":
        return sum(d > 90 for d in degrees.values())
    return sum(d < 90 for d in degrees.values())


def _points_in_circle(tr):
    c = step(tr, "ring")
    # Squared distances are integers on the lattice: no rounding at all.
    return sum((q["x"] - c["x"]) ** 2 + (q["y"] - c["y"]) ** 2 < c["r"] ** 2 for q in tr["state"]["points"])


def _circles_overlap(tr):
    a, b = step(tr, "pair")
    return (a["x"] - b["x"]) ** 2 + (a["y"] - b["y"]) ** 2 < (a["r"] + b["r"]) ** 2


def _area_multiple_of_pi(tr):
    # the circles the prompt names (1 + level // 4 of them), their areas or circumferences added up
    rings = [c for c in tr["state"]["circles"] if c["name"] in step(tr, "names")]
    assert len(rings) == min(len(tr["state"]["circles"]), 1 + tr["level"] // 4)
    area = tr["query"]["measure"] == "area"
    return sum(c["r"] * c["r"] if area else 2 * c["r"] for c in rings)


def _perimeter(tr):
    pts = tr["state"]["vertices"]
    return round(sum(math.dist((p["x"], p["y"]), (q["x"], q["y"])) for p, q in zip(pts, pts[1:] + pts[:1])), 1)


def _nearest_point(tr):
    c = step(tr, "ring")
    squared = {q["name"]: (q["x"] - c["x"]) ** 2 + (q["y"] - c["y"]) ** 2 for q in tr["state"]["points"]}
    pick = min if tr["query"]["extreme"] == "closest to" else max
    best = pick(squared, key=squared.get)
    assert list(squared.values()).count(squared[best]) == 1
    return best


# -- figures of unit squares: symmetries about the figure's own centre ---------------------------------------------
def _figure_moves(tr):
    """Which of the eight moves of the figure's bounding box map its squares onto themselves."""
    sq = {(c["row"], c["col"]) for c in tr["state"]["cells"]}
    rows, cols = [r for r, _ in sq], [c for _, c in sq]
    r0, c0 = min(rows), min(cols)
    h, w = max(rows) - r0, max(cols) - c0
    local = {(r - r0, c - c0) for r, c in sq}
    moves = {"vertical": lambda r, c: (r, w - c), "horizontal": lambda r, c: (h - r, c),
             "half": lambda r, c: (h - r, w - c)}
    if h == w:  # the diagonal moves keep only a square box
        moves.update({"diagonal": lambda r, c: (c, r), "anti": lambda r, c: (w - c, h - r),
                      "quarter": lambda r, c: (c, h - r)})
    return {name for name, f in moves.items() if {f(r, c) for r, c in local} == local}


def _mirror_lines(tr):
    return len(_figure_moves(tr) & {"vertical", "horizontal", "diagonal", "anti"})


def _turn_order(tr):
    ok = _figure_moves(tr)
    return 4 if "quarter" in ok else (2 if "half" in ok else 1)


def _complete_mirror(tr):
    # the dashed line runs down the paper's middle: a square (r, c) needs its partner (r, n - 1 - c)
    st = tr["state"]
    sq = {(c["row"], c["col"]) for c in st["cells"]}
    return len({(r, st["n"] - 1 - c) for r, c in sq} - sq)


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


# -- nets of a cube: roll a die over the squares and see whether every face lands once ------------------------------
def folds_into_cube(cells: list[dict]) -> bool:
    squares = {(c["row"], c["col"]) for c in cells}
    start = min(squares)
    # faces (down, north, east, south, west, up) of a die on each square; rolling onto a neighbour turns it
    faces = {start: ("D", "N", "E", "S", "W", "U")}
    todo = [start]
    while todo:
        r, c = todo.pop()
        d, n, e, s, w, u = faces[r, c]
        for (dr, dc), after in (((-1, 0), (n, u, e, d, w, s)), ((1, 0), (s, d, e, u, w, n)),
                                ((0, 1), (e, n, u, s, d, w)), ((0, -1), (w, n, d, s, u, e))):
            q = (r + dr, c + dc)
            if q in squares and q not in faces:
                faces[q] = after
                todo.append(q)
    return len(squares) == 6 and len({f[0] for f in faces.values()}) == 6


def cube_net_fits(tr) -> list[int]:
    return [i for i, p in enumerate(tr["state"]["panels"]) if folds_into_cube(p["cells"])]


def _cube_net_count(tr):
    return len(cube_net_fits(tr))


def _cube_net_option(tr):
    (i,) = cube_net_fits(tr)
    return tr["state"]["panels"][i]["mark"]


def _mirror_axes(tr):
    names = {"vertical": "vertical", "horizontal": "horizontal", "diagonal": "falling diagonal",
             "anti": "rising diagonal"}
    return [word for key, word in names.items() if key in _figure_moves(tr)]


ORACLES = {
    "geometry.lattice_polygon.perimeter": _perimeter,
    "geometry.circle_plane.nearest_point": _nearest_point,
    "geometry.circle_plane.points_in_circle": _points_in_circle,
    "geometry.circle_plane.circles_overlap": _circles_overlap,
    "geometry.circle_plane.area_multiple_of_pi": _area_multiple_of_pi,
    "geometry.lattice_polygon.polygon_area": _area,
    "geometry.lattice_polygon.interior_lattice_points": _interior,
    "geometry.lattice_polygon.points_inside": _points_inside,
    "geometry.lattice_polygon.move_vertex": _move_vertex,
    "geometry.transformed_shape.name_transformation": _name_transformation,
    "geometry.transformed_shape.reflection_or_rotation": _reflection_or_rotation,
    "geometry.transformed_shape.apply_to_point": _apply_to_point,
    "geometry.angle_figure.missing_angle": _missing_angle,
    "geometry.angle_figure.extreme_angle_vertex": _extreme_angle_vertex,
    "geometry.angle_figure.count_angle_kind": _count_angle_kind,
    "geometry.symmetric_figure.mirror_lines": _mirror_lines,
    "geometry.symmetric_figure.turn_order": _turn_order,
    "geometry.symmetric_figure.complete_mirror": _complete_mirror,
    "geometry.lattice_polygon.wide_angles": _wide_angles,
    "geometry.cube_net.foldable_count": _cube_net_count,
    "geometry.cube_net.foldable_option": _cube_net_option,
    "geometry.symmetric_figure.mirror_axes": _mirror_axes,
}
