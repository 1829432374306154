"""Turn pydantic validation errors into positioned, human diagnostics."""
from __future__ import annotations

import types
import typing
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from ..errors import Diagnostics
from .models import OLD_TYPE_WORDS
from .yaml_source import SourceDoc


def describe(v: Any) -> str:
    if v is None:
        return "nothing"
    if isinstance(v, bool):
        return f"boolean {str(v).lower()}"
    if isinstance(v, int):
        return f"integer {v}"
    if isinstance(v, float):
        return f"number {v}"
    if isinstance(v, str):
        return f"string '{v[:40]}'"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "a mapping"
    return type(v).__name__


def _model_at(model: type, loc: tuple) -> type[BaseModel] | None:
    """The pydantic model class found by following `loc` through field annotations (for 'allowed keys' hints)."""
    t: Any = model
    for part in loc:
        t = _unwrap(t)
        if isinstance(t, type) and issubclass(t, BaseModel):
            field = t.model_fields.get(part) if isinstance(part, str) else None
            if field is None:
                return None
            t = field.annotation
        else:
            origin = typing.get_origin(t)
            args = typing.get_args(t)
            if origin in (list, dict) and args:
                t = args[-1]
            else:
                return None
    t = _unwrap(t)
    return t if isinstance(t, type) and issubclass(t, BaseModel) else None


def _unwrap(t: Any) -> Any:
    while True:
        origin = typing.get_origin(t)
        if origin is typing.Annotated:
            t = typing.get_args(t)[0]
        elif origin in (typing.Union, types.UnionType):
            models = [a for a in typing.get_args(t) if isinstance(a, type) and issubclass(a, BaseModel)]
            if models:
                return models[0]
            return t
        else:
            return t


def validate(model: type[BaseModel], doc: SourceDoc, diags: Diagnostics, loc: tuple = ()) -> Any:
    """Validate doc.data (or the value at `loc`) against a model; every error becomes a positioned diagnostic."""
    data = doc.data
    for part in loc:
        data = data[part]
    if not isinstance(data, dict):
        diags.error(doc.pos(loc), f"expected a mapping, got {describe(data)}", code="value-type")
        return None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        for err in exc.errors(include_url=False):
            report(model, doc, diags, loc, err)
        return None


def report(model: type, doc: SourceDoc, diags: Diagnostics, base: tuple, err: ErrorDetails) -> None:
    # Drop pydantic's union/validator tags from the location ('function-after[...]', 'str', ...).
    raw = tuple(err["loc"])
    loc = base + tuple(p for p in raw if isinstance(p, int) or not _is_tag(p))
    kind = err["type"]
    value = err.get("input")
    if kind == "extra_forbidden":
        owner = _model_at(model, tuple(p for p in raw if isinstance(p, int) or not _is_tag(p))[:-1])
        hint = f" (allowed here: {', '.join(owner.model_fields)})" if owner else ""
        key = str(loc[-1])
        if any(ch in key for ch in "()->'\""):
            hint += "; an expression with commas or colons inside {...} or [...] must be quoted"
        diags.error(doc.key_pos(loc), f"unknown key '{key}'{hint}", code="unknown-key")
        return
    if kind == "missing":
        diags.error(doc.pos(loc[:-1]), f"missing required key '{loc[-1]}'", code="missing-key")
        return
    where = doc.pos(loc)
    what = {
        "int_type": "an integer", "float_type": "a number", "string_type": "a string", "bool_type": "true or false",
        "list_type": "a list", "dict_type": "a mapping", "model_type": "a mapping", "model_attributes_type":
        "a mapping",
    }.get(kind)
    if what:
        diags.error(where, f"expected {what}, got {describe(value)}", code="value-type")
    elif kind == "literal_error":
        expected = err["msg"].removeprefix("Input should be ")
        new = OLD_TYPE_WORDS.get(value) if isinstance(value, str) else None
        if new is not None and f"'{new}'" in expected:
            diags.error(where, f"'{value}' is an old type word: write '{new}' (the type words are {expected})",
                        code="old-type-word")
        else:
            diags.error(where, f"expected {expected}, got {describe(value)}", code="value-type")
    elif kind == "string_pattern_mismatch":
        shown = value if len(str(value)) <= 60 else f"{str(value)[:60]}…"
        diags.error(where, f"'{shown}' is not a valid name here (expected lowercase dotted ids like charts.bar_chart)",
                code="bad-id")
    elif kind in ("too_short", "too_long"):
        diags.error(where, err["msg"].replace("Value", "this value").replace("List", "this list"), code="value-type")
    else:
        diags.error(where, err["msg"], code="value-type")


def _is_tag(p: str) -> bool:
    return "[" in p or p in ("str", "int", "float", "bool", "list", "dict") or p.startswith("function-")
