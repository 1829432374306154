"""The colour words of the scene language, without pixels of the theme: colour names and their standard shades, the
theme roles a scene may name, page tints, and the ramp palettes. Skia- and theme-free, so the type checker
(codegen/scene.py) and the expression builtins (expr/lib_color.py) read them without importing the renderer;
render/theme.py resolves roles and shades per theme (its ROLES must name exactly ROLE_NAMES: tests/test_layers.py).
"""
from __future__ import annotations

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

# Colour words that mean a part of the theme rather than a hue (render/theme.py ROLES resolves each per theme).
ROLE_NAMES = ("ink", "grid", "background", "paper", "white", "muted", "light", "line", "series")
COLOR_WORDS = frozenset(COLORS) | frozenset(ROLE_NAMES) | {"none"}

# A page tint: `tint('#dfe6ee')` in a scene (expr/lib_color.py) is the string TINT + '#dfe6ee' (render/theme.py
# draws it on the theme's paper).
TINT = "tint:"

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
