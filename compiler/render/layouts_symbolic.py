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
from ..expr.types import FLOAT, INT, STR, ListT
from ..load.models import Expr, Model
from .layouts import _fit, _num, layout
from .marks_round import wedge
from .painter import SHAPES, Painter
from .theme import COLORS

MAX_INSTRUMENTS = 8
ROMAN = ["XII", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI"]


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


# -- analog clocks ----------------------------------------------------------------------------------------------
class AnalogClock(Model):
    items: Expr
    hour: str
    minute: str
    label: str | None = None
    numerals: Expr = "12"
    max_cols: int = 3


@layout("analog_clock", AnalogClock, {"hour": (INT,), "minute": (INT,), "label": (STR, INT)},
        exprs={"numerals": INT},
        summary="one clock face per item showing hour:minute, side by side (max_cols per row) with the label "
                "underneath; numerals: 12 (all), 4 (12, 3, 6, 9) or 0 (ticks only)")
def draw_analog_clock(p: Painter, prm: AnalogClock, items: list[dict], text: dict, rng, numerals: int) -> dict:
    if numerals not in (0, 4, 12):
        raise EvalError(f"analog_clock numerals must be 12, 4 or 0, got {numerals}")
    caption = 26 if prm.label else 0
    face = rng.choice([(255, 255, 255), (253, 248, 232), (240, 246, 252)])
    roman = rng.below(4) == 0
    hand_color = rng.choice([p.theme.ink, (40, 50, 90), (90, 30, 30)])
    for (x0, y0, w, h), it in zip(_cells(p, len(items), prm.max_cols), items):
        hour, minute = it[prm.hour], it[prm.minute]
        if not (0 <= hour <= 24 and 0 <= minute < 60):
            raise EvalError(f"clock time {hour}:{minute:02d} is not a time of day")
        r = min(w, h - caption) / 2 - 10
        if r < 40:
            raise EvalError("clock faces would be smaller than 40 px; use fewer clocks or a bigger canvas")
        cx, cy = x0 + w / 2, y0 + (h - caption) / 2 + 4
        p.circle(cx, cy, r, face, p.theme.ink, 3.0, obj=it, group="clocks")
        for k in range(60):
            a = math.radians(k * 6 - 90)
            inner = r * (0.86 if k % 5 == 0 else 0.92)
            p.line(cx + inner * math.cos(a), cy + inner * math.sin(a), cx + r * 0.97 * math.cos(a),
                   cy + r * 0.97 * math.sin(a), p.theme.ink, 2.2 if k % 5 == 0 else 1.0)
        size = max(10.0, r * 0.17)
        for k in range(12):
            if numerals == 0 or (numerals == 4 and k % 3):
                continue
            a = math.radians(k * 30 - 90)
            s = ROMAN[k] if roman else str(12 if k == 0 else k)
            p.text(cx + r * 0.70 * math.cos(a), cy + r * 0.70 * math.sin(a), s, size * (0.8 if roman else 1.0),
                   bold=True)
        total = (hour % 12) * 60 + minute
        for angle, length, width in ((total * 0.5, 0.5, 6.0), (minute * 6.0, 0.8, 3.5)):
            a = math.radians(angle - 90)
            p.line(cx - r * 0.1 * math.cos(a), cy - r * 0.1 * math.sin(a), cx + r * length * math.cos(a),
                   cy + r * length * math.sin(a), hand_color, width)
        p.circle(cx, cy, 5, hand_color)
        if prm.label:
            p.text(cx, cy + r + 16, str(it[prm.label]), 16, bold=True, obj=it)
    return {"face": list(face), "roman": roman}


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


def _draw_token(p: Painter, token: str, cx: float, base: float, shape_colors: dict):
    kind, color, value = _token_kind(token)
    if kind == "weight":
        size = 11 if len(value) < 3 else 9
        p.polygon([(cx - 12, base), (cx + 12, base), (cx + 8, base - 22), (cx - 8, base - 22)], (95, 100, 110),
                  p.theme.ink, 1.2)
        p.rect(cx - 3, base - 26, cx + 3, base - 22, (95, 100, 110), p.theme.ink, 1.0)
        p.text(cx, base - 10, value, size, color=(255, 255, 255), bold=True)
    elif kind == "glyph":
        fill = p.theme.color(color or shape_colors[value])
        p.shape(value, cx, base - 12, 12, fill, outline=p.theme.ink)
    else:
        p.rect(cx - 12, base - 24, cx + 12, base, (250, 220, 120), p.theme.ink, 1.4)
        p.text(cx, base - 12, value, 13, bold=True)


@layout("balance", Balance, {"left": (ListT(STR),), "right": (ListT(STR),), "tilt": (INT,), "label": (STR, INT)},
        summary="one pan balance per item: tokens on the left and right pans (a number is a weight, a shape name "
                "a glyph, a short text such as '?' a box); tilt -1 drops the left pan, 1 the right, 0 is level")
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
    # Every scale of the image gets the same build, sized for the fullest pan.
    stack = TOKEN_H * max(1, max(math.ceil(len(it[prm.left]) / PAN_ROW) for it in items),
                          max(math.ceil(len(it[prm.right]) / PAN_ROW) for it in items))
    pw = PAN_ROW * TOKEN_W / 2 + 8  # half the width of a pan
    ink, wood = p.theme.ink, (120, 90, 60)
    for (x0, y0, w, h), it in zip(_cells(p, len(items), prm.max_cols), items):
        tilt = it[prm.tilt] if prm.tilt else 0
        if tilt not in (-1, 0, 1):
            raise EvalError(f"balance tilt must be -1, 0 or 1, got {tilt}")
        half = min(w / 2 - pw - 6, 170)
        if half < pw + 10:
            raise EvalError("balance cells are too narrow for two pans; use fewer per row or a wider canvas")
        drop = math.sin(math.radians(TILT_DEG)) * half
        height = stack + drop + 20 + 16 + drop + 44
        if height > h - caption:
            raise EvalError("balance pans are stacked too high for the canvas; use fewer tokens or scales")
        top = y0 + (h - caption - height) / 2
        pivot_y = top + stack + drop + 36
        foot_y = pivot_y + drop + 44
        cx = x0 + w / 2
        p.polygon([(cx - 36, foot_y), (cx + 36, foot_y), (cx + 7, foot_y - 12), (cx - 7, foot_y - 12)], wood, ink, 1.2)
        p.line(cx, foot_y - 12, cx, pivot_y, wood, 7)
        run, rise = half * math.cos(math.radians(TILT_DEG * abs(tilt))), drop * tilt
        ends = [(cx - run, pivot_y - rise), (cx + run, pivot_y + rise)]
        p.line(ends[0][0], ends[0][1], ends[1][0], ends[1][1], wood, 6)
        p.polygon([(cx, pivot_y - 9), (cx - 9, pivot_y + 7), (cx + 9, pivot_y + 7)], ink)
        boxes = []
        for (ex, ey), tokens in zip(ends, (it[prm.left], it[prm.right])):
            pan_y = ey - 20  # pans ride on short posts above the beam ends, so nothing crosses the tokens
            p.line(ex, ey, ex, pan_y, ink, 3)
            p.polygon([(ex - pw, pan_y), (ex + pw, pan_y), (ex + pw - 8, pan_y + 7), (ex - pw + 8, pan_y + 7)],
                      (170, 175, 185), ink, 1.2)
            for j, tok in enumerate(tokens):
                row, col = divmod(j, PAN_ROW)
                in_row = min(PAN_ROW, len(tokens) - row * PAN_ROW)
                tx = ex - (in_row - 1) * TOKEN_W / 2 + col * TOKEN_W
                _draw_token(p, tok, tx, pan_y - 1 - row * TOKEN_H, shape_colors)
            boxes.append((ex - pw, pan_y - stack - 2, ex + pw, pan_y + 7))
        p.bind(it, (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), foot_y),
               "scales")
        if prm.label:
            p.text(cx, foot_y + 13, str(it[prm.label]), 15, bold=True, obj=it)
    return {"shape_colors": shape_colors}


# -- spinners ---------------------------------------------------------------------------------------------------
class Spinner(Model):
    items: Expr
    color: str
    label: str | None = None
    weight: str | None = None
    spinner: str | None = None
    names: Expr = "[]"


@layout("spinner", Spinner, {"color": (STR,), "label": (STR, INT), "weight": (INT, FLOAT), "spinner": (INT,)},
        exprs={"names": ListT(STR)},
        summary="items are sectors, drawn clockwise from the top in order, sized by weight (default equal); the "
                "spinner field splits them into several spinners side by side, captioned by `names`")
def draw_spinner(p: Painter, prm: Spinner, items: list[dict], text: dict, rng, names: list) -> dict:
    groups: dict = {}
    for it in items:
        groups.setdefault(it[prm.spinner] if prm.spinner else 0, []).append(it)
    caption = 26 if names else 0
    if names and len(names) != len(groups):
        raise EvalError(f"spinner names: {len(names)} names for {len(groups)} spinners")
    start = rng.choice([-90.0, -90.0 + 360.0 / 16, -60.0, -45.0])
    rests = []
    for (x0, y0, w, h), (key, sectors) in zip(_cells(p, len(groups), 3), groups.items()):
        r = min(w, h - caption) / 2 - 14
        cx, cy = x0 + w / 2, y0 + (h - caption) / 2 + 6
        weights = [_num(s[prm.weight], "sector weight") if prm.weight else 1 for s in sectors]
        if any(v <= 0 for v in weights):
            raise EvalError("sector weights must be positive")
        total = sum(weights)
        at = start
        for s, wt in zip(sectors, weights):
            sweep = 360.0 * wt / total
            if sweep * math.pi / 180 * r < 6:
                raise EvalError("a spinner sector would be narrower than 6 px at the rim")
            wedge(p, cx, cy, r, at, sweep, p.theme.color(s[prm.color]), p.theme.background, 2.5, obj=s)
            if prm.label:
                mid = math.radians(at + sweep / 2)
                lab = str(s[prm.label])
                p.text(cx + r * 0.66 * math.cos(mid), cy + r * 0.66 * math.sin(mid), lab,
                       _fit(p, lab, 15, max(12.0, sweep * math.pi / 180 * r * 0.6)), color=(255, 255, 255),
                       bold=True)
            at += sweep
        p.circle(cx, cy, r, None, p.theme.ink, 2.5)
        rest = rng.uniform(0, 360)
        rests.append(round(rest, 2))
        a = math.radians(rest)
        p.arrow(cx - r * 0.15 * math.cos(a), cy - r * 0.15 * math.sin(a), cx + r * 0.55 * math.cos(a),
                cy + r * 0.55 * math.sin(a), p.theme.ink, 4.0, 14)
        p.circle(cx, cy, 7, p.theme.ink, p.theme.background, 1.5)
        if names:
            p.text(cx, cy + r + 16, str(names[list(groups).index(key)]), 15, bold=True)
    return {"start": start, "arrow": rests}
