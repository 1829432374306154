"""Colours computed from values: a sequential palette sampled at a value, for heatmaps and choropleths.

`ramp(v, lo, hi, palette)` is the same function the `ramp` guide draws its bar with (spec/colors.py), so a cell's
fill and the legend that explains it always agree.
"""
from __future__ import annotations

from ..errors import EvalError
from ..spec.colors import COLORS, PALETTES, ROLE_NAMES, TINT, ramp_rgb
from .builtins import builtin
from .compile import Compiled
from .types import FLOAT, STR


def ramp_hex(v: float, lo: float, hi: float, palette: str) -> str:
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

    def run(env):
        palette = pf(env)
        theme = env.get("$theme")  # in a render with variety: the theme's ramp family (the guide draws the same)
        return ramp_hex(vf(env), lf(env), hf(env), theme.ramp_for(palette) if theme is not None else palette)

    return Compiled(STR, run)


def ink_on_color(color: str) -> str:
    """'white' when text on this colour must be light to be read, else 'ink' (the theme's dark text)."""
    if color.startswith(TINT):
        # a page tint: pale ones take the theme's ink (light on a dark theme's tint, dark on a light one's)
        return ink_on_color(color[len(TINT):])
    if color in ("ink", "black") or color == "":
        return "white" if color else "ink"
    if color in ROLE_NAMES:
        return "ink"
    if color.startswith("#") and len(color) == 7:
        try:
            rgb = (int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16))
        except ValueError:
            raise EvalError(f"ink_on('{color}'): not a '#rrggbb' colour") from None
    elif color in COLORS:
        rgb = COLORS[color][0]
    else:
        raise EvalError(f"ink_on('{color}'): unknown colour (known: {', '.join(COLORS)}, or '#rrggbb')")
    luminance = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]
    return "white" if luminance < 140 else "ink"


@builtin("ink_on", "ink_on(colour)", 1,
         doc="the text colour that reads on a fill: 'white' on dark colours, else 'ink' (for labels on nodes, "
             "cells and bars)")
def _ink_on(ck, node, args):
    c = ck.expect(args[0], STR, "the colour of ink_on()")
    cf = c.fn
    return Compiled(STR, lambda env: ink_on_color(cf(env)))


def tint_color(color: str) -> str:
    if color in COLORS or color in ROLE_NAMES or color in ("none", "") or color.startswith(TINT):
        return color  # colour words stay true to their names; roles already follow the theme
    if color.startswith("#") and len(color) == 7:
        try:
            int(color[1:], 16)
        except ValueError:
            raise EvalError(f"tint('{color}'): not a '#rrggbb' colour") from None
        return TINT + color
    raise EvalError(f"tint('{color}'): unknown colour (a '#rrggbb' page tint, a colour name or a theme role)")


@builtin("tint", "tint(colour)", 1,
         doc="a page tint that follows the theme: '#rrggbb' exactly on the classic page (variety none), the same "
             "tint of the theme's paper under a theme (a lighter panel on dark themes); colour names and roles "
             "pass through unchanged (for header fills, zebra stripes, panels, highlighted cells)")
def _tint(ck, node, args):
    c = ck.expect(args[0], STR, "the colour of tint()")
    cf = c.fn
    return Compiled(STR, lambda env: tint_color(cf(env)))
