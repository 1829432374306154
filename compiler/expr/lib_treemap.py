"""Treemaps: the squarified layout (Bruls, Huizing & van Wijk 2000) of positive values into rectangles.

`treemap(values, aspect)` tiles the unit square with one rectangle per value, in the order given, each with an area
proportional to its value. The layout is computed in a box `aspect` wide and 1 high (the target's own shape, so a
square there is a square on screen) and then scaled to [0, 1] × [0, 1], y down. Values are placed largest first
(ties by position), in rows along the shorter side, a row growing while that improves its worst aspect ratio.
"""
from __future__ import annotations

import math

from ..errors import EvalError
from .builtins import _charge, _fail, _list_arg, builtin
from .compile import Compiled
from .types import FLOAT, ListT, is_numeric, record

RECT = record(x=FLOAT, y=FLOAT, x2=FLOAT, y2=FLOAT)


def _worst(row: list[float], total: float, side: float) -> float:
    s2, l2 = total * total, side * side
    return max(max(l2 * a / s2, s2 / (l2 * a)) for a in row)


def squarify(values: list[float], aspect: float, charge=lambda n: None) -> list[dict]:
    """One {x, y, x2, y2} per value (input order) tiling the unit square; areas are value / sum(values)."""
    if not values:
        return []
    for v in values:
        if not (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0):
            raise EvalError(f"treemap(): values must be positive numbers, got {v!r}")
    if not (math.isfinite(aspect) and 0.01 <= aspect <= 100):
        raise EvalError(f"treemap(): aspect (width / height) must be in [0.01, 100], got {aspect!r}")
    n = len(values)
    total = float(sum(values))
    if not math.isfinite(total):
        raise EvalError(f"treemap(): the values sum past the largest number ({max(values):.3g} and more)")
    order = sorted(range(n), key=lambda i: (-values[i], i))
    areas = [values[i] * aspect / total for i in order]
    # A value so much smaller than the sum that its area rounds to nothing (or to a subnormal whose square does)
    # cannot be tiled: say so, rather than divide by zero below.
    if not all(math.isfinite(a) for a in areas):  # value × aspect past the largest number
        raise EvalError(f"treemap(): the values are too large to tile ({max(values):.3g} at aspect {aspect:g})")
    if min(areas) < 1e-100:  # squared and multiplied below: 1e-300, still a normal float
        raise EvalError(f"treemap(): the values are too far apart to tile ({min(values):.3g} against a sum of "
                        f"{total:.3g})")
    out: dict[int, tuple[float, float, float, float]] = {}  # value index → its rectangle (x0, y0, x1, y1)
    x, y, w, h = 0.0, 0.0, float(aspect), 1.0
    i = 0
    while i < n:
        side = min(w, h)
        row, s = [areas[i]], areas[i]
        j = i + 1
        while j < n:
            charge(j - i + 1)
            if _worst(row + [areas[j]], s + areas[j], side) > _worst(row, s, side):
                break
            row.append(areas[j])
            s += areas[j]
            j += 1
        last_row = j == n
        if w >= h:  # a column against the left edge, as tall as the remaining box
            t = w if last_row else s / h
            pos = y
            for k, a in enumerate(row):
                end = y + h if k == len(row) - 1 else pos + a / t
                out[order[i + k]] = (x, pos, x + t, end)
                pos = end
            x, w = x + t, w - t
        else:  # a row against the top edge, as wide as the remaining box
            t = h if last_row else s / w
            pos = x
            for k, a in enumerate(row):
                end = x + w if k == len(row) - 1 else pos + a / t
                out[order[i + k]] = (pos, y, end, y + t)
                pos = end
            y, h = y + t, h - t
        i = j
    return [{"x": r[0] / aspect, "y": r[1], "x2": r[2] / aspect, "y2": r[3]} for r in (out[k] for k in range(n))]


@builtin("treemap", "treemap(values, aspect)", 2,
         doc="a squarified treemap: one rectangle {x, y, x2, y2} per positive value (in order) tiling the unit "
             "square (y down), areas proportional to the values; aspect = width / height of the box it is drawn in")
def _treemap(ck, node, args):
    c, elem = _list_arg(ck, args[0], "the values of treemap()")
    if c is None:
        return _fail(ck)
    if not is_numeric(elem):
        return ck.error(args[0], f"treemap() needs a list of numbers, got a list of {elem}", code="type-mismatch")
    a = ck.expect(args[1], FLOAT, "the aspect of treemap()")
    vf, af = c.fn, a.fn

    def impl(env):
        vs = vf(env)
        _charge(env, len(vs) + 1)
        return squarify(vs, float(af(env)), lambda k: _charge(env, k))

    return Compiled(ListT(RECT), impl)
