"""Pictograms: a mark family of simple drawn objects (house, tree, car, sun, ...) built from vector paths.

Each pictogram is defined once in unit coordinates (centre 0, y down, everything inside the unit circle), as a
*body* filled with the colour the state names and outlined in ink, plus optional *details* filled with ink (wheels,
an eye, a clapper) that never carry colour. Drawing scales the unit shape to a radius, turns it clockwise by an
angle and binds the result to its state object: the box is the drawn outline's, and overlap checks use the
bounding circle, which every rotation of the shape stays inside.
"""
from __future__ import annotations

import math
from functools import lru_cache

import skia

from ..errors import EvalError
from .painter import Painter


def _poly(*pts: tuple[float, float]) -> skia.Path:
    path = skia.Path()
    path.addPoly([skia.Point(x, y) for x, y in pts], True)
    return path


def _circle(x: float, y: float, r: float) -> skia.Path:
    path = skia.Path()
    path.addCircle(x, y, r)
    return path


def _rect(x0: float, y0: float, x1: float, y1: float, round_: float = 0.0) -> skia.Path:
    path = skia.Path()
    rect = skia.Rect.MakeLTRB(x0, y0, x1, y1)
    if round_:
        path.addRRect(skia.RRect.MakeRectXY(rect, round_, round_))
    else:
        path.addRect(rect)
    return path


def _oval(cx: float, cy: float, rx: float, ry: float) -> skia.Path:
    path = skia.Path()
    path.addOval(skia.Rect.MakeLTRB(cx - rx, cy - ry, cx + rx, cy + ry))
    return path


def _union(*paths: skia.Path) -> skia.Path:
    out = paths[0]
    for p in paths[1:]:
        out = skia.Op(out, p, skia.PathOp.kUnion_PathOp)
    return out


def _minus(a: skia.Path, *holes: skia.Path) -> skia.Path:
    for h in holes:
        a = skia.Op(a, h, skia.PathOp.kDifference_PathOp)
    return a


def _intersect(a: skia.Path, b: skia.Path) -> skia.Path:
    return skia.Op(a, b, skia.PathOp.kIntersect_PathOp)


# -- the shapes (unit coordinates, y down) ----------------------------------------------------------------------
def _house():
    body = _union(_poly((-0.85, -0.08), (0, -0.8), (0.85, -0.08)), _rect(-0.62, -0.12, 0.62, 0.72),
                  _rect(0.34, -0.66, 0.52, -0.3))
    return _minus(body, _rect(-0.15, 0.3, 0.15, 0.73), _rect(-0.48, 0.08, -0.26, 0.3)), []


def _tree():
    crown = _union(_circle(0, -0.36, 0.44), _circle(-0.32, -0.06, 0.34), _circle(0.32, -0.06, 0.34))
    return _union(crown, _rect(-0.13, 0.05, 0.13, 0.86)), []


def _car():
    body = _union(_rect(-0.9, -0.1, 0.88, 0.36, 0.12), _poly((-0.58, -0.08), (-0.42, -0.5), (0.18, -0.5),
                                                                 (0.45, -0.08)))
    body = _minus(body, _poly((-0.44, -0.16), (-0.33, -0.42), (0.13, -0.42), (0.32, -0.16)))
    return body, [_circle(-0.5, 0.4, 0.22), _circle(0.5, 0.4, 0.22)]


def _sun():
    rays = [
        _poly((0.56 * math.cos(a - 0.2), 0.56 * math.sin(a - 0.2)), (0.92 * math.cos(a), 0.92 * math.sin(a)),
              (0.56 * math.cos(a + 0.2), 0.56 * math.sin(a + 0.2)))
        for a in (i * math.pi / 4 for i in range(8))
    ]
    return _union(_circle(0, 0, 0.45), *rays), []


def _heart():
    path = skia.Path()
    path.moveTo(0, 0.78)
    path.cubicTo(-0.2, 0.58, -0.84, 0.2, -0.84, -0.22)
    path.cubicTo(-0.84, -0.6, -0.28, -0.74, 0, -0.36)
    path.cubicTo(0.28, -0.74, 0.84, -0.6, 0.84, -0.22)
    path.cubicTo(0.84, 0.2, 0.2, 0.58, 0, 0.78)
    path.close()
    return path, []


def _arrow():
    return _poly((-0.85, -0.17), (0.18, -0.17), (0.18, -0.5), (0.86, 0), (0.18, 0.5), (0.18, 0.17),
                 (-0.85, 0.17)), []


def _cup():
    body = _poly((-0.7, -0.5), (0.3, -0.5), (0.2, 0.6), (-0.6, 0.6))
    handle = _minus(_circle(0.36, 0.0, 0.32), _circle(0.36, 0.0, 0.16))
    return _union(body, handle), []


def _moon():
    return _minus(_circle(0, 0, 0.8), _circle(0.36, -0.2, 0.66)), []


def _fish():
    body = _union(_oval(-0.12, 0, 0.6, 0.38), _poly((0.36, 0), (0.86, -0.38), (0.86, 0.38)))
    return body, [_circle(-0.42, -0.08, 0.08)]


def _key():
    bow = _minus(_circle(-0.5, 0, 0.36), _circle(-0.5, 0, 0.15))
    return _union(bow, _rect(-0.2, -0.08, 0.86, 0.08), _rect(0.52, 0.06, 0.66, 0.32),
                  _rect(0.72, 0.06, 0.86, 0.26)), []


def _bell():
    path = skia.Path()
    path.moveTo(-0.6, 0.45)
    path.cubicTo(-0.6, -0.2, -0.45, -0.68, 0, -0.68)
    path.cubicTo(0.45, -0.68, 0.6, -0.2, 0.6, 0.45)
    path.lineTo(0.76, 0.56)
    path.lineTo(-0.76, 0.56)
    path.close()
    return _union(path, _circle(0, -0.74, 0.11)), [_circle(0, 0.7, 0.15)]


def _flag():
    cloth = _poly((-0.38, -0.72), (0.62, -0.72), (0.4, -0.42), (0.62, -0.12), (-0.38, -0.12))
    return _union(_rect(-0.52, -0.76, -0.38, 0.76), cloth), []


def _cloud():
    return _union(_circle(-0.46, 0.1, 0.32), _circle(0, -0.12, 0.42), _circle(0.44, 0.08, 0.34),
                  _rect(-0.46, 0.1, 0.44, 0.42, 0.0)), []


def _umbrella():
    canopy = skia.Path()
    canopy.moveTo(-0.86, 0.02)
    canopy.arcTo(skia.Rect.MakeLTRB(-0.86, -0.84, 0.86, 0.88), 180, 180, False)
    canopy.close()
    hook = _intersect(_minus(_circle(0.18, 0.62, 0.24), _circle(0.18, 0.62, 0.1)), _rect(-0.1, 0.62, 0.5, 0.9))
    return _union(canopy, _rect(-0.06, 0.0, 0.06, 0.64), hook), []


BUILDERS = {
    "house": _house, "tree": _tree, "car": _car, "sun": _sun, "heart": _heart, "arrow": _arrow, "cup": _cup,
    "moon": _moon, "fish": _fish, "key": _key, "bell": _bell, "flag": _flag, "cloud": _cloud,
    "umbrella": _umbrella,
}
PICTOGRAMS = tuple(BUILDERS)


@lru_cache(maxsize=None)
def unit_paths(kind: str) -> tuple[skia.Path, tuple[skia.Path, ...]]:
    """The pictogram's body and ink details in unit coordinates (cached; callers copy before transforming)."""
    builder = BUILDERS.get(kind)
    if builder is None:
        raise EvalError(f"unknown pictogram '{kind}' (known: {', '.join(PICTOGRAMS)})")
    body, details = builder()
    return body, tuple(details)


def _placed(path: skia.Path, cx: float, cy: float, r: float, angle: float) -> skia.Path:
    m = skia.Matrix()
    m.setScale(r, r)
    m.postRotate(angle)
    m.postTranslate(cx, cy)
    out = skia.Path(path)
    out.transform(m)
    return out


def pictogram(p: Painter, kind: str, cx: float, cy: float, r: float, fill, angle: float = 0.0, obj=None,
              group: str | None = None) -> tuple[float, float, float, float]:
    """Draw one pictogram of radius r centred at (cx, cy), turned clockwise by `angle` degrees; returns its box."""
    body, details = unit_paths(kind)
    shape = _placed(body, cx, cy, r, angle)
    outline = max(1.2, r * 0.07)
    p.canvas.drawPath(shape, p._paint(fill))
    p.canvas.drawPath(shape, p._paint(p.theme.ink, True, outline))
    bounds = shape.computeTightBounds()
    for d in details:
        placed = _placed(d, cx, cy, r, angle)
        p.canvas.drawPath(placed, p._paint(p.theme.ink))
        bounds.join(placed.computeTightBounds())
    p.marks += 1
    half = outline / 2
    box = (bounds.left() - half, bounds.top() - half, bounds.right() + half, bounds.bottom() + half)
    if obj is not None:
        p.bind(obj, box, group, (cx, cy, r + half))
    return box
