"""Colours computed from values: a sequential palette sampled at a value, for heatmaps and choropleths.

`ramp(v, lo, hi, palette)` is the same function the `ramp` guide draws its bar with (render/theme.py), so a cell's
fill and the legend that explains it always agree.
"""
from __future__ import annotations

from ..errors import EvalError
from .builtins import builtin
from .compile import Compiled
from .types import FLOAT, STR


def ramp_hex(v: float, lo: float, hi: float, palette: str) -> str:
    from ..render.theme import PALETTES, ramp_rgb

    if palette not in PALETTES:
        raise EvalError(f"unknown palette '{palette}' (known: {', '.join(PALETTES)})")
    if hi <= lo:
        raise EvalError(f"ramp({v}, {lo}, {hi}): the range must have lo < hi")
    r, g, b = ramp_rgb(palette, (v - lo) / (hi - lo))
    return f"#{r:02x}{g:02x}{b:02x}"


@builtin("ramp", "ramp(value, lo, hi, palette)", 4,
         doc="the '#rrggbb' colour of value on a sequential palette over [lo, hi] (blues greens reds oranges "
             "purples viridis diverging); values outside are clamped")
def _ramp(ck, node, args):
    v = ck.expect(args[0], FLOAT, "the value of ramp()")
    lo = ck.expect(args[1], FLOAT, "the lower bound of ramp()")
    hi = ck.expect(args[2], FLOAT, "the upper bound of ramp()")
    pal = ck.expect(args[3], STR, "the palette of ramp()")
    vf, lf, hf, pf = v.fn, lo.fn, hi.fn, pal.fn
    return Compiled(STR, lambda env: ramp_hex(vf(env), lf(env), hf(env), pf(env)))


def ink_on_name(color: str) -> str:
    """'ink' or 'white', whichever reads better on a fill (a colour name's first shade, or '#rrggbb')."""
    from ..render.theme import COLORS

    if color.startswith("#") and len(color) == 7:
        try:
            rgb = int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)
        except ValueError:
            raise EvalError(f"ink_on('{color}'): not a '#rrggbb' colour") from None
    elif color in COLORS:
        rgb = COLORS[color][0]
    elif color in ("white", "paper", "background"):
        rgb = (255, 255, 255)
    else:
        raise EvalError(f"ink_on('{color}'): give a colour name ({', '.join(COLORS)}) or '#rrggbb'")
    return "ink" if 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2] > 140 else "white"


@builtin("ink_on", "ink_on(color)", 1,
         doc="'ink' or 'white', whichever reads better on a fill of that colour (a name or '#rrggbb')")
def _ink_on(ck, node, args):
    c = ck.expect(args[0], STR, "the colour of ink_on()")
    cf = c.fn
    return Compiled(STR, lambda env: ink_on_name(cf(env)))
