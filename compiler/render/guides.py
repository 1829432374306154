"""Guides: what explains a picture — axes, legends, colour ramps and tables. Each is optional: nothing is drawn that
the grammar did not ask for.

A guide first *reserves* room along one side of its node's box (axes and legends take their room before the frame
is fitted, so tick labels never collide with marks), then draws into the frame. compose.py calls `reserve` with the
guide's evaluated values and the frame's scales, and `draw` once the frame exists.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from ..errors import EvalError
from ..spec.guides import GUIDES  # noqa: F401  (the table lives in the spec; compose reads it here)
from .frames import (BandScale, CartesianFrame, Frame, GridFrame, PlaneFrame, PolarFrame, along, tick_text)
from .marks import MIN_FONT, RenderRejected
from .theme import PALETTES, ramp_rgb


@dataclass
class GuideInput:
    kind: str
    values: dict
    texts: dict
    options: dict
    entries: list = field(default_factory=list)  # per-entry values (legends, tables)
    items: list = field(default_factory=list)  # the entries themselves (tables bind rows)
    reserved_box: tuple = (0.0, 0.0, 0.0, 0.0)  # the strip of the node's box this guide took
    columns: list = field(default_factory=list)  # tables: [{header_text, weight, width}]


LABEL_SIZE = 11.0
TITLE_SIZE = 12.0


def _fit_size(p, s: str, size: float, width: float, bold: bool = False) -> float:
    while size > MIN_FONT and p.text_width(s, size, bold) > width:
        size -= 0.5
    if p.text_width(s, size, bold) > width:
        raise RenderRejected(f"label '{s[:30]}' does not fit in {width:.0f} px: overflow")
    return size


def axis_labels(g: GuideInput, frame_scales: dict) -> list[tuple[object, str]]:
    scale = frame_scales.get(g.options["scale"])
    if scale is None:
        raise EvalError(f"an axis on '{g.options['scale']}' needs a frame with that scale")
    values = g.values.get("values")
    pre = g.texts.get("prefix", "")
    suf = g.texts.get("suffix", "")
    if values is not None:
        return [(v, f"{pre}{tick_text(v)}{suf}") for v in values]
    return [(v, f"{pre}{tick_text(v)}{suf}") for _, v in scale.ticks()]


def side_of(g: GuideInput) -> str:
    side = g.options.get("side", "auto")
    if side == "auto":
        return "bottom" if g.options["scale"] == "x" else "left"
    return side


def reserve(p, g: GuideInput, frame_kind: str, frame_scales: dict) -> tuple[str, float] | None:
    """The side and pixels this guide takes from its node's box before the frame is fitted."""
    size = g.values.get("size") or LABEL_SIZE
    if g.kind == "axis":
        if frame_kind == "polar":
            if g.options["scale"] != "x" or not g.options["labels"]:
                return None
            widest = max((p.text_width(s, size) for _, s in axis_labels(g, {"x": frame_scales.get("theta"), "y": frame_scales.get("r")})),
                         default=0.0)
            return "all", max(size, widest) + 10
        side = side_of(g)
        room = 0.0
        if g.options["labels"]:
            labels = axis_labels(g, frame_scales)
            if side in ("left", "right"):
                room = max((p.text_width(s, size) for _, s in labels), default=0) + 10
            else:
                room = size + 10
        if g.texts.get("title"):
            room += TITLE_SIZE + 8
        return side, room
    if g.kind == "legend":
        side = g.options["side"]
        size = g.values.get("size") or 12.0
        entry_labels = [tick_text(e["label"]) for e in g.entries]
        title = g.texts.get("title")
        if side in ("left", "right"):
            widest = max([p.text_width(s, size) for s in entry_labels]
                         + [p.text_width(title, size, True) if title else 0])
            return side, widest + size + 26
        return side, (size + 10) * (2 if title else 1) + 6
    if g.kind == "ramp":
        return g.options["side"], 64.0 if g.options["side"] == "right" else 46.0
    return None


def draw(p, g: GuideInput, frame: Frame, box: tuple, bind) -> None:
    DRAW[g.kind](p, g, frame, box, bind)


# -- axes -------------------------------------------------------------------------------------------------------
def _draw_axis(p, g: GuideInput, frame: Frame, box, bind) -> None:
    if isinstance(frame, PolarFrame):
        return _draw_polar_axis(p, g, frame)
    scales = {"x": frame.scale("x"), "y": frame.scale("y")}
    labels = axis_labels(g, scales)
    size = g.values.get("size") or LABEL_SIZE
    side = side_of(g)
    ink, grid = p.theme.ink, p.theme.grid
    fx0, fy0, fx1, fy1 = _frame_box(frame)
    scale = scales[g.options["scale"]]
    band = isinstance(scale, BandScale) and not isinstance(frame, GridFrame)
    slot = None
    if g.options["scale"] == "x":
        slot = (fx1 - fx0) / max(1, len(labels)) if band or isinstance(frame, GridFrame) else None
        y_line = fy1 if side == "bottom" else fy0
        for v, s in labels:
            x = along(frame, "x", v)
            if g.options["grid"]:
                p.line(x, fy0, x, fy1, grid, p.theme.grid_width, p.theme.grid_dash)
            if g.options["labels"]:
                sz = _fit_size(p, s, size, slot - 2) if slot else size
                p.text(x, y_line + 12 if side == "bottom" else y_line - 12, s, sz)
        if g.options["line"]:
            zero = _zero_line(frame, "y")
            p.line(fx0, zero if zero is not None and side == "bottom" else y_line,
                   fx1, zero if zero is not None and side == "bottom" else y_line, ink, p.theme.axis_width)
        if g.texts.get("title"):
            y = (y_line + size + 10 + TITLE_SIZE / 2 + 4) if side == "bottom" else (y_line - size - 14 - TITLE_SIZE / 2)
            p.text((fx0 + fx1) / 2, y, g.texts["title"], TITLE_SIZE)
    else:
        x_line = fx0 if side == "left" else fx1
        widest = 0.0
        for v, s in labels:
            y = along(frame, "y", v)
            if g.options["grid"]:
                p.line(fx0, y, fx1, y, grid, p.theme.grid_width, p.theme.grid_dash)
            if g.options["labels"]:
                widest = max(widest, p.text_width(s, size))
                if side == "left":
                    p.text(x_line - 6, y, s, size, anchor="end")
                else:
                    p.text(x_line + 6, y, s, size, anchor="start")
        if g.options["line"]:
            p.line(x_line, fy0, x_line, fy1, ink, p.theme.axis_width)
            zero = _zero_line(frame, "y")
            if zero is not None and side == "left" and isinstance(frame, CartesianFrame):
                p.line(fx0, zero, fx1, zero, ink, p.theme.axis_width)
        if g.texts.get("title"):
            x = x_line - widest - 12 - TITLE_SIZE / 2 if side == "left" else x_line + widest + 12 + TITLE_SIZE / 2
            p.text(x, (fy0 + fy1) / 2, g.texts["title"], TITLE_SIZE, rotate=-90 if side == "left" else 90)


def _frame_box(frame: Frame) -> tuple[float, float, float, float]:
    if isinstance(frame, PlaneFrame):
        x0, y1 = frame.point(frame.x0, frame.y0)
        x1, y0 = frame.point(frame.x1, frame.y1)
        return x0, y0, x1, y1
    if isinstance(frame, GridFrame):
        x0, y0 = frame.point(0, 0)
        x1, y1 = frame.point(frame.cols, frame.rows)
        return x0, y0, x1, y1
    return frame.box


def _zero_line(frame: Frame, channel: str) -> float | None:
    """Where value 0 sits on a numeric cartesian y scale (bars grow from it), when it is inside the domain."""
    if not isinstance(frame, CartesianFrame):
        return None
    s = frame.y
    lo, hi = getattr(s, "lo", None), getattr(s, "hi", None)
    if lo is None or hi is None or s.kind != "linear" or not lo <= 0 <= hi:
        return None
    return along(frame, "y", 0)


def _draw_polar_axis(p, g: GuideInput, f: PolarFrame) -> None:
    size = g.values.get("size") or LABEL_SIZE
    labels = axis_labels(g, {"x": f.theta, "y": f.r})
    if g.options["scale"] == "x":
        for v, s in labels:
            a = math.radians(f.screen_angle(v))
            if g.options["grid"]:
                p.line(f.cx + f.radius * f.inner * math.cos(a), f.cy + f.radius * f.inner * math.sin(a),
                       f.cx + f.radius * math.cos(a), f.cy + f.radius * math.sin(a), p.theme.grid, 1.0)
            if g.options["labels"]:
                # Centre the label just outside the rim, pushed out by its half-extent along the spoke.
                rr = f.radius + 6 + abs(math.cos(a)) * p.text_width(s, size) / 2 + abs(math.sin(a)) * size / 2
                p.text(f.cx + rr * math.cos(a), f.cy + rr * math.sin(a), s, size)
        return
    spokes = [v for _, v in f.theta.ticks()] if g.options["shape"] == "polygon" else None
    for v, s in labels:
        rr = f.radial(v)
        if g.options["grid"] and rr > 0:
            if spokes:
                pts = []
                for t in spokes:
                    a = math.radians(f.screen_angle(t))
                    pts.append((f.cx + rr * math.cos(a), f.cy + rr * math.sin(a)))
                p.polygon(pts, None, p.theme.grid, 1.0)
            else:
                p.circle(f.cx, f.cy, rr, None, p.theme.grid, 1.0)
        if g.options["labels"]:
            a = math.radians(f.start)
            p.text(f.cx + rr * math.cos(a) + 4, f.cy + rr * math.sin(a), s, size * 0.9, anchor="start")


# -- legends and ramps ------------------------------------------------------------------------------------------
def _draw_legend(p, g: GuideInput, frame: Frame, box, bind) -> None:
    side = g.options["side"]
    size = g.values.get("size") or 12.0
    x0, y0, x1, y1 = g.reserved_box
    title = g.texts.get("title")
    sw = size * 0.9
    entries = [(tick_text(e["label"]), p.theme.resolve(e["color"])) for e in g.entries]
    if side in ("left", "right"):
        row = size + 8
        total = row * (len(entries) + (1 if title else 0))
        y = (y0 + y1) / 2 - total / 2 + row / 2
        x = x0 + 10
        if title:
            p.text(x, y, title, size, anchor="start", bold=True)
            y += row
        for (label, rgb), item in zip(entries, g.items):
            _swatch(p, g.options["shape"], x + sw / 2, y, sw, rgb)
            box_ = p.text(x + sw + 6, y, label, size, anchor="start")
            bind(item, (x, y - sw / 2, box_[2], y + sw / 2))
            y += row
        return
    widths = [sw + 6 + p.text_width(label, size) + 16 for label, _ in entries]
    total = sum(widths)
    if total > x1 - x0:
        raise RenderRejected(f"legend of {len(entries)} entries is wider than its {x1 - x0:.0f} px: overflow")
    x = (x0 + x1) / 2 - total / 2
    y = (y0 + y1) / 2
    if title:
        p.text((x0 + x1) / 2, y0 + size / 2 + 4, title, size, bold=True)
        y = y0 + size * 1.5 + 10
    for (label, rgb), w, item in zip(entries, widths, g.items):
        _swatch(p, g.options["shape"], x + sw / 2, y, sw, rgb)
        box_ = p.text(x + sw + 6, y, label, size, anchor="start")
        bind(item, (x, y - sw / 2, box_[2], y + sw / 2))
        x += w


def _swatch(p, shape: str, cx: float, cy: float, s: float, rgb) -> None:
    if shape == "circle":
        p.circle(cx, cy, s / 2, rgb, p.theme.ink, 0.8)
    elif shape == "line":
        p.line(cx - s / 2 - 2, cy, cx + s / 2 + 2, cy, rgb, 3.0)
    else:
        p.rect(cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2, rgb, p.theme.ink, 0.8)


def _draw_ramp(p, g: GuideInput, frame: Frame, box, bind) -> None:
    palette = g.values.get("palette") or "blues"
    if palette not in PALETTES:
        raise EvalError(f"unknown palette '{palette}' (known: {', '.join(PALETTES)})")
    palette = p.theme.ramp_for(palette)  # with variety: the theme's ramp family, as the cells' ramp() takes it
    dom = g.values["domain"]
    if len(dom) != 2 or dom[1] <= dom[0]:
        raise EvalError(f"a ramp's domain is [lo, hi] with lo < hi, got {dom}")
    lo, hi = dom
    from .frames import LinearScale

    ticks = [v for _, v in LinearScale(lo, hi, nice=False, max_ticks=4).ticks()]
    x0, y0, x1, y1 = g.reserved_box
    size = g.values.get("size") or 10.5
    steps = 48
    if g.options["side"] == "right":
        bx0, bx1 = x0 + 10, x0 + 24
        by0, by1 = y0 + (y1 - y0) * 0.15, y1 - (y1 - y0) * 0.15
        for k in range(steps):
            t0, t1 = k / steps, (k + 1) / steps
            p.rect(bx0, by1 - t1 * (by1 - by0), bx1, by1 - t0 * (by1 - by0) + 0.5,
                   ramp_rgb(palette, (k + 0.5) / steps))
        p.rect(bx0, by0, bx1, by1, None, p.theme.ink, 0.8)
        for v in ticks:
            y = by1 - (v - lo) / (hi - lo) * (by1 - by0)
            p.line(bx1, y, bx1 + 4, y, p.theme.ink, 1.0)
            p.text(bx1 + 7, y, tick_text(v), size, anchor="start")
        if g.texts.get("title"):
            p.text((bx0 + bx1) / 2, by0 - 10, g.texts["title"], size, bold=True)
    else:
        bx0, bx1 = x0 + (x1 - x0) * 0.2, x1 - (x1 - x0) * 0.2
        by0, by1 = y0 + 6, y0 + 18
        for k in range(steps):
            t0, t1 = k / steps, (k + 1) / steps
            p.rect(bx0 + t0 * (bx1 - bx0), by0, bx0 + t1 * (bx1 - bx0) + 0.5, by1,
                   ramp_rgb(palette, (k + 0.5) / steps))
        p.rect(bx0, by0, bx1, by1, None, p.theme.ink, 0.8)
        for v in ticks:
            x = bx0 + (v - lo) / (hi - lo) * (bx1 - bx0)
            p.line(x, by1, x, by1 + 4, p.theme.ink, 1.0)
            p.text(x, by1 + 11, tick_text(v), size)
        if g.texts.get("title"):
            p.text(bx0 - 8, (by0 + by1) / 2, g.texts["title"], size, anchor="end", bold=True)


# -- tables -----------------------------------------------------------------------------------------------------
def _draw_table(p, g: GuideInput, frame: Frame, box, bind) -> None:
    x0, y0, x1, y1 = box
    columns = g.columns
    rows = g.entries
    header = g.options["header"]
    n = len(rows) + (1 if header else 0)
    if n == 0:
        return
    row_h = min((y1 - y0) / n, (g.values.get("size") or 13.0) * 2.3)
    size = min(g.values.get("size") or 13.0, row_h / 2.0)
    if row_h < MIN_FONT * 1.4:
        raise RenderRejected(f"a table of {n} rows in {y1 - y0:.0f} px: rows would be under {MIN_FONT * 1.4:.0f} px: "
                             f"overflow")
    total_w = sum(c["width"] for c in columns)
    widths = [(x1 - x0) * c["width"] / total_w for c in columns]
    top = y0 + ((y1 - y0) - row_h * n) / 2
    ink, grid = p.theme.ink, p.theme.grid
    y = top
    if header:
        hf = p.theme.resolve(g.values.get("header_fill") or "light")
        x = x0
        for c, w in zip(columns, widths):
            if hf is not None:
                p.rect(x, y, x + w, y + row_h, hf)
            s = c["header_text"]
            p.text(x + w / 2, y + row_h / 2, s, _fit_size(p, s, size, w - 8, True), bold=True)
            x += w
        y += row_h
    for item, cells in zip(g.items, rows):
        x = x0
        for c, w, cell in zip(columns, widths, cells):
            if cell.get("fill") is not None:
                fill = p.theme.resolve(cell["fill"])
                if fill is not None:
                    p.rect(x, y, x + w, y + row_h, fill)
            s = tick_text(cell["text"])
            color = p.theme.resolve(cell["color"]) if cell.get("color") is not None else None
            p.text(x + w / 2, y + row_h / 2, s, _fit_size(p, s, size, w - 8, c["weight"] == "bold"), color,
                   bold=c["weight"] == "bold")
            x += w
        bind(item, (x0, y, x1, y + row_h))
        y += row_h
    lines = g.options["lines"]
    if lines != "none":
        for k in range(n + 1):
            yy = top + k * row_h
            p.line(x0, yy, x1, yy, ink if k in (0, 1 if header else 0, n) else grid, 1.2 if k in (0, n) else 1.0)
        if lines == "grid":
            x = x0
            for w in widths[:-1]:
                x += w
                p.line(x, top, x, top + n * row_h, grid, 1.0)


DRAW: dict[str, Callable] = {"axis": _draw_axis, "legend": _draw_legend, "ramp": _draw_ramp, "table": _draw_table}
