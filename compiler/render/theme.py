"""Named colours and render-only themes.

State values name colours ("red"); the renderer owns the pixels. Each name has a few shades that stay clearly that
colour, and the render stream picks one, together with the background, the typeface weight and small layout
jitter. None of these can change an answer: answer-bearing properties (which colour, which shape, which order) are
fixed by the state.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..spec.colors import COLORS, PALETTES, TINT, ramp_rgb  # noqa: F401  (the colour words live in the spec)

BACKGROUNDS = [(255, 255, 255), (250, 250, 246), (247, 249, 252), (252, 250, 245), (246, 248, 246)]
SERIES = ["blue", "green", "orange", "purple", "red", "cyan"]  # single-series chart colours


# Shade families: other shades of the same colour names (deeper for print, lighter for pastel themes). Every shade
# of every family stays inside its name's reference window (HUE_WINDOWS), which the tests measure on drawn pixels.
SHADE_FAMILIES: dict[str, dict[str, list[tuple[int, int, int]]]] = {
    "standard": COLORS,
    "deep": {
        "red": [(190, 25, 35), (175, 20, 30), (205, 35, 40)],
        "orange": [(230, 115, 0), (225, 105, 5), (238, 128, 15)],
        "yellow": [(230, 190, 0), (238, 198, 15), (222, 182, 5)],
        "green": [(20, 130, 50), (15, 118, 45), (35, 145, 55)],
        "blue": [(20, 70, 180), (15, 60, 165), (30, 85, 195)],
        "purple": [(110, 40, 160), (100, 35, 150), (125, 50, 170)],
        "pink": [(220, 70, 150), (210, 60, 140), (230, 85, 160)],
        "brown": [(115, 65, 25), (105, 60, 20), (125, 75, 35)],
        "gray": [(110, 110, 110), (100, 100, 100), (120, 120, 120)],
        "black": [(10, 10, 10), (20, 20, 20), (5, 5, 5)],
        "cyan": [(0, 150, 175), (0, 140, 165), (10, 160, 185)],
    },
    "pastel": {
        "red": [(232, 80, 80), (226, 72, 78), (238, 92, 88)],
        "orange": [(250, 160, 65), (246, 150, 55), (252, 170, 78)],
        "yellow": [(246, 218, 80), (250, 224, 92), (240, 212, 70)],
        "green": [(90, 185, 105), (80, 175, 100), (100, 195, 110)],
        "blue": [(85, 135, 228), (75, 125, 222), (95, 145, 232)],
        "purple": [(160, 105, 208), (150, 95, 202), (170, 115, 214)],
        "pink": [(245, 145, 198), (240, 135, 192), (248, 155, 204)],
        "brown": [(165, 110, 70), (155, 100, 60), (172, 118, 78)],
        "gray": [(150, 150, 150), (140, 140, 140), (158, 158, 158)],
        "black": [(45, 45, 45), (52, 52, 52), (40, 40, 40)],
        "cyan": [(70, 195, 212), (60, 185, 205), (82, 202, 218)],
    },
}

# What each colour word means as pixels: hue window in degrees (lo > hi wraps through 0), least saturation, and a
# value (brightness) range, in HSV on 0..1. A drawn answer-bearing mark of colour "red" must measure inside "red".
HUE_WINDOWS: dict[str, tuple[float, float, float, float, float]] = {
    "red": (345, 12, 0.45, 0.55, 1.0), "orange": (18, 38, 0.55, 0.85, 1.0), "yellow": (42, 60, 0.55, 0.8, 1.0),
    "green": (95, 160, 0.4, 0.4, 1.0), "cyan": (180, 198, 0.5, 0.6, 1.0), "blue": (208, 235, 0.5, 0.5, 1.0),
    "purple": (262, 290, 0.4, 0.4, 1.0), "pink": (315, 340, 0.3, 0.75, 1.0), "brown": (15, 38, 0.4, 0.3, 0.72),
    "gray": (0, 360, 0.0, 0.35, 0.7), "black": (0, 360, 0.0, 0.0, 0.25),
}
HUE_WINDOWS_GRAY_MAX_SAT = 0.08  # gray and black are colourless


def color_word_of(rgb) -> list[str]:
    """The colour words whose reference window holds this pixel colour (for tests and audits; every render with
    variety asks it about each colour it draws, after tone and darkening: cached per colour)."""
    return list(_color_words(tuple(rgb[:3])))


@lru_cache(maxsize=1 << 14)
def _color_words(rgb: tuple) -> tuple[str, ...]:
    import colorsys

    h, s, v = colorsys.rgb_to_hsv(*(c / 255 for c in rgb))
    h *= 360
    out = []
    for name, (lo, hi, smin, vlo, vhi) in HUE_WINDOWS.items():
        if name in ("gray", "black"):
            ok = s <= HUE_WINDOWS_GRAY_MAX_SAT and vlo <= v <= vhi
        else:
            in_hue = lo <= h <= hi if lo <= hi else (h >= lo or h <= hi)
            ok = in_hue and s >= smin and vlo <= v <= vhi
        if ok:
            out.append(name)
    return tuple(out)


def in_color_word(rgb, name: str) -> bool:
    """`name in color_word_of(rgb)`, testing that one window only (the tone edit's check runs it per shade)."""
    import colorsys

    h, s, v = colorsys.rgb_to_hsv(*(c / 255 for c in rgb[:3]))
    h *= 360
    lo, hi, smin, vlo, vhi = HUE_WINDOWS[name]
    if name in ("gray", "black"):
        return s <= HUE_WINDOWS_GRAY_MAX_SAT and vlo <= v <= vhi
    in_hue = lo <= h <= hi if lo <= hi else (h >= lo or h <= hi)
    return in_hue and s >= smin and vlo <= v <= vhi


@lru_cache(maxsize=256)
def _word_windows(names: tuple[str, ...]) -> tuple[np.ndarray, ...]:
    """The hue, saturation and value bounds of each name's window, as arrays (one row per name), and which names
    are colourless; cached, since the colour-safe tone check asks about the same shades for every render."""
    win = np.array([HUE_WINDOWS[n] for n in names], dtype=np.float64).reshape(-1, 5)
    return (*win.T, np.array([n in ("gray", "black") for n in names], dtype=bool))


def in_color_words(rgbs: np.ndarray, names: list[str]) -> np.ndarray:
    """`in_color_word(rgbs[i], names[i])` for every row of an (m, 3) integer array at once: colorsys's HSV steps
    as elementwise float64 operations in the same order (IEEE: the same bits), the same window tests."""
    c = np.asarray(rgbs, dtype=np.int64) / 255
    r, g, b = c[:, 0], c[:, 1], c[:, 2]
    maxc, minc = np.maximum(np.maximum(r, g), b), np.minimum(np.minimum(r, g), b)
    rangec = maxc - minc
    grey = minc == maxc
    safe = np.where(grey, 1.0, rangec)  # grey rows: colorsys returns h = s = 0 before dividing
    s = np.where(grey, 0.0, rangec / np.where(grey, 1.0, maxc))
    rc, gc, bc = (maxc - r) / safe, (maxc - g) / safe, (maxc - b) / safe
    h = np.where(r == maxc, bc - gc, np.where(g == maxc, 2.0 + rc - bc, 4.0 + gc - rc))
    h = np.where(grey, 0.0, np.mod(h / 6.0, 1.0)) * 360
    v = maxc
    lo, hi, smin, vlo, vhi, colourless = _word_windows(tuple(names))
    in_value = (vlo <= v) & (v <= vhi)
    in_hue = np.where(lo <= hi, (lo <= h) & (h <= hi), (h >= lo) | (h <= hi))
    return np.where(colourless, (s <= HUE_WINDOWS_GRAY_MAX_SAT) & in_value, in_hue & (s >= smin) & in_value)


@dataclass(frozen=True)
class Theme:
    background: tuple[int, int, int]
    ink: tuple[int, int, int]
    grid: tuple[int, int, int]
    shade: int  # which shade of each named colour
    series: str  # colour name for single-series charts
    font_scale: float
    jitter: float  # in pixels, for scenes that allow it
    # Everything below keeps today's look at its default (variety none); pick_theme sets it for mild and strong.
    name: str = "classic"
    shades: str = "standard"  # a SHADE_FAMILIES key
    paper: tuple[int, int, int] = (255, 255, 255)  # cards, nodes, sticky notes ("paper", "white")
    muted: tuple[int, int, int] = (150, 150, 156)
    light: tuple[int, int, int] = (232, 232, 236)
    line: tuple[int, int, int] = (70, 70, 80)  # edges and connectors ("line"): #464650 on the classic page
    face: str | None = None  # the instance's typeface (typefaces.py); None: the default face, as always
    font_draw: int = 0  # picks a face inside a restricted pool (a grammar's or component's `fonts:`)
    texture: str = "plain"  # backgrounds.py
    texture_seed: int = 0
    stroke_scale: float = 1.0  # multiplies mark stroke widths
    corner: float = 0.0  # default corner radius of rect marks, px
    grid_width: float = 1.0
    grid_dash: tuple[float, float] | None = None
    axis_width: float = 1.2
    marker_stroke: str = "ink"  # the default outline of glyph markers: a role name
    ramp: str | None = None  # the sequential palette every sequential ramp takes (RAMP_FAMILIES); None: as named

    def ramp_for(self, palette: str) -> str:
        """The palette a ramp named `palette` draws with under this theme (cells and their ramp guide alike)."""
        return self.ramp if self.ramp is not None and palette in SEQUENTIAL else palette

    def color(self, name: str) -> tuple[int, int, int]:
        shades = SHADE_FAMILIES[self.shades].get(name) if self.shades != "standard" else COLORS.get(name)
        if shades is None:
            from ..errors import EvalError

            raise EvalError(f"unknown colour '{name}' (known: {', '.join(COLORS)})")
        return shades[self.shade % len(shades)]

    def palette(self) -> tuple[tuple[str, tuple[int, int, int]], ...]:
        """(name, RGB) of every colour name as this theme draws it."""
        return tuple((name, self.color(name)) for name in COLORS)

    def resolve(self, value) -> tuple[int, int, int] | None:
        """A colour encoding's value as RGB: a colour name (a shade of it), '#rrggbb', a theme role, or 'none'."""
        if value is None or value == "none" or value == "":
            return None
        if not isinstance(value, str):
            from ..errors import EvalError

            raise EvalError(f"a colour must be a name or '#rrggbb', got {value!r}")
        role = ROLES.get(value)
        if role is not None:
            return role(self)
        if value.startswith(TINT):  # tint('#rrggbb'): the colour on the classic page, the theme's tint of it
            rgb = self.resolve(value[len(TINT):])
            return rgb if rgb is None or self.name == "classic" else tint_rgb(rgb, self.paper)
        if value.startswith("#") and len(value) == 7:
            try:
                return int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16)
            except ValueError:
                pass
        return self.color(value)

    def to_trace(self) -> dict:
        out = {
            "background": list(self.background), "shade": self.shade, "series": self.series,
            "font_scale": self.font_scale, "jitter": self.jitter,
        }
        if self.name != "classic":  # variety none keeps exactly today's record
            out.update({"name": self.name, "shades": self.shades, "face": self.face, "font_draw": self.font_draw,
                        "texture": self.texture, "texture_seed": self.texture_seed,
                        "stroke_scale": self.stroke_scale, "corner": self.corner, "grid_width": self.grid_width,
                        "grid_dash": list(self.grid_dash) if self.grid_dash else None,
                        "axis_width": self.axis_width, "marker_stroke": self.marker_stroke, "ramp": self.ramp})
        return out


@dataclass(frozen=True)
class ThemeKind:
    """A named look: backgrounds to choose from, the roles' colours, the shade families that read on it."""
    backgrounds: list
    ink: tuple
    grid: tuple
    paper: tuple
    muted: tuple
    light: tuple
    line: tuple
    shades: tuple
    textures: tuple  # textures that suit it (backgrounds.py), beyond "plain"


THEME_KINDS: dict[str, ThemeKind] = {
    "light": ThemeKind(BACKGROUNDS, (30, 30, 35), (215, 215, 220), (255, 255, 255), (150, 150, 156),
                       (232, 232, 236), (70, 70, 80), ("standard", "deep"),
                       ("gradient", "grain", "grid_paper", "mottle")),
    "paper": ThemeKind([(250, 245, 232), (247, 241, 226), (252, 248, 238)], (45, 40, 35), (222, 212, 192),
                       (254, 251, 243), (150, 140, 125), (236, 229, 214), (75, 68, 60), ("standard", "deep"),
                       ("grain", "fibres", "gradient")),
    "pastel": ThemeKind([(250, 248, 255), (245, 251, 249), (255, 250, 245)], (60, 60, 80), (224, 221, 234),
                        (255, 255, 255), (150, 148, 165), (236, 233, 244), (85, 85, 105), ("pastel", "standard"),
                        ("gradient", "dots", "mottle")),
    "high_contrast": ThemeKind([(255, 255, 255)], (0, 0, 0), (160, 160, 160), (255, 255, 255), (90, 90, 90),
                               (225, 225, 225), (0, 0, 0), ("deep",), ()),
    "dark": ThemeKind([(30, 33, 40), (26, 28, 34), (36, 38, 46)], (232, 234, 240), (72, 77, 88), (50, 54, 64),
                      (160, 164, 175), (62, 66, 76), (178, 182, 194), ("standard", "pastel"),
                      ("gradient", "grain", "mottle")),
    "blueprint": ThemeKind([(24, 58, 112), (20, 52, 104), (28, 64, 120)], (236, 242, 255), (74, 112, 170),
                           (36, 74, 132), (165, 188, 222), (48, 88, 148), (200, 214, 240), ("pastel", "standard"),
                           ("grid_paper", "grain")),
}
MILD_KINDS = ("light", "paper", "pastel")
STRONG_KINDS = ("light", "paper", "pastel", "high_contrast", "dark", "blueprint")
SERIES_FAMILIES = {"categorical": SERIES, "colour_blind_safe": ["blue", "orange"]}  # which name a lone series takes
VARIETIES = ("none", "mild", "strong")


@lru_cache(maxsize=1)
def _mild_faces() -> list[str]:
    from .typefaces import families

    display = set(families(("handwriting", "rounded")))
    return [f for f in families(("sans", "serif", "mono", "condensed", "slab")) if f not in display]


def pick_theme(rng, variety: str = "none") -> Theme:
    """The render stream's look. `none` draws exactly what it always drew (same draws, same Theme): same bytes."""
    if variety == "none":
        return Theme(
            background=rng.choice(BACKGROUNDS),
            ink=(30, 30, 35),
            grid=(215, 215, 220),
            shade=rng.below(3),
            series=rng.choice(SERIES),
            font_scale=rng.choice([0.95, 1.0, 1.05]),
            jitter=rng.choice([0.0, 1.0, 2.0]),
        )
    if variety not in VARIETIES:
        from ..errors import TesseraError

        raise TesseraError(f"unknown variety '{variety}' (known: {', '.join(VARIETIES)})")
    from .typefaces import families

    strong = variety == "strong"
    name = rng.choice(STRONG_KINDS if strong else MILD_KINDS)
    kind = THEME_KINDS[name]
    # Mild keeps to text faces (no display, rounded or handwritten ones); strong draws from the whole pool.
    faces = families() if strong else _mild_faces()
    textures = ("plain",) + kind.textures if strong else ("plain",) + tuple(
        t for t in kind.textures if t in ("gradient", "grain"))
    return Theme(
        background=rng.choice(kind.backgrounds),
        ink=kind.ink,
        grid=kind.grid,
        shade=rng.below(3),
        series=rng.choice(SERIES_FAMILIES[rng.choice(list(SERIES_FAMILIES))]),
        font_scale=rng.choice([0.9, 0.95, 1.0, 1.05, 1.1] if strong else [0.95, 1.0, 1.05]),
        jitter=rng.choice([0.0, 1.0, 2.0]),
        name=name,
        shades=rng.choice(list(kind.shades)),
        paper=kind.paper, muted=kind.muted, light=kind.light, line=kind.line,
        face=rng.choice(faces),
        font_draw=rng.below(1 << 30),
        texture=rng.choice(list(textures)),
        texture_seed=rng.next64(),
        stroke_scale=rng.choice([0.8, 1.0, 1.25, 1.5] if strong else [1.0, 1.25]) * (1.25 if name == "high_contrast"
                                                                                    else 1.0),
        corner=rng.choice([0.0, 0.0, 2.0, 4.0] if strong else [0.0, 2.0]),
        grid_width=rng.choice([0.6, 1.0, 1.4] if strong else [0.8, 1.0]),
        grid_dash=rng.choice([None, (4.0, 3.0), (1.0, 3.0)] if strong else [None, (4.0, 3.0)]),
        axis_width=rng.choice([1.0, 1.2, 2.0] if strong else [1.0, 1.2, 1.5]),
        marker_stroke=rng.choice(["ink", "background", "none"] if strong else ["ink", "background"]),
        ramp=rng.choice(RAMP_FAMILIES),
    )


# A page tint: `tint('#dfe6ee')` in a scene (expr/lib_color.py) is the string TINT + '#dfe6ee' (spec/colors.py).
# Without variety it is that colour exactly; under a theme it is the same tint of the theme's paper, so table
# headers, zebra stripes, panels and highlighted cells read on dark themes as they do on white: on a light paper
# the colour multiplied by the paper (white paper: the colour itself), on a dark one the paper lifted towards the
# colour by TINT_DARK_SHARE (a pale tint becomes a slightly lighter panel of the same hue; lightness order between
# tints is kept).
TINT_DARK_SHARE = 0.25


@lru_cache(maxsize=1024)
def tint_rgb(rgb: tuple[int, int, int], paper: tuple[int, int, int]) -> tuple[int, int, int]:
    if sum(paper) >= 384:
        return tuple(round(c * p / 255) for c, p in zip(rgb, paper))  # type: ignore[return-value]
    return tuple(round(p + (c - p) * TINT_DARK_SHARE) for c, p in zip(rgb, paper))  # type: ignore[return-value]


# Colour words that mean a part of the theme rather than a hue.
ROLES = {
    "ink": lambda t: t.ink,
    "grid": lambda t: t.grid,
    "background": lambda t: t.background,
    "paper": lambda t: t.paper,
    "white": lambda t: (255, 255, 255),  # ink_on's light text: stays white on every theme
    "muted": lambda t: t.muted,
    "light": lambda t: t.light,
    "line": lambda t: t.line,
    "series": lambda t: t.color(t.series),
}


# Sequential palettes (light to dark) a theme may swap for one another: a scene's ramp is drawn and explained by
# the same palette (the cell's fill and the ramp guide both ask Theme.ramp_for), so values read alike in any family.
# Viridis (dark to light) and diverging ramps keep their name. None: the palette as the scene names it.
SEQUENTIAL = ("blues", "greens", "reds", "oranges", "purples")
RAMP_FAMILIES = (None, None, "blues", "greens", "purples", "oranges", "reds")
