"""The painter: skia primitives the marks and guides draw with. A mark bound to a state object records its pixel box.

The render map is keyed by the object's path in the state ("bars[2]"), which is how witnesses find pixels: the
program names an object, the trace names its path, the render map gives its geometry in final-image pixels.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import skia

from . import typefaces
from .backgrounds import READABLE_TEXT_RATIO, contrast_ratio, texture
from .theme import Theme

FONT_DIR = typefaces.FONT_DIR
RGB = tuple[int, int, int]
DARK_INK = (30, 30, 35)  # the classic ink: what text in the theme's ink turns to where that ink would not read


@lru_cache(maxsize=8192)
def face_font(family: str, size: float, bold: bool) -> skia.Font:
    font = skia.Font(typefaces.typeface(family, bold), size * typefaces.size_adjust(family))
    # Fixed rasterisation settings: no hinting, no subpixel positioning, plain anti-aliasing.
    font.setEdging(skia.Font.Edging.kAntiAlias)
    font.setHinting(skia.FontHinting.kNone)
    font.setSubpixel(False)
    if typefaces.fake_bold(family, bold):
        font.setEmbolden(True)
    return font


def _color(rgb: RGB, alpha: int = 255) -> int:
    return skia.Color(rgb[0], rgb[1], rgb[2], alpha)


class Painter:
    def __init__(self, width: int, height: int, theme: Theme, paths: dict[int, str], scale: float = 1.0):
        # Layouts draw in logical units (width × height); the image has scale × that many pixels, and the render
        # map is kept in final-image pixels.
        self.width, self.height = width, height
        self.scale = scale
        self.pixel_width, self.pixel_height = round(width * scale), round(height * scale)
        self.theme = theme
        self.paths = paths
        self.surface = skia.Surface(self.pixel_width, self.pixel_height)
        self.canvas = self.surface.getCanvas()
        self.canvas.clear(_color(theme.background))
        # What the canvas holds before any mark (pixels): contrast is measured against it. None: variety none,
        # whose look is today's and is not re-checked.
        self.backdrop: np.ndarray | None = None
        self.text_contrast: list[tuple[str, float]] = []  # (text, contrast ratio against what is behind it)
        if theme.name != "classic":
            rgba = texture(theme.texture, theme.background, theme.texture_seed, self.pixel_width,
                           self.pixel_height, theme.name in ("dark", "blueprint", "high_contrast")
                           or theme.texture in ("grid_paper", "dots"))
            self.backdrop = rgba  # RGBA, as the painter's pixels are (the contrast checks compare the two)
            if theme.texture != "plain":
                info = skia.ImageInfo.Make(self.pixel_width, self.pixel_height, skia.kRGBA_8888_ColorType,
                                           skia.kPremul_AlphaType)
                self.canvas.writePixels(info, rgba, self.pixel_width * 4, 0, 0)
        if scale != 1.0:
            self.canvas.scale(scale, scale)
        self.render_map: dict[str, dict] = {}
        self.marks = 0
        # group → [(path, bbox, circle or None)]: answer-bearing marks that must not touch each other
        self.no_overlap_groups: dict[str, list[tuple[str, tuple, tuple | None]]] = {}
        self.group_sites: dict[str, str] = {}  # group → where its first mark is declared (file:line:col)

    # -- binding -------------------------------------------------------------------------------------------------
    def bind(self, obj, box: tuple[float, float, float, float], group: str | None = None,
             circle: tuple[float, float, float] | None = None) -> None:
        path = self.paths.get(id(obj))
        if path is None:
            return
        k = self.scale
        x0, y0, x1, y1 = own = tuple(round(v * k, 2) for v in box)
        if circle is not None:
            circle = (circle[0] * k, circle[1] * k, circle[2] * k)
        old = self.render_map.get(path)
        if old is not None:
            bx = old["bbox"]
            x0, y0, x1, y1 = min(x0, bx[0]), min(y0, bx[1]), max(x1, bx[2]), max(y1, bx[3])
        self.render_map[path] = {"bbox": [x0, y0, x1, y1], "point": [round((x0 + x1) / 2, 2), round((y0 + y1) / 2, 2)]}
        if group is not None:
            # The mark's own box: two marks of one object (a dot and its label) are separate marks for the rule.
            self.no_overlap_groups.setdefault(group, []).append((path, own, circle))

    def _paint(self, rgb: RGB, stroke: bool = False, width: float = 1.0, alpha: int = 255) -> skia.Paint:
        p = skia.Paint(AntiAlias=True, Color=_color(rgb, alpha))
        if stroke:
            p.setStyle(skia.Paint.kStroke_Style)
            p.setStrokeWidth(width)
        return p

    # -- marks ---------------------------------------------------------------------------------------------------
    def rect(self, x0, y0, x1, y1, fill: RGB | None, stroke: RGB | None = None, width: float = 1.0, obj=None,
             group: str | None = None):
        r = skia.Rect.MakeLTRB(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))
        if fill is not None:
            self.canvas.drawRect(r, self._paint(fill))
        if stroke is not None:
            self.canvas.drawRect(r, self._paint(stroke, True, width))
        self.marks += 1
        if obj is not None:
            self.bind(obj, (r.left(), r.top(), r.right(), r.bottom()), group)

    def circle(self, cx, cy, r, fill: RGB | None, stroke: RGB | None = None, width: float = 1.0, obj=None,
               group: str | None = None):
        if fill is not None:
            self.canvas.drawCircle(cx, cy, r, self._paint(fill))
        if stroke is not None:
            self.canvas.drawCircle(cx, cy, r, self._paint(stroke, True, width))
        self.marks += 1
        if obj is not None:
            self.bind(obj, (cx - r, cy - r, cx + r, cy + r), group, (cx, cy, r))

    def polygon(self, pts: list[tuple[float, float]], fill: RGB | None, stroke: RGB | None = None,
                width: float = 1.0, obj=None, group: str | None = None):
        path = skia.Path()
        path.addPoly([skia.Point(x, y) for x, y in pts], True)
        if fill is not None:
            self.canvas.drawPath(path, self._paint(fill))
        if stroke is not None:
            self.canvas.drawPath(path, self._paint(stroke, True, width))
        self.marks += 1
        if obj is not None:
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            self.bind(obj, (min(xs), min(ys), max(xs), max(ys)), group)

    def line(self, x0, y0, x1, y1, color: RGB, width: float = 1.0, dash: tuple[float, float] | None = None, obj=None):
        p = self._paint(color, True, width)
        if dash:
            p.setPathEffect(skia.DashPathEffect.Make(list(dash), 0))
        self.canvas.drawLine(x0, y0, x1, y1, p)
        self.marks += 1
        if obj is not None:
            self.bind(obj, (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)))

    def arrow(self, x0, y0, x1, y1, color: RGB, width: float = 2.0, head: float = 9.0, obj=None):
        self.line(x0, y0, x1, y1, color, width)
        ang = math.atan2(y1 - y0, x1 - x0)
        left = (x1 - head * math.cos(ang - 0.45), y1 - head * math.sin(ang - 0.45))
        right = (x1 - head * math.cos(ang + 0.45), y1 - head * math.sin(ang + 0.45))
        self.polygon([(x1, y1), left, right], color)
        if obj is not None:
            self.bind(obj, (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)))

    def font(self, size: float, bold: bool, text: str, classes: tuple[str, ...] | None = None) -> skia.Font:
        """The font that draws `text`: the theme's face where it has every character (typefaces.face_for)."""
        t = self.theme
        return face_font(typefaces.face_for(t.face, t.font_draw, classes, bold, text), size, bold)

    def readable(self, color: RGB, box: tuple[float, float, float, float], text: str) -> RGB:
        """With variety, text in the theme's ink that would not read on what is already drawn under it (a light
        ink on a pale fill in a dark theme) takes the dark ink instead; the contrast it gets is recorded for the
        legibility check. Without variety: the colour as given, nothing measured."""
        if self.backdrop is None:
            return color
        r = self.canvas.getTotalMatrix().mapRect(skia.Rect.MakeLTRB(*box))  # to device pixels, as drawn
        x0, y0 = max(0, int(r.left())), max(0, int(r.top()))
        x1, y1 = min(self.pixel_width, math.ceil(r.right())), min(self.pixel_height, math.ceil(r.bottom()))
        if x1 <= x0 or y1 <= y0:
            return color
        info = skia.ImageInfo.Make(x1 - x0, y1 - y0, skia.kRGBA_8888_ColorType, skia.kPremul_AlphaType)
        under = np.empty((y1 - y0, x1 - x0, 4), dtype=np.uint8)
        self.surface.readPixels(info, under, (x1 - x0) * 4, x0, y0)
        # the mean colour: exact integer sums, then one division (the same floats as .mean, without the copy);
        # the rows first, which adds whole contiguous rows (several times faster than one reduction over the pixels)
        n = (x1 - x0) * (y1 - y0)
        behind = tuple(v / n for v in under.sum(axis=0, dtype=np.uint32).sum(axis=0, dtype=np.int64)[:3].tolist())
        ratio = contrast_ratio(color, behind)
        if ratio < READABLE_TEXT_RATIO and color == self.theme.ink:
            other = contrast_ratio(DARK_INK, behind)
            if other > ratio:
                color, ratio = DARK_INK, other
        self.text_contrast.append((text, ratio))
        return color

    def text_width(self, s: str, size: float, bold: bool = False) -> float:
        return self.font(round(size * self.theme.font_scale, 1), bold, s).measureText(s)

    def text(self, x, y, s: str, size: float = 13.0, color: RGB | None = None, anchor: str = "middle",
             bold: bool = False, rotate: float = 0.0, obj=None, group: str | None = None):
        """Draw text with its vertical centre at y; anchor is start, middle or end along x."""
        font = self.font(round(size * self.theme.font_scale, 1), bold, s)
        w = font.measureText(s)
        metrics = font.getMetrics()
        ascent, descent = -metrics.fAscent, metrics.fDescent
        dx = {"start": 0.0, "middle": -w / 2, "end": -w}[anchor]
        baseline = (ascent - descent) / 2
        color = color or self.theme.ink
        if self.backdrop is not None and not rotate:
            color = self.readable(color, (x + dx, y - (ascent + descent) / 2, x + dx + w, y + (ascent + descent) / 2), s)
        paint = self._paint(color)
        if rotate:
            self.canvas.save()
            self.canvas.translate(x, y)
            self.canvas.rotate(rotate)
            self.canvas.drawString(s, dx, baseline, font, paint)
            self.canvas.restore()
        else:
            self.canvas.drawString(s, x + dx, y + baseline, font, paint)
        self.marks += 1
        box = (x + dx, y - (ascent + descent) / 2, x + dx + w, y + (ascent + descent) / 2)
        if obj is not None and not rotate:
            self.bind(obj, box, group)
        return box

    def shape(self, kind: str, cx, cy, r, fill: RGB, obj=None, group: str | None = None,
              outline: RGB | None = None):
        """A glyph from the shape family; r is the radius of its bounding circle."""
        if kind == "circle":
            self.circle(cx, cy, r, fill, outline, 1.5, obj=obj, group=group)
            return
        if kind == "square":
            s = r * 0.85
            self.rect(cx - s, cy - s, cx + s, cy + s, fill, outline, 1.5)
            if obj is not None:
                self.bind(obj, (cx - s, cy - s, cx + s, cy + s), group, (cx, cy, s * math.sqrt(2)))
            return
        sides, rot, inner = {
            "triangle": (3, -90.0, None), "diamond": (4, 0.0, None), "pentagon": (5, -90.0, None),
            "hexagon": (6, 0.0, None), "star": (5, -90.0, 0.45),
        }.get(kind, (0, 0.0, None))
        if sides and obj is not None and group is not None:
            # Glyphs are checked for overlap by their bounding circles, which is tighter than their boxes.
            self.polygon(self._glyph(sides, rot, inner, cx, cy, r), fill, outline, 1.5)
            xs, ys = zip(*self._glyph(sides, rot, inner, cx, cy, r))
            self.bind(obj, (min(xs), min(ys), max(xs), max(ys)), group, (cx, cy, r))
            return
        if not sides:
            from ..errors import EvalError

            raise EvalError(f"unknown shape '{kind}' (known: {', '.join(SHAPES)})")
        self.polygon(self._glyph(sides, rot, inner, cx, cy, r), fill, outline, 1.5, obj=obj, group=group)

    @staticmethod
    def _glyph(sides: int, rot: float, inner: float | None, cx, cy, r) -> list[tuple[float, float]]:
        pts = []
        count = sides * (2 if inner else 1)
        for i in range(count):
            a = math.radians(rot + i * 360.0 / count)
            rr = r if not inner or i % 2 == 0 else r * inner
            pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
        return pts

    # -- output --------------------------------------------------------------------------------------------------
    def pixels(self) -> np.ndarray:
        """The image as a (height, width, 4) uint8 RGBA array (alpha is always 255)."""
        w, h = self.pixel_width, self.pixel_height
        rgba = np.empty((h, w, 4), dtype=np.uint8)
        # The canvas is opaque, so premultiplied equals unpremultiplied and skia can skip the conversion.
        info = skia.ImageInfo.Make(w, h, skia.kRGBA_8888_ColorType, skia.kPremul_AlphaType)
        self.surface.readPixels(info, rgba, w * 4, 0, 0)
        return rgba


SHAPES = ("circle", "square", "triangle", "diamond", "pentagon", "hexagon", "star")
