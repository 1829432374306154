"""Round marks: wedges (pie sectors).

Angles follow skia: degrees clockwise from east in image coordinates (y down); a clock's 12 o'clock is -90°. Like
the marks in painter.py, a mark given `obj` binds that state object to its pixel box in the render map.
"""
from __future__ import annotations

import math

import skia

from .painter import RGB, Painter


def _paint(rgb: RGB, alpha: int = 255, stroke: float | None = None) -> skia.Paint:
    paint = skia.Paint(AntiAlias=True, Color=skia.Color(rgb[0], rgb[1], rgb[2], alpha))
    if stroke is not None:
        paint.setStyle(skia.Paint.kStroke_Style)
        paint.setStrokeWidth(stroke)
    return paint


def arc_points(cx, cy, r, start_deg, sweep_deg, steps: int = 24) -> list[tuple[float, float]]:
    return [(cx + r * math.cos(math.radians(start_deg + sweep_deg * i / steps)),
             cy + r * math.sin(math.radians(start_deg + sweep_deg * i / steps))) for i in range(steps + 1)]


def wedge(p: Painter, cx, cy, r, start_deg, sweep_deg, fill: RGB, stroke: RGB | None = None, width: float = 1.0,
          obj=None, group: str | None = None):
    """A pie sector from the centre; its box covers the centre and the arc."""
    path = skia.Path()
    path.moveTo(cx, cy)
    path.arcTo(skia.Rect.MakeLTRB(cx - r, cy - r, cx + r, cy + r), start_deg, sweep_deg, False)
    path.close()
    p.canvas.drawPath(path, _paint(fill))
    if stroke is not None:
        p.canvas.drawPath(path, _paint(stroke, stroke=width))
    p.marks += 1
    if obj is not None:
        pts = arc_points(cx, cy, r, start_deg, sweep_deg) + [(cx, cy)]
        xs, ys = [q[0] for q in pts], [q[1] for q in pts]
        p.bind(obj, (min(xs), min(ys), max(xs), max(ys)), group)
