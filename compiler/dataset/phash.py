"""A 256-bit difference hash (dHash) of an image, for near-duplicate detection between splits.

16×16 bits rather than the usual 8×8: charts share axes, grids and backgrounds, and a 64-bit hash calls many
different charts of one task near-duplicates.
"""
from __future__ import annotations

import numpy as np

SIDE = 16
BYTES = SIDE * SIDE // 8


def luma(pixels: np.ndarray) -> np.ndarray:
    """8-bit grey of an RGB(A) image, (77 R + 150 G + 29 B) / 256: integer arithmetic, a few times faster than
    floating-point weights, and what every gate and hash here reads."""
    r = pixels[:, :, 0].astype(np.uint16)
    g = pixels[:, :, 1].astype(np.uint16)
    b = pixels[:, :, 2].astype(np.uint16)
    return ((r * 77 + g * 150 + b * 29) >> 8).astype(np.uint8)


def dhash(pixels: np.ndarray, gray: np.ndarray | None = None) -> bytes:
    """Grey image averaged down to 16×17 cells; bit = left cell brighter than its right neighbour."""
    gray = luma(pixels) if gray is None else gray
    h, w = gray.shape
    rows = np.linspace(0, h, SIDE + 1, dtype=int)
    cols = np.linspace(0, w, SIDE + 2, dtype=int)
    cells = np.add.reduceat(np.add.reduceat(gray, rows[:-1], axis=0, dtype=np.int64), cols[:-1], axis=1)
    cells = cells / np.outer(np.diff(rows), np.diff(cols))
    bits = cells[:, :-1] > cells[:, 1:]
    return np.packbits(bits.flatten()).tobytes()


def hamming(a: bytes, b: bytes) -> int:
    return int(np.unpackbits(np.bitwise_xor(np.frombuffer(a, np.uint8), np.frombuffer(b, np.uint8))).sum())


def nearest_distance(h: bytes, others: list[bytes]) -> int:
    """Smallest Hamming distance from h to any of `others` (the full bit count when there are none)."""
    if not others:
        return SIDE * SIDE
    table = np.frombuffer(b"".join(others), np.uint8).reshape(len(others), BYTES)
    x = np.bitwise_xor(table, np.frombuffer(h, np.uint8))
    return int(np.unpackbits(x, axis=1).sum(axis=1).min())
