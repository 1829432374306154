"""Raster edits after drawing: noise, blur, compression, warps, tone, vignetting, scan lines, a photo-of-paper look.

Only a build's `variety: mild | strong` turns them on; a grammar can cap the strength or opt out of edits
(render.raster). Every parameter comes from the render stream and lands in the trace, so replay redraws the same
bytes. Nothing here uses numpy's random generators or BLAS: noise is a counter hash in integer arithmetic, and
every float step is elementwise IEEE arithmetic in a fixed order (no reductions, no matrix products), which gives the
same bits on any machine. Reductions appear only in the legibility check, which decides accept or reject.

Witness geometry moves with the picture: a warp is one homography, each mark's box becomes the hull of its four
transformed corners, and its point the transformed point. After the edits every mark of the render map is checked
against the clean picture (warped the same way): if its content no longer correlates with the drawing, or its
contrast fell too far, the render is rejected and the instance draws again.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from .marks import RenderRejected

# Applied in this order (a photo look combines warp, tone, vignette and noise with stronger bounds).
EDITS = ("warp", "blur", "tone", "vignette", "scanlines", "gauss", "salt_pepper", "jpeg", "photo")
LEVELS = {"none": 0, "mild": 1, "strong": 2}

# Per strength: the chance each edit is drawn and the bounds of its parameters. These bounds are the promise the
# README states; the legibility check is the backstop for unlucky combinations.
BOUNDS = {
    "mild": {
        "warp": (0.45, {"angle": 1.2, "shear": 0.015, "persp": 0.015}),
        "blur": (0.25, {"passes": 1}),
        "tone": (0.6, {"brightness": 12.0, "contrast": 0.08, "gamma": 0.1}),
        "vignette": (0.3, {"amount": 0.12}),
        "scanlines": (0.1, {"depth": 0.05}),
        "gauss": (0.45, {"sigma": 4.0}),
        "salt_pepper": (0.15, {"fraction": 0.002}),
        "jpeg": (0.4, {"quality": (65, 92)}),
        "photo": (0.0, {}),
    },
    "strong": {
        "warp": (0.6, {"angle": 3.0, "shear": 0.04, "persp": 0.04}),
        "blur": (0.35, {"passes": 2}),
        "tone": (0.75, {"brightness": 28.0, "contrast": 0.2, "gamma": 0.25}),
        "vignette": (0.4, {"amount": 0.3}),
        "scanlines": (0.2, {"depth": 0.1}),
        "gauss": (0.55, {"sigma": 9.0}),
        "salt_pepper": (0.25, {"fraction": 0.006}),
        "jpeg": (0.5, {"quality": (35, 85)}),
        "photo": (0.2, {"angle": 2.5, "persp": 0.07, "amount": 0.4, "sigma": 7.0}),
    },
}
# Surfaces a photographed sheet lies on (the photo look fills the uncovered corners with one).
SURFACES = [(92, 84, 76), (58, 60, 66), (120, 104, 86), (40, 42, 40)]

MIN_CORRELATION = 0.5  # a mark's pixels against its clean drawing: below this, noise has drowned it
MIN_GAIN = 0.45  # the share of a mark's contrast that must survive tone, vignette and blur
FLAT_STD = 3.0  # a box whose clean drawing is this flat (per channel value) carries no readable detail to check
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
    if drawn("photo"):
        b = bounds["photo"][1]
        # A sheet photographed at a slant under uneven light: perspective, a surface around it, falloff, grain.
        edits.append({"edit": "warp", "angle": sym(b["angle"]), "shear": 0.0, "px": sym(b["persp"]),
                      "py": sym(b["persp"]), "fill": list(rng.choice(SURFACES)), "margin": 0.06})
        edits.append({"edit": "tone", "brightness": round(rng.uniform(-18.0, 4.0), 2),
                      "contrast": round(rng.uniform(0.85, 1.0), 4), "gamma": round(rng.uniform(0.95, 1.15), 4)})
        edits.append({"edit": "vignette", "amount": round(rng.uniform(0.5, 1.0) * b["amount"], 4)})
        edits.append({"edit": "gauss", "sigma": round(rng.uniform(0.4, 1.0) * b["sigma"], 3),
                      "seed": rng.next64()})
        return edits
    if drawn("warp"):
        b = bounds["warp"][1]
        edits.append({"edit": "warp", "angle": sym(b["angle"]), "shear": sym(b["shear"]), "px": sym(b["persp"]),
                      "py": sym(b["persp"]), "fill": None, "margin": 0.0})
    if drawn("blur"):
        edits.append({"edit": "blur", "passes": rng.randint(1, bounds["blur"][1]["passes"])})
    if drawn("tone"):
        b = bounds["tone"][1]
        edits.append({"edit": "tone", "brightness": round(rng.uniform(-b["brightness"], b["brightness"]), 2),
                      "contrast": round(1.0 + rng.uniform(-b["contrast"], b["contrast"] / 2), 4),
                      "gamma": round(1.0 + rng.uniform(-b["gamma"], b["gamma"]), 4)})
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
    if drawn("jpeg"):
        lo, hi = bounds["jpeg"][1]["quality"]
        edits.append({"edit": "jpeg", "quality": rng.randint(lo, hi)})
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


@lru_cache(maxsize=8)
def _grid(h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    return xs + 0.5, ys + 0.5  # pixel centres


def _warp(img: np.ndarray, hmat, fill) -> np.ndarray:
    """Resample (bilinear) through the inverse homography; pixels from outside the drawing get `fill`."""
    h, w, _ = img.shape
    inv = _inverse3(hmat)
    xs, ys = _grid(h, w)
    d = inv[2][0] * xs + inv[2][1] * ys + inv[2][2]
    sx = (inv[0][0] * xs + inv[0][1] * ys + inv[0][2]) / d - 0.5
    sy = (inv[1][0] * xs + inv[1][1] * ys + inv[1][2]) / d - 0.5
    inside = (sx >= -0.5) & (sx <= w - 0.5) & (sy >= -0.5) & (sy <= h - 0.5)
    x0, y0 = np.floor(sx), np.floor(sy)
    fx, fy = (sx - x0).astype(np.float32)[..., None], (sy - y0).astype(np.float32)[..., None]
    xa, xb = np.clip(x0, 0, w - 1).astype(np.intp), np.clip(x0 + 1, 0, w - 1).astype(np.intp)
    ya, yb = np.clip(y0, 0, h - 1).astype(np.intp), np.clip(y0 + 1, 0, h - 1).astype(np.intp)
    top = img[ya, xa] * (1 - fx) + img[ya, xb] * fx
    bottom = img[yb, xa] * (1 - fx) + img[yb, xb] * fx
    out = top * (1 - fy) + bottom * fy
    out[~inside] = np.asarray(fill, dtype=np.float32)
    return out


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


# -- photometric edits ----------------------------------------------------------------------------------------
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


def _gauss(img: np.ndarray, sigma: float, seed: int) -> np.ndarray:
    # The sum of a word's four bytes is Irwin–Hall: mean 510, sd sqrt(4 (256² − 1) / 12) ≈ 147.8, close to normal.
    words = _hash32(seed, img.size)
    total = ((words & 255) + ((words >> 8) & 255) + ((words >> 16) & 255) + (words >> 24)).astype(np.float32)
    return img + (total.reshape(img.shape) - np.float32(510.0)) * np.float32(sigma / 147.8)


def _salt_pepper(img: np.ndarray, fraction: float, seed: int) -> np.ndarray:
    h, w, _ = img.shape
    words = _hash32(seed, h * w).reshape(h, w)
    hit = words < np.uint32(int(fraction * 2 ** 32))
    out = img.copy()
    out[hit & (words & 1).astype(bool)] = 255.0
    out[hit & ~(words & 1).astype(bool)] = 0.0
    return out


def _blur(img: np.ndarray, passes: int) -> np.ndarray:
    """Binomial [1 2 1]/4 along each axis, `passes` times (σ ≈ 0.7 px per pass), edges repeated."""
    out = img
    for _ in range(passes):
        p = np.pad(out, ((1, 1), (0, 0), (0, 0)), mode="edge")
        out = (p[:-2] + 2 * p[1:-1] + p[2:]) * np.float32(0.25)
        p = np.pad(out, ((0, 0), (1, 1), (0, 0)), mode="edge")
        out = (p[:, :-2] + 2 * p[:, 1:-1] + p[:, 2:]) * np.float32(0.25)
    return out


def _tone(img: np.ndarray, brightness: float, contrast: float, gamma: float) -> np.ndarray:
    # One lookup table of 256 levels, computed in Python: the image needs only integer indexing.
    lut = np.array([min(255.0, max(0.0, ((v / 255) ** gamma * 255 - 128) * contrast + 128 + brightness))
                    for v in range(256)], dtype=np.float32)
    return lut[np.clip(img + 0.5, 0, 255).astype(np.uint8)]


def _vignette(img: np.ndarray, amount: float) -> np.ndarray:
    h, w, _ = img.shape
    xs, ys = _grid(h, w)
    r2 = ((xs - w / 2) / (w / 2)) ** 2 + ((ys - h / 2) / (h / 2)) ** 2  # 2 in the corners
    return img * (1 - amount * r2 / 2).astype(np.float32)[..., None]


def _scanlines(img: np.ndarray, period: int, depth: float) -> np.ndarray:
    out = img.copy()
    out[::period] *= np.float32(1 - depth)
    return out


_JPEG_LUMA = np.array([
    16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
    14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99], dtype=np.float64).reshape(8, 8)
_JPEG_CHROMA = np.array([
    17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99,
    47, 66, 99, 99, 99, 99, 99, 99] + [99] * 32, dtype=np.float64).reshape(8, 8)
_DCT = [[(math.sqrt(1 / 8) if u == 0 else math.sqrt(2 / 8)) * math.cos((2 * k + 1) * u * math.pi / 16)
         for k in range(8)] for u in range(8)]
_IDCT = [[_DCT[u][k] for u in range(8)] for k in range(8)]  # the transpose


def _along_last(x: np.ndarray, m) -> np.ndarray:
    """y[..., u] = Σ_k m[u][k] x[..., k], as eight elementwise multiply-adds in a fixed order (no BLAS)."""
    cols = [np.array([m[u][k] for u in range(8)]) for k in range(8)]
    out = x[..., 0:1] * cols[0]
    for k in range(1, 8):
        out = out + x[..., k:k + 1] * cols[k]
    return out


def _jpeg(img: np.ndarray, quality: int) -> np.ndarray:
    """JPEG's lossy step without a codec: YCbCr, 8×8 DCT, quantisation with the standard tables at `quality`."""
    h, w, _ = img.shape
    scale = 5000 / quality if quality < 50 else 200 - 2 * quality
    tables = [np.maximum(np.floor((t * scale + 50) / 100), 1) for t in (_JPEG_LUMA, _JPEG_CHROMA, _JPEG_CHROMA)]
    ph, pw = -h % 8, -w % 8
    x = np.pad(img.astype(np.float64), ((0, ph), (0, pw), (0, 0)), mode="edge")
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    planes = [0.299 * r + 0.587 * g + 0.114 * b - 128,
              -0.168736 * r - 0.331264 * g + 0.5 * b, 0.5 * r - 0.418688 * g - 0.081312 * b]
    H, W = h + ph, w + pw
    done = []
    for plane, table in zip(planes, tables):
        blocks = plane.reshape(H // 8, 8, W // 8, 8).transpose(0, 2, 1, 3)  # (by, bx, row, col)
        coef = np.swapaxes(_along_last(np.swapaxes(_along_last(blocks, _DCT), -1, -2), _DCT), -1, -2)
        coef = np.round(coef / table) * table
        back = np.swapaxes(_along_last(np.swapaxes(_along_last(coef, _IDCT), -1, -2), _IDCT), -1, -2)
        done.append(back.transpose(0, 2, 1, 3).reshape(H, W))
    y, cb, cr = done[0] + 128, done[1], done[2]
    out = np.stack([y + 1.402 * cr, y - 0.344136 * cb - 0.714136 * cr, y + 1.772 * cb], axis=-1)
    return out[:h, :w].astype(np.float32)


# -- the pipeline ---------------------------------------------------------------------------------------------
def apply_edits(rgba: np.ndarray, render_map: dict, edits: list[dict], background) -> tuple[np.ndarray, dict]:
    """The edited picture (h × w × 4 RGBA uint8) and the render map moved with it; RenderRejected when a mark of
    the render map is no longer legible."""
    if not edits:
        return rgba, render_map
    h, w, _ = rgba.shape
    img = rgba[..., :3].astype(np.float32)
    moved = render_map
    for e in edits:
        if e["edit"] == "warp":
            hmat = homography(e, w, h)
            img = _warp(img, hmat, e["fill"] if e["fill"] is not None else background)
            moved = _move_map(moved, hmat)
    clean = img  # the drawing after geometry only: what every photometric edit is measured against
    for e in edits:
        kind = e["edit"]
        if kind == "blur":
            img = _blur(img, e["passes"])
        elif kind == "tone":
            img = _tone(img, e["brightness"], e["contrast"], e["gamma"])
        elif kind == "vignette":
            img = _vignette(img, e["amount"])
        elif kind == "scanlines":
            img = _scanlines(img, e["period"], e["depth"])
        elif kind == "gauss":
            img = _gauss(img, e["sigma"], e["seed"])
        elif kind == "salt_pepper":
            img = _salt_pepper(img, e["fraction"], e["seed"])
        elif kind == "jpeg":
            img = _jpeg(np.clip(img + 0.5, 0, 255).astype(np.uint8), e["quality"])
    out = np.empty((h, w, 4), dtype=np.uint8)
    out[..., :3] = np.clip(img + 0.5, 0, 255).astype(np.uint8)  # +0.5 then truncate: round half up
    out[..., 3] = 255
    check_legible(clean, out, moved)
    return out, moved


def check_legible(clean: np.ndarray, edited: np.ndarray, render_map: dict) -> None:
    """Each mark's box (a little padded), edited against clean: the content must still correlate with the drawing
    and keep most of its contrast. Raises RenderRejected naming the first mark that fails."""
    h, w = edited.shape[:2]
    for path, entry in render_map.items():
        x0, y0, x1, y1 = entry["bbox"]
        if x0 < -0.5 or y0 < -0.5 or x1 > w + 0.5 or y1 > h + 0.5:
            raise RenderRejected(f"{path} falls outside the canvas after the raster edits: canvas")
        if x1 - x0 < MIN_MARK_PX or y1 - y0 < MIN_MARK_PX:
            raise RenderRejected(f"{path} is smaller than {MIN_MARK_PX} px after the raster edits: size")
        a0, b0 = max(0, int(x0) - PAD_PX), max(0, int(y0) - PAD_PX)
        a1, b1 = min(w, int(math.ceil(x1)) + PAD_PX), min(h, int(math.ceil(y1)) + PAD_PX)
        ref = clean[b0:b1, a0:a1].astype(np.float64).ravel()
        got = edited[b0:b1, a0:a1, :3].astype(np.float64).ravel()
        ref_sd = ref.std()
        if ref_sd < FLAT_STD:
            continue
        got_sd = got.std()
        cov = ((ref - ref.mean()) * (got - got.mean())).mean()
        corr = cov / (ref_sd * got_sd) if got_sd > 0 else 0.0
        gain = cov / (ref_sd * ref_sd)
        if corr < MIN_CORRELATION or gain < MIN_GAIN:
            raise RenderRejected(f"{path} is no longer legible after the raster edits (correlation {corr:.2f}, "
                                 f"contrast kept {gain:.2f}): illegible")
