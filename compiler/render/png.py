"""A small deterministic PNG writer (RGB, filter 0, zlib level 3).

We write PNGs ourselves so the bytes depend only on the pixels and the compressors' versions (recorded in every
trace), and because it is about three times faster than skia's encoder at the sizes we draw. Plain pictures go
through zlib; pictures with variety through libdeflate (the `deflate` package) and, when noisy, zlib-ng's
Huffman-only coder, which writes the very bytes zlib's does, about twice as fast. Both are portable C whose output
depends only on the input, the level and the library version.
"""
from __future__ import annotations

import struct
import zlib

import deflate
import numpy as np
from zlib_ng import zlib_ng

ZLIB_LEVEL = 3


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


# Pictures with variety: textures and edits leave fewer long matches. libdeflate at level 1 takes about 60 % of
# zlib level 1's time for files 7 % smaller (bench/bench_variety.py's pictures).
FAST_LEVEL = 1
HUFFMAN_MEM_LEVEL = 9  # blocks of 32,767 symbols rather than 16,383: half the Huffman trees to build, 9 % faster


def encode_png(pixels: np.ndarray, noisy: bool = False, fast: bool = False) -> bytes:
    """PNG bytes (RGB) of an (h, w, 3) RGB or (h, w, 4) RGBA array; alpha is dropped.

    `noisy` (pictures with per-pixel noise, from raster edits) writes every row with the Up filter and deflates
    with Huffman coding only: noise leaves LZ77 nothing to find, so any match search costs time for nothing (zlib's
    level 1 takes 2.5× the time for a file a tenth larger). `fast` (pictures with variety) deflates with
    libdeflate at FAST_LEVEL. Plain pictures keep filter 0 and zlib's default strategy at ZLIB_LEVEL (their
    bytes)."""
    h, w, channels = pixels.shape
    raw = np.empty((h, w * 3 + 1), dtype=np.uint8)
    raw[:, 0] = 2 if noisy else 0  # the filter type of every row: 2 (Up) or 0 (none)
    if noisy:  # Up: each byte minus the one above it (mod 256); the first row as it is
        rows = pixels.reshape(h, w * 3) if channels == 3 else _rgb_rows(pixels)
        raw[0, 1:] = rows[0]
        np.subtract(rows[1:], rows[:-1], out=raw[1:, 1:])
    elif channels == 3 and pixels.flags.c_contiguous:
        raw[:, 1:] = pixels.reshape(h, w * 3)
    else:
        _rgb_rows(pixels, raw[:, 1:])
    if noisy:
        # zlib-ng's Huffman-only coder: the same blocks and trees as zlib's (tests/test_png.py), twice as fast
        z = zlib_ng.compressobj(FAST_LEVEL, zlib_ng.DEFLATED, 15, HUFFMAN_MEM_LEVEL, zlib_ng.Z_HUFFMAN_ONLY)
        data = z.compress(raw) + z.flush()  # the array as a buffer: no copy into bytes
    elif fast:
        data = deflate.zlib_compress(raw, FAST_LEVEL)
    else:
        data = zlib.compress(raw, ZLIB_LEVEL)
    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", data) + _chunk(b"IEND", b"")


def _rgb_rows(pixels: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """(h, w · 3) rows of RGB bytes from (h, w, 3 or 4) pixels. Three single-channel strided copies beat one
    3-byte-strided copy (or Pillow's convert) several times over."""
    h, w, _ = pixels.shape
    if out is None:
        out = np.empty((h, w * 3), dtype=np.uint8)
    out[:, 0::3] = pixels[:, :, 0]
    out[:, 1::3] = pixels[:, :, 1]
    out[:, 2::3] = pixels[:, :, 2]
    return out


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
    rows = raw[:, 1:]
    if (raw[:, 0] == 2).any():  # Up-filtered rows (noisy pictures): add the row above, mod 256
        if not (raw[:, 0] == 2).all():
            raise ValueError("decode_png_rgb reads PNGs with filter 0 on every row or filter 2 on every row")
        rows = np.cumsum(rows, axis=0, dtype=np.uint8)
    elif raw[:, 0].any():
        raise ValueError("decode_png_rgb reads only the filters encode_png writes (0 and 2)")
    return rows.reshape(h, w, 3)


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) of a PNG, from its IHDR chunk."""
    width, height = struct.unpack(">II", data[16:24])
    return width, height
