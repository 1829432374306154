"""SVG-like path data for the `svg` mark, read without skia: the type checker parses a literal `d` at compile time
(an error at its YAML position) and the renderer turns the same commands into a skia path (render/marks.py)."""
from __future__ import annotations

import re
from functools import lru_cache

from ..errors import EvalError

SVG_VIEW = 100.0  # path data is written in a 100 × 100 view box, y down (as SVG), then fitted into the mark's box
_SVG_TOKEN = re.compile(r"\s*(?:([MmLlHhVvCcSsQqTtAaZz])|([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?))\s*,?")
_SVG_ARGS = {"M": 2, "L": 2, "H": 1, "V": 1, "C": 6, "S": 4, "Q": 4, "T": 2, "A": 7, "Z": 0}
MAX_SVG_CHARS = 4000


@lru_cache(maxsize=512)
def svg_commands(d: str, max_chars: int = MAX_SVG_CHARS) -> tuple[tuple, ...]:
    """SVG path data (M L H V C S Q T A Z, absolute and relative) as absolute commands in view-box units:
    ("M", x, y), ("L", x, y), ("C", x1, y1, x2, y2, x, y), ("Q", x1, y1, x, y),
    ("A", rx, ry, rotation, large, sweep, x, y), ("Z",). A mistake is an EvalError naming the character where it is.
    `max_chars` bounds what an author writes; the vendored icons (spec/assets.py, up to ~24,000 characters, read
    once per process) pass a larger bound."""
    if not isinstance(d, str) or not d.strip():
        raise EvalError("svg path data 'd' is empty")
    if len(d) > max_chars:
        raise EvalError(f"svg path data has {len(d)} characters (at most {max_chars})")
    tokens, pos = [], 0
    while pos < len(d):
        m = _SVG_TOKEN.match(d, pos)
        if m is None or m.end() == pos:
            if d[pos:].strip() == "":
                break
            raise EvalError(f"svg path data: unexpected {d[pos]!r} at character {pos + 1}")
        tokens.append((m.group(1), m.group(2), pos + 1))
        pos = m.end()
    out: list[tuple] = []
    # Points the skia path will hold: a moveto right after a moveto replaces it, Z adds none, every other command adds
    # at least one (an arc to its own start, or with a zero radius, is a line).
    points = 0
    cx = cy = sx = sy = 0.0  # current point, subpath start
    last_ctrl, last_cmd = (0.0, 0.0), ""
    i, cmd = 0, None
    while i < len(tokens):
        letter, _, at = tokens[i]
        if letter is not None:
            cmd = letter
            i += 1
        elif cmd is None:
            raise EvalError(f"svg path data must start with a command (M), at character {at}")
        if not points and cmd not in "Mm":
            raise EvalError(f"svg path data must start with a moveto (M), got '{cmd}' at character {at}")
        up = cmd.upper()
        n = _SVG_ARGS[up]
        args = []
        for _ in range(n):
            if i >= len(tokens) or tokens[i][1] is None:
                where = tokens[i][2] if i < len(tokens) else len(d)
                raise EvalError(f"svg path data: '{cmd}' takes {n} numbers, at character {where}")
            args.append(float(tokens[i][1]))
            i += 1
        rel = cmd.islower() and up != "Z"
        ox, oy = (cx, cy) if rel else (0.0, 0.0)
        if up == "M":
            cx, cy = ox + args[0], oy + args[1]
            sx, sy = cx, cy
            out.append(("M", cx, cy))
            cmd = "l" if rel else "L"  # further pairs after a moveto are linetos
        elif up in ("L", "H", "V"):
            if up == "H":
                cx = ox + args[0]
            elif up == "V":
                cy = (cy if rel else 0.0) + args[0]
            else:
                cx, cy = ox + args[0], oy + args[1]
            out.append(("L", cx, cy))
        elif up in ("C", "S"):
            if up == "C":
                c1 = (ox + args[0], oy + args[1])
                rest = args[2:]
            else:  # the first control mirrors the previous cubic's second one
                c1 = (2 * cx - last_ctrl[0], 2 * cy - last_ctrl[1]) if last_cmd in ("C", "S") else (cx, cy)
                rest = args
            c2 = (ox + rest[0], oy + rest[1])
            cx, cy = ox + rest[2], oy + rest[3]
            out.append(("C", c1[0], c1[1], c2[0], c2[1], cx, cy))
            last_ctrl = c2
        elif up in ("Q", "T"):
            if up == "Q":
                c = (ox + args[0], oy + args[1])
                end = args[2:]
            else:
                c = (2 * cx - last_ctrl[0], 2 * cy - last_ctrl[1]) if last_cmd in ("Q", "T") else (cx, cy)
                end = args
            cx, cy = ox + end[0], oy + end[1]
            out.append(("Q", c[0], c[1], cx, cy))
            last_ctrl = c
        elif up == "A":
            cx, cy = ox + args[5], oy + args[6]
            out.append(("A", args[0], args[1], args[2], bool(args[3]), bool(args[4]), cx, cy))
        else:  # Z
            out.append(("Z",))
            cx, cy = sx, sy
        points += up != "Z" and not (up == "M" and last_cmd == "M")
        last_cmd = up
        if up == "Z" and i < len(tokens) and tokens[i][0] is None:
            raise EvalError(f"svg path data: a number after 'Z', at character {tokens[i][2]}")
    if points < 2:
        raise EvalError("svg path data draws nothing (fewer than 2 points)")
    return tuple(out)
