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
from ..expr.types import Type
from ..load.models import Model


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


def _num(v, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise EvalError(f"{what} must be a number, got {v!r}")
    return v


# -- layouts in their own modules (importing one registers its layouts) -----------------------------------------
# (one line per module; keep this list sorted)
from . import layouts_geometry  # noqa: E402,F401
