"""Background textures and the contrast measure that keeps them (and the themes) from hiding answers.

Textures are numpy arrays computed from one 64-bit seed that the render stream drew (Theme.texture_seed): per-pixel
values come from a counter-based SplitMix64 in numpy's uint64 arithmetic, so they are the same on every machine and
never touch numpy's own generators. All of them stay within a few levels of the theme's background, and the
contrast floor below is measured on every render with variety, so a texture can never hide a mark or a text.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

TEXTURES = ("plain", "gradient", "grain", "grid_paper", "dots", "mottle", "fibres")

# Colour difference (color_distance: black–white 100, about CIE76 ΔE) between a mark and what is behind it. Marks
# and text must stand well clear of "just noticeable" (the classic muted grey on white measures about 37).
MIN_MARK_CONTRAST = 18.0
# Text reads by lightness: WCAG's contrast ratio of relative luminances (1 = none, 21 = black on white). Light ink
# swaps to the dark ink under READABLE_TEXT_RATIO; under MIN_TEXT_RATIO the render is rejected.
READABLE_TEXT_RATIO = 3.0
MIN_TEXT_RATIO = 2.0

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def splitmix_uniform(seed: int, n: int, salt: int = 0) -> np.ndarray:
    """n floats in [0, 1): SplitMix64 of (seed + salt + i) × golden, as Rng.next64 computes its outputs."""
    with np.errstate(over="ignore"):
        z = np.uint64(seed & 0xFFFFFFFFFFFFFFFF) + np.uint64(salt) * _M1 + \
            (np.arange(1, n + 1, dtype=np.uint64) * _GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


MOTTLE_ROWS = 4  # mottle is computed on every 4th row (texture)
TEX_STRIP = 1024  # noise textures (grain, fibres): every row is cut from one strip of this many pixels


@lru_cache(maxsize=4)
def _noise_strip(salt: int) -> np.ndarray:
    """The fixed strip of SplitMix64 noise in [-0.5, 0.5) a noise texture's rows are cut from (float32)."""
    return (splitmix_uniform(0x7E55E7A, TEX_STRIP, salt) - 0.5).astype(np.float32)


def _strip_rows(words: np.ndarray, seed: int, width: int, height: int) -> np.ndarray:
    """(height, width) of a strip of packed words: row y is the strip from offset o_y on, wrapping, o_y =
    floor(TEX_STRIP · u_y) for the seed's y-th SplitMix64 uniform (salt 5). Why rows of one strip and not the
    256-px tile of before 0.9: a tile's rows are all different, so the PNG pays each row's noise in full (a grain
    backdrop alone took 122 kB for 800 × 600); rows of one strip at unrelated offsets look the same (each row is the
    same noise, no row is its neighbour shifted by a few pixels), yet every row's noise is already in the deflate
    window, in the rows above it, and LZ77 copies it (13 kB). The same idea as the gauss edit's rows (raster)."""
    reps = width // TEX_STRIP + 2
    laid = np.concatenate([words] * reps)
    offsets = (splitmix_uniform(seed, height, 5) * TEX_STRIP).astype(np.intp)
    windows = np.lib.stride_tricks.sliding_window_view(laid, width)
    return windows[offsets]


def _shift_fits(background: tuple, lo: int, hi: int) -> bool:
    return -127 <= lo and hi <= 127 and all(0 <= c + lo and c + hi <= 255 for c in background)


SHIFT_WORD = 0x010101  # one level more in R, G and B of a packed RGBA word (a whole number of levels: no carries)


def _shifted(background: tuple, delta: np.ndarray, bounds: tuple[int, int] | None = None) -> np.ndarray:
    """Packed RGBA words (uint32, alpha 255): the background with every channel moved by the same whole number of
    levels, delta rounded (clipped to ±127, then each channel to 0..255). `bounds`: levels no step can leave (the
    caller knows them without a pass over the picture); without them the steps are measured."""
    steps = np.rint(delta, out=delta if delta.flags.writeable and delta.dtype == np.float32 else None)
    steps = steps.astype(np.int32)
    if bounds is not None and _shift_fits(background, *bounds):
        lo, hi = bounds
    else:
        lo, hi = (int(v) for v in (steps.min(), steps.max())) if steps.size else (0, 0)
    base = int(np.array([*background, 255], dtype=np.uint8).view(np.uint32)[0])
    if _shift_fits(background, lo, hi):
        # nothing to clip: every channel of every pixel is the background's plus the step, which adds to the packed
        # word without a carry between channels (two passes instead of a table lookup)
        steps *= SHIFT_WORD
        steps += base - (1 << 32 if base >= 1 << 31 else 0)  # the word as int32: the same bits
        return steps.view(np.uint32)
    np.clip(steps, -127, 127, out=steps)
    steps += 128
    table = np.empty((256, 4), dtype=np.uint8)
    table[:, 3] = 255
    for c in range(3):
        table[:, c] = np.clip(np.arange(-128, 128) + background[c], 0, 255)
    return table.view(np.uint32)[:, 0].take(steps)


def texture(kind: str, background: tuple, seed: int, width: int, height: int, strong: bool) -> np.ndarray:
    """A (height, width, 4) uint8 RGBA backdrop (alpha 255): the background colour with the texture's light
    variation. Noise textures (grain, fibres) are computed on one strip of words, then cut into rows (_strip_rows)."""
    dark = sum(background) < 384  # on dark themes the variation goes up instead of down
    sign = 1.0 if dark else -1.0
    amp = 7.0 if strong else 4.0
    if kind == "plain":
        return _flat(background, width, height)
    u = splitmix_uniform(seed, 8, 1)  # the texture's own parameters
    ys = np.arange(height, dtype=np.float32)[:, None]
    xs = np.arange(width, dtype=np.float32)[None, :]
    if kind == "gradient":  # linear in x and y: a row and a column, added by broadcasting
        ang = u[0] * 2 * np.pi
        tx, ty = xs * np.float32(np.cos(ang)), ys * np.float32(np.sin(ang))
        tx -= tx.min()
        ty -= ty.min()
        k = np.float32(sign * amp * 2.0 / max(1e-9, float(tx.max() + ty.max())))
        across, down = tx * k, ty * k
        delta = across + down
        # float addition and rint are monotone in each argument: the extremes of the sum are the sums of extremes
        bounds = (int(np.rint(across.min() + down.min())), int(np.rint(across.max() + down.max())))
    elif kind == "grain":  # each row one strip of noise at its own offset (_strip_rows)
        words = _shifted(background, _noise_strip(2) * np.float32(amp * 1.6))
        return np.ascontiguousarray(_strip_rows(words, seed, width, height)).view(np.uint8).reshape(height, width, 4)
    elif kind == "mottle":  # soft blotches: coarse noise, bilinearly enlarged (along x on the coarse rows, then y)
        cw, ch = max(2, width // 48 + 2), max(2, height // 48 + 2)
        coarse = splitmix_uniform(seed, cw * ch, 3).reshape(ch, cw).astype(np.float32) * np.float32(sign * amp * 1.5)
        # a blend of two blends of coarse values stays within them, give or take rounding: one level of margin
        bounds = (int(np.floor(coarse.min())) - 1, int(np.ceil(coarse.max())) + 1)
        gy = np.linspace(0, ch - 1, height, dtype=np.float32)
        gx = np.linspace(0, cw - 1, width, dtype=np.float32)
        y0, x0 = np.floor(gy).astype(int).clip(0, ch - 2), np.floor(gx).astype(int).clip(0, cw - 2)
        # float32 throughout (the weights too: an int64 index would make them float64, at twice the memory)
        fy, fx = (gy - y0.astype(np.float32))[:, None], (gx - x0.astype(np.float32))[None, :]
        across = coarse[:, x0] * (1 - fx) + coarse[:, x0 + 1] * fx  # ch × width
        delta = np.empty((height, width), dtype=np.float32)
        for j in np.unique(y0).tolist():  # each band of rows between two coarse rows, without gathering rows
            band = slice(int(np.searchsorted(y0, j)), int(np.searchsorted(y0, j, side="right")))
            np.multiply(across[j], 1 - fy[band], out=delta[band])
            delta[band] += across[j + 1] * fy[band]
        # each band of MOTTLE_ROWS rows repeats its first row: the blotches span 48 px, so the steps between
        # bands are a fraction of a level, yet the PNG copies 3 rows in 4 whole (a new row costs its runs)
        delta = np.repeat(delta[::MOTTLE_ROWS], MOTTLE_ROWS, axis=0)[:height]
    elif kind == "fibres":  # paper fibres: short horizontal streaks, the sum of the 9 values after each, wrapping
        strip = _noise_strip(4).astype(np.float64)
        run = np.cumsum(np.concatenate([[0.0], strip, strip[:9]]))  # wraps: the strip stays periodic
        words = _shifted(background, ((run[10:] - run[1:-9]) * (amp * 2.5 / 9)).astype(np.float32))
        return np.ascontiguousarray(_strip_rows(words, seed, width, height)).view(np.uint8).reshape(height, width, 4)
    elif kind in ("grid_paper", "dots"):
        rgba = np.empty((height, width, 4), dtype=np.uint8)
        rgba.view(np.uint32)[:] = np.array([*background, 255], dtype=np.uint8).view(np.uint32)[0]
        out = rgba[..., :3]
        step = int(12 + u[1] * 12)
        ox, oy = int(u[2] * step), int(u[3] * step)
        # the columns x with (x − ox) mod step == 0 are ox mod step, then every step-th (rows alike): slices
        if kind == "grid_paper":
            line = np.clip(np.asarray(background) + sign * amp * 2.2, 0, 255).astype(np.uint8)
            out[:, ox % step::step] = line
            out[oy % step::step, :] = line
        else:  # dots: the 2 × 2 pixels at each crossing
            dot = np.clip(np.asarray(background) + sign * amp * 3.0, 0, 255).astype(np.uint8)
            for dy in (0, 1):
                for dx in (0, 1):
                    out[(oy + dy) % step::step, (ox + dx) % step::step] = dot
        return rgba
    else:  # pragma: no cover - pick_theme only names the kinds above
        raise ValueError(f"unknown texture {kind!r}")
    return _shifted(background, delta, bounds).view(np.uint8).reshape(height, width, 4)


def _flat(background: tuple, width: int, height: int) -> np.ndarray:
    """The plain backdrop: the background colour everywhere, as a read-only broadcast of one pixel (nothing to
    build: canvas sizes vary too much under variety for a cache of whole pictures to hit)."""
    return np.broadcast_to(np.array([*background, 255], dtype=np.uint8), (height, width, 4))


# A perceptual colour difference on the scale of CIE76 ΔE (black–white 100) that is cheap enough to run over every
# mark of every render: the "redmean" weighted RGB distance, scaled so black to white is 100.
def color_distance(a: np.ndarray, b) -> np.ndarray:
    a = np.asarray(a, dtype=np.float32)
    b = np.asarray(b, dtype=np.float32)
    rmean = (a[..., 0] + b[..., 0]) * np.float32(0.5 / 256)
    d = a - b
    d *= d
    return np.sqrt((2 + rmean) * d[..., 0] + 4 * d[..., 1] + (3 - rmean) * d[..., 2]) * np.float32(100 / 765)


def luminance(rgb) -> float:
    """WCAG relative luminance of one colour (0..255 channels), in plain floats: it runs once per text."""
    out = 0.0
    for v, w in zip(rgb[:3], (0.2126, 0.7152, 0.0722)):
        c = float(v) / 255.0
        out += w * (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    return out


@lru_cache(maxsize=4096)
def _luminance_of(rgb: tuple) -> float:
    return luminance(rgb)


def _lum(rgb) -> float:
    # a colour given as a tuple of ints (a text's ink, a fill) recurs: its luminance is cached
    return _luminance_of(rgb) if type(rgb) is tuple and all(type(v) is int for v in rgb) else luminance(rgb)


def contrast_ratio(a, b) -> float:
    la, lb = _lum(a), _lum(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def text_is_hidden(ratio: float) -> bool:
    """Text under the floor against what is behind it. Unlike marks there is no "as designed" excuse: the library
    picks text colours for their fills (ink_on), and a sweep of every task under mild and strong finds no text that
    is always below it."""
    return ratio < MIN_TEXT_RATIO


VISIBLE_SHARE = 0.01  # a mark is visible where at least this share of its box clears the floor (thin strokes)
# One channel this far apart puts color_distance at or above MIN_MARK_CONTRAST: each squared channel difference
# weighs at least 2 in it (red 2 + r̄, green 4, blue 3 − r̄, with r̄ < 1), and 2 · 98² = 19208 exceeds
# (MIN_MARK_CONTRAST · 765 / 100)² = 18960 by more than float32 rounding could take away.
SURE_CLEAR = 98
DRAWN_DISTANCE = 1.0  # a pixel this far from the backdrop was drawn on (the backdrop itself measures 0)


def mark_is_hidden(final: np.ndarray, backdrop: np.ndarray, bbox) -> bool:
    """The theme (or its texture) hid the mark: under VISIBLE_SHARE of its box's pixels differ from the backdrop
    by MIN_MARK_CONTRAST, where on the classic white page they would (counting only pixels something was drawn on). A scene may draw a near-white heatmap cell on
    purpose; a theme is to blame only where it takes a mark below the floor that the mark clears on white."""
    h, w = backdrop.shape[:2]
    x0, y0 = max(0, int(np.floor(bbox[0]))), max(0, int(np.floor(bbox[1])))
    x1, y1 = min(w, int(np.ceil(bbox[2]))), min(h, int(np.ceil(bbox[3])))
    if x1 <= x0 or y1 <= y0:
        return False  # _check_legibility has judged its size and place
    px, back = final[y0:y1, x0:x1], backdrop[y0:y1, x0:x1]  # RGB or RGBA (opaque: alpha differs by 0)
    need = VISIBLE_SHARE * px.shape[0] * px.shape[1]
    # A cheap sufficient test first (integers, several times faster): a pixel with one channel SURE_CLEAR or more
    # away from the backdrop clears MIN_MARK_CONTRAST whatever the others do, so enough such pixels settle it.
    # Every fourth row first (enough of them there are enough in the box), then the whole box.
    if px.shape[2] == back.shape[2]:
        from .raster import _cv2

        for rows in ((slice(None, None, 4),) if px.shape[0] >= 16 else ()) + (slice(None),):
            d = _cv2().absdiff(px[rows], back[rows])  # |a − b| per channel, in bytes
            if np.count_nonzero(np.maximum(np.maximum(d[..., 0], d[..., 1]), d[..., 2]) >= SURE_CLEAR) >= need:
                return False
    px, back = px[..., :3], back[..., :3]
    apart = color_distance(px, back)
    if np.count_nonzero(apart >= MIN_MARK_CONTRAST) >= need:
        return False
    # On the white page a pixel where nothing was drawn (the backdrop shows) would be white: only drawn pixels can
    # clear the floor there. (A cell with no fill on a dark theme is empty, not hidden.)
    drawn = apart >= DRAWN_DISTANCE
    return np.count_nonzero(drawn & (color_distance(px, (255.0, 255.0, 255.0)) >= MIN_MARK_CONTRAST)) >= need
