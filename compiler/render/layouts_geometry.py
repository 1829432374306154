"""Geometry layouts: a coordinate plane on graph paper, and a labelled figure with angle marks.

Both read plane coordinates with y **up** (as the geometry operators in compiler/expr/lib_geometry.py do). Render-only
choices (figure colours, the figure's rotation on the page) come from the render stream and never change a
coordinate, a length or an angle.
"""
from __future__ import annotations

import math

from ..errors import EvalError
from ..expr.lib_geometry import interior_angles
from ..expr.lib_place import segment_hits_box as _seg_hits_box  # shared with label_spots()
from ..expr.types import FLOAT, INT, STR
from ..load.models import Expr, Model
from .layouts import _num, layout
from .marks_round import arc, shaded_polygon
from .painter import Painter
from .requirements import Records

FIGURE_COLORS = ["blue", "orange", "green", "purple", "red", "cyan"]
POINT = (("x", "number"), ("y", "number"))
MAX_EXTENT = 20


# -- label placement --------------------------------------------------------------------------------------------
def _boxes_touch(a, b, gap: float = 1.0) -> bool:
    return a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap


def _circle_hits_box(c, box) -> bool:
    """Does the outline of circle c = (cx, cy, r) pass through the box?"""
    cx, cy, r = c
    nx, ny = min(max(cx, box[0]), box[2]), min(max(cy, box[1]), box[3])
    nearest = math.hypot(nx - cx, ny - cy)
    farthest = max(math.hypot(x - cx, y - cy) for x in (box[0], box[2]) for y in (box[1], box[3]))
    return nearest <= r <= farthest


DIRECTIONS = [(math.cos(math.radians(a)), -math.sin(math.radians(a))) for a in (45, 135, 225, 315, 90, 0, 180, 270)]
LABEL_GAP = 3.0  # clear pixels between a dot and its own label


def _label_box(x, y, r, ux, uy, tw, th, extra: float) -> tuple:
    """The label box beside a dot in direction (ux, uy), clear of the dot's square by LABEL_GAP (+ extra)."""
    reach = r + LABEL_GAP + extra
    if ux > 0.3:
        bx0 = x + reach
    elif ux < -0.3:
        bx0 = x - reach - tw
    else:
        bx0 = x - tw / 2
    if uy > 0.3:
        by0 = y + reach
    elif uy < -0.3:
        by0 = y - reach - th
    else:
        by0 = y - th / 2
    return bx0, by0, bx0 + tw, by0 + th


def place_labels(p: Painter, anchors: list[tuple[float, float, float]], labels: list[str], size: float,
                 preferred: list[tuple[float, float] | None], segments: list, circles: list, area,
                 blocked: tuple = ()) -> list[tuple]:
    """Choose, for each dot (x, y, radius), a box for its label next to it: the free spot closest to the preferred
    direction, avoiding other dots, blocked boxes, labels placed before, segments and circle outlines, and staying
    inside area. Returns the label boxes (x0, y0, x1, y1)."""
    dots = [(x - r, y - r, x + r, y + r) for x, y, r in anchors]
    placed: list[tuple] = list(blocked)
    for i, ((x, y, r), text) in enumerate(zip(anchors, labels)):
        tw, th = p.text_width(text, size, bold=True), size * 0.95
        best, best_cost = None, None
        pref = preferred[i]
        for extra in (0.0, 5.0):
            for k, (ux, uy) in enumerate(DIRECTIONS):
                box = _label_box(x, y, r, ux, uy, tw, th, extra)
                cost = 3 * extra
                cost += 100 * sum(_boxes_touch(box, d, 2) for j, d in enumerate(dots) if j != i)
                cost += 100 * sum(_boxes_touch(box, q, 2) for q in placed)
                cost += 20 * sum(_seg_hits_box(a, b, box) for a, b in segments)
                cost += 20 * sum(_circle_hits_box(c, box) for c in circles)
                if not (area[0] <= box[0] and box[2] <= area[2] and area[1] <= box[1] and box[3] <= area[3]):
                    cost += 50
                cost += (1 - (ux * pref[0] + uy * pref[1])) if pref else k * 0.01
                if best_cost is None or cost < best_cost:
                    best, best_cost = box, cost
        placed.append(best)
    return placed[len(blocked):]


# -- coordinate plane -------------------------------------------------------------------------------------------
class CoordinatePlane(Model):
    items: Expr
    x: str
    y: str
    label: str | None = None
    color: str | None = None
    extent: Expr
    polygons: Expr = "[]"
    circles: Expr = "[]"
    paths: Expr = "[]"


@layout("coordinate_plane", CoordinatePlane,
        {"x": (INT, FLOAT), "y": (INT, FLOAT), "label": (STR, INT), "color": (STR,)},
        exprs={"extent": INT, "polygons": Records(POINT, depth=2),
               "circles": Records(POINT + (("r", "number"),), may=(("name", "text"),)),
               "paths": Records(POINT, depth=2)},
        summary="graph paper with x and y axes from -extent to extent; items are labelled points; polygons "
                "(closed), paths (open) and circles {x, y, r, name?} are drawn under them, in plane units, y up")
def draw_coordinate_plane(p: Painter, prm: CoordinatePlane, items: list[dict], text: dict, rng, extent: int,
                          polygons: list, circles: list, paths: list) -> dict:
    if not 1 <= extent <= MAX_EXTENT:
        raise EvalError(f"coordinate_plane extent {extent} (allowed 1..{MAX_EXTENT})")
    left, right, top, bottom = 34, 16, 16, 30
    size = min(p.width - left - right, p.height - top - bottom)
    unit = size / (2 * extent)
    ox = left + (p.width - left - right - size) / 2 + size / 2
    oy = top + (p.height - top - bottom - size) / 2 + size / 2

    def X(v):
        return ox + _num(v, "x") * unit

    def Y(v):
        return oy - _num(v, "y") * unit

    lo, hi = -extent, extent
    for k in range(lo, hi + 1):
        p.line(X(k), Y(lo), X(k), Y(hi), p.theme.grid, 1.0)
        p.line(X(lo), Y(k), X(hi), Y(k), p.theme.grid, 1.0)
    p.arrow(X(lo), Y(0), X(hi) + 10, Y(0), p.theme.ink, 1.6, 7)
    p.arrow(X(0), Y(lo), X(0), Y(hi) - 10, p.theme.ink, 1.6, 7)
    p.text(X(hi) + 8, Y(0) + 12, "x", 12, bold=True)
    p.text(X(0) + 12, Y(hi) - 6, "y", 12, bold=True)
    # Coordinates are printed on the border of the grid, not along the axes, where they would collide with points.
    step = 1 if unit >= 22 else 2
    for k in range(lo, hi + 1):
        if k % step == 0:
            p.text(X(k), Y(lo) + 13, str(k), 11)
            p.text(X(lo) - 7, Y(k), str(k), 11, anchor="end")

    colors = rng.shuffle(FIGURE_COLORS)
    segments: list = []
    for i, poly in enumerate(polygons):
        pts = [(X(v["x"]), Y(v["y"])) for v in poly]
        if len(pts) < 2:
            raise EvalError("a polygon of the coordinate plane needs at least 2 points")
        shade = p.theme.color(colors[i % len(colors)])
        shaded_polygon(p, pts, shade, 56, shade, 2.2)
        segments += list(zip(pts, pts[1:] + pts[:1]))
    for i, path in enumerate(paths):
        pts = [(X(v["x"]), Y(v["y"])) for v in path]
        shade = p.theme.color(colors[(len(polygons) + i) % len(colors)])
        p.polyline(pts, shade, 2.2)
        segments += list(zip(pts, pts[1:]))
    rings = []
    for i, c in enumerate(circles):
        r = _num(c["r"], "circle radius") * unit
        if r <= 0:
            raise EvalError(f"circle radius must be positive, got {c['r']}")
        cx, cy = X(c["x"]), Y(c["y"])
        shade = p.theme.color(colors[(len(polygons) + len(paths) + i) % len(colors)])
        p.circle(cx, cy, r, None, shade, 2.2, obj=c)
        p.circle(cx, cy, 2.5, shade)
        rings.append((cx, cy, r, shade, c))
    # Circle names sit just outside their rim, where they clear the points and each other's names.
    named = [ring for ring in rings if "name" in ring[4]]
    name_boxes: list[tuple] = []
    point_dots = [(X(it[prm.x]) - 5, Y(it[prm.y]) - 5, X(it[prm.x]) + 5, Y(it[prm.y]) + 5) for it in items]
    for cx, cy, r, shade, c in named:
        name = str(c["name"])
        tw, th = p.text_width(name, 14, bold=True), 14 * 0.95
        best, best_cost = None, None
        for k, (ux, uy) in enumerate(DIRECTIONS):
            box = _label_box(cx + r * ux, cy + r * uy, 0.0, ux, uy, tw, th, 2.0)
            cost = 100 * sum(_boxes_touch(box, q, 2) for q in name_boxes + point_dots) + k * 0.01
            cost += 20 * sum(_circle_hits_box(ring[:3], box) for ring in rings)
            mx, my = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            cost += 30 * sum(math.hypot(mx - ring[0], my - ring[1]) < ring[2] for ring in rings if ring[4] is not c)
            if not (X(lo) <= box[0] and box[2] <= X(hi) and Y(hi) <= box[1] and box[3] <= Y(lo)):
                cost += 50
            if best_cost is None or cost < best_cost:
                best, best_cost = box, cost
        name_boxes.append(best)
        p.text((best[0] + best[2]) / 2, (best[1] + best[3]) / 2, name, 14, color=shade, bold=True, obj=c)
        p.no_overlap_groups.setdefault("points", []).append(
            (p.paths.get(id(c), f"circle {name}"), tuple(p.scale * v for v in best), None))
    rings = [ring[:3] for ring in rings]

    # Points: a dot and a label placed clear of the other marks, bound together as one answer-bearing mark.
    anchors = [(X(it[prm.x]), Y(it[prm.y]), 4.5) for it in items]
    labels = [str(it[prm.label]) if prm.label else "" for it in items]
    preferred = []
    for x, y, _ in anchors:
        pref = None
        for poly in polygons:
            pts = [(X(v["x"]), Y(v["y"])) for v in poly]
            if any(abs(px - x) < 0.5 and abs(py - y) < 0.5 for px, py in pts):
                cx = sum(q[0] for q in pts) / len(pts)
                cy = sum(q[1] for q in pts) / len(pts)
                d = math.hypot(x - cx, y - cy) or 1.0
                pref = ((x - cx) / d, (y - cy) / d)
                break
        preferred.append(pref)
    area = (X(lo), Y(hi), X(hi), Y(lo))
    boxes = place_labels(p, anchors, labels, 13, preferred, segments, rings, area, tuple(name_boxes))
    marks = p.no_overlap_groups.setdefault("points", [])
    for it, (x, y, r), lab, box in zip(items, anchors, labels, boxes):
        fill = p.theme.color(it[prm.color]) if prm.color else p.theme.ink
        p.circle(x, y, r, fill, p.theme.background, 1.2, obj=it)
        path, k = p.paths.get(id(it)), p.scale
        marks.append((path, (k * (x - r), k * (y - r), k * (x + r), k * (y + r)), (k * x, k * y, k * r)))
        if lab:
            # The dot and its label are separate marks for the overlap check (each must stay clear of every other
            # point's dot and label); the render map holds their union as the point's box. Both in image pixels.
            p.text((box[0] + box[2]) / 2, (box[1] + box[3]) / 2, lab, 13, bold=True, obj=it)
            marks.append((path, tuple(k * v for v in box), None))
    return {"figure_colors": colors[:len(polygons) + len(paths) + len(circles)]}


# -- figure -----------------------------------------------------------------------------------------------------
class Figure(Model):
    items: Expr
    x: str
    y: str
    label: str | None = None
    angle: str | None = None


@layout("figure", Figure, {"x": (INT, FLOAT), "y": (INT, FLOAT), "label": (STR,), "angle": (STR,)},
        summary="one polygon drawn to scale from its corners (in order, any units, y up), turned to a random "
                "orientation; each corner shows its name outside and, when its angle text is not empty, an "
                "angle arc with that text inside")
def draw_figure(p: Painter, prm: Figure, items: list[dict], text: dict, rng) -> dict:
    if len(items) < 3:
        raise EvalError(f"a figure needs at least 3 corners, got {len(items)}")
    turn = rng.randint(0, 359)
    ca, sa = math.cos(math.radians(turn)), math.sin(math.radians(turn))
    raw = [(_num(it[prm.x], "x"), _num(it[prm.y], "y")) for it in items]
    # Rotate in plane coordinates, then flip y for the image.
    pts = [(x * ca - y * sa, -(x * sa + y * ca)) for x, y in raw]
    margin = 62
    x0, x1 = min(q[0] for q in pts), max(q[0] for q in pts)
    y0, y1 = min(q[1] for q in pts), max(q[1] for q in pts)
    scale = min((p.width - 2 * margin) / max(x1 - x0, 1e-9), (p.height - 2 * margin) / max(y1 - y0, 1e-9))
    offx = (p.width - (x1 - x0) * scale) / 2
    offy = (p.height - (y1 - y0) * scale) / 2
    pix = [(offx + (x - x0) * scale, offy + (y - y0) * scale) for x, y in pts]
    shaded_polygon(p, pix, p.theme.color(rng.choice(FIGURE_COLORS)), 36, p.theme.ink, 2.2)
    # Angles measured on the drawing itself: reflex corners get their arc on the inside too.
    drawn = interior_angles([(x, -y) for x, y in pix])
    n = len(pix)
    for i, it in enumerate(items):
        vx, vy = pix[i]
        (ax, ay), (bx, by) = pix[i - 1], pix[(i + 1) % n]
        la, lb = math.hypot(ax - vx, ay - vy), math.hypot(bx - vx, by - vy)
        ua, ub = ((ax - vx) / la, (ay - vy) / la), ((bx - vx) / lb, (by - vy) / lb)
        bis = (ua[0] + ub[0], ua[1] + ub[1])
        bl = math.hypot(*bis)
        bis = (bis[0] / bl, bis[1] / bl) if bl > 1e-9 else (-ua[1], ua[0])
        interior = drawn[i]
        if interior > 180:
            bis = (-bis[0], -bis[1])
        label_text = str(it[prm.angle]) if prm.angle else ""
        if label_text:
            ra = min(24.0, 0.3 * min(la, lb))
            start = math.degrees(math.atan2(ua[1], ua[0]))
            end = math.degrees(math.atan2(ub[1], ub[0]))
            sweep = (end - start) % 360
            mid = math.radians(start + sweep / 2)
            if math.cos(mid) * bis[0] + math.sin(mid) * bis[1] < 0:
                sweep -= 360
            arc(p, vx, vy, ra, start, sweep, p.theme.ink, 1.4)
            tw, th = p.text_width(label_text, 14), 14
            rho = math.hypot(tw, th) / 2
            half = math.radians(min(interior, 360 - interior) / 2)
            d = max(ra + rho * 0.8 + 3, (rho + 2) / max(math.sin(half), 0.2))
            p.text(vx + bis[0] * d, vy + bis[1] * d, label_text, 14, obj=it, group="angles")
        if prm.label:
            name = str(it[prm.label])
            p.text(vx - bis[0] * 17, vy - bis[1] * 17, name, 15, bold=True, obj=it)
        p.bind(it, (vx - 2, vy - 2, vx + 2, vy + 2))
    return {"turn": turn}
