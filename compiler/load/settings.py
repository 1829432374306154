"""Settings tables read into frozen dataclasses (tool limits, the curriculum, a run's tools block): unknown keys and
values of the wrong type are refused with the key's dotted name; each class then checks its own ranges."""
from __future__ import annotations

from dataclasses import fields
from typing import Any

from ..errors import TesseraError


def _typed(value: Any, default: Any) -> tuple[bool, Any]:
    """Whether `value` has the type of the field's `default`, and the value as the field holds it."""
    if isinstance(default, bool):
        return isinstance(value, bool), value
    if isinstance(default, int):
        return isinstance(value, int) and not isinstance(value, bool), value
    if isinstance(default, float):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return ok, float(value) if ok else value
    if isinstance(default, tuple):  # a list of names
        ok = isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)
        return ok, tuple(value) if ok else value
    return isinstance(value, str), value


def settings_values(cls, data: dict | None, where: str, only: set[str] | None = None) -> dict[str, Any]:
    """The table's values for `cls`'s fields (those in `only`, when given), type-checked against the defaults.
    Keys outside the fields (or outside `only`) are an error naming every known key."""
    data = dict(data or {})
    known = {f.name: f for f in fields(cls) if only is None or f.name in only}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise TesseraError(f"{where}: unknown key(s) {', '.join(unknown)} (keys: {', '.join(known)})")
    values = {}
    for name, value in data.items():
        default = known[name].default
        ok, value = _typed(value, default)
        if not ok:
            raise TesseraError(f"{where}.{name}: expected {type(default).__name__}, got {value!r}")
        values[name] = value
    return values
