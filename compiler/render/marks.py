"""Marks: the drawable primitives of the scene language, each a table of channels and one draw function.

A mark is declared in YAML as `- KIND: {channel: expression, ...}`; its channels and options are declared in
tessera.spec.marks (skia-free), which compiler/codegen/scene.py checks a scene against; compose.py evaluates the
channels per item and calls the draw function here with the frame the mark lives in. Positions (`x`, `y`, `x2`, `y2`, `points`) are in frame units; sizes (`r`, `size`,
`width`, ...) are pixels unless the mark says `sizes: frame`. A draw function paints with skia and returns what it
drew (`Drawn`): the pixel box, and the shapes the legibility rules look at (a bounding circle, stroke segments, a
text box).
"""
from __future__ import annotations

import math
from functools import lru_cache
from dataclasses import dataclass, field
from typing import Callable

import skia

from ..errors import EvalError
from ..spec.assets import find_asset
from ..spec.marks import MARKS as MARK_SPECS, Channel
from ..spec.svg import SVG_VIEW, svg_commands
from .frames import Frame, GridFrame, PolarFrame, _number, device_px
from .painter import SHAPES, Painter, face_font
from .typefaces import face_for
from .pictograms import PICTOGRAMS, pictogram

RGB = tuple[int, int, int]

MIN_FONT = 7.0  # fitted text never shrinks below this many pixels
# Text a scene sizes itself (a size in px, or in frame units that a zoomed panel shrinks) is never drawn under this
# many canvas pixels (before the theme's font scale): digits under about 7 px tall are guessed, not read.
MIN_TEXT_PX = 10.0


class RenderRejected(Exception):
    """This render breaks a legibility rule; the scene is redrawn from the render stream (never resampled)."""


@dataclass
class Drawn:
    bbox: tuple[float, float, float, float]
    circle: tuple[float, float, float] | None = None  # a tighter shape for overlap checks (glyphs, dots)
    segments: list[tuple[float, float, float, float]] = field(default_factory=list)  # stroke pieces
    text_box: tuple[float, float, float, float] | None = None
    geometry: dict = field(default_factory=dict)  # mark-specific numbers recorded in the render map


@dataclass(frozen=True)
class MarkKind:
    """A mark of the scene language (its table in tessera.spec.marks) with the function that draws it."""
    name: str
    channels: dict[str, Channel]
    options: dict[str, tuple]  # constant options: name → allowed values (first is the default)
    draw: Callable
    summary: str
    batch: str | None = None  # "solid" / "overlay": a 3-D mark its frame draws in one batch (camera.py)


MARKS: dict[str, MarkKind] = {}


def mark(name: str):
    """Bind the decorated function as the draw function of the mark `name` declared in tessera.spec.marks."""
    spec = MARK_SPECS[name]

    def register(fn):
        MARKS[name] = MarkKind(spec.name, spec.channels, spec.options, fn, spec.summary, spec.batch)
        return fn

    return register


# -- paint helpers ----------------------------------------------------------------------------------------------
def paint(rgb: RGB, opacity: float = 1.0, stroke: float | None = None, dash=None, cap: str = "butt") -> skia.Paint:
    """A paint for these settings; paints are never changed after they are made, so they are shared."""
    key = (rgb, opacity, stroke, tuple(dash) if dash else None, cap)
    p = _PAINTS.get(key)
    if p is None:
        if len(_PAINTS) > 4096:
            _PAINTS.clear()
        p = _PAINTS[key] = _make_paint(rgb, opacity, stroke, dash, cap)
    return p


_PAINTS: dict[tuple, skia.Paint] = {}


def _make_paint(rgb: RGB, opacity: float, stroke: float | None, dash, cap: str) -> skia.Paint:
    alpha = max(0, min(255, round(255 * opacity)))
    p = skia.Paint(AntiAlias=True, Color=skia.Color(rgb[0], rgb[1], rgb[2], alpha))
    if stroke is not None:
        p.setStyle(skia.Paint.kStroke_Style)
        p.setStrokeWidth(stroke)
        p.setStrokeJoin(skia.Paint.kRound_Join)
        if cap == "round":
            p.setStrokeCap(skia.Paint.kRound_Cap)
        if dash:
            p.setPathEffect(skia.DashPathEffect.Make([float(d) for d in dash], 0))
    return p


@dataclass
class Ctx:
    """Everything a draw function needs besides the channel values."""

    painter: Painter
    frame: Frame
    sizes: str = "px"
    strokes: bool = True  # record stroke segments (only scenes with `clear` text look at them)
    fonts: tuple[str, ...] | None = None  # font classes the text may use (a grammar's or component's `fonts:`)

    @property
    def canvas(self) -> skia.Canvas:
        return self.painter.canvas

    @property
    def theme(self):
        return self.painter.theme

    def size(self, v, what: str) -> float:
        v = _number(v, what)
        if v < 0:
            raise EvalError(f"{what} cannot be negative, got {v:g}")
        return self.frame.length(v) if self.sizes == "frame" else device_px(v, what)

    def color(self, v) -> RGB | None:
        """A colour value as RGB; None for no value or 'none' (nothing painted, where the mark allows that)."""
        return self.theme.resolve(v)

    def ink(self, v: dict, key: str, default: RGB) -> RGB:
        """The colour a mark cannot do without (a line's stroke, a text's colour): `v[key]`, else `default`.
        'none' is refused by name here; painting with it failed deep in skia's paint."""
        if v.get(key) is None:
            return default
        rgb = self.theme.resolve(v[key])
        if rgb is None:
            raise EvalError(f"{key} '{v[key]}' leaves this mark nothing to draw with: give it a colour")
        return rgb

    def fill_and_stroke(self, v: dict, path: skia.Path, default_fill=None, default_stroke=None) -> None:
        fill = self.color(v["fill"]) if v.get("fill") is not None else default_fill
        stroke = self.color(v["stroke"]) if v.get("stroke") is not None else default_stroke
        op = _number(v.get("opacity", 1.0), "opacity")
        if fill is not None:
            self.canvas.drawPath(path, paint(fill, op))
        if stroke is not None and v.get("stroke_width", 1.0) > 0:
            width = _number(v.get("stroke_width", 1.0), "stroke_width") * self.theme.stroke_scale
            self.canvas.drawPath(path, paint(stroke, op, width, v.get("dash")))
        self.painter.marks += 1


def _bounds(pts) -> tuple[float, float, float, float]:
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return min(xs), min(ys), max(xs), max(ys)


def _offset(v: dict) -> tuple[float, float]:
    return device_px((_number(v.get("dx", 0.0), "dx"), _number(v.get("dy", 0.0), "dy")), "the offset dx, dy")


def points_of(value, what: str) -> list[tuple]:
    """A points channel: a list of records with x and y, or of [x, y] pairs."""
    if not isinstance(value, list):
        raise EvalError(f"{what} must be a list of points, got {value!r}")
    out = []
    for p in value:
        if isinstance(p, dict):
            out.append((p["x"], p["y"]))
        elif isinstance(p, list) and len(p) >= 2:
            out.append((p[0], p[1]))
        else:
            raise EvalError(f"{what}: a point is a record with x and y or a pair [x, y], got {p!r}")
    return out


def _segments_of(pts: list[tuple[float, float]], closed: bool) -> list[tuple[float, float, float, float]]:
    segs = [(a[0], a[1], b[0], b[1]) for a, b in zip(pts, pts[1:])]
    if closed and len(pts) > 2:
        segs.append((pts[-1][0], pts[-1][1], pts[0][0], pts[0][1]))
    return segs


# -- rect, circle, ellipse --------------------------------------------------------------------------------------
@mark("rect")
def draw_rect(ctx: Ctx, v: dict, opts: dict) -> Drawn:
    f = ctx.frame
    x0, x1 = f.span_x(v["x"], v.get("x2"))
    y0, y1 = f.span_y(v["y"], v.get("y2"))
    if v.get("width") is not None:
        w = ctx.size(v["width"], "width")
        x0, x1 = (x0 - w / 2, x0 + w / 2) if opts["anchor"] == "center" else (x0, x0 + w)
    if v.get("height") is not None:
        h = ctx.size(v["height"], "height")
        down = not f.y_up
        if opts["anchor"] == "center":
            y0, y1 = y0 - h / 2, y0 + h / 2
        else:
            y0, y1 = (y0, y0 + h) if down else (y0 - h, y0)
    dx, dy = _offset(v)
    x0, x1 = sorted((x0 + dx, x1 + dx))
    y0, y1 = sorted((y0 + dy, y1 + dy))
    r = skia.Rect.MakeLTRB(x0, y0, x1, y1)
    path = skia.Path()
    if v.get("corner") is not None:
        corner = _number(v["corner"], "corner")
    else:  # the theme's corner style, never rounding a small cell away
        corner = min(ctx.theme.corner, (x1 - x0) / 4, (y1 - y0) / 4)
    if corner > 0:
        path.addRRect(skia.RRect.MakeRectXY(r, corner, corner))
    else:
        path.addRect(r)
    ctx.fill_and_stroke(v, path, default_fill=ctx.theme.color(ctx.theme.series))
    return Drawn((x0, y0, x1, y1), segments=_segments_of([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], True)
                 if v.get("stroke") is not None else [])


@mark("circle")
def draw_circle(ctx: Ctx, v: dict, opts: dict) -> Drawn:
    cx, cy = ctx.frame.point(v["x"], v["y"])
    dx, dy = _offset(v)
    cx, cy = cx + dx, cy + dy
    r = ctx.size(v.get("r", 5.0), "r")
    path = skia.Path()
    path.addCircle(cx, cy, r)
    ctx.fill_and_stroke(v, path, default_fill=ctx.theme.color(ctx.theme.series))
    half = _number(v.get("stroke_width", 1.0), "stroke_width") / 2 if v.get("stroke") is not None else 0.0
    # A stroked circle's outline is a stroke for `clear` text (as 48 chords).
    rim = _segments_of(_arc_pts(cx, cy, r, 0.0, 360.0, 48)[:-1], True) if half > 0 and ctx.strokes else []
    return Drawn((cx - r - half, cy - r - half, cx + r + half, cy + r + half), circle=(cx, cy, r + half), segments=rim,
                 geometry={"center": [round(cx, 2), round(cy, 2)], "r": round(r, 2)})


@mark("ellipse")
def draw_ellipse(ctx: Ctx, v: dict, opts: dict) -> Drawn:
    cx, cy = ctx.frame.point(v["x"], v["y"])
    dx, dy = _offset(v)
    cx, cy = cx + dx, cy + dy
    rx, ry = ctx.size(v["rx"], "rx"), ctx.size(v["ry"], "ry")
    rot = ctx.frame.angle(_number(v.get("rotate", 0.0), "rotate"))
    path = skia.Path()
    path.addOval(skia.Rect.MakeLTRB(cx - rx, cy - ry, cx + rx, cy + ry))
    m = skia.Matrix()
    m.setRotate(rot, cx, cy)
    path.transform(m)
    ctx.fill_and_stroke(v, path, default_fill=ctx.theme.color(ctx.theme.series))
    b = path.computeTightBounds()
    return Drawn((b.left(), b.top(), b.right(), b.bottom()))


# -- wedges and arcs --------------------------------------------------------------------------------------------
def _sector(ctx: Ctx, v: dict) -> tuple[float, float, float, float, float, float]:
    """(cx, cy, r_inner, r_outer, start, sweep) in screen pixels/degrees, from polar channels or a centre."""
    f = ctx.frame
    if isinstance(f, PolarFrame) and v.get("r") is None:
        a0 = f.screen_angle(v["x"])
        a1 = f.screen_angle(v["x2"]) if v.get("x2") is not None else a0
        r0 = f.radial(v["y"]) if v.get("y") is not None else f.radius * f.inner
        r1 = f.radial(v["y2"]) if v.get("y2") is not None else f.radius
        return f.cx, f.cy, min(r0, r1), max(r0, r1), a0, a1 - a0
    cx, cy = f.point(v["x"], v["y"])
    r = ctx.size(v["r"] if v.get("r") is not None else 20.0, "r")
    ri = ctx.size(v.get("r_inner") or 0.0, "r_inner")
    start = f.angle(_number(v.get("start", 0.0), "start"))
    end = f.angle(_number(v.get("end", 360.0), "end"))
    return cx, cy, ri, r, start, end - start


def _arc_pts(cx, cy, r, start, sweep, steps: int = 32):
    return [(cx + r * math.cos(math.radians(start + sweep * i / steps)),
             cy + r * math.sin(math.radians(start + sweep * i / steps))) for i in range(steps + 1)]


@mark("wedge")
def draw_wedge(ctx: Ctx, v: dict, opts: dict) -> Drawn:
    cx, cy, ri, r, start, sweep = _sector(ctx, v)
    dx, dy = _offset(v)
    cx, cy = cx + dx, cy + dy
    path = skia.Path()
    outer = skia.Rect.MakeLTRB(cx - r, cy - r, cx + r, cy + r)
    if abs(sweep) >= 360 - 1e-9:
        path.addCircle(cx, cy, r)
        if ri > 0:
            path.addCircle(cx, cy, ri, skia.PathDirection.kCCW)
    elif ri > 0:
        path.arcTo(outer, start, sweep, True)
        path.arcTo(skia.Rect.MakeLTRB(cx - ri, cy - ri, cx + ri, cy + ri), start + sweep, -sweep, False)
        path.close()
    else:
        path.moveTo(cx, cy)
        path.arcTo(outer, start, sweep, False)
        path.close()
    ctx.fill_and_stroke(v, path, default_fill=ctx.theme.color(ctx.theme.series))
    pts = _arc_pts(cx, cy, r, start, sweep) + (_arc_pts(cx, cy, ri, start, sweep) if ri > 0 else [(cx, cy)])
    mid = math.radians(start + sweep / 2)
    rm = (r + ri) / 2 if ri > 0 else r * 0.6
    return Drawn(_bounds(pts), geometry={
        "center": [round(cx, 2), round(cy, 2)], "r": round(r, 2), "r_inner": round(ri, 2),
        "start": round(start, 4), "sweep": round(sweep, 4),
        "label_point": [round(cx + rm * math.cos(mid), 2), round(cy + rm * math.sin(mid), 2)]})


@mark("arc")
def draw_arc(ctx: Ctx, v: dict, opts: dict) -> Drawn:
    cx, cy, ri, r, start, sweep = _sector(ctx, v)
    dx, dy = _offset(v)
    cx, cy = cx + dx, cy + dy
    path = skia.Path()
    path.addArc(skia.Rect.MakeLTRB(cx - r, cy - r, cx + r, cy + r), start, sweep)
    width = _number(v.get("stroke_width", 1.0), "stroke_width")
    color = ctx.ink(v, "stroke", ctx.theme.ink)
    op = _number(v.get("opacity", 1.0), "opacity")
    ctx.canvas.drawPath(path, paint(color, op, width, v.get("dash")))
    ctx.painter.marks += 1
    pts = _arc_pts(cx, cy, r, start, sweep)
    if opts["arrow"] in ("end", "both"):
        _arrowhead(ctx, pts[-2], pts[-1], color, width, op)
    if opts["arrow"] in ("start", "both"):
        _arrowhead(ctx, pts[1], pts[0], color, width, op)
    return Drawn(_bounds(pts), segments=_segments_of(pts, False),
                 geometry={"center": [round(cx, 2), round(cy, 2)], "r": round(r, 2), "start": round(start, 4),
                           "sweep": round(sweep, 4)})


def _ellipse_pts(cx, cy, rx, ry, rot, start, sweep, steps: int = 32):
    """Points of the ellipse with radii rx, ry around (cx, cy) turned by rot (screen degrees), at its parameter
    angles start .. start + sweep (screen degrees): (rx cos t, ry sin t) turned, the points skia's addArc on the oval
    passes through."""
    c, s = math.cos(math.radians(rot)), math.sin(math.radians(rot))
    out = []
    for i in range(steps + 1):
        t = math.radians(start + sweep * i / steps)
        ex, ey = rx * math.cos(t), ry * math.sin(t)
        out.append((cx + ex * c - ey * s, cy + ex * s + ey * c))
    return out


@mark("ellipse_arc")
def draw_ellipse_arc(ctx: Ctx, v: dict, opts: dict) -> Drawn:
    cx, cy = ctx.frame.point(v["x"], v["y"])
    dx, dy = _offset(v)
    cx, cy = cx + dx, cy + dy
    rx, ry = ctx.size(v["rx"], "rx"), ctx.size(v["ry"], "ry")
    rot = ctx.frame.angle(_number(v.get("rotate", 0.0), "rotate"))
    start = ctx.frame.angle(_number(v.get("start", 0.0), "start"))
    sweep = ctx.frame.angle(_number(v.get("end", 360.0), "end")) - start
    if not abs(sweep) <= 360:  # skia draws no more than a turn: the arrowheads must sit where the arc ends
        raise EvalError(f"an ellipse_arc spans at most 360° (end − start), got {sweep:g}")
    path = skia.Path()
    path.addArc(skia.Rect.MakeLTRB(cx - rx, cy - ry, cx + rx, cy + ry), start, sweep)
    m = skia.Matrix()
    m.setRotate(rot, cx, cy)
    path.transform(m)
    width = _number(v.get("stroke_width", 1.0), "stroke_width")
    color = ctx.ink(v, "stroke", ctx.theme.ink)
    op = _number(v.get("opacity", 1.0), "opacity")
    ctx.canvas.drawPath(path, paint(color, op, width, v.get("dash")))
    ctx.painter.marks += 1
    pts = _ellipse_pts(cx, cy, rx, ry, rot, start, sweep, 64)
    head = _number(v["head"], "head") if v.get("head") is not None else None
    extra: list[tuple[float, float]] = []
    if opts["arrow"] in ("end", "both"):
        extra += _arrowhead(ctx, pts[-2], pts[-1], color, width, op, head)
    if opts["arrow"] in ("start", "both"):
        extra += _arrowhead(ctx, pts[1], pts[0], color, width, op, head)
    return Drawn(_bounds(pts + extra), segments=_segments_of(pts, False),
                 geometry={"center": [round(cx, 2), round(cy, 2)], "rx": round(rx, 2), "ry": round(ry, 2),
                           "rotate": round(rot, 4), "start": round(start, 4), "sweep": round(sweep, 4),
                           "ends": [[round(c, 2) for c in pts[0]], [round(c, 2) for c in pts[-1]]]})


# -- lines, polylines, polygons, smooth paths -------------------------------------------------------------------
def _arrowhead(ctx: Ctx, a, b, color: RGB, width: float, opacity: float, head: float | None = None) -> tuple:
    head = head if head else max(7.0, 3.2 * width)
    ang = math.atan2(b[1] - a[1], b[0] - a[0])
    left = (b[0] - head * math.cos(ang - 0.42), b[1] - head * math.sin(ang - 0.42))
    right = (b[0] - head * math.cos(ang + 0.42), b[1] - head * math.sin(ang + 0.42))
    path = skia.Path()
    path.addPoly([skia.Point(*b), skia.Point(*left), skia.Point(*right)], True)
    ctx.canvas.drawPath(path, paint(color, opacity))
    return left, right


def _stroke_path(ctx: Ctx, v: dict, pts: list, closed: bool, opts: dict, path: skia.Path | None = None) -> Drawn:
    width = _number(v.get("stroke_width", 2.0) if v.get("stroke_width") is not None else 2.0, "stroke_width")
    color = ctx.ink(v, "stroke", ctx.theme.ink)
    op = _number(v.get("opacity", 1.0), "opacity")
    if path is None:
        path = skia.Path()
        path.addPoly([skia.Point(*p) for p in pts], closed)
    ctx.canvas.drawPath(path, paint(color, op, width, v.get("dash"), opts.get("cap", "butt")))
    ctx.painter.marks += 1
    extra: list[tuple[float, float]] = []  # the arrowheads' corners
    arrow = opts.get("arrow", "none")
    head = _number(v["head"], "head") if v.get("head") is not None else None
    if arrow in ("end", "both") and len(pts) >= 2:
        extra += _arrowhead(ctx, pts[-2], pts[-1], color, width, op, head)
    if arrow in ("start", "both") and len(pts) >= 2:
        extra += _arrowhead(ctx, pts[1], pts[0], color, width, op, head)
    x0, y0, x1, y1 = _bounds(list(pts) + extra)
    h = max(width / 2, 1.0)  # a hairline's box is still 2 px thick, so a bound line passes the minimum size
    return Drawn((x0 - h, y0 - h, x1 + h, y1 + h), segments=_segments_of(pts, closed) if ctx.strokes else [],
                 geometry={"points": pts})  # rounded (and scaled) only when bound, in compose._scaled


@mark("segments")
def draw_segments(ctx: Ctx, v: dict, opts: dict) -> Drawn:
    raw = v["segments"]
    if not isinstance(raw, list):
        raise EvalError(f"segments must be a list of [x, y, x2, y2], got {raw!r}")
    dx, dy = _offset(v)
    point = ctx.frame.point
    path = skia.Path()
    segs = []
    for s_ in raw:
        if isinstance(s_, dict):
            s_ = (s_["x"], s_["y"], s_["x2"], s_["y2"])
        elif not (isinstance(s_, list) and len(s_) == 4):
            raise EvalError(f"a segment is [x, y, x2, y2] or a record with x, y, x2, y2, got {s_!r}")
        ax, ay = point(s_[0], s_[1])
        bx, by = point(s_[2], s_[3])
        ax, ay, bx, by = ax + dx, ay + dy, bx + dx, by + dy
        path.moveTo(ax, ay)
        path.lineTo(bx, by)
        segs.append((ax, ay, bx, by))
    if not segs:
        return Drawn((0.0, 0.0, 0.0, 0.0))
    width = _number(v.get("stroke_width", 1.0), "stroke_width")
    color = ctx.ink(v, "stroke", ctx.theme.ink)
    ctx.canvas.drawPath(path, paint(color, _number(v.get("opacity", 1.0), "opacity"), width, v.get("dash"),
                                    opts["cap"]))
    ctx.painter.marks += len(segs)  # counted as the segments they are (scene size, level audits)
    h = max(width / 2, 1.0)
    xs = [c for sg in segs for c in (sg[0], sg[2])]
    ys = [c for sg in segs for c in (sg[1], sg[3])]
    return Drawn((min(xs) - h, min(ys) - h, max(xs) + h, max(ys) + h), segments=segs)


@mark("line")
def draw_line(ctx: Ctx, v: dict, opts: dict) -> Drawn:
    dx, dy = _offset(v)
    a = ctx.frame.point(v["x"], v["y"])
    b = ctx.frame.point(v["x2"], v["y2"])
    t0, t1 = _number(v.get("trim", 0.0), "trim"), _number(v.get("trim2", 0.0), "trim2")
    off = _number(v.get("offset", 0.0), "offset")
    length = math.hypot(b[0] - a[0], b[1] - a[1])
    if t0 or t1 or off:
        if length <= t0 + t1 + 1:
            raise RenderRejected(f"a line of {length:.0f} px cannot lose {t0 + t1:.0f} px to its trims: too short")
        ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
        nx, ny = -uy * off, ux * off
        a = (a[0] + ux * t0 + nx, a[1] + uy * t0 + ny)
        b = (b[0] - ux * t1 + nx, b[1] - uy * t1 + ny)
    return _stroke_path(ctx, v, [(a[0] + dx, a[1] + dy), (b[0] + dx, b[1] + dy)], False, opts)


def _frame_points(ctx: Ctx, v: dict) -> list[tuple[float, float]]:
    dx, dy = _offset(v)
    pts = [ctx.frame.point(x, y) for x, y in points_of(v["points"], "points")]
    if len(pts) < 2:
        raise EvalError(f"a path needs at least 2 points, got {len(pts)}")
    return [(x + dx, y + dy) for x, y in pts]


@mark("polyline")
def draw_polyline(ctx: Ctx, v: dict, opts: dict) -> Drawn:
    return _stroke_path(ctx, v, _frame_points(ctx, v), False, opts)


@mark("polygon")
def draw_polygon(ctx: Ctx, v: dict, opts: dict) -> Drawn:
    pts = _frame_points(ctx, v)
    path = skia.Path()
    path.addPoly([skia.Point(*p) for p in pts], True)
    ctx.fill_and_stroke(v, path, default_fill=ctx.theme.color(ctx.theme.series))
    return Drawn(_bounds(pts), segments=_segments_of(pts, True) if v.get("stroke") is not None else [],
                 geometry={"points": [[round(x, 2), round(y, 2)] for x, y in pts]})


def smooth_path(pts: list[tuple[float, float]], curve: str, closed: bool) -> tuple[skia.Path, list]:
    """A Catmull-Rom spline through the points (as cubic Béziers), or cubic Béziers with the points as controls;
    returns the path and a dense polyline of it (for boxes and crossing checks)."""
    path = skia.Path()
    path.moveTo(*pts[0])
    dense = [pts[0]]

    def cubic(p0, c1, c2, p3):
        path.cubicTo(c1[0], c1[1], c2[0], c2[1], p3[0], p3[1])
        for k in range(1, 9):
            t = k / 8
            u = 1 - t
            dense.append((u ** 3 * p0[0] + 3 * u * u * t * c1[0] + 3 * u * t * t * c2[0] + t ** 3 * p3[0],
                          u ** 3 * p0[1] + 3 * u * u * t * c1[1] + 3 * u * t * t * c2[1] + t ** 3 * p3[1]))

    if curve == "bezier":
        if (len(pts) - 1) % 3:
            raise EvalError(f"a bezier path takes 1 + 3k points (start, then two controls and an end per piece), "
                            f"got {len(pts)}")
        for i in range(1, len(pts), 3):
            cubic(pts[i - 1], pts[i], pts[i + 1], pts[i + 2])
    else:
        ring = pts + [pts[0]] if closed else pts
        n = len(ring)
        for i in range(n - 1):
            p0 = ring[i - 1] if i > 0 else (ring[-2] if closed else ring[0])
            p1, p2 = ring[i], ring[i + 1]
            p3 = ring[i + 2] if i + 2 < n else (ring[1] if closed else ring[-1])
            c1 = (p1[0] + (p2[0] - p0[0]) / 6, p1[1] + (p2[1] - p0[1]) / 6)
            c2 = (p2[0] - (p3[0] - p1[0]) / 6, p2[1] - (p3[1] - p1[1]) / 6)
            cubic(p1, c1, c2, p2)
    if closed:
        path.close()
    return path, dense


@mark("path")
def draw_path(ctx: Ctx, v: dict, opts: dict) -> Drawn:
    pts = _frame_points(ctx, v)
    path, dense = smooth_path(pts, opts["curve"], opts["closed"])
    fill = ctx.color(v.get("fill")) if opts["closed"] else None  # 'none': no fill
    if fill is not None:
        ctx.canvas.drawPath(path, paint(fill, _number(v.get("opacity", 1.0), "opacity")))
    if v.get("stroke") is None and v.get("fill") is not None:
        ctx.painter.marks += 1
        return Drawn(_bounds(dense))
    return _stroke_path(ctx, v, dense, opts["closed"], opts, path)


# -- SVG-like path data (parsed in tessera.spec.svg, which the type checker also reads) -------------------------
@lru_cache(maxsize=512)
def parse_svg_path(d: str) -> skia.Path:
    """SVG path data as a skia path in view-box units (SVG_VIEW); a mistake is an EvalError naming its character."""
    return _path_of_commands(svg_commands(d))


def _path_of_commands(commands: tuple[tuple, ...]) -> skia.Path:
    path = skia.Path()
    for op, *a in commands:
        if op == "M":
            path.moveTo(a[0], a[1])
        elif op == "L":
            path.lineTo(a[0], a[1])
        elif op == "C":
            path.cubicTo(*a)
        elif op == "Q":
            path.quadTo(*a)
        elif op == "A":
            rx, ry, rotation, large, sweep, x, y = a
            size = skia.Path.ArcSize.kLarge_ArcSize if large else skia.Path.ArcSize.kSmall_ArcSize
            direction = skia.PathDirection.kCW if sweep else skia.PathDirection.kCCW
            path.arcTo(rx, ry, rotation, size, direction, x, y)
        else:
            path.close()
    return path


@mark("svg")
def draw_svg(ctx: Ctx, v: dict, opts: dict) -> Drawn:
    src = parse_svg_path(v["d"])
    f = ctx.frame
    ax, ay = f.point(v["x"], v["y"])
    bx, by = f.point(v["x2"], v["y2"])
    dx, dy = _offset(v)
    left, top = min(ax, bx) + dx, min(ay, by) + dy
    w, h = abs(bx - ax), abs(by - ay)
    if w < 1 or h < 1:
        raise RenderRejected(f"an svg mark's box is {w:.1f} × {h:.1f} px: too small")
    m = skia.Matrix()
    if v.get("flip"):
        m.setAll(-w / SVG_VIEW, 0, left + w, 0, h / SVG_VIEW, top, 0, 0, 1)
    else:
        m.setAll(w / SVG_VIEW, 0, left, 0, h / SVG_VIEW, top, 0, 0, 1)
    path = skia.Path(src)
    path.transform(m)
    ctx.fill_and_stroke(v, path)
    b = path.computeTightBounds()
    half = _number(v.get("stroke_width", 1.0), "stroke_width") / 2 if v.get("stroke") is not None else 0.0
    segs: list = []
    if v.get("stroke") is not None and ctx.strokes:  # the outline as chords, for text that must stay clear
        meas = skia.PathMeasure(path, False)
        while True:
            n = max(2, min(64, int(meas.getLength() / 4)))
            pts = [meas.getPosTan(meas.getLength() * k / n)[0] for k in range(n + 1)]
            segs += [(p.x(), p.y(), q.x(), q.y()) for p, q in zip(pts, pts[1:])]
            if not meas.nextContour():
                break
    return Drawn((b.left() - half, b.top() - half, b.right() + half, b.bottom() + half), segments=segs)


# -- text -------------------------------------------------------------------------------------------------------
def wrap_words(words: list[str], font: skia.Font, width: float) -> list[str]:
    lines, cur = [], ""
    for w in words:
        trial = f"{cur} {w}" if cur else w
        if cur and font.measureText(trial) > width:
            lines.append(cur)
            cur = w
        else:
            cur = trial
    if cur:
        lines.append(cur)
    return lines


@mark("text")
def draw_text(ctx: Ctx, v: dict, opts: dict) -> Drawn:
    s = v["text"]
    s = s if isinstance(s, str) else _text_of(s)
    x, y = ctx.frame.point(v["x"], v["y"])
    dx, dy = _offset(v)
    x, y = x + dx, y + dy
    bold = opts["weight"] == "bold"
    size = ctx.size(v.get("size", 13.0), "size")  # `sizes: frame`: in frame units
    if size <= 0 or size > 400:
        raise EvalError(f"text size must be in (0, 400] px, got {size:g}")
    if size < MIN_TEXT_PX - 1e-9 and s.strip():
        raise RenderRejected(f"text '{s[:30]}' would be {size:.1f} px, under the {MIN_TEXT_PX:g} px floor: illegible")
    size *= ctx.theme.font_scale
    fit, wrap, max_h = (ctx.size(v[k], k) if v.get(k) is not None else None for k in ("fit", "wrap", "height"))
    rot = _number(v.get("rotate", 0.0), "rotate")
    if fit is None and wrap is None and max_h is None and not rot and not opts["halo"]:
        return _plain_text(ctx, v, opts, s, x, y, size, bold)
    lines = [s]
    while True:
        font = ctx.painter.font(round(size, 1), bold, s, ctx.fonts)
        if wrap is not None:
            lines = wrap_words(s.split(), font, _number(wrap, "wrap"))
        widest = max(font.measureText(line) for line in lines) if lines else 0.0
        m = font.getMetrics()
        ascent, descent = -m.fAscent, m.fDescent
        line_h = (ascent + descent) * 1.15
        too_wide = (fit is not None and widest > _number(fit, "fit")) or \
            (wrap is not None and widest > _number(wrap, "wrap"))
        too_tall = max_h is not None and line_h * len(lines) > _number(max_h, "height")
        if not (too_wide or too_tall):
            break
        if size <= MIN_FONT:
            raise RenderRejected(f"text '{s[:30]}' does not fit its box even at {MIN_FONT:g} px: overflow")
        size = max(MIN_FONT, size - 0.5)
    block_h = line_h * (len(lines) - 1) + ascent + descent
    top = {"middle": -block_h / 2, "top": 0.0, "bottom": -block_h}[opts["baseline"]]
    color = ctx.ink(v, "color" if v.get("color") is not None else "fill", ctx.theme.ink)
    if ctx.painter.backdrop is not None and not rot:
        bx = x + {"start": 0.0, "middle": -widest / 2, "end": -widest}[opts["anchor"]]
        color = ctx.painter.readable(color, (bx, y + top, bx + widest, y + top + block_h), s)
    op = _number(v.get("opacity", 1.0), "opacity")
    ctx.canvas.save()
    ctx.canvas.translate(x, y)
    if rot:
        ctx.canvas.rotate(ctx.frame.angle(rot) if ctx.frame.y_up else rot)
    boxes = []
    for k, line in enumerate(lines):
        w = font.measureText(line)
        lx = {"start": 0.0, "middle": -w / 2, "end": -w}[opts["anchor"]]
        base = top + k * line_h + ascent
        if opts["halo"]:
            halo = paint(ctx.theme.background, op, max(2.0, size * 0.22))
            ctx.canvas.drawString(line, lx, base, font, halo)
        ctx.canvas.drawString(line, lx, base, font, paint(color, op))
        boxes.append((lx, top + k * line_h, lx + w, top + k * line_h + ascent + descent))
    ctx.canvas.restore()
    ctx.painter.marks += 1
    bx0, by0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    bx1, by1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
    corners = [(bx0, by0), (bx1, by0), (bx1, by1), (bx0, by1)]
    if rot:
        a = math.radians(ctx.frame.angle(rot) if ctx.frame.y_up else rot)
        ca, sa = math.cos(a), math.sin(a)
        corners = [(px * ca - py * sa, px * sa + py * ca) for px, py in corners]
    box = _bounds([(x + px, y + py) for px, py in corners])
    return Drawn(box, text_box=box, geometry={"size": round(size, 2), "lines": len(lines)})


@lru_cache(maxsize=2048)
def _metrics(family: str, size: float, bold: bool) -> tuple[float, float]:
    m = face_font(family, size, bold).getMetrics()
    return -m.fAscent, m.fDescent


def _plain_text(ctx: Ctx, v: dict, opts: dict, s: str, x: float, y: float, size: float, bold: bool) -> Drawn:
    """One line, not fitted, wrapped or turned: the common case (labels, ticks, numbers), drawn without the
    fitting loop. The same pixels and box as the general path."""
    size = round(size, 1)
    t = ctx.theme
    family = face_for(t.face, t.font_draw, ctx.fonts, bold, s)
    font = face_font(family, size, bold)
    ascent, descent = _metrics(family, size, bold)
    h = ascent + descent
    top = {"middle": -h / 2, "top": 0.0, "bottom": -h}[opts["baseline"]]
    w = font.measureText(s)
    lx = {"start": 0.0, "middle": -w / 2, "end": -w}[opts["anchor"]]
    color = ctx.ink(v, "color" if v.get("color") is not None else "fill", ctx.theme.ink)
    if ctx.painter.backdrop is not None:
        color = ctx.painter.readable(color, (x + lx, y + top, x + lx + w, y + top + h), s)
    ctx.canvas.save()
    ctx.canvas.translate(x, y)
    ctx.canvas.drawString(s, lx, top + ascent, font, paint(color, _number(v.get("opacity", 1.0), "opacity")))
    ctx.canvas.restore()
    ctx.painter.marks += 1
    box = (x + lx, y + top, x + lx + w, y + top + h)
    return Drawn(box, text_box=box, geometry={"size": size, "lines": 1})


def _text_of(v) -> str:
    from .frames import tick_text

    return tick_text(v)


# -- glyphs and pictograms --------------------------------------------------------------------------------------
def glyph_points(kind: str, cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    """The corners of a polygon glyph (every SHAPES kind but circle and square, which draw_glyph makes itself)."""
    table = {"triangle": (3, -90.0, None), "diamond": (4, 0.0, None), "pentagon": (5, -90.0, None),
             "hexagon": (6, 0.0, None), "star": (5, -90.0, 0.45)}
    sides, rot, inner = table[kind]
    count = sides * (2 if inner else 1)
    pts = []
    for i in range(count):
        a = math.radians(rot + i * 360.0 / count)
        rr = r if not inner or i % 2 == 0 else r * inner
        pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
    return pts


@mark("glyph")
def draw_glyph(ctx: Ctx, v: dict, opts: dict) -> Drawn:
    cx, cy = ctx.frame.point(v["x"], v["y"])
    dx, dy = _offset(v)
    cx, cy = cx + dx, cy + dy
    r = ctx.size(v.get("size", 10.0), "size")
    kind = v["shape"]
    fill = ctx.color(v["fill"]) if v.get("fill") is not None else ctx.theme.color(ctx.theme.series)
    if kind in PICTOGRAMS:
        if fill is None:
            raise EvalError(f"fill 'none' leaves a {kind} pictogram nothing to draw with: give it a colour")
        box = pictogram(ctx.painter, kind, cx, cy, r, fill, _number(v.get("angle", 0.0), "angle"))
        return Drawn(box, circle=(cx, cy, r + 1))
    if kind not in SHAPES:
        raise EvalError(f"unknown glyph '{kind}' (shapes: {', '.join(SHAPES)}; pictograms: {', '.join(PICTOGRAMS)})")
    stroke = v.get("stroke", ctx.theme.marker_stroke)
    sw = _number(v.get("stroke_width", 1.5) if v.get("stroke_width") not in (None, 1.0) else 1.5, "stroke_width")
    vv = {**v, "fill": None, "stroke": stroke, "stroke_width": sw}
    path = skia.Path()
    if kind == "circle":
        path.addCircle(cx, cy, r)
        box, circle = (cx - r, cy - r, cx + r, cy + r), (cx, cy, r)
    elif kind == "square":
        s = r * 0.85
        path.addRect(skia.Rect.MakeLTRB(cx - s, cy - s, cx + s, cy + s))
        box, circle = (cx - s, cy - s, cx + s, cy + s), (cx, cy, s * math.sqrt(2))
    else:
        pts = glyph_points(kind, cx, cy, r)
        path.addPoly([skia.Point(*p) for p in pts], True)
        box, circle = _bounds(pts), (cx, cy, r)
    m = skia.Matrix()
    ang = _number(v.get("angle", 0.0), "angle")
    if ang:
        m.setRotate(ang, cx, cy)
        path.transform(m)
        b = path.computeTightBounds()
        box = (b.left(), b.top(), b.right(), b.bottom())
    if fill is not None:  # 'none': the outline only
        ctx.canvas.drawPath(path, paint(fill, _number(v.get("opacity", 1.0), "opacity")))
    ctx.fill_and_stroke(vv, path)
    return Drawn(box, circle=circle)


# -- icons and objects of the asset library (spec/assets.py) ---------------------------------------------------
ASSET_SVG_CHARS = 100_000  # the vendored paths are up to ~24,000 characters (an author's `svg` mark: MAX_SVG_CHARS)


@lru_cache(maxsize=8192)
def icon_path(name: str) -> tuple[skia.Path, float]:
    """A mono icon's path in its view-box units and the side of its view box, parsed once per process."""
    a = find_asset("mono", name)
    path = _path_of_commands(svg_commands(a.body, ASSET_SVG_CHARS))
    path.computeTightBounds()  # computed once here: skia caches the path's bounds
    return path, max(a.width, a.height)


@lru_cache(maxsize=4096)
def object_picture(name: str) -> tuple[skia.Picture, float, skia.Rect]:
    """A coloured object recorded once per process (skia's SVG module reads its markup: paths, circles, ellipses,
    groups, uses, clips), the side of its view box, and the tight box of its pixels in view-box units."""
    a = find_asset("colour", name)
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
           f'viewBox="0 0 {a.width:g} {a.height:g}" width="{a.width:g}" height="{a.height:g}">{a.body}</svg>')
    dom = skia.SVGDOM.MakeFromStream(skia.MemoryStream(svg.encode(), True))
    if dom is None:
        raise EvalError(f"the object '{name}' could not be read as SVG")
    rec = skia.PictureRecorder()
    dom.render(rec.beginRecording(skia.Rect.MakeWH(a.width, a.height)))
    pic = rec.finishRecordingAsPicture()
    # the tight box: the alpha of the picture drawn at 4 px per view unit
    k = 4.0
    surf = skia.Surface(int(math.ceil(a.width * k)), int(math.ceil(a.height * k)))
    surf.getCanvas().drawPicture(pic, skia.Matrix.Scale(k, k), None)
    alpha = surf.makeImageSnapshot().toarray()[:, :, 3]
    rows, cols = alpha.any(axis=1).nonzero()[0], alpha.any(axis=0).nonzero()[0]
    if not len(rows):
        raise EvalError(f"the object '{name}' draws no pixels")
    tight = skia.Rect.MakeLTRB(cols[0] / k, rows[0] / k, (cols[-1] + 1) / k, (rows[-1] + 1) / k)
    return pic, max(a.width, a.height), tight


def _asset_matrix(ctx: Ctx, v: dict, side: float) -> tuple[skia.Matrix, float, float, float]:
    """View-box units → canvas: the view box's square fitted to half-side `size` at (x, y), turned clockwise by
    `rotate` degrees about its centre and mirrored left to right by `flip`; also the centre and half-side."""
    cx, cy = ctx.frame.point(v["x"], v["y"])
    dx, dy = _offset(v)
    cx, cy = cx + dx, cy + dy
    r = ctx.size(v.get("size", 12.0), "size")
    if r < 1:
        raise RenderRejected(f"an asset's size is {r:.2f} px: too small to be seen")
    k = 2 * r / side
    m = skia.Matrix.Translate(-side / 2, -side / 2)
    m.postScale(-k if v.get("flip") else k, k)
    angle = _number(v.get("rotate", 0.0), "rotate")
    if angle:
        m.postRotate(angle)
    m.postTranslate(cx, cy)
    return m, cx, cy, r


@mark("icon")
def draw_icon(ctx: Ctx, v: dict, opts: dict) -> Drawn:
    src, side = icon_path(v["name"])
    m, cx, cy, r = _asset_matrix(ctx, v, side)
    if v.get("stroke") is not None:  # an outline: the path in canvas units, so the stroke width is in pixels
        path = skia.Path(src)
        path.transform(m)
        ctx.fill_and_stroke(v, path, default_fill=ctx.theme.ink)
        b = path.computeTightBounds()
        half = _number(v.get("stroke_width", 1.0), "stroke_width") / 2
        return Drawn((b.left() - half, b.top() - half, b.right() + half, b.bottom() + half),
                     circle=(cx, cy, r * math.sqrt(2) + half))
    fill = ctx.color(v["fill"]) if v.get("fill") is not None else ctx.theme.ink
    if fill is None:
        raise EvalError(f"fill 'none' leaves the icon '{v['name']}' nothing to draw with: give it a colour")
    # fill only: the cached path drawn under the matrix (no copy of its points); the box is the mapped tight box,
    # exact unless turned (then the box around the turned box)
    canvas = ctx.canvas
    canvas.save()
    canvas.concat(m)
    canvas.drawPath(src, paint(fill, _number(v.get("opacity", 1.0), "opacity")))
    canvas.restore()
    ctx.painter.marks += 1
    b = m.mapRect(src.computeTightBounds())
    return Drawn((b.left(), b.top(), b.right(), b.bottom()), circle=(cx, cy, r * math.sqrt(2)))


@mark("object")
def draw_object(ctx: Ctx, v: dict, opts: dict) -> Drawn:
    pic, side, tight = object_picture(v["name"])
    m, cx, cy, r = _asset_matrix(ctx, v, side)
    op = _number(v.get("opacity", 1.0), "opacity")
    if op >= 1.0:
        ctx.canvas.drawPicture(pic, m, None)
    else:
        ctx.canvas.drawPicture(pic, m, skia.Paint(Alphaf=max(0.0, op)))
    ctx.painter.marks += 1
    b = m.mapRect(tight)
    return Drawn((b.left(), b.top(), b.right(), b.bottom()), circle=(cx, cy, r * math.sqrt(2)))


# -- angle marks and grid cells ---------------------------------------------------------------------------------
@mark("angle")
def draw_angle(ctx: Ctx, v: dict, opts: dict) -> Drawn:
    cx, cy = ctx.frame.point(v["x"], v["y"])
    r = ctx.size(v.get("r", 18.0), "r")
    a0, a1 = _number(v["from"], "from"), _number(v["to"], "to")
    sweep = (a1 - a0) % 360
    s0 = ctx.frame.angle(a0)
    s_sweep = ctx.frame.angle(sweep)
    color = ctx.ink(v, "stroke", ctx.theme.ink)
    width = _number(v.get("stroke_width", 1.5) if v.get("stroke_width") not in (None, 1.0) else 1.5, "stroke_width")
    path = skia.Path()
    if opts["square"] and abs(sweep - 90) < 1e-6:
        k = r * 0.6
        u = (math.cos(math.radians(s0)), math.sin(math.radians(s0)))
        w = (math.cos(math.radians(s0 + s_sweep)), math.sin(math.radians(s0 + s_sweep)))
        pts = [(cx + k * u[0], cy + k * u[1]), (cx + k * (u[0] + w[0]), cy + k * (u[1] + w[1])),
               (cx + k * w[0], cy + k * w[1])]
        path.addPoly([skia.Point(*p) for p in pts], False)
    else:
        pts = _arc_pts(cx, cy, r, s0, s_sweep, 24)
        path.addArc(skia.Rect.MakeLTRB(cx - r, cy - r, cx + r, cy + r), s0, s_sweep)
    fill = ctx.color(v.get("fill"))  # 'none': no wedge
    if fill is not None:
        wedge_path = skia.Path(path)
        wedge_path.lineTo(cx, cy)
        wedge_path.close()
        ctx.canvas.drawPath(wedge_path, paint(fill, 0.35))
    ctx.canvas.drawPath(path, paint(color, _number(v.get("opacity", 1.0), "opacity"), width))
    ctx.painter.marks += 1
    mid = math.radians(s0 + s_sweep / 2)
    return Drawn(_bounds(pts + [(cx, cy)]), segments=_segments_of(pts, False), geometry={
        "vertex": [round(cx, 2), round(cy, 2)], "start": round(s0, 4), "sweep": round(s_sweep, 4),
        "label_point": [round(cx + (r + 12) * math.cos(mid), 2), round(cy + (r + 12) * math.sin(mid), 2)]})


@mark("cell")
def draw_cell(ctx: Ctx, v: dict, opts: dict) -> Drawn:
    f = ctx.frame
    if not isinstance(f, GridFrame):
        raise EvalError("a cell mark needs a grid frame")
    col, row = v["x"], v["y"]
    if not (0 <= row < f.rows and 0 <= col < f.cols):
        raise EvalError(f"cell (column {col}, row {row}) lies outside the {f.rows} × {f.cols} grid")
    pts = f.cell_polygon(col, row)
    inset = ctx.size(v.get("inset", 0.0), "inset")  # `sizes: frame`: fractions of a cell
    if inset:
        cx = sum(p[0] for p in pts) / len(pts)
        cy = sum(p[1] for p in pts) / len(pts)
        half = max(1e-6, max(math.hypot(p[0] - cx, p[1] - cy) for p in pts))
        k = max(0.0, (half - inset) / half)
        pts = [(cx + (p[0] - cx) * k, cy + (p[1] - cy) * k) for p in pts]
    if v.get("fill") in ("none", "") and v.get("stroke") in (None, "none", ""):
        ctx.painter.marks += 1  # an invisible cell (a witness box, a hit area): nothing to paint
        return Drawn(_bounds(pts), geometry={"cell": [col, row]})
    path = skia.Path()
    corner = ctx.size(v.get("corner", 0.0), "corner")
    if corner > 0 and not f.hex:
        x0, y0, x1, y1 = _bounds(pts)
        path.addRRect(skia.RRect.MakeRectXY(skia.Rect.MakeLTRB(x0, y0, x1, y1), corner, corner))
    else:
        path.addPoly([skia.Point(*p) for p in pts], True)
    ctx.fill_and_stroke(v, path, default_fill=None, default_stroke=None if v.get("fill") is not None
                        else ctx.theme.ink)
    return Drawn(_bounds(pts), geometry={"cell": [col, row]})


from . import maps  # noqa: E402,F401  (registers the map marks)
from . import marks3d  # noqa: E402,F401  (registers the 3-D marks)
