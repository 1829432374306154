"""The vendored font pool: which faces exist, what they cover, and which one draws a given text.

Only files under fonts/ are ever loaded (an empty skia font manager: the system's fonts and fontconfig are never
touched). fonts/fonts.yaml lists each family with its style classes, licence, files and the glyph classes its
regular face covers; tests/test_variety_fonts.py measures every claim again with skia.

A theme with variety names one face for the instance (`Theme.face`) and a number (`Theme.font_draw`) that picks a
face inside a restricted pool (a grammar's or component's `fonts: [mono]`). A text is drawn only with a face that
has every one of its characters: the theme's face if it does, else the next covering face of the pool, else the
default face (DejaVu Sans, which has every glyph class the library draws). A label of one or two characters also
skips faces thinner than MIN_SHORT_WEIGHT (stroke_weight, measured on the drawn glyphs).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import skia

FONT_DIR = Path(__file__).with_name("fonts")
DEFAULT_FAMILY = "DejaVu Sans"
from ..spec.fonts import FONT_CLASSES, check_classes  # noqa: F401  (the class names live in the spec)

# The characters the library's scenes draw, by class. A face "covers" a class when it has a glyph for every one.
GLYPH_CLASSES: dict[str, str] = {
    "digits": "0123456789",
    "latin": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "punctuation": ".,:;!?%()+-=/'\"",
    "degree": "°",
    "times": "×",
    "minus": "−",
    "half": "½",
    "arrows": "←↑→↓",
    "chess": "♔♕♖♗♘♙♚♛♜♝♞♟",
}


@dataclass(frozen=True)
class Family:
    name: str
    classes: tuple[str, ...]
    licence: str
    regular: str  # path relative to fonts/
    bold: str | None  # None: the regular face, emboldened by skia
    covers: tuple[str, ...]


@lru_cache(maxsize=1)
def font_manager() -> skia.FontMgr:
    # An empty custom manager: typefaces come only from the files shipped in fonts/, and the system's fontconfig is
    # never initialised (its set-up differs between machines and can print warnings).
    return skia.FontMgr.New_Custom_Empty()


@lru_cache(maxsize=1)
def pool() -> dict[str, Family]:
    import yaml

    doc = yaml.safe_load((FONT_DIR / "fonts.yaml").read_text(encoding="utf-8"))
    out = {}
    for e in doc["families"]:
        out[e["family"]] = Family(e["family"], tuple(e["classes"]), e["licence"], e["files"]["regular"],
                                  e["files"].get("bold"), tuple(e.get("covers", ())))
    return out


def families(classes: tuple[str, ...] | None = None) -> list[str]:
    """Family names in index order, optionally only those with one of `classes`."""
    return list(_families(tuple(classes) if classes is not None else None))


@lru_cache(maxsize=64)
def _families(classes: tuple[str, ...] | None) -> tuple[str, ...]:
    return tuple(f.name for f in pool().values() if classes is None or any(c in f.classes for c in classes))


@cache
def typeface(family: str, bold: bool) -> skia.Typeface:
    f = pool()[family]
    path = f.bold if bold and f.bold else f.regular
    tf = font_manager().makeFromFile(str(FONT_DIR / path))
    if tf is None:  # pragma: no cover - a broken vendored file
        from ..errors import TesseraError

        raise TesseraError(f"font file {FONT_DIR / path} could not be loaded; re-run fonts/vendor.py")
    return tf


@cache
def size_adjust(family: str) -> float:
    """A face's size factor so that its capitals stand as tall as the default face's: a 13 px label reads alike in
    Liberation Serif and DejaVu Sans (fitting and legibility checks then measure the face as drawn)."""
    if family == DEFAULT_FAMILY:
        return 1.0

    def cap(name: str) -> float:
        return _bounds_height(skia.Font(typeface(name, False), 100.0), "H")

    return round(min(1.25, max(0.9, cap(DEFAULT_FAMILY) / max(1.0, cap(family)))), 3)


def _bounds_height(font: skia.Font, text: str) -> float:
    bounds = skia.Rect()
    font.measureText(text, skia.TextEncoding.kUTF8, bounds)
    return bounds.height()


def fake_bold(family: str, bold: bool) -> bool:
    return bold and pool()[family].bold is None


def _has_glyphs(tf: skia.Typeface, chars) -> bool:
    """Every character maps to a glyph with an outline (some faces map a character to an empty glyph)."""
    glyphs = tf.unicharsToGlyphs([ord(c) for c in chars])
    if 0 in glyphs:
        return False
    font = skia.Font(tf, 32.0)
    return all(not font.getPath(g).isEmpty() for g in set(glyphs))


@lru_cache(maxsize=65536)
def covers_text(family: str, bold: bool, text: str) -> bool:
    return all(covers_char(family, bold, c) for c in set(text) if not c.isspace())


@lru_cache(maxsize=65536)
def covers_char(family: str, bold: bool, char: str) -> bool:
    """Per character, so texts that differ only in their digits (most of them) reuse one outline test each: the
    outline test (skia getPath) was a third of a varied render's time when done per text."""
    return _has_glyphs(typeface(family, bold), char)


def measure_coverage(path: Path) -> list[str]:
    """The glyph classes a font file draws every character of (used by vendor.py and the tests)."""
    tf = font_manager().makeFromFile(str(path))
    return [name for name, chars in GLYPH_CLASSES.items() if _has_glyphs(tf, chars)]


# A label of one or two characters ("A", "7", a chess file) has no neighbours to be read from: thin script faces
# garble it. Such labels take only faces whose measured stroke weight (stroke_weight) is at least this share.
SHORT_TEXT = 3  # non-space characters
MIN_SHORT_WEIGHT = 4.5  # % of the font size; the pool's thin faces measure 3.0–4.0, the next 4.95 and up
WEIGHT_PROBE = "0123456789ABEHKMR"


@cache
def stroke_weight(family: str) -> float:
    """The face's mean stroke width in % of its font size: twice the ink area over the ink's outline length, of
    WEIGHT_PROBE drawn at 64 px (regular, with the family's size adjustment), on skia's integer rasteriser."""
    import numpy as np

    font = skia.Font(typeface(family, False), 64.0 * size_adjust(family))
    font.setEdging(skia.Font.Edging.kAntiAlias)
    font.setHinting(skia.FontHinting.kNone)
    font.setSubpixel(False)
    width = int(font.measureText(WEIGHT_PROBE)) + 16
    surface = skia.Surface(width, 112)
    canvas = surface.getCanvas()
    canvas.clear(skia.ColorWHITE)
    canvas.drawString(WEIGHT_PROBE, 8, 90, font, skia.Paint(AntiAlias=True, Color=skia.ColorBLACK))
    rgba = np.empty((112, width, 4), dtype=np.uint8)
    surface.readPixels(skia.ImageInfo.Make(width, 112, skia.kRGBA_8888_ColorType, skia.kPremul_AlphaType), rgba,
                       width * 4, 0, 0)
    ink = rgba[..., 0] < 128
    edge = int((ink[1:] != ink[:-1]).sum() + (ink[:, 1:] != ink[:, :-1]).sum())
    return round(200 * int(ink.sum()) / max(1, edge) / 64, 2)


def _readable_for(name: str, bold: bool, text: str, short: bool) -> bool:
    return covers_text(name, bold, text) and (not short or stroke_weight(name) >= MIN_SHORT_WEIGHT)


@lru_cache(maxsize=4096)
def face_for(face: str | None, font_draw: int, classes: tuple[str, ...] | None, bold: bool, text: str) -> str:
    """The family that draws `text`: see the module docstring (and SHORT_TEXT: a label of one or two characters
    skips thin faces). Deterministic from its arguments alone."""
    if face is None:  # variety none: always the default face, whatever the pool restriction says
        return DEFAULT_FAMILY
    names = _families(tuple(classes) if classes else None)
    short = sum(not c.isspace() for c in text) < SHORT_TEXT
    if face in names and _readable_for(face, bold, text, short):
        return face
    if names:
        start = font_draw % len(names)
        for k in range(len(names)):
            name = names[(start + k) % len(names)]
            if _readable_for(name, bold, text, short):
                return name
    return DEFAULT_FAMILY
