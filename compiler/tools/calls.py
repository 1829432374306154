"""The call syntax: one JSON object between <tool> and </tool> in a model's reply, and its arguments checked.

    <tool>{"name": "zoom", "box": [x0, y0, x1, y1], "scale": 2}</tool>
    <tool>{"name": "crop", "box": [x0, y0, x1, y1]}</tool>
    <tool>{"name": "inspect", "point": [x, y]}</tool>

Boxes and points are in pixels of the shown image (x to the right, y down, from its top-left corner); numbers are
rounded to whole pixels. Every problem is a CallError whose message is what the model reads back."""
from __future__ import annotations

import json
import math
import re

CALL_OPEN, CALL_CLOSE = "<tool>", "</tool>"
MAX_CALL_CHARS = 1000  # of the text between the tags: a call is a small object
MAX_REPLY_SCAN = 65_536  # a reply is searched for a call this far (replies are bounded by the token budget anyway)
ARGUMENTS = {"zoom": ("box", "scale"), "crop": ("box",), "inspect": ("point",)}
DEFAULT_SCALE = 2
_CALL = re.compile(re.escape(CALL_OPEN) + r"(.*?)(?:" + re.escape(CALL_CLOSE) + r"|\Z)", re.S)
SYNTAX = '<tool>{"name": "zoom", "box": [x0, y0, x1, y1], "scale": 2}</tool>'


class CallError(Exception):
    """A call the session cannot run; the message goes back to the model as text."""


def find_call(reply) -> str | None:
    """The text inside the reply's first <tool>…</tool> (to the end of the reply when it is never closed: a
    malformed call, answered as one), or None when the reply holds no call: then it is an answer."""
    if not isinstance(reply, str):
        return None
    m = _CALL.search(reply, 0, MAX_REPLY_SCAN)
    return m.group(1) if m else None


def _reject_constant(name: str):
    raise CallError(f"{name} is not a number a call can hold")


def parse_call(raw: str) -> tuple[str, dict]:
    """(tool name, arguments as written) of a call's text; CallError when it is not one JSON object with a name."""
    if len(raw) > MAX_CALL_CHARS:
        raise CallError(f"a call is at most {MAX_CALL_CHARS} characters between {CALL_OPEN} and {CALL_CLOSE}")
    try:
        value = json.loads(raw, parse_constant=_reject_constant)
    except CallError:
        raise
    except (ValueError, RecursionError) as exc:
        raise CallError(f"a call is one JSON object between {CALL_OPEN} and {CALL_CLOSE}, e.g. {SYNTAX} "
                        f"({type(exc).__name__}: {str(exc)[:80]})") from None
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        raise CallError(f"a call is a JSON object with a \"name\", e.g. {SYNTAX}")
    name = value["name"]
    return name, {k: v for k, v in value.items() if k != "name"}


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def check_arguments(name: str, args: dict, width: int, height: int, max_scale: int) -> dict:
    """The arguments of a call to `name` on a width × height image, as whole pixels: {"box": [..]} and "scale" for
    zoom, {"point": [x, y]} for inspect. CallError names what is wrong."""
    expected = ARGUMENTS[name]
    extra = sorted(set(args) - set(expected))
    if extra:
        raise CallError(f"{name} takes {', '.join(expected)}; got {', '.join(repr(k)[:40] for k in extra)}")
    out: dict = {}
    if "box" in expected:
        box = args.get("box")
        if not (isinstance(box, list) and len(box) == 4 and all(_number(v) and abs(v) < 1e9 for v in box)):
            raise CallError(f"{name} needs \"box\": [x0, y0, x1, y1], four numbers (pixels of the first image)")
        x0, y0, x1, y1 = (round(v) for v in box)
        if not (0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height):
            raise CallError(f"box [{x0}, {y0}, {x1}, {y1}] is not inside the image: need 0 ≤ x0 < x1 ≤ {width} "
                            f"and 0 ≤ y0 < y1 ≤ {height}")
        out["box"] = [x0, y0, x1, y1]
    if name == "zoom":
        scale = args.get("scale", DEFAULT_SCALE)
        if not (_number(scale) and scale == int(scale) and 2 <= scale <= max_scale):
            raise CallError(f"zoom's \"scale\" is a whole number from 2 to {max_scale}, got {str(scale)[:20]}")
        out["scale"] = int(scale)
    if "point" in expected:
        point = args.get("point")
        if not (isinstance(point, list) and len(point) == 2 and all(_number(v) and abs(v) < 1e9 for v in point)):
            raise CallError(f"{name} needs \"point\": [x, y], two numbers (pixels of the first image)")
        x, y = (round(v) for v in point)
        if not (0 <= x <= width and 0 <= y <= height):
            raise CallError(f"point [{x}, {y}] is not inside the image: need 0 ≤ x ≤ {width} and "
                            f"0 ≤ y ≤ {height}")
        out["point"] = [x, y]
    return out
