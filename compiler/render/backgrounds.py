"""Background textures and the contrast measure that keeps them (and the themes) from hiding answers.

Textures are numpy arrays computed from one 64-bit seed that the render stream drew (Theme.texture_seed): per-pixel
values come from a counter-based SplitMix64 in numpy's uint64 arithmetic, so they are the same on every machine and
never touch numpy's own generators. All of them stay within a few levels of the theme's background, and the
contrast floor below is measured on every render with variety, so a texture can never hide a mark or a text.
"""
from __future__ import annotations

import numpy as np

TEXTURES = ("plain", "gradient", "grain", "grid_paper", "dots", "mottle", "fibres")

# CIE76 ΔE in Lab between a mark and what is behind it. 2.3 is "just noticeable"; marks and text must stand well
# clear of that. The default look (variety none) measures ≥ 25 for every answer-bearing mark of the library.
MIN_MARK_CONTRAST = 18.0
MIN_TEXT_CONTRAST = 18.0

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


def texture(kind: str, background: tuple, seed: int, width: int, height: int, strong: bool) -> np.ndarray:
    """A (height, width, 3) uint8 backdrop: the background colour with the texture's light variation."""
    dark = sum(background) < 384  # on dark themes the variation goes up instead of down
    sign = 1.0 if dark else -1.0
    amp = 7.0 if strong else 4.0
    u = splitmix_uniform(seed, 4, 1)  # the texture's own parameters
    ys = np.arange(height, dtype=np.float32)[:, None]
    xs = np.arange(width, dtype=np.float32)[None, :]
    if kind == "plain":
        delta = np.zeros((height, width), dtype=np.float32)
    elif kind == "gradient":
        ang = u[0] * 2 * np.pi
        t = xs * np.float32(np.cos(ang)) + ys * np.float32(np.sin(ang))
        t = (t - t.min()) / max(1e-9, float(t.max() - t.min()))
        delta = sign * amp * 2.0 * t
    elif kind == "grain":
        delta = (splitmix_uniform(seed, width * height, 2).reshape(height, width).astype(np.float32) - 0.5) * \
            np.float32(amp * 1.6)
    elif kind == "mottle":  # soft blotches: coarse noise, bilinearly enlarged
        cw, ch = max(2, width // 48 + 2), max(2, height // 48 + 2)
        coarse = splitmix_uniform(seed, cw * ch, 3).reshape(ch, cw).astype(np.float32)
        gy = np.linspace(0, ch - 1, height, dtype=np.float32)
        gx = np.linspace(0, cw - 1, width, dtype=np.float32)
        y0, x0 = np.floor(gy).astype(int).clip(0, ch - 2), np.floor(gx).astype(int).clip(0, cw - 2)
        fy, fx = (gy - y0)[:, None], (gx - x0)[None, :]
        rows0, rows1 = coarse[y0], coarse[y0 + 1]
        top = rows0[:, x0] * (1 - fx) + rows0[:, x0 + 1] * fx
        bottom = rows1[:, x0] * (1 - fx) + rows1[:, x0 + 1] * fx
        delta = sign * amp * 1.5 * (top * (1 - fy) + bottom * fy)
    elif kind == "fibres":  # paper fibres: short horizontal streaks
        noise = splitmix_uniform(seed, width * height, 4).reshape(height, width).astype(np.float32)
        k = 9
        run = np.cumsum(np.pad(noise, ((0, 0), (k, 0))), axis=1)
        delta = ((run[:, k:] - run[:, :-k]) / k - 0.5) * np.float32(amp * 2.5)
    elif kind in ("grid_paper", "dots"):
        step = int(12 + u[1] * 12)
        ox, oy = int(u[2] * step), int(u[3] * step)
        cols = (np.arange(width) - ox) % step
        rows = (np.arange(height) - oy) % step
        if kind == "grid_paper":
            on = (cols == 0)[None, :] | (rows == 0)[:, None]
            level = amp * 2.2
        else:
            on = (cols < 2)[None, :] & (rows < 2)[:, None]
            level = amp * 3.0
        delta = on.astype(np.float32) * np.float32(sign * level)
    else:  # pragma: no cover - pick_theme only names the kinds above
        raise ValueError(f"unknown texture {kind!r}")
    out = np.asarray(background, dtype=np.float32)[None, None, :] + delta[..., None]
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def to_lab(rgb: np.ndarray) -> np.ndarray:
    """sRGB (…, 3) uint8 or float 0..255 to CIE Lab (D65)."""
    c = np.asarray(rgb, dtype=np.float64) / 255.0
    c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    x = (c[..., 0] * 0.4124 + c[..., 1] * 0.3576 + c[..., 2] * 0.1805) / 0.95047
    y = c[..., 0] * 0.2126 + c[..., 1] * 0.7152 + c[..., 2] * 0.0722
    z = (c[..., 0] * 0.0193 + c[..., 1] * 0.1192 + c[..., 2] * 0.9505) / 1.08883

    def f(t):
        return np.where(t > 0.008856, np.cbrt(t), 7.787 * t + 16 / 116)

    fx, fy, fz = f(x), f(y), f(z)
    return np.stack([116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)], axis=-1)


def delta_e(a, b) -> np.ndarray:
    return np.linalg.norm(to_lab(a) - to_lab(b), axis=-1)


def mark_contrast(final: np.ndarray, backdrop: np.ndarray, bbox) -> float:
    """How clearly a mark stands out from what the canvas held before anything was drawn: the 99th percentile ΔE
    between the picture and the backdrop over the mark's box (its strongest pixels: thin strokes count)."""
    h, w = backdrop.shape[:2]
    x0, y0 = max(0, int(np.floor(bbox[0]))), max(0, int(np.floor(bbox[1])))
    x1, y1 = min(w, int(np.ceil(bbox[2]))), min(h, int(np.ceil(bbox[3])))
    if x1 <= x0 or y1 <= y0:
        return 0.0
    d = delta_e(final[y0:y1, x0:x1, :3], backdrop[y0:y1, x0:x1, :3])
    return float(np.percentile(d, 99))
