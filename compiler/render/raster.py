"""Raster edits after drawing: noise, blur, compression, warps, tone, vignetting, scan lines, a photo-of-paper look.

Only a build's `variety: mild | strong` turns them on; a grammar can cap the strength or opt out of edits
(render.raster). Every parameter comes from the render stream and lands in the trace, so replay redraws the same
bytes. Nothing here uses numpy's random generators or BLAS: noise is a counter hash in integer arithmetic, the
legibility sums are exact integers (so their order cannot matter), the JPEG step is libjpeg-turbo's integer DCT
(the same bytes with and without its SIMD code), and the few float steps (warp coordinates, the vignette's falloff
per row and column) are elementwise IEEE operations, which give the same bits on any machine. The pixel passes run
in OpenCV (_cv2), only through calls that are integer formulas (fixed-point remap, the bit-exact 8-bit Gaussian,
lookups, saturating byte arithmetic, area averaging, fixed-point grey, a product exact in float32), each recomputed
in numpy by the tests with OpenCV's SIMD and IPP code on and off. Parameters that need trigonometry or powers (the
warp matrix, the tone table) are computed once per render in Python.

Witness geometry moves with the picture: a warp is one homography, each mark's box becomes the hull of its four
transformed corners, and its point the transformed point. After the edits every mark of the render map is checked
against the clean picture (warped the same way): if its content no longer correlates with the drawing, or its
contrast fell too far, the render is rejected and the instance draws again.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np

from .marks import RenderRejected
from ..spec.raster import EDITS  # applied in this order (a photo look: warp, tone, vignette, noise, stronger bounds)
LEVELS = {"none": 0, "mild": 1, "strong": 2}

# Per strength: the chance each edit is drawn and the bounds of its parameters. These bounds are the promise the
# README states; the legibility check is the backstop for unlucky combinations. Limits are a number or a (lo, hi).
BOUNDS: dict[str, dict[str, tuple[float, dict[str, Any]]]] = {
    "mild": {
        "warp": (0.45, {"angle": 1.2, "shear": 0.015, "persp": 0.015}),
        "blur": (0.25, {"passes": 1}),
        "tone": (0.6, {"brightness": 12.0, "contrast": 0.08, "gamma": 0.1}),
        "vignette": (0.3, {"amount": 0.12}),
        "scanlines": (0.1, {"depth": 0.05}),
        "gauss": (0.3, {"sigma": 4.0}),
        "salt_pepper": (0.15, {"fraction": 0.002}),
        "jpeg": (0.3, {"quality": (65, 92)}),
        "photo": (0.0, {}),
    },
    "strong": {
        "warp": (0.5, {"angle": 3.0, "shear": 0.04, "persp": 0.04}),
        "blur": (0.35, {"passes": 2}),
        "tone": (0.75, {"brightness": 28.0, "contrast": 0.2, "gamma": 0.25}),
        "vignette": (0.4, {"amount": 0.3}),
        "scanlines": (0.2, {"depth": 0.1}),
        "gauss": (0.15, {"sigma": 9.0}),
        "salt_pepper": (0.25, {"fraction": 0.006}),
        # strong pictures are stored as JPEG files (the file edit, last): this chance and range are those of a
        # visibly compressed file; the others are written at FILE_QUALITY
        "jpeg": (0.35, {"quality": (35, 85)}),
        "photo": (0.15, {"angle": 2.5, "persp": 0.07, "amount": 0.4, "sigma": 7.0, "grain": 0.5}),
    },
}
# Strengths whose pictures are stored as JPEG files (full colour, no chroma subsampling) rather than PNG: a
# photographed, noisy, warped picture costs a lossless coder 3–10× its plain bytes (bench/bench_png_size.py: 77 kB
# a strong picture as PNG against 17 kB for the reference library's plain ones), and a photograph is a JPEG. The
# file is part of the variety: what a model sees is the decoded file, and the legibility check judges those pixels.
FILE_STRENGTHS = ("strong",)
FILE_QUALITY = (80, 92)  # a strong picture without the jpeg edit: a good camera's or scanner's file
# Surfaces a photographed sheet lies on (the photo look fills the uncovered corners with one).
SURFACES = [(92, 84, 76), (58, 60, 66), (120, 104, 86), (40, 42, 40)]

MIN_CORRELATION = 0.5  # a mark's pixels against its clean drawing: below this, noise has drowned it
MIN_GAIN = 0.45  # the share of a mark's contrast that must survive tone, vignette and blur
FLAT_STD = 3.0  # a box whose clean drawing is this flat (sd in grey levels) carries no readable detail to check
PAD_PX = 2  # the check looks a little beyond each box, so a filled mark's edges count
MIN_MARK_PX = 2.0


def strength_for(variety: str, cap: str) -> str:
    """The build's variety, capped by the grammar's render.raster strength."""
    return variety if LEVELS[variety] <= LEVELS[cap] else cap


def draw_edits(rng, strength: str, skip=()) -> list[dict]:
    """The edits of one render and their parameters, from the render stream. No draws at all for `none`."""
    if strength == "none":
        return []
    bounds = BOUNDS[strength]

    def drawn(name: str) -> bool:
        return name not in skip and bounds[name][0] > 0 and rng.random() < bounds[name][0]

    def sym(limit: float) -> float:
        return round(rng.uniform(-limit, limit), 4)

    edits: list[dict] = []
    if "warp" not in skip and drawn("photo"):  # a grammar that keeps its marks axis-aligned gets no photo either
        b = bounds["photo"][1]
        # A sheet photographed at a slant under uneven light: perspective, a surface around it, falloff, grain.
        edits.append({"edit": "warp", "angle": sym(b["angle"]), "shear": 0.0, "px": sym(b["persp"]),
                      "py": sym(b["persp"]), "fill": list(rng.choice(SURFACES)), "margin": 0.06})
        edits.append(colour_safe_tone(rng.uniform(-18.0, 4.0), rng.uniform(0.85, 1.0), rng.uniform(0.95, 1.15)))
        edits.append({"edit": "vignette", "amount": round(rng.uniform(0.5, 1.0) * b["amount"], 4)})
        if rng.random() < b["grain"]:  # grain on half of them: noise adds 60–100 kB to a 50–70 kB picture
            edits.append({"edit": "gauss", "sigma": round(rng.uniform(0.4, 1.0) * b["sigma"], 3),
                          "seed": rng.next64()})
        return _with_file(edits, rng, strength, skip)
    if drawn("warp"):
        b = bounds["warp"][1]
        edits.append({"edit": "warp", "angle": sym(b["angle"]), "shear": sym(b["shear"]), "px": sym(b["persp"]),
                      "py": sym(b["persp"]), "fill": None, "margin": 0.0})
    if drawn("blur"):
        edits.append({"edit": "blur", "passes": rng.randint(1, bounds["blur"][1]["passes"])})
    if drawn("jpeg"):
        lo, hi = bounds["jpeg"][1]["quality"]
        edits.append({"edit": "jpeg", "quality": rng.randint(lo, hi)})
    if drawn("tone"):
        b = bounds["tone"][1]
        edits.append(colour_safe_tone(rng.uniform(-b["brightness"], b["brightness"]),
                                      1.0 + rng.uniform(-b["contrast"], b["contrast"] / 2),
                                      1.0 + rng.uniform(-b["gamma"], b["gamma"])))
    if drawn("vignette"):
        edits.append({"edit": "vignette", "amount": round(rng.uniform(0.3, 1.0) * bounds["vignette"][1]["amount"], 4)})
    if drawn("scanlines"):
        edits.append({"edit": "scanlines", "period": rng.randint(2, 4),
                      "depth": round(rng.uniform(0.3, 1.0) * bounds["scanlines"][1]["depth"], 4)})
    if drawn("gauss"):
        edits.append({"edit": "gauss", "sigma": round(rng.uniform(0.25, 1.0) * bounds["gauss"][1]["sigma"], 3),
                      "seed": rng.next64()})
    if drawn("salt_pepper"):
        edits.append({"edit": "salt_pepper",
                      "fraction": round(rng.uniform(0.2, 1.0) * bounds["salt_pepper"][1]["fraction"], 5),
                      "seed": rng.next64()})
    if strength not in FILE_STRENGTHS and any(e["edit"] == "gauss" for e in edits):
        # One per-pixel degradation of the two costly ones: JPEG's blocks under dense noise are barely seen, yet
        # each costs the PNG its own bytes (noise about 100 kB a picture, JPEG 30 kB; bench/bench_png_size.py).
        edits = [e for e in edits if e["edit"] != "jpeg"]
    return _with_file(edits, rng, strength, skip)


def _with_file(edits: list[dict], rng, strength: str, skip=()) -> list[dict]:
    """A strength in FILE_STRENGTHS stores its picture as a JPEG file: the file edit, always the last, at the jpeg
    edit's quality when that was drawn (a visibly compressed file; the jpeg edit itself goes), else at a quality
    from FILE_QUALITY (the one draw this adds to the stream). A grammar that skips `file` keeps PNG files (and
    then the jpeg edit, as under mild)."""
    if strength not in FILE_STRENGTHS or "file" in skip:
        return edits
    jpeg = [e for e in edits if e["edit"] == "jpeg"]
    quality = jpeg[0]["quality"] if jpeg else rng.randint(*FILE_QUALITY)
    return [e for e in edits if e["edit"] != "jpeg"] + [{"edit": "file", "format": "jpeg", "quality": quality}]


def _tone_value(v: int, brightness: float, contrast: float, gamma: float) -> int:
    return round(min(255.0, max(0.0, ((v / 255) ** gamma * 255 - 128) * contrast + 128 + brightness)))


_FRACTIONS = [v / 255 for v in range(256)]


@lru_cache(maxsize=64)
def _tone_table(brightness: float, contrast: float, gamma: float) -> tuple[int, ...]:
    """_tone_value of every level (the same floats, in one comprehension); cached: colour_safe_tone checks the
    table the tone edit then applies."""
    return tuple(round(min(255.0, max(0.0, (f ** gamma * 255 - 128) * contrast + 128 + brightness)))
                 for f in _FRACTIONS)


@lru_cache(maxsize=1)
def _named_shades() -> tuple[list[str], np.ndarray, list[int]]:
    """Every shade of every named colour that is inside its word's window: the names, the shades as indices into
    the channel levels they use (an (m, 3) array), and those levels."""
    from .theme import SHADE_FAMILIES, color_word_of

    shades = [(name, rgb) for family in SHADE_FAMILIES.values() for name, rgbs in family.items() for rgb in rgbs
              if name in color_word_of(rgb)]
    levels = sorted({v for _, rgb in shades for v in rgb})
    at = {v: i for i, v in enumerate(levels)}
    return [n for n, _ in shades], np.array([[at[v] for v in rgb] for _, rgb in shades]), levels


FRAGILE_SHADES = 8  # shades checked one by one before all of them at once: most failing tones fail one of these


@lru_cache(maxsize=1)
def _fragile_shades() -> list[tuple[str, tuple[int, int, int]]]:
    """The shades a strong tone pushes out of their words most often (measured on the corners of the strong
    bounds, once): colour_safe_tone tries them first, so a tone that fails usually fails in a few scalar checks
    instead of the whole table. Only the speed depends on this order; the verdict needs every shade."""
    from .theme import in_color_words

    names, shade_levels, levels = _named_shades()
    b = BOUNDS["strong"]["tone"][1]
    fails = np.zeros(len(names), dtype=np.int64)
    for brightness in (-b["brightness"], 0.0, b["brightness"]):
        for contrast in (1 - b["contrast"], 1.0, 1 + b["contrast"] / 2):
            for gamma in (1 - b["gamma"], 1.0, 1 + b["gamma"]):
                toned = np.array([_tone_value(v, brightness, contrast, gamma) for v in levels])
                fails += ~in_color_words(toned[shade_levels], names)
    order = sorted(range(len(names)), key=lambda i: (-int(fails[i]), i))[:FRAGILE_SHADES]
    return [(names[i], tuple(levels[j] for j in shade_levels[i])) for i in order]


@lru_cache(maxsize=4096)
def colour_safe_tone(brightness: float, contrast: float, gamma: float) -> dict:
    """A tone edit that keeps every shade of every named colour inside its colour word's reference window
    (theme.HUE_WINDOWS), so "the red bar" stays red after the edit: the drawn deviation from no change, halved
    until every shade keeps its word (no further draws from the stream), or no change at all."""
    from .theme import in_color_word, in_color_words

    names, shade_levels, levels = _named_shades()
    fractions = [_FRACTIONS[v] for v in levels]
    fragile = _fragile_shades()
    for k in (1.0, 0.5, 0.25, 0.0):
        b, c, g = round(brightness * k, 2), round(1.0 + (contrast - 1.0) * k, 4), round(1.0 + (gamma - 1.0) * k, 4)
        if not all(in_color_word(tuple(_tone_value(v, b, c, g) for v in rgb), name) for name, rgb in fragile):
            continue  # a fragile shade leaves its word: this k fails, whatever the others do
        # each level the shades use, once (79 of the 256: the table itself is built only for the edit applied);
        # _tone_value's formula, inlined over their fractions (the same floats, without a call per level)
        toned = np.array([round(min(255.0, max(0.0, (f ** g * 255 - 128) * c + 128 + b))) for f in fractions])
        if in_color_words(toned[shade_levels], names).all():  # every shade's window at once
            return {"edit": "tone", "brightness": b, "contrast": c, "gamma": g}
    raise AssertionError("unreachable: no change keeps every colour")  # k = 0 is the identity


def keep_colour_words(edits: list[dict], palette: tuple[tuple[str, tuple[int, int, int]], ...]) -> list[dict]:
    """Vignette and scan lines darken what tone left: at the darkest pixel they make (a corner, on a scan line)
    every colour this render draws (`palette`: the theme's shade of each colour name) must keep its colour word.
    Halves the vignette amount, then the scan-line depth, until it does (no draws: the stream is not touched)."""
    from .theme import color_word_of

    vignette = [e for e in edits if e["edit"] == "vignette"]
    scan = [e for e in edits if e["edit"] == "scanlines"]
    if not vignette and not scan:
        return edits  # nothing darkens what tone left (colour_safe_tone has judged the tone itself)
    tone = next((e for e in edits if e["edit"] == "tone"), None)
    toned = [(name, tuple(_tone_value(v, tone["brightness"], tone["contrast"], tone["gamma"]) for v in rgb)
              if tone else rgb) for name, rgb in palette if name in color_word_of(rgb)]

    def keeps() -> bool:
        factor = 1.0
        for e in vignette:
            factor *= 1.0 - e["amount"]  # _vignette at the corners: 1 - amount / 2 · 2
        for e in scan:
            factor *= 1.0 - e["depth"]
        return all(name in color_word_of(tuple(int(v * factor) for v in rgb)) for name, rgb in toned)

    for group, key in ((vignette, "amount"), (scan, "depth")):
        for _ in range(6):
            if keeps():
                return edits
            for e in group:
                e[key] = round(e[key] / 2, 4)
        if not keeps():
            for e in group:
                e[key] = 0.0
    return edits


# -- geometry -------------------------------------------------------------------------------------------------
def _matmul3(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def _apply_h(h, x: float, y: float) -> tuple[float, float]:
    d = h[2][0] * x + h[2][1] * y + h[2][2]
    return (h[0][0] * x + h[0][1] * y + h[0][2]) / d, (h[1][0] * x + h[1][1] * y + h[1][2]) / d


def _inverse3(m):
    (a, b, c), (d, e, f), (g, h, i) = m
    det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    return [[(e * i - f * h) / det, (c * h - b * i) / det, (b * f - c * e) / det],
            [(f * g - d * i) / det, (a * i - c * g) / det, (c * d - a * f) / det],
            [(d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det]]


def homography(edit: dict, width: int, height: int) -> list[list[float]]:
    """Pixel coordinates of the drawing → of the edited image: rotation, shear and perspective about the centre,
    then shrunk about the centre just enough that the whole canvas (less `margin`) stays in the picture."""
    cx, cy = width / 2, height / 2
    t = math.radians(edit["angle"])
    cos, sin = math.cos(t), math.sin(t)
    rot = [[cos, -sin + edit["shear"] * cos, 0.0], [sin, cos + edit["shear"] * sin, 0.0], [0.0, 0.0, 1.0]]
    persp = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [edit["px"] / cx, edit["py"] / cy, 1.0]]
    h = _matmul3(persp, rot)  # in centred coordinates
    corners = [_apply_h(h, x, y) for x, y in ((-cx, -cy), (cx, -cy), (cx, cy), (-cx, cy))]
    room_x, room_y = cx * (1 - edit["margin"]) - 1.0, cy * (1 - edit["margin"]) - 1.0
    s = min(1.0, *(room_x / abs(x) for x, _ in corners if x), *(room_y / abs(y) for _, y in corners if y))
    shrink = [[s, 0.0, cx], [0.0, s, cy], [0.0, 0.0, 1.0]]  # scale, then back to pixel coordinates
    return _matmul3(_matmul3(shrink, h), [[1.0, 0.0, -cx], [0.0, 1.0, -cy], [0.0, 0.0, 1.0]])


@lru_cache(maxsize=1)
def _cv2():
    """OpenCV, imported on first use (plain builds never need it) and held to one thread: Tessera parallelises
    over instances (worker processes), so threads inside one picture would only compete with them. Every OpenCV
    call here is integer arithmetic with a stated formula, which tests/test_variety_raster.py recomputes in numpy
    (with OpenCV's SIMD and IPP paths on and off): the same bytes on every machine, and its version is in every
    trace."""
    import cv2

    cv2.setNumThreads(1)
    return cv2


def _grid(h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Pixel centres of one row (1 × w) and of one column (h × 1): every per-pixel figure broadcasts them (a full
    grid costs more to build than the warp that reads it, and canvas sizes vary too much to cache one)."""
    return (np.arange(w, dtype=np.float32) + np.float32(0.5)).reshape(1, w), \
        (np.arange(h, dtype=np.float32) + np.float32(0.5)).reshape(h, 1)


def warp_positions(hmat, w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    """Where each target pixel samples the drawing: (h, w) float32 source x and y in pixel indices, through the
    inverse homography, elementwise IEEE float32 (the same bits on every machine)."""
    inv = _inverse3(hmat)
    # (row 0 or 1 of inv · p) / (row 2 · p) − 0.5, the source pixel centre (at +0.5) folded into the numerator's
    # coefficients in Python floats, so each axis is one division
    fixed = [[np.float32(inv[k][j] - 0.5 * inv[2][j]) for j in range(3)] for k in (0, 1)]
    col, row = _grid(h, w)  # the affine terms broadcast
    sx = fixed[0][0] * col + (fixed[0][1] * row + fixed[0][2])
    sy = fixed[1][0] * col + (fixed[1][1] * row + fixed[1][2])
    den = [np.float32(v) for v in inv[2]]
    if den[0] != 0 or den[1] != 0:
        d = den[0] * col + (den[1] * row + den[2])
        np.divide(sx, d, out=sx)
        np.divide(sy, d, out=sy)
    elif den[2] != 1:  # pragma: no cover - _inverse3 of homography() keeps the affine denominator 1
        sx /= den[2]
        sy /= den[2]
    return sx, sy


def warp_maps(hmat, w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    """warp_positions in cv2.remap's fixed-point form, rounded to the nearest 1/32 px (cv2.convertMaps: x · 32 is
    exact, then round to nearest, ties to even, in its SIMD and plain code alike): (h, w, 2) int16 whole source
    pixels (x, y) and (h, w) uint16 fractions, 32 · (y's 1/32 steps) + x's. homography() keeps the whole canvas
    in view, so every position is within a fraction of the canvas of the drawing: far inside int16."""
    cv2 = _cv2()
    return cv2.convertMaps(*warp_positions(hmat, w, h), cv2.CV_16SC2)


def _warp(rgb: np.ndarray, hmat, fill) -> np.ndarray:
    """Resample an (h, w, 3) picture through the inverse homography: OpenCV's fixed-point bilinear remap, each
    value (Σ p · (32 − a or a)(32 − b or b) · 32 + 2¹⁴) >> 15 over the four source pixels around the position
    (a, b its fraction in 1/32 px), with `fill` beyond the drawing, so whatever comes from outside it is `fill`
    with an anti-aliased edge."""
    cv2 = _cv2()
    h, w, _ = rgb.shape
    whole, frac = warp_maps(hmat, w, h)
    return cv2.remap(rgb, whole, frac, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                     borderValue=tuple(float(v) for v in fill))


def _move_map(render_map: dict, hmat) -> dict:
    moved = {}
    for path, entry in render_map.items():
        x0, y0, x1, y1 = entry["bbox"]
        pts = [_apply_h(hmat, x, y) for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))]
        px, py = _apply_h(hmat, *entry["point"])
        moved[path] = {**entry, "bbox": [round(min(p[0] for p in pts), 2), round(min(p[1] for p in pts), 2),
                                         round(max(p[0] for p in pts), 2), round(max(p[1] for p in pts), 2)],
                       "point": [round(px, 2), round(py, 2)]}
    return moved


# -- photometric edits, on (h, w, 3) uint8 ---------------------------------------------------------------------
def _hash32(seed: int, n: int) -> np.ndarray:
    """n uniform 32-bit words from a counter hash (murmur3's finaliser): deterministic on every machine."""
    x = np.arange(n, dtype=np.uint32) * np.uint32(0x9E3779B1) + np.uint32(seed & 0xFFFFFFFF)
    x ^= np.uint32((seed >> 32) & 0xFFFFFFFF)
    x ^= x >> np.uint32(16)
    x *= np.uint32(0x85EBCA6B)
    x ^= x >> np.uint32(13)
    x *= np.uint32(0xC2B2AE35)
    x ^= x >> np.uint32(16)
    return x


NOISE_STRIP = 1024  # pixels in the shared strip of noise every noisy row is cut from
IRWIN_HALL_SD = 147.8  # sd of the sum of four uniform bytes: sqrt(4 (256² − 1) / 12)


@lru_cache(maxsize=1)
def _noise_strip() -> np.ndarray:
    """One fixed strip of near-normal noise, NOISE_STRIP pixels of 3 channels (int16, mean about 0, sd NOISE_SD):
    the sum of a hashed word's four bytes, minus 510, divided by 4 (rounded down: −128..127), laid twice end to end
    (2 · NOISE_STRIP, 3), so that any window of NOISE_STRIP pixels that wraps around it is one slice. A quarter of
    the sum leaves room to scale it in int16."""
    words = _hash32(0x7E55E4A, NOISE_STRIP * 3)
    total = (words & 255) + ((words >> 8) & 255) + ((words >> 16) & 255) + (words >> 24)
    strip = ((total.astype(np.int16) - 510) >> 2).reshape(NOISE_STRIP, 3)
    return np.concatenate([strip, strip])


NOISE_SD = IRWIN_HALL_SD / 4
NOISE_SHIFT = 10  # noise · k >> NOISE_SHIFT: k up to 255 keeps 128 · k inside int16 (σ up to 9.2)


def noise_offsets(seed: int, h: int) -> np.ndarray:
    """Where each of h rows starts in the strip: a counter hash of the edit's seed, mod NOISE_STRIP."""
    return (_hash32(seed, h) % np.uint32(NOISE_STRIP)).astype(np.intp)


def noise_field(seed: int, h: int, w: int) -> np.ndarray:
    """The (h, w, 3) int16 noise of one render (a new array, the caller's to change): row y is the strip from noise_offsets(seed, h)[y] on, wrapping
    (rows wider than the strip repeat it). Why a strip: independent noise costs its entropy in the PNG, about 5 bits
    per channel at σ 9 (half a megabyte for a chart), whatever the coder; rows cut from one strip at unrelated
    offsets keep every pixel's distribution and show no pattern (two rows agree only along a shift that differs
    for every pair, and within a row the strip does not repeat before 1,024 pixels), yet each row's noise is
    already in the deflate window, in the rows just above it, so LZ77 copies it (render/png.py)."""
    strip = _noise_strip()
    if w > NOISE_STRIP:  # pragma: no cover - wider than any canvas the library draws
        strip = np.concatenate([strip[:NOISE_STRIP]] * (w // NOISE_STRIP + 2))
    # every run of w pixels of the strip as a row of w · 3 values (a view: window i starts at pixel i), gathered
    # whole rows at a time (a row copy each, where a per-pixel gather cost 8× more)
    windows = np.lib.stride_tricks.sliding_window_view(strip.reshape(-1), w * 3)[::3]
    return windows[noise_offsets(seed, h)].reshape(h, w, 3)


def _gauss(img: np.ndarray, sigma: float, seed: int, own: bool = False) -> np.ndarray:
    """img + (noise · k) >> NOISE_SHIFT, clipped into 0..255, the noise noise_field's rows, in int16 numpy
    (measured faster than OpenCV's table lookups, which gather byte by byte)."""
    h, w, _ = img.shape
    k = round(sigma / NOISE_SD * (1 << NOISE_SHIFT))  # fixed point: noise · k >> NOISE_SHIFT has sd sigma
    window = noise_field(seed, h, w)
    if k > 255:  # pragma: no cover - beyond every strength's bounds: int32, where the product has room
        noise = (window.astype(np.int32) * k) >> NOISE_SHIFT
        return np.clip(img.astype(np.int32) + noise, 0, 255).astype(np.uint8)
    # int16 throughout (half the memory of int32), in place in the gathered rows: a second array of this size
    # costs more in fresh pages than the arithmetic does (measured 2 ms against 0.3 ms for a chart)
    window *= np.int16(k)
    window >>= NOISE_SHIFT
    window += img
    return np.clip(window, 0, 255, out=window).astype(np.uint8)


def _salt_pepper(img: np.ndarray, fraction: float, seed: int, own: bool = False) -> np.ndarray:
    h, w, _ = img.shape
    n = round(fraction * h * w)
    words = _hash32(seed, 2 * n)
    out = img if own else img.copy()
    flat = out.reshape(-1, 3)
    where = words[:n] % np.uint32(h * w)
    flat[where] = np.where((words[n:] & 1).astype(bool)[:, None], np.uint8(255), np.uint8(0))
    return out


def _blur(img: np.ndarray, passes: int) -> np.ndarray:
    """Binomial [1 2 1]/4 (one pass) or [1 4 6 4 1]/16 (two) along both axes, edges repeated: OpenCV's bit-exact
    8-bit Gaussian, which rounds once, (Σ k_i k_j p + 8) >> 4 or (… + 128) >> 8 over the 3×3 or 5×5 window."""
    cv2 = _cv2()
    k = 2 * passes + 1
    return cv2.GaussianBlur(img, (k, k), 0, borderType=cv2.BORDER_REPLICATE)


def _tone(img: np.ndarray, brightness: float, contrast: float, gamma: float, own: bool = False) -> np.ndarray:
    # One lookup table of 256 levels, computed in Python: the image needs only a lookup per byte (OpenCV's LUT).
    lut = np.array(_tone_table(brightness, contrast, gamma), dtype=np.uint8)
    return _cv2().LUT(img, lut, dst=img if own else None)


# D in whole multiples of this many levels. 1 (every level): coarser steps cut the bytes (2: 2.6 kB, 4: 5.4 kB less
# per strong instance; bench/bench_png_size.py, one seed) but show as rectangular contours around the centre (D is
# separable, so its level sets are boxes), which a photo's falloff does not have
VIGNETTE_STEP = 1


def _vignette(img: np.ndarray, amount: float, own: bool = False) -> np.ndarray:
    """Darkening towards the corners: each value less round(v · D / 256) (half to even), D = 256 · amount / 2 · r²
    in whole levels, r² = u² + v² the squared distance from the centre (u, v from −1 to 1 across the picture: 2 in
    the corners). D is separable, A(x) + B(y), each rounded once per column and row (elementwise float64: the same
    bits everywhere) and added as bytes (amount < 1 keeps it under 256); the picture takes two OpenCV byte passes:
    the product (v · D is exact in float32 and 1/256 a power of two, so its rounding is the same on every CPU) and
    a subtraction."""
    cv2 = _cv2()
    h, w, _ = img.shape
    half = 128 * min(amount, 0.99)  # 256 · amount / 2

    def falloff(n: int) -> np.ndarray:  # round(half · u² / STEP) · STEP, u the pixel centres' offsets, −1..1
        u = (np.arange(n, dtype=np.float64) + (0.5 - n / 2)) / (n / 2)
        return (np.rint(half * (u * u) / VIGNETTE_STEP) * VIGNETTE_STEP).astype(np.uint8)

    dark = np.add(np.repeat(falloff(w), 3)[None, :], falloff(h)[:, None])  # (h, w · 3) uint8, each ≤ 2 · half
    flat = np.ascontiguousarray(img).reshape(h, w * 3)
    return cv2.subtract(flat, cv2.multiply(flat, dark, scale=1 / 256), dst=flat if own else None).reshape(h, w, 3)


def _scanlines(img: np.ndarray, period: int, depth: float, own: bool = False) -> np.ndarray:
    out = img if own else img.copy()
    k = np.uint16(round((1 - depth) * 256))
    out[::period] = ((out[::period].astype(np.uint16) * k + np.uint16(128)) >> np.uint16(8)).astype(np.uint8)
    return out


def _jpeg(img: np.ndarray, quality: int, own: bool = False) -> np.ndarray:
    """JPEG's lossy step on luma, through libjpeg-turbo (Pillow's codec): Y (OpenCV's fixed-point RGB → grey,
    exactly `(9798 R + 19235 G + 3735 B + 2¹⁴) >> 15`), written as a greyscale JPEG at `quality` and read back;
    the change in Y is added to every channel (clipped into 0..255), so blocking and ringing show where JPEG puts
    them. Chroma is left alone (most of the cost, little of the look, and colour words stay true). libjpeg-turbo's
    accurate integer DCT (its default, which Pillow keeps) gives the same bytes with and without its SIMD code on
    every CPU; its version is in every trace."""
    import io

    from PIL import Image, features

    if not features.check_codec("jpg"):  # a Pillow built from source without libjpeg: say so, not a traceback
        from ..errors import TesseraError

        raise TesseraError("the jpeg raster edit (variety mild and strong) needs Pillow's JPEG codec, which this "
                           "Pillow was built without: reinstall a Pillow wheel (pip install --force-reinstall pillow)")
    cv2 = _cv2()
    h, w, _ = img.shape
    luma = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
    coded = io.BytesIO()
    Image.frombuffer("L", (w, h), luma, "raw", "L", 0, 1).save(coded, "JPEG", quality=quality)
    back = np.asarray(Image.open(coded))
    # the change in luma, added to every channel: its two signs as bytes (saturating), added and subtracted
    up, down = cv2.subtract(back, luma), cv2.subtract(luma, back)
    out = cv2.add(img, cv2.cvtColor(up, cv2.COLOR_GRAY2RGB), dst=img if own else None)
    return cv2.subtract(out, cv2.cvtColor(down, cv2.COLOR_GRAY2RGB), dst=out)


def _pillow_jpeg():
    from PIL import Image, features

    if not features.check_codec("jpg"):  # a Pillow built from source without libjpeg: say so, not a traceback
        from ..errors import TesseraError

        raise TesseraError("variety mild and strong need Pillow's JPEG codec, which this Pillow was built without: "
                           "reinstall a Pillow wheel (pip install --force-reinstall pillow)")
    return Image


def encode_jpeg(img: np.ndarray, quality: int) -> bytes:
    """A baseline JPEG of an (h, w, 3) RGB picture through libjpeg-turbo (Pillow's codec): full-colour 4:4:4 (thin
    coloured lines keep their colour), the accurate integer DCT and the standard Huffman tables, no metadata. Its
    bytes depend only on the pixels, the quality and libjpeg-turbo's version (in every trace)."""
    import io

    Image = _pillow_jpeg()
    h, w, _ = img.shape
    out = io.BytesIO()
    Image.frombuffer("RGB", (w, h), np.ascontiguousarray(img), "raw", "RGB", 0, 1).save(
        out, "JPEG", quality=int(quality), subsampling=0, optimize=False, progressive=False)
    return out.getvalue()


def decode_jpeg(data: bytes) -> np.ndarray:
    """The (h, w, 3) RGB pixels of a JPEG (libjpeg-turbo's accurate integer IDCT, Pillow's default)."""
    import io

    Image = _pillow_jpeg()
    with Image.open(io.BytesIO(data)) as im:
        return np.asarray(im.convert("RGB"))


# -- the pipeline ---------------------------------------------------------------------------------------------
# Each takes the picture, the edit and whether it may write into the picture (`own`: not the clean drawing).
PHOTOMETRIC = {
    "blur": lambda img, e, own: _blur(img, e["passes"]),
    "tone": lambda img, e, own: _tone(img, e["brightness"], e["contrast"], e["gamma"], own),
    "vignette": lambda img, e, own: _vignette(img, e["amount"], own),
    "scanlines": lambda img, e, own: _scanlines(img, e["period"], e["depth"], own),
    "gauss": lambda img, e, own: _gauss(img, e["sigma"], e["seed"], own),
    "salt_pepper": lambda img, e, own: _salt_pepper(img, e["fraction"], e["seed"], own),
    "jpeg": lambda img, e, own: _jpeg(img, e["quality"], own),
}


def apply_edits(rgba: np.ndarray, render_map: dict, edits: list[dict], background,
                check: bool = True) -> tuple[np.ndarray, dict]:
    """The edited picture (h × w × 3 RGB uint8; no edits: `rgba` as it is) and the render map moved with it; RenderRejected when a mark of
    the render map is no longer legible (`check` false: a redraw of an accepted picture, not judged again). Integer
    arithmetic throughout, so the bytes are the same everywhere."""
    out, moved, _ = apply_edits_to_file(rgba, render_map, edits, background, check)
    return out, moved


def apply_edits_to_file(rgba: np.ndarray, render_map: dict, edits: list[dict], background,
                        check: bool = True) -> tuple[np.ndarray, dict, bytes | None]:
    """apply_edits, and the picture's file when the edits end with the file edit (a JPEG; None: the caller writes
    a PNG). The pixels returned are then the decoded file's, and the legibility check judges those."""
    if not edits:
        return rgba, render_map, None
    h, w, _ = rgba.shape
    moved = render_map
    clean = _rgb(rgba)  # contiguous RGB: every step after reads it faster than a strided view of the RGBA picture
    for e in edits:
        if e["edit"] == "warp":
            hmat = homography(e, w, h)
            clean = _warp(clean, hmat, e["fill"] if e["fill"] is not None else background)
            moved = _move_map(moved, hmat)
    # the drawing after geometry only: what every photometric edit is measured against
    out, file = clean, None
    for e in edits:
        if e["edit"] == "file":
            file = encode_jpeg(out, e["quality"])
            out = decode_jpeg(file)
        elif e["edit"] != "warp":  # the first writes a new picture; the ones after it work in place
            out = PHOTOMETRIC[e["edit"]](out, e, out is not clean)
    if check:
        check_legible(clean, out, moved, photometric=any(e["edit"] != "warp" for e in edits))
    return out, moved, file


def _rgb(rgba: np.ndarray) -> np.ndarray:
    """(h, w, 3) contiguous RGB of an RGBA picture (OpenCV's channel copy: a strided numpy copy costs 5× more)."""
    cv2 = _cv2()
    return cv2.cvtColor(np.ascontiguousarray(rgba), cv2.COLOR_RGBA2RGB)


def _cells(img: np.ndarray) -> np.ndarray:
    """The grey level of each 2×2 pixel cell (int32, 0..255), the resolution the legibility check works at: each
    cell's mean colour, (Σ + 2) >> 2 per channel (OpenCV's area resize at half size), then its luma in fixed point,
    (9798 R + 19235 G + 3735 B + 2¹⁴) >> 15 (OpenCV's RGB → grey). Both are integer formulas the tests recompute;
    two passes in C where channel sums in numpy took three times as long."""
    cv2 = _cv2()
    h2, w2 = img.shape[0] // 2, img.shape[1] // 2
    means = cv2.resize(img[:2 * h2, :2 * w2], (w2, h2), interpolation=cv2.INTER_AREA)
    return cv2.cvtColor(means, cv2.COLOR_RGB2GRAY).astype(np.int32)


SUMMED_AREA_SHARE = 4.0  # boxes covering the picture more often than this: summed-area tables are cheaper


def _summed(v: np.ndarray) -> np.ndarray:
    """Summed-area table with a zero first row and column: the sum over [b0:b1, a0:a1] is
    S[b1, a1] − S[b0, a1] − S[b1, a0] + S[b0, a0] (exact int64)."""
    s = np.zeros((v.shape[0] + 1, v.shape[1] + 1), dtype=np.int64)
    np.cumsum(v, axis=0, out=s[1:, 1:])
    np.cumsum(s[1:, 1:], axis=1, out=s[1:, 1:])
    return s


def check_legible(clean: np.ndarray, edited: np.ndarray, render_map: dict, photometric: bool = True) -> None:
    """Each mark's box (a little padded), edited against clean, on the grey levels of 2×2 cells: the content must
    still correlate with the drawing and keep most of its contrast (exact integer sums, from summed-area tables,
    until the ratios). Raises RenderRejected naming the first mark that fails. Geometry alone (photometric false)
    moves marks without degrading them: only the bounds and sizes are checked then."""
    h, w = edited.shape[:2]
    boxes, failed = [], None  # failed: the first mark out of bounds; marks before it are checked first, in order
    for path, entry in render_map.items():
        x0, y0, x1, y1 = entry["bbox"]
        if x0 < -0.5 or y0 < -0.5 or x1 > w + 0.5 or y1 > h + 0.5:
            failed = RenderRejected(f"{path} falls outside the canvas after the raster edits: canvas")
        elif x1 - x0 < MIN_MARK_PX or y1 - y0 < MIN_MARK_PX:
            failed = RenderRejected(f"{path} is smaller than {MIN_MARK_PX} px after the raster edits: size")
        if failed is not None:
            break
        # in 2×2 cells: the cells the padded box touches
        a0, b0 = max(0, (int(x0) - PAD_PX) // 2), max(0, (int(y0) - PAD_PX) // 2)
        a1, b1 = min(w // 2, (int(math.ceil(x1)) + PAD_PX + 1) // 2), min(h // 2, (int(math.ceil(y1)) + PAD_PX + 1) // 2)
        if (a1 - a0) * (b1 - b0) >= 4:
            boxes.append((path, a0, b0, a1, b1))
    if photometric and boxes:
        _check_boxes(clean, edited, boxes)
    if failed is not None:
        raise failed


def _check_boxes(clean: np.ndarray, edited: np.ndarray, boxes: list) -> None:
    ref, got = _cells(clean), _cells(edited)
    if sum((a1 - a0) * (b1 - b0) for _, a0, b0, a1, b1 in boxes) > SUMMED_AREA_SHARE * ref.size:
        # many or large boxes: sums from summed-area tables, a fixed cost whatever the boxes (the same integers)
        tables = [_summed(v) for v in (ref, got, ref * ref, got * got, ref * got)]
        a0s, b0s, a1s, b1s = (np.array([b[i] for b in boxes]) for i in range(1, 5))
        sums = list(zip(*((t[b1s, a1s] - t[b0s, a1s] - t[b1s, a0s] + t[b0s, a0s]).tolist() for t in tables)))
    else:
        sums = []
        for _, a0, b0, a1, b1 in boxes:
            r, g = ref[b0:b1, a0:a1], got[b0:b1, a0:a1]
            sums.append(tuple(int(v.sum()) for v in (r, g, r * r, g * g, r * g)))
    for (path, a0, b0, a1, b1), (s_r, s_g, s_rr, s_gg, s_rg) in zip(boxes, sums):
        n = (a1 - a0) * (b1 - b0)
        var_r = (s_rr * n - s_r * s_r) / (n * n)  # exact integers until this division
        var_g = (s_gg * n - s_g * s_g) / (n * n)
        cov = (s_rg * n - s_r * s_g) / (n * n)
        if var_r < FLAT_STD ** 2:  # flat: under FLAT_STD grey levels
            continue
        corr = cov / math.sqrt(var_r * var_g) if var_g > 0 else 0.0
        gain = cov / var_r
        if corr < MIN_CORRELATION or gain < MIN_GAIN:
            raise RenderRejected(f"{path} is no longer legible after the raster edits (correlation {corr:.2f}, "
                                 f"contrast kept {gain:.2f}): illegible")
