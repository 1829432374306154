"""The PNG writer (render/png.py): libdeflate at LEVEL over filter-0 rows (plain and varied pictures) or Sub rows
(noisy ones). Every encoding is decoded by Pillow (libpng-compatible, independent of our code) to the exact pixels,
its filtered rows are recomputed here one pixel at a time, and the bytes are the same on every call. PNGs written
before 0.9 (zlib 3; Up rows deflated Huffman-only) still decode, for datasets built then."""
from __future__ import annotations

import io
import struct
import zlib

import deflate
import numpy as np
from PIL import Image

from tessera.render.png import LEVEL, SUB, decode_png_rgb, encode_png, filtered_rows
from tessera.trace.instance import versions
from tessera.dataset.untrusted import decode_png_bounded


def _picture(noisy: bool, shape=(150, 230)) -> np.ndarray:
    """A chart-like picture (flat background, bars, a few lines), with hashed per-pixel noise when `noisy`."""
    img = np.full((*shape, 3), 246, dtype=np.uint8)
    img[40:140, 20:60] = (200, 60, 50)
    img[70:140, 90:130] = (40, 120, 200)
    img[::25, :] = 180
    if noisy:
        i = np.arange(img.size, dtype=np.uint64).reshape(img.shape)
        noise = ((i * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(58)).astype(np.int16) - 32  # -32..31
        img = np.clip(img.astype(np.int16) + noise // 4, 0, 255).astype(np.uint8)
    return img


def _idat(png: bytes) -> bytes:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, body = 8, b""
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos:pos + 4])
        kind, data = png[pos + 4:pos + 8], png[pos + 8:pos + 8 + length]
        assert struct.unpack(">I", png[pos + 8 + length:pos + 12 + length])[0] == zlib.crc32(kind + data)
        if kind == b"IDAT":
            body += data
        pos += 12 + length
    return body


def _rows_by_hand(img: np.ndarray, sub: bool) -> bytes:
    """The filtered scanlines, one byte at a time in Python integers: filter type, then each byte (Sub: minus the
    byte 3 to its left, the first pixel's bytes minus 0, mod 256)."""
    h, w, _ = img.shape
    flat = img.reshape(h, w * 3).tolist()
    out = bytearray()
    for row in flat:
        out.append(1 if sub else 0)
        out.extend(((v - (row[i - 3] if i >= 3 else 0)) % 256) if sub else v for i, v in enumerate(row))
    return bytes(out)


def _pillow(png: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(png)) as im:
        assert im.mode == "RGB" and im.format == "PNG"
        return np.asarray(im)


def test_each_kind_of_picture_is_its_filtered_rows_through_libdeflate_and_decodes_to_its_pixels():
    for shape in ((150, 230), (1, 1), (2, 7), (64, 1)):
        clean, noisy = _picture(False, shape), _picture(True, shape)
        plain, varied, grainy = encode_png(clean), encode_png(clean, fast=True), encode_png(noisy, noisy=True)
        assert zlib.decompress(_idat(plain)) == _rows_by_hand(clean, False)
        assert zlib.decompress(_idat(grainy)) == _rows_by_hand(noisy, True)
        assert _idat(plain) == deflate.zlib_compress(_rows_by_hand(clean, False), LEVEL)
        assert _idat(grainy) == deflate.zlib_compress(_rows_by_hand(noisy, True), LEVEL)
        assert varied == plain  # `fast` no longer picks another coder
        for png, img in ((plain, clean), (grainy, noisy), (encode_png(clean, noisy=True), clean)):
            assert np.array_equal(_pillow(png), img)
            assert np.array_equal(decode_png_rgb(png), img)
            assert np.array_equal(decode_png_bounded(png), img)


def test_the_same_pixels_give_the_same_bytes_whatever_their_layout():
    rgb = _picture(True)
    rgba = np.concatenate([rgb, np.full((*rgb.shape[:2], 1), 255, np.uint8)], axis=2)
    strided = np.asfortranarray(rgb)
    for noisy in (False, True):
        first = encode_png(rgb, noisy)
        assert encode_png(rgb.copy(), noisy) == first  # twice: the same bytes
        assert encode_png(rgba, noisy) == first  # alpha dropped
        assert encode_png(strided, noisy) == first
        assert filtered_rows(rgba, noisy).tobytes() == _rows_by_hand(rgb, noisy)
        assert (filtered_rows(rgb, noisy)[:, 0] == (SUB if noisy else 0)).all()


def test_pngs_written_before_0_9_still_decode():
    """Filter 0 at zlib level 3 (plain) and Up on every row deflated Huffman-only (noisy): datasets built until
    0.9 hold them, and validate and the tools read them back."""
    img = _picture(True)
    h, w, _ = img.shape
    raw = np.zeros((h, w * 3 + 1), np.uint8)
    raw[:, 0] = 2
    rows = img.reshape(h, w * 3)
    raw[0, 1:] = rows[0]
    raw[1:, 1:] = rows[1:] - rows[:-1]
    z = zlib.compressobj(1, zlib.DEFLATED, 15, 9, zlib.Z_HUFFMAN_ONLY)
    up = _with_idat(encode_png(img), z.compress(raw.tobytes()) + z.flush())
    plain = _with_idat(encode_png(img), zlib.compress(_rows_by_hand(img, False), 3))
    for png in (up, plain):
        assert np.array_equal(_pillow(png), img)
        assert np.array_equal(decode_png_rgb(png), img)
        assert np.array_equal(decode_png_bounded(png), img)


def test_other_filters_decode_through_pillow():
    """decode_png_rgb reads our own PNGs in numpy and hands anything else (here libpng-style adaptive filters, as
    Pillow writes them) to Pillow."""
    img = _picture(True)
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, "PNG")
    assert np.array_equal(decode_png_rgb(buf.getvalue()), img)


def _with_idat(png: bytes, data: bytes) -> bytes:
    ihdr_end = 8 + 12 + 13
    return png[:ihdr_end] + struct.pack(">I", len(data)) + b"IDAT" + data + \
        struct.pack(">I", zlib.crc32(b"IDAT" + data)) + png[-12:]


def test_the_compressors_versions_are_in_every_trace():
    v = versions()
    assert v["zlib"] == zlib.ZLIB_RUNTIME_VERSION
    assert v["deflate"].count(".") == 2
