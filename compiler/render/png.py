"""A small deterministic PNG writer (RGB, 8 bits, libdeflate level 6; filter 0, or Sub for noisy pictures).

We write PNGs ourselves so the bytes depend only on the pixels and the compressor's version (recorded in every
trace), and because it is several times faster than skia's or Pillow's encoders at the sizes we draw. Every picture
is deflated by libdeflate (the `deflate` package, which bundles one libdeflate release): portable C whose output
depends only on the input, the level and the library version.

Why these settings (bench/bench_png_size.py; one plain instance of each of the 341 tasks, 2-core VM, CPU time):

    filter 0 + zlib 3 (until 0.9)   18.5 kB   1.3 ms        adaptive filters (libpng's heuristic) + zlib 6  16.6 kB  11 ms
    filter 0 + libdeflate 6         15.2 kB   1.4 ms        adaptive + libdeflate 9                         16.3 kB  11 ms
    filter 0 + libdeflate 9         14.0 kB   3.7 ms        Pillow's default (zlib 6, adaptive filters)     16.8 kB   7 ms
    filter 0 + zlib 9               13.6 kB  10.9 ms        filter 0 + libdeflate 12                        13.3 kB 117 ms

Our drawings are flat colour with anti-aliased edges: filter 0 lets LZ77 copy whole runs of the row above, which
beats every per-row filter choice (libpng's minimum-sum heuristic picks Paeth or Sub on edges and breaks those
runs). libdeflate 6 costs what zlib 3 did for files 18 % smaller, under Pillow's at equal pixels; level 9 takes
another 2.3 ms (a third of a plain instance's whole time) for 8 % more. Pictures with variety are alike (filter 0
and level 6: 62 kB where level 1 wrote 73 kB, for 2 ms more).

Noisy pictures (the gauss raster edit) are the exception: their noise is rows of one shared strip at per-row
offsets (raster._gauss), so LZ77 finds each row's noise earlier in its window, but the noise-free picture under it
changes along the row (vignette, gradients, edges), and filter 0 can only copy where both agree. The Sub filter
(each byte minus the one to its left) turns the picture's smooth changes into isolated spikes, which leaves the
copies of the strip's differences intact: 157 kB a picture where filter 0 takes 263 kB (and independent noise, as
until 0.9, 522 kB).
"""
from __future__ import annotations

import struct
import zlib

import deflate
import numpy as np

LEVEL = 6  # libdeflate's compression level for every picture
NONE, SUB = 0, 1  # PNG filter types written


def _chunk(kind: bytes, data: bytes | bytearray) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def filtered_rows(pixels: np.ndarray, noisy: bool = False) -> np.ndarray:
    """The (h, w · 3 + 1) bytes the PNG deflates: each row's filter type, then its filtered RGB bytes (alpha
    dropped). Filter 0 copies the bytes; Sub (noisy pictures) writes each byte minus the one 3 to its left, mod 256,
    the first pixel as it is."""
    h, w, channels = pixels.shape
    raw = np.empty((h, w * 3 + 1), dtype=np.uint8)
    raw[:, 0] = SUB if noisy else NONE
    if noisy:
        rows = pixels.reshape(h, w * 3) if channels == 3 and pixels.flags.c_contiguous else _rgb_rows(pixels)
        raw[:, 1:4] = rows[:, :3]
        np.subtract(rows[:, 3:], rows[:, :-3], out=raw[:, 4:])
    elif channels == 3 and pixels.flags.c_contiguous:
        raw[:, 1:] = pixels.reshape(h, w * 3)
    else:
        _rgb_rows(pixels, raw[:, 1:])
    return raw


def encode_png(pixels: np.ndarray, noisy: bool = False, fast: bool = False) -> bytes:
    """PNG bytes (RGB) of an (h, w, 3) RGB or (h, w, 4) RGBA array; alpha is dropped.

    `noisy` (pictures with the gauss raster edit) writes every row with the Sub filter; others keep filter 0. Every
    picture is deflated by libdeflate at LEVEL. `fast` (pictures with variety) no longer changes anything: it is
    accepted so callers that say which pictures have variety keep working (until 0.9 it picked a faster level)."""
    del fast
    h, w, _ = pixels.shape
    data = deflate.zlib_compress(filtered_rows(pixels, noisy), LEVEL)  # the array as a buffer: no copy into bytes
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
    """Decode an 8-bit RGB PNG written by encode_png, now or before (used by gates and tests; other PNGs go through
    Pillow). Rows with filter 0 are the bytes; Sub rows are a running sum along the row, per channel; Up rows (noisy
    pictures until 0.9, every row Up) a running sum down the columns; a PNG mixing other filters goes to Pillow."""
    pos = 8
    idat = b""
    w = h = 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            w, h = struct.unpack(">II", body[:8])
            if body[8:13] != b"\x08\x02\x00\x00\x00":
                raise ValueError("decode_png_rgb reads 8-bit RGB PNGs without interlacing")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(h, w * 3 + 1)
    filters, rows = raw[:, 0], raw[:, 1:]
    kinds = set(np.unique(filters).tolist())
    if kinds <= {NONE, SUB}:
        out = rows.copy()
        sub = filters == SUB
        if sub.any():  # the three channels' running sums along each Sub row, mod 256
            out[sub] = np.cumsum(rows[sub].reshape(-1, w, 3), axis=1, dtype=np.uint8).reshape(-1, w * 3)
        return out.reshape(h, w, 3)
    if kinds == {2}:  # Up on every row: the running sum down each column
        return np.cumsum(rows, axis=0, dtype=np.uint8).reshape(h, w, 3)
    import io

    from PIL import Image

    with Image.open(io.BytesIO(data)) as im:
        return np.asarray(im.convert("RGB"))


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) of a PNG, from its IHDR chunk."""
    width, height = struct.unpack(">II", data[16:24])
    return width, height


# -- picture files of either format ------------------------------------------------------------------------------
# Pictures are PNGs (encode_png), except under variety strong, where the raster edits end by storing a JPEG
# (render.raster's file edit). These read either, by their signature.
JPEG_SIGNATURE = b"\xff\xd8\xff"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SUFFIXES = {"png": ".png", "jpeg": ".jpg"}


def image_format(data: bytes) -> str:
    """'png' or 'jpeg' from the file's signature; ValueError for anything else."""
    if data[:8] == PNG_SIGNATURE:
        return "png"
    if data[:3] == JPEG_SIGNATURE:
        return "jpeg"
    raise ValueError("not a PNG or JPEG file (no signature)")


def image_suffix(data: bytes) -> str:
    """The file name suffix of a picture: .png or .jpg."""
    return SUFFIXES[image_format(data)]


def jpeg_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a JPEG's first start-of-frame segment; None when there is none where a JPEG has it."""
    frame = jpeg_frame(data)
    return None if frame is None else frame[:2]


def jpeg_frame(data: bytes) -> tuple[int, int, int, int, int] | None:
    """(width, height, marker, bits, components) of a JPEG's first start-of-frame segment (marker 0xC0 for the
    baseline files Tessera writes), walking the segments from the start; None when the file is not a JPEG or has no
    frame header where a JPEG has it."""
    if not data.startswith(JPEG_SIGNATURE):
        return None
    pos = 2
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            return None
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # segments without a length
            pos += 2
            continue
        (length,) = struct.unpack(">H", data[pos + 2:pos + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # a start of frame
            if pos + 10 > len(data):
                return None
            bits, height, width, components = struct.unpack(">BHHB", data[pos + 4:pos + 10])
            return width, height, marker, bits, components
        if marker in (0xD9, 0xDA) or length < 2:  # end of image or start of scan before any frame
            return None
        pos += 2 + length
    return None


def image_size(data: bytes) -> tuple[int, int]:
    """(width, height) of a PNG or JPEG picture."""
    if image_format(data) == "png":
        return png_size(data)
    size = jpeg_size(data)
    if size is None:
        raise ValueError("a JPEG without a start-of-frame segment")
    return size


def decode_image_rgb(data: bytes) -> np.ndarray:
    """(h, w, 3) RGB pixels of a picture file of either format (a JPEG through libjpeg-turbo's accurate IDCT)."""
    if image_format(data) == "png":
        return decode_png_rgb(data)
    from .raster import decode_jpeg

    return decode_jpeg(data)
