"""Symbolic layouts: analog clocks, pan balances and spinners.

Each draws a row (or a grid) of instruments, one per item, and binds the instrument to its record. What the
instrument shows (the time, what lies on each pan and which way the beam tips, the colour of each sector) comes from
the state; render-only choices (face colour, hand style, where the spinner's arrow rests, which colour a glyph kind
gets) come from the render stream.
"""
from __future__ import annotations

import math
import re

from ..errors import EvalError
from ..expr.types import INT, STR, ListT
from ..load.models import Expr, Model
from .layouts import layout
from .painter import SHAPES, Painter
from .theme import COLORS

MAX_INSTRUMENTS = 8


def _cells(p: Painter, n: int, max_cols: int, top: float = 8, caption: float = 0):
    """Split the canvas into a grid of n cells, at most max_cols wide: [(x0, y0, w, h)]."""
    if not 1 <= n <= MAX_INSTRUMENTS:
        raise EvalError(f"{n} instruments to draw (allowed 1..{MAX_INSTRUMENTS})")
    cols = min(n, max_cols)
    rows = math.ceil(n / cols)
    w, h = p.width / cols, (p.height - top) / rows
    out = []
    for i in range(n):
        r, c = divmod(i, cols)
        in_row = min(cols, n - r * cols)
        x0 = (p.width - in_row * w) / 2 + c * w  # a short last row is centred
        out.append((x0, top + r * h, w, h))
    return out


# -- pan balances -----------------------------------------------------------------------------------------------
class Balance(Model):
    items: Expr
    left: str
    right: str
    tilt: str | None = None
    label: str | None = None
    max_cols: int = 2


TOKEN_W = 28.0
TOKEN_H = 28.0
PAN_ROW = 3
MAX_PAN = 12
TILT_DEG = 9.0
_WEIGHT = re.compile(r"^\d{1,4}$")


def _token_kind(token: str) -> tuple[str, str | None, str]:
    """'7' → weight; 'circle' or 'red circle' → glyph; anything else (≤ 3 characters, e.g. '?' or 'x') → box."""
    words = token.split()
    if _WEIGHT.match(token):
        return "weight", None, token
    if len(words) == 1 and words[0] in SHAPES:
        return "glyph", None, words[0]
    if len(words) == 2 and words[0] in COLORS and words[1] in SHAPES:
        return "glyph", words[0], words[1]
    if 1 <= len(token) <= 3:
        return "box", None, token
    raise EvalError(f"balance token '{token}': use a number, a shape name ('circle', 'red circle') or a short "
                    f"label of at most 3 characters")


def _draw_token(p: Painter, token: str, cx: float, base: float, shape_colors: dict, z: float):
    """One token standing on `base`, centred on cx, at zoom z (1 = a 24 px token)."""
    kind, color, value = _token_kind(token)
    ink = p.theme.ink
    if kind == "weight":
        metal = (95, 100, 110)
        p.polygon([(cx - 12 * z, base), (cx + 12 * z, base), (cx + 8 * z, base - 22 * z), (cx - 8 * z, base - 22 * z)],
                  metal, ink, 1.2)
        p.rect(cx - 3 * z, base - 26 * z, cx + 3 * z, base - 22 * z, metal, ink, 1.0)
        p.text(cx, base - 10 * z, value, (11 if len(value) < 3 else 9) * z, color=(255, 255, 255), bold=True)
    elif kind == "glyph":
        p.shape(value, cx, base - 12 * z, 12 * z, p.theme.color(color or shape_colors[value]), outline=ink)
    else:
        p.rect(cx - 12 * z, base - 24 * z, cx + 12 * z, base, (250, 220, 120), ink, 1.4)
        p.text(cx, base - 12 * z, value, 13 * z, bold=True)


@layout("balance", Balance, {"left": (ListT(STR),), "right": (ListT(STR),), "tilt": (INT,), "label": (STR, INT)},
        summary="one pan balance per item: tokens on the left and right pans (a number is a weight, a shape name "
                "a glyph, a short text such as '?' a box); tilt -1 drops the left pan, 1 the right, 0 is level; "
                "scales are zoomed to fill their cells")
def draw_balance(p: Painter, prm: Balance, items: list[dict], text: dict, rng) -> dict:
    caption = 24 if prm.label else 0
    kinds = sorted({_token_kind(t)[2] for it in items for t in it[prm.left] + it[prm.right]
                    if _token_kind(t)[0] == "glyph"})
    palette = rng.shuffle(["red", "blue", "green", "orange", "purple", "cyan", "pink"])
    shape_colors = {k: palette[i % len(palette)] for i, k in enumerate(kinds)}
    for it in items:
        for tokens in (it[prm.left], it[prm.right]):
            if len(tokens) > MAX_PAN:
                raise EvalError(f"a balance pan holds at most {MAX_PAN} tokens, got {len(tokens)}")
    cells = _cells(p, len(items), prm.max_cols)
    # Every scale of the image gets the same build, sized for the fullest pan, then zoomed to fill its cell.
    rows = max(1, max(math.ceil(len(it[prm.left]) / PAN_ROW) for it in items),
               max(math.ceil(len(it[prm.right]) / PAN_ROW) for it in items))
    pw, half = PAN_ROW * TOKEN_W / 2 + 8, 95.0  # half a pan's width; half the beam
    drop = math.sin(math.radians(TILT_DEG)) * half
    natural_w = 2 * (half + pw) + 8
    natural_h = rows * TOKEN_H + 2 * drop + 80
    w, h = cells[0][2], cells[0][3] - caption
    fit = min((w - 12) / natural_w, (h - 8) / natural_h, 2.2)
    if fit < 0.75:
        raise EvalError("balance cells are too small for the scales; use fewer tokens or scales, or a bigger canvas")
    z = max(0.75, fit * rng.uniform(0.8, 1.0))  # render-only: scales fill 80–100 % of what fits
    stack, pw, half, drop = rows * TOKEN_H * z, pw * z, half * z, drop * z
    ink, wood = p.theme.ink, rng.choice([(120, 90, 60), (95, 100, 115), (150, 110, 60), (70, 80, 70)])
    slack_x, slack_y = (w - 12 - natural_w * z) / 2, (h - caption - 8 - natural_h * z) / 2
    for (x0, y0, w, h), it in zip(cells, items):
        tilt = it[prm.tilt] if prm.tilt else 0
        if tilt not in (-1, 0, 1):
            raise EvalError(f"balance tilt must be -1, 0 or 1, got {tilt}")
        top = y0 + (h - caption - natural_h * z) / 2 + rng.uniform(-1, 1) * slack_y
        pivot_y = top + stack + drop + 36 * z
        foot_y = pivot_y + drop + 44 * z
        cx = x0 + w / 2 + rng.uniform(-1, 1) * slack_x
        p.polygon([(cx - 36 * z, foot_y), (cx + 36 * z, foot_y), (cx + 7 * z, foot_y - 12 * z),
                   (cx - 7 * z, foot_y - 12 * z)], wood, ink, 1.2)
        p.line(cx, foot_y - 12 * z, cx, pivot_y, wood, 7 * z)
        run, rise = half * math.cos(math.radians(TILT_DEG * abs(tilt))), drop * tilt
        ends = [(cx - run, pivot_y - rise), (cx + run, pivot_y + rise)]
        p.line(ends[0][0], ends[0][1], ends[1][0], ends[1][1], wood, 6 * z)
        p.polygon([(cx, pivot_y - 9 * z), (cx - 9 * z, pivot_y + 7 * z), (cx + 9 * z, pivot_y + 7 * z)], ink)
        boxes = []
        for (ex, ey), tokens in zip(ends, (it[prm.left], it[prm.right])):
            pan_y = ey - 20 * z  # pans ride on short posts above the beam ends, so nothing crosses the tokens
            p.line(ex, ey, ex, pan_y, ink, 3 * z)
            p.polygon([(ex - pw, pan_y), (ex + pw, pan_y), (ex + pw - 8 * z, pan_y + 7 * z),
                       (ex - pw + 8 * z, pan_y + 7 * z)], (170, 175, 185), ink, 1.2)
            for j, tok in enumerate(tokens):
                row, col = divmod(j, PAN_ROW)
                in_row = min(PAN_ROW, len(tokens) - row * PAN_ROW)
                tx = ex + ((col - (in_row - 1) / 2) * TOKEN_W) * z
                _draw_token(p, tok, tx, pan_y - z - row * TOKEN_H * z, shape_colors, z)
            boxes.append((ex - pw, pan_y - stack - 2 * z, ex + pw, pan_y + 7 * z))
        p.bind(it, (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), foot_y),
               "scales")
        if prm.label:
            p.text(cx, foot_y + 13, str(it[prm.label]), 15, bold=True, obj=it)
    return {"shape_colors": shape_colors, "zoom": round(z, 4), "wood": list(wood)}
