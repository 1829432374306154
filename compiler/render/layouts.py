"""Layouts: declarative arrangements of marks bound to state objects.

A grammar names one layout and binds its parameters: `items` is an expression giving a list of records, the other
parameters name fields of those records (checked at compile time against the state schema) or hold options. Text
options (title, axis labels) are templates over the state. Render-only choices come from the render stream and are
returned as `decisions`, which the trace records.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..errors import EvalError
from ..expr.lib_place import nice_axis  # the axes of charts and nice_ticks() share one rule
from ..expr.types import FLOAT, INT, STR, Type
from ..load.models import Expr, Model
from .painter import Painter


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


# -- layouts in their own modules (importing one registers its layouts) -----------------------------------------
# (one line per module; keep this list sorted)
from . import layouts_board  # noqa: E402,F401
from . import layouts_symbolic  # noqa: E402,F401
