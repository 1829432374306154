"""Layouts: declarative arrangements of marks bound to state objects.

A grammar names one layout and binds its parameters: `items` is an expression giving a list of records, the other
parameters name fields of those records (checked at compile time against the state schema) or hold options. Text
options (title, axis labels) are templates over the state. Render-only choices come from the render stream and are
returned as `decisions`, which the trace records.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from pydantic import Field

from ..errors import EvalError
from ..expr.types import FLOAT, INT, STR, Type
from ..load.models import Expr, Model
from .painter import SHAPES, Painter

SIZE_WORDS = {"small": 0.03, "medium": 0.04, "large": 0.05}


@dataclass
class LayoutDef:
    name: str
    params: type[Model]
    fields: dict[str, tuple[Type, ...]]  # param → allowed field types (param value names a record field)
    exprs: dict[str, Type]  # param → type of an expression evaluated over the state
    texts: tuple[str, ...]  # params that are templates
    draw: Callable[..., dict]
    summary: str


LAYOUTS: dict[str, LayoutDef] = {}


def layout(name: str, params: type[Model], fields: dict, exprs: dict | None = None, texts=(), summary: str = ""):
    def register(fn):
        LAYOUTS[name] = LayoutDef(name, params, fields, exprs or {}, tuple(texts), fn, summary)
        return fn

    return register


# -- axes -------------------------------------------------------------------------------------------------------
def nice_axis(lo: float, hi: float, max_ticks: int = 6) -> tuple[float, float, float]:
    """Round axis bounds and a 1/2/5 × 10^k tick step covering [lo, hi]."""
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / max_ticks
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    return math.floor(lo / step) * step, math.ceil(hi / step) * step, step


def _tick_text(v: float) -> str:
    return str(int(round(v))) if abs(v - round(v)) < 1e-9 else f"{v:g}"


@dataclass
class Frame:
    left: float
    top: float
    right: float
    bottom: float


def _frame(p: Painter, title: str | None, x_label: str | None, y_label: str | None) -> Frame:
    return Frame(left=58 + (16 if y_label else 0), top=40 if title else 18, right=p.width - 18,
                 bottom=p.height - 42 - (18 if x_label else 0))


def _decorate(p: Painter, f: Frame, title, x_label, y_label):
    if title:
        p.text(p.width / 2, 20, title, 15, bold=True)
    if x_label:
        p.text((f.left + f.right) / 2, p.height - 14, x_label, 12)
    if y_label:
        p.text(14, (f.top + f.bottom) / 2, y_label, 12, rotate=-90)


def _y_axis(p: Painter, f: Frame, lo, hi, step) -> Callable[[float], float]:
    ymap = lambda v: f.bottom - (v - lo) / (hi - lo) * (f.bottom - f.top)  # noqa: E731
    n = int(round((hi - lo) / step))
    for i in range(n + 1):
        v = lo + i * step
        y = ymap(v)
        p.line(f.left, y, f.right, y, p.theme.grid, 1.0)
        p.text(f.left - 6, y, _tick_text(v), 11, anchor="end")
    p.line(f.left, f.top, f.left, f.bottom, p.theme.ink, 1.2)
    p.line(f.left, ymap(max(lo, min(hi, 0))), f.right, ymap(max(lo, min(hi, 0))), p.theme.ink, 1.2)
    return ymap


def _fit(p: Painter, s: str, size: float, width: float) -> float:
    """Largest font size ≤ size at which s fits in width (never below 8)."""
    while size > 8 and p.text_width(s, size) > width:
        size -= 0.5
    return size


def _num(v, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise EvalError(f"{what} must be a number, got {v!r}")
    return v


# -- charts -----------------------------------------------------------------------------------------------------
class BarChart(Model):
    items: Expr
    label: str
    value: str
    color: str | None = None
    value_labels: bool = True
    title: str | None = None
    x_label: str | None = None
    y_label: str | None = None


@layout("bar_chart", BarChart, {"label": (STR,), "value": (INT, FLOAT), "color": (STR,)},
        texts=("title", "x_label", "y_label"), summary="vertical bars, one per item, on a value axis")
def draw_bar_chart(p: Painter, prm: BarChart, items: list[dict], text: dict, rng) -> dict:
    f = _frame(p, text.get("title"), text.get("x_label"), text.get("y_label"))
    vals = [_num(it[prm.value], "bar value") for it in items]
    lo, hi, step = nice_axis(min(0, min(vals)), max(vals))
    ymap = _y_axis(p, f, lo, hi, step)
    ratio = rng.choice([0.55, 0.65, 0.75])
    slot = (f.right - f.left) / len(items)
    for i, (it, v) in enumerate(zip(items, vals)):
        x0 = f.left + i * slot + slot * (1 - ratio) / 2
        fill = p.theme.color(it[prm.color]) if prm.color else p.theme.color(p.theme.series)
        p.rect(x0, ymap(max(v, 0)), x0 + slot * ratio, ymap(min(v, 0)), fill, obj=it)
        cx = x0 + slot * ratio / 2
        lab = str(it[prm.label])
        p.text(cx, f.bottom + 13, lab, _fit(p, lab, 12, slot - 2))
        if prm.value_labels:
            p.text(cx, ymap(v) - 9 if v >= 0 else ymap(v) + 9, _tick_text(v), 11)
    _decorate(p, f, text.get("title"), text.get("x_label"), text.get("y_label"))
    return {"bar_ratio": ratio}


class LineChart(Model):
    items: Expr
    x: str
    y: str
    value_labels: bool = False
    title: str | None = None
    x_label: str | None = None
    y_label: str | None = None


@layout("line_chart", LineChart, {"x": (STR, INT), "y": (INT, FLOAT)}, texts=("title", "x_label", "y_label"),
        summary="one series: markers joined by a line, categories evenly spaced along x")
def draw_line_chart(p: Painter, prm: LineChart, items: list[dict], text: dict, rng) -> dict:
    f = _frame(p, text.get("title"), text.get("x_label"), text.get("y_label"))
    vals = [_num(it[prm.y], "line value") for it in items]
    lo, hi, step = nice_axis(min(0, min(vals)), max(vals))
    ymap = _y_axis(p, f, lo, hi, step)
    inset = rng.choice([0.5, 0.6])
    slot = (f.right - f.left) / len(items)
    pts = [(f.left + (i + inset) * slot, ymap(v)) for i, v in enumerate(vals)]
    color = p.theme.color(p.theme.series)
    p.polyline(pts, color, 2.2)
    for it, (x, y), v in zip(items, pts, vals):
        p.circle(x, y, 4.5, color, p.theme.background, 1.2, obj=it)
        lab = str(it[prm.x])
        p.text(x, f.bottom + 13, lab, _fit(p, lab, 12, slot - 2))
        if prm.value_labels:
            p.text(x, y - 12, _tick_text(v), 11)
    _decorate(p, f, text.get("title"), text.get("x_label"), text.get("y_label"))
    return {"inset": inset}


class ScatterChart(Model):
    items: Expr
    x: str
    y: str
    color: str | None = None
    x_range: list[float] | None = Field(None, min_length=2, max_length=2)
    y_range: list[float] | None = Field(None, min_length=2, max_length=2)
    title: str | None = None
    x_label: str | None = None
    y_label: str | None = None


@layout("scatter_chart", ScatterChart, {"x": (INT, FLOAT), "y": (INT, FLOAT), "color": (STR,)},
        texts=("title", "x_label", "y_label"), summary="points on numeric x and y axes, optionally coloured by group")
def draw_scatter_chart(p: Painter, prm: ScatterChart, items: list[dict], text: dict, rng) -> dict:
    f = _frame(p, text.get("title"), text.get("x_label"), text.get("y_label"))
    xs = [_num(it[prm.x], "x") for it in items]
    ys = [_num(it[prm.y], "y") for it in items]
    ylo, yhi, ystep = nice_axis(*(prm.y_range or (min(ys), max(ys))))
    xlo, xhi, xstep = nice_axis(*(prm.x_range or (min(xs), max(xs))))
    ymap = _y_axis(p, f, ylo, yhi, ystep)
    xmap = lambda v: f.left + (v - xlo) / (xhi - xlo) * (f.right - f.left)  # noqa: E731
    for i in range(int(round((xhi - xlo) / xstep)) + 1):
        v = xlo + i * xstep
        p.line(xmap(v), f.top, xmap(v), f.bottom, p.theme.grid, 1.0)
        p.text(xmap(v), f.bottom + 12, _tick_text(v), 11)
    p.line(f.left, f.bottom, f.right, f.bottom, p.theme.ink, 1.2)
    radius = rng.choice([4.5, 5.0, 5.5])
    for it, x, y in zip(items, xs, ys):
        fill = p.theme.color(it[prm.color]) if prm.color else p.theme.color(p.theme.series)
        p.circle(xmap(x), ymap(y), radius, fill, obj=it, group="points")
    _decorate(p, f, text.get("title"), text.get("x_label"), text.get("y_label"))
    return {"radius": radius}


# -- scenes -----------------------------------------------------------------------------------------------------
class ShapeField(Model):
    items: Expr
    x: str
    y: str
    shape: str
    color: str
    size: str | None = None
    label: str | None = None


def _radius(v, unit: float) -> float:
    if v is None:
        return SIZE_WORDS["medium"] * unit
    if isinstance(v, str):
        if v not in SIZE_WORDS:
            raise EvalError(f"unknown size word '{v}' (known: {', '.join(SIZE_WORDS)})")
        return SIZE_WORDS[v] * unit
    return _num(v, "size") * unit


def _check_shape(kind: str) -> str:
    if kind not in SHAPES:
        raise EvalError(f"unknown shape '{kind}' (known: {', '.join(SHAPES)})")
    return kind


@layout("shape_field", ShapeField, {"x": (INT, FLOAT), "y": (INT, FLOAT), "shape": (STR,), "color": (STR,),
                                    "size": (INT, FLOAT, STR), "label": (STR, INT)},
        summary="glyphs placed at unit-square coordinates (x right, y down); size is a radius fraction or a word")
def draw_shape_field(p: Painter, prm: ShapeField, items: list[dict], text: dict, rng) -> dict:
    unit = min(p.width, p.height)
    j = p.theme.jitter
    for it in items:
        cx = _num(it[prm.x], "x") * p.width + (rng.uniform(-j, j) if j else 0.0)
        cy = _num(it[prm.y], "y") * p.height + (rng.uniform(-j, j) if j else 0.0)
        r = _radius(it[prm.size] if prm.size else None, unit)
        p.shape(_check_shape(it[prm.shape]), cx, cy, r, p.theme.color(it[prm.color]), obj=it, group="shapes",
                outline=p.theme.ink)
        if prm.label:
            p.text(cx, cy - r - 9, str(it[prm.label]), 12, bold=True)
    return {}


class GridBoard(Model):
    items: Expr
    rows: Expr
    cols: Expr
    row: str
    col: str
    shape: str
    color: str
    coords: bool = True


@layout("grid_board", GridBoard, {"row": (INT,), "col": (INT,), "shape": (STR,), "color": (STR,)},
        exprs={"rows": INT, "cols": INT},
        summary="a rows × cols board of cells; each item is a glyph in cell (row, col), 0-based, row 0 on top")
def draw_grid_board(p: Painter, prm: GridBoard, items: list[dict], text: dict, rng, rows: int, cols: int) -> dict:
    if not (1 <= rows <= 40 and 1 <= cols <= 40):
        raise EvalError(f"grid_board of {rows} × {cols} cells (allowed 1..40 each)")
    margin = 30 if prm.coords else 12
    cell = min((p.width - margin - 12) / cols, (p.height - margin - 12) / rows)
    x0 = margin + (p.width - margin - 12 - cell * cols) / 2
    y0 = margin + (p.height - margin - 12 - cell * rows) / 2
    for r in range(rows + 1):
        p.line(x0, y0 + r * cell, x0 + cols * cell, y0 + r * cell, p.theme.ink, 1.2)
    for c in range(cols + 1):
        p.line(x0 + c * cell, y0, x0 + c * cell, y0 + rows * cell, p.theme.ink, 1.2)
    if prm.coords:
        for r in range(rows):
            p.text(x0 - 12, y0 + (r + 0.5) * cell, str(r + 1), 12)
        for c in range(cols):
            p.text(x0 + (c + 0.5) * cell, y0 - 12, str(c + 1), 12)
    fill_ratio = rng.choice([0.32, 0.36, 0.4])
    for it in items:
        r, c = it[prm.row], it[prm.col]
        if not (0 <= r < rows and 0 <= c < cols):
            raise EvalError(f"item at cell ({r}, {c}) lies outside the {rows} × {cols} board")
        p.shape(_check_shape(it[prm.shape]), x0 + (c + 0.5) * cell, y0 + (r + 0.5) * cell, cell * fill_ratio,
                p.theme.color(it[prm.color]), obj=it, group="cells", outline=p.theme.ink)
    return {"fill_ratio": fill_ratio}


# -- layouts in their own modules (importing one registers its layouts) -----------------------------------------
# (one line per module; keep this list sorted)
from . import layouts_geometry  # noqa: E402,F401
from . import layouts_graph  # noqa: E402,F401
from . import layouts_icons  # noqa: E402,F401
