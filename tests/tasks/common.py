"""Trace helpers shared by the oracles of several domains: read a step or a state reference out of a recorded trace,
and small pure helpers. Plain Python, never the expression language."""
from __future__ import annotations

import re
from collections import Counter


def resolve(trace: dict, value):
    """Turn {"$ref": "shapes[3]"} into the state object it names."""
    if isinstance(value, dict) and set(value) == {"$ref"}:
        obj = trace["state"]
        for name, index in re.findall(r"([A-Za-z_]\w*)|\[(\d+)\]", value["$ref"]):
            obj = obj[name] if name else obj[int(index)]
        return obj
    if isinstance(value, list):
        return [resolve(trace, v) for v in value]
    return value


def step(trace: dict, name: str):
    return resolve(trace, trace["steps"][name])


def first_mode(values):
    counts = Counter(values)
    best = max(counts.values())
    return next(v for v in values if counts[v] == best)


def only(values: list):
    assert len(values) == 1, f"expected exactly one, got {values}"
    return values[0]


def _letter_of(fits):
    return lambda tr: "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[only(fits(tr))]


def options_matching(tr, correct) -> list[int]:
    """Indices of the listed options (the `options` step) that are among the correct values."""
    return [i for i, o in enumerate(step(tr, "options")) if o in correct]
