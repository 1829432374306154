"""Named colours and render-only themes.

State values name colours ("red"); the renderer owns the pixels. Each name has a few shades that stay clearly that
colour, and the render stream picks one, together with the background, the typeface weight and small layout
jitter. None of these can change an answer: answer-bearing properties (which colour, which shape, which order) are
fixed by the state.
"""
from __future__ import annotations

from dataclasses import dataclass

# name → shades (RGB); shades of one name are perceptually the same colour word.
COLORS: dict[str, list[tuple[int, int, int]]] = {
    "red": [(220, 40, 40), (200, 30, 45), (235, 60, 50)],
    "orange": [(245, 140, 20), (240, 120, 10), (250, 155, 40)],
    "yellow": [(240, 205, 20), (250, 215, 40), (235, 195, 10)],
    "green": [(40, 160, 60), (30, 145, 70), (60, 175, 55)],
    "blue": [(35, 95, 215), (30, 80, 200), (50, 110, 225)],
    "purple": [(135, 60, 190), (120, 50, 175), (150, 75, 200)],
    "pink": [(240, 110, 180), (230, 100, 170), (245, 125, 190)],
    "brown": [(140, 85, 40), (125, 75, 35), (150, 95, 50)],
    "gray": [(130, 130, 130), (120, 120, 120), (140, 140, 140)],
    "black": [(25, 25, 25), (35, 35, 35), (15, 15, 15)],
    "cyan": [(20, 180, 200), (15, 165, 190), (30, 190, 210)],
}

BACKGROUNDS = [(255, 255, 255), (250, 250, 246), (247, 249, 252), (252, 250, 245), (246, 248, 246)]
SERIES = ["blue", "green", "orange", "purple", "red", "cyan"]  # single-series chart colours


@dataclass(frozen=True)
class Theme:
    background: tuple[int, int, int]
    ink: tuple[int, int, int]
    grid: tuple[int, int, int]
    shade: int  # which shade of each named colour
    series: str  # colour name for single-series charts
    font_scale: float
    jitter: float  # in pixels, for scenes that allow it

    def color(self, name: str) -> tuple[int, int, int]:
        shades = COLORS.get(name)
        if shades is None:
            from ..errors import EvalError

            raise EvalError(f"unknown colour '{name}' (known: {', '.join(COLORS)})")
        return shades[self.shade % len(shades)]

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
        if value.startswith("#") and len(value) == 7:
            try:
                return int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16)
            except ValueError:
                pass
        return self.color(value)

    def to_trace(self) -> dict:
        return {
            "background": list(self.background), "shade": self.shade, "series": self.series,
            "font_scale": self.font_scale, "jitter": self.jitter,
        }


def pick_theme(rng, variety: str = "none") -> Theme:
    # `variety` (none, mild, strong) widens the choices; "none" draws exactly what it always drew.
    return Theme(
        background=rng.choice(BACKGROUNDS),
        ink=(30, 30, 35),
        grid=(215, 215, 220),
        shade=rng.below(3),
        series=rng.choice(SERIES),
        font_scale=rng.choice([0.95, 1.0, 1.05]),
        jitter=rng.choice([0.0, 1.0, 2.0]),
    )


# Colour words that mean a part of the theme rather than a hue.
ROLES = {
    "ink": lambda t: t.ink,
    "grid": lambda t: t.grid,
    "background": lambda t: t.background,
    "paper": lambda t: (255, 255, 255),
    "white": lambda t: (255, 255, 255),
    "muted": lambda t: (150, 150, 156),
    "light": lambda t: (232, 232, 236),
    "series": lambda t: t.color(t.series),
}
COLOR_WORDS = frozenset(COLORS) | frozenset(ROLES) | {"none"}


# Sequential and diverging palettes for colour ramps (heatmaps, choropleths): anchor colours from light to dark,
# interpolated linearly in RGB. A cell's colour and the ramp guide read the same function, so they always agree.
PALETTES: dict[str, list[tuple[int, int, int]]] = {
    "blues": [(239, 245, 252), (158, 202, 225), (66, 146, 198), (8, 69, 148)],
    "greens": [(240, 249, 236), (161, 217, 155), (65, 171, 93), (0, 90, 50)],
    "reds": [(254, 240, 230), (252, 174, 145), (239, 59, 44), (153, 0, 13)],
    "oranges": [(255, 245, 235), (253, 190, 133), (241, 105, 19), (140, 45, 4)],
    "purples": [(246, 242, 250), (188, 189, 220), (128, 125, 186), (63, 0, 125)],
    "viridis": [(68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37)],
    "diverging": [(33, 102, 172), (146, 197, 222), (247, 247, 247), (244, 165, 130), (178, 24, 43)],
}


def ramp_rgb(name: str, t: float) -> tuple[int, int, int]:
    stops = PALETTES[name]
    t = min(1.0, max(0.0, t))
    pos = t * (len(stops) - 1)
    i = min(int(pos), len(stops) - 2)
    f = pos - i
    a, b = stops[i], stops[i + 1]
    return tuple(round(a[k] + (b[k] - a[k]) * f) for k in range(3))  # type: ignore[return-value]
