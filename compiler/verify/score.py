"""Scoring a response against a verifier label.

A label is self-contained JSON (it travels into datasets and the RL reward function):
    {"type": "integer", "answer": 12, "key": "answer", "contract": "integer_exact",
     "tolerance": {"abs": 0, "rel": 0}, "normalize": {...}, "items": null}
reward = 0.95 · answer + 0.05 · format. `format` is 1 when the response ends in a JSON object whose only key is the
label's key. Work per response is bounded: only the last MAX_TAIL characters are read, at most MAX_TRIES candidate
objects are parsed, and values longer than MAX_VALUE are refused.
"""
from __future__ import annotations

import json
import math
import re
import string
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

MAX_TAIL = 4096
MAX_TRIES = 32
MAX_VALUE = 2000
MAX_ITEMS = 500
W_ANSWER, W_FORMAT = 0.95, 0.05

_PUNCT = str.maketrans("", "", string.punctuation)
_WS = re.compile(r"\s+")
_INT = re.compile(r"^[+-]?\d{1,18}$")
_ARTICLES = re.compile(r"^(the|a|an)\s+")
_OPTION = re.compile(r"^\(?\s*(?:option\s+)?([A-Za-z])\s*[\).:]?$", re.IGNORECASE)
_FRACTION = re.compile(r"^([+-]?\d{1,12})\s*/\s*(\d{1,12})$")
_CLOCK = re.compile(r"^(\d{1,2})\s*[:.h]\s*(\d{2})\s*(?:([ap])\.?\s*m\.?)?$", re.IGNORECASE)
_OCLOCK = re.compile(r"^(\d{1,2})\s*(?:o'?\s*clock)?\s*(?:([ap])\.?\s*m\.?)?$", re.IGNORECASE)
_BRACKETS = {"(": ")", "[": "]"}


@dataclass(frozen=True)
class Score:
    answer: float
    format: float
    reward: float
    parsed: Any = None
    reason: str = ""

    def to_dict(self) -> dict:
        return {"reward": self.reward, "answer": self.answer, "format": self.format, "parsed": self.parsed,
                "reason": self.reason}


class _Bad(Exception):
    """A response value that cannot be read as the expected type."""


# -- finding the final JSON object ------------------------------------------------------------------------------
def final_json(response: Any) -> tuple[dict | None, str]:
    if not isinstance(response, str):
        return None, "response is not text"
    tail = response[-MAX_TAIL:].rstrip()
    if tail.endswith("```"):
        tail = tail[:-3].rstrip()
    if not tail.endswith("}"):
        return None, "response does not end with a JSON object"
    end = len(tail)
    for _ in range(MAX_TRIES):
        end = tail.rfind("{", 0, end)
        if end < 0:
            break
        try:
            obj = json.loads(tail[end:])
        except (ValueError, RecursionError):
            continue
        if isinstance(obj, dict):
            return obj, ""
    return None, "final JSON object could not be parsed"


# -- normalisers ------------------------------------------------------------------------------------------------
def _norm_int(v) -> int:
    if isinstance(v, bool):
        raise _Bad("boolean where an integer was expected")
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        if math.isfinite(v) and v.is_integer():
            return int(v)
        raise _Bad("not an integer")
    if isinstance(v, str):
        s = v.strip().replace(",", "").replace("_", "").replace(" ", "")
        if _INT.match(s):
            return int(s)
        if re.match(r"^[+-]?\d{1,18}\.0*$", s):
            return int(float(s))
    raise _Bad("not an integer")


def _norm_num(v) -> float:
    if isinstance(v, bool):
        raise _Bad("boolean where a number was expected")
    if isinstance(v, (int, float)):
        f = float(v)
    elif isinstance(v, str) and len(v) <= 40:
        frac = _FRACTION.match(v.strip())
        if frac:  # "3/8": an exact fraction is read as its value
            if int(frac.group(2)) == 0:
                raise _Bad("zero denominator")
            return int(frac.group(1)) / int(frac.group(2))
        try:
            f = float(v.strip().replace(",", ""))
        except ValueError:
            raise _Bad("not a number") from None
    else:
        raise _Bad("not a number")
    if not math.isfinite(f):
        raise _Bad("not a finite number")
    return f


def _norm_str(v, norm: dict) -> str:
    if isinstance(v, bool):
        v = "true" if v else "false"
    elif isinstance(v, (int, float)):
        v = str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)
    if not isinstance(v, str) or len(v) > MAX_VALUE:
        raise _Bad("not a string")
    if norm.get("form", "text") == "clock_time":
        return _norm_clock(v)
    s = v
    if norm.get("case", "fold") == "fold":
        s = s.casefold()
    if norm.get("strip_punctuation", True):
        s = s.translate(_PUNCT)
    if norm.get("whitespace", "collapse") == "collapse":
        s = _WS.sub(" ", s).strip()
    if norm.get("strip_articles", False):
        s = _ARTICLES.sub("", s)
    return s


def _norm_clock(v: str) -> str:
    """A time of day as a 12-hour clock shows it: 'h:mm' with h in 1..12 (24-hour and am/pm forms accepted)."""
    s = v.strip()
    m = _CLOCK.match(s) if len(s) <= 20 else None
    if m:
        hour, minute = int(m.group(1)), int(m.group(2))
    else:
        m = _OCLOCK.match(s) if len(s) <= 20 else None
        if not m:
            raise _Bad("not a time of day (h:mm)")
        hour, minute = int(m.group(1)), 0
    if hour > 23 or minute > 59:
        raise _Bad("not a time of day (h:mm)")
    hour %= 12
    return f"{hour or 12}:{minute:02d}"


def _norm_bool(v) -> bool:
    if isinstance(v, bool):
        return v
    if isinstance(v, str):
        s = v.strip().casefold()
        if s in ("true", "yes"):
            return True
        if s in ("false", "no"):
            return False
    raise _Bad("not a boolean")


def _norm_option(v) -> str:
    if isinstance(v, str) and len(v) <= 20:
        m = _OPTION.match(v.strip())
        if m:
            return m.group(1).upper()
    raise _Bad("not an option letter")


def _norm_items(v, item_type: str, label: dict) -> list:
    if isinstance(v, str) and len(v) <= MAX_VALUE:
        v = v.strip()
        if len(v) >= 2 and _BRACKETS.get(v[0]) == v[-1]:  # "(3, -2)" or "[a, b]" written as text
            v = v[1:-1]
        v = [p for p in (x.strip() for x in v.split(",")) if p]
    if not isinstance(v, list) or len(v) > MAX_ITEMS:
        raise _Bad("not a list")
    return [_norm_scalar(x, item_type, label) for x in v]


def _norm_scalar(v, kind: str, label: dict):
    if kind == "integer":
        return _norm_int(v)
    if kind == "number":
        return _norm_num(v)
    if kind == "string":
        return _norm_str(v, label.get("normalize") or {})
    if kind == "boolean":
        return _norm_bool(v)
    if kind == "option":
        return _norm_option(v)
    raise _Bad(f"unknown answer type {kind}")


def _num_equal(a: float, b: float, tol: dict) -> bool:
    return abs(a - b) <= max(float(tol.get("abs", 0.0)), float(tol.get("rel", 0.0)) * abs(b), 1e-9)


def matches(label: dict, value: Any) -> bool:
    """Does a response value equal the label's answer after type-aware normalisation? Raises _Bad if unreadable."""
    kind = label["type"]
    truth = label["answer"]
    if kind == "number":
        return _num_equal(_norm_num(value), float(truth), label.get("tolerance") or {})
    if kind in ("list", "set"):
        item = label.get("items") or "string"
        got = _norm_items(value, item, label)
        want = [_norm_scalar(x, item, label) for x in truth]
        if item == "number":
            tol = label.get("tolerance") or {}
            if kind == "set":
                got, want = sorted(got), sorted(want)
            return len(got) == len(want) and all(_num_equal(g, w, tol) for g, w in zip(got, want))
        if kind == "set":
            return set(got) == set(want)
        return got == want
    return _norm_scalar(value, kind, label) == _norm_scalar(truth, kind, label)


def score(label: dict, response: Any) -> Score:
    """Score one response. Never raises: a broken label scores 0 with a reason."""
    try:
        obj, reason = final_json(response)
        if obj is None:
            return Score(0.0, 0.0, 0.0, None, reason)
        key = label.get("key", "answer")
        fmt = 1.0 if len(obj) == 1 and key in obj else 0.0
        if key not in obj:
            return Score(0.0, fmt, W_FORMAT * fmt, None, f"final JSON object has no key '{key}'")
        value = obj[key]
        try:
            ok = matches(label, value)
        except _Bad as exc:
            return Score(0.0, fmt, W_FORMAT * fmt, None, str(exc))
        ans = 1.0 if ok else 0.0
        shown = value if isinstance(value, (int, float, bool)) or value is None else str(value)[:200] \
            if not isinstance(value, list) else value[:50]
        return Score(ans, fmt, round(W_ANSWER * ans + W_FORMAT * fmt, 6), shown, "" if ok else "wrong answer")
    except Exception as exc:  # noqa: BLE001 - the verifier must never raise, whatever the label or response
        return Score(0.0, 0.0, 0.0, None, f"verifier error: {type(exc).__name__}")


@lru_cache(maxsize=4096)
def label_from_json(text: str) -> dict:
    return json.loads(text)


def format_instruction(label_type: str, items: str | None, key: str = "answer") -> str:
    """The answer-format sentence appended to every prompt."""
    shape = {
        "integer": "an integer", "number": "a number", "string": "a short text", "boolean": "true or false",
        "option": "the option letter", "list": f"a list of {items or 'string'}s in order",
        "set": f"a list of {items or 'string'}s (any order)",
    }[label_type]
    example = {
        "integer": "3", "number": "2.5", "string": '"red"', "boolean": "true", "option": '"B"',
        "list": '["a", "b"]' if (items or "string") == "string" else "[1, 2]",
        "set": '["a", "b"]' if (items or "string") == "string" else "[1, 2]",
    }[label_type]
    return (f'Think it through, then end your response with a JSON object {{"{key}": ...}} whose value is {shape}, '
            f'for example {{"{key}": {example}}}.')


def wrong_answer(label: dict):
    """A value of the right type that the label must reject (used by the gates and the per-task battery)."""
    kind, truth = label["type"], label["answer"]
    if kind == "integer":
        return truth + 1
    if kind == "number":
        return truth + 1 + 10 * float((label.get("tolerance") or {}).get("abs", 0))
    if kind == "boolean":
        return not truth
    if kind == "option":
        return "B" if truth == "A" else "A"
    if kind == "string":
        return f"not {truth} at all"
    if kind == "list":
        flipped = list(reversed(truth))
        return flipped if flipped != list(truth) else list(truth) + [truth[0] if truth else "no such item"]
    if kind == "set":
        return list(truth) + ["no such item"] if label.get("items") == "string" else list(truth) + [10**9]
    raise ValueError(f"unknown answer type {kind}")
