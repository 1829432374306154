"""A small deterministic PNG writer (RGB, filter 0, zlib level 3).

We write PNGs ourselves so the bytes depend only on the pixels and the zlib version (recorded in every trace), and
because it is about three times faster than skia's encoder at the sizes we draw.
"""
from __future__ import annotations

import struct
import zlib

import numpy as np

ZLIB_LEVEL = 3


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def encode_png(pixels: np.ndarray) -> bytes:
    """PNG bytes (RGB) of an (h, w, 3) RGB or (h, w, 4) RGBA array; alpha is dropped."""
    h, w, _ = pixels.shape
    raw = np.empty((h, w * 3 + 1), dtype=np.uint8)
    raw[:, 0] = 0  # filter type 0 (none) on every row
    # Three single-channel strided copies beat one 3-byte-strided copy (or Pillow's convert) several times over.
    raw[:, 1::3] = pixels[:, :, 0]
    raw[:, 2::3] = pixels[:, :, 1]
    raw[:, 3::3] = pixels[:, :, 2]
    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(raw.tobytes(), ZLIB_LEVEL)) + _chunk(b"IEND", b""))


def decode_png_rgb(data: bytes) -> np.ndarray:
    """Decode a PNG written by encode_png (used by gates and tests; other PNGs go through Pillow)."""
    pos = 8
    idat = b""
    w = h = 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            w, h = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(h, w * 3 + 1)
    return raw[:, 1:].reshape(h, w, 3)
