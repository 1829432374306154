"""The PNG writer's three ways of deflating (render/png.py): plain pictures through zlib at ZLIB_LEVEL, clean
pictures with variety through libdeflate, noisy ones with the Up filter through zlib-ng's Huffman-only coder,
which must write exactly the bytes zlib's Huffman-only coder writes."""
from __future__ import annotations

import struct
import zlib

import deflate
import numpy as np
from zlib_ng import zlib_ng

from tessera.render.png import FAST_LEVEL, HUFFMAN_MEM_LEVEL, ZLIB_LEVEL, decode_png_rgb, encode_png
from tessera.trace.instance import versions


def _picture(noisy: bool) -> np.ndarray:
    """A chart-like picture (flat background, bars, a few lines), with hashed per-pixel noise when `noisy`."""
    img = np.full((150, 230, 3), 246, dtype=np.uint8)
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


def _rows(img: np.ndarray, up: bool) -> np.ndarray:
    h, w, _ = img.shape
    raw = np.zeros((h, w * 3 + 1), dtype=np.uint8)
    raw[:, 1:] = img.reshape(h, w * 3)
    if up:
        raw[:, 0] = 2
        raw[1:, 1:] = raw[1:, 1:] - raw[:-1, 1:]  # uint8: mod 256
    return raw


def test_each_kind_of_picture_is_deflated_by_its_coder_and_decodes_to_its_pixels():
    clean, noisy = _picture(False), _picture(True)
    plain = encode_png(clean)
    assert _idat(plain) == zlib.compress(_rows(clean, False).tobytes(), ZLIB_LEVEL)
    varied = encode_png(clean, fast=True)
    assert _idat(varied) == deflate.zlib_compress(_rows(clean, False).tobytes(), FAST_LEVEL) != _idat(plain)
    grainy = encode_png(noisy, noisy=True)
    z = zlib.compressobj(FAST_LEVEL, zlib.DEFLATED, 15, HUFFMAN_MEM_LEVEL, zlib.Z_HUFFMAN_ONLY)
    assert _idat(grainy) == z.compress(_rows(noisy, True).tobytes()) + z.flush()
    for png, img in ((plain, clean), (varied, clean), (grainy, noisy)):
        assert np.array_equal(decode_png_rgb(png), img)


def test_zlib_ng_huffman_only_writes_zlibs_bytes_across_block_boundaries():
    """Huffman-only deflate has no match search: its blocks (one per 2^(memory level + 6) − 1 symbols) and their
    trees are fixed by the data, and zlib-ng builds them as zlib does. Several blocks at both memory levels,
    skewed and flat byte statistics, and a tail that ends mid-block."""
    data = _rows(_picture(True), True).tobytes()
    flat = bytes(range(256)) * 300 + b"\x07" * 1000
    for mem_level in (8, HUFFMAN_MEM_LEVEL):
        for sample in (data, data[:40_000], flat):
            a = zlib.compressobj(1, zlib.DEFLATED, 15, mem_level, zlib.Z_HUFFMAN_ONLY)
            b = zlib_ng.compressobj(1, zlib_ng.DEFLATED, 15, mem_level, zlib_ng.Z_HUFFMAN_ONLY)
            assert a.compress(sample) + a.flush() == b.compress(sample) + b.flush()
    assert len(data) > 3 * 32_767


def test_the_compressors_versions_are_in_every_trace():
    v = versions()
    assert v["zlib"] == zlib.ZLIB_RUNTIME_VERSION and v["zlib_ng"] == zlib_ng.ZLIBNG_VERSION
    assert v["deflate"].count(".") == 2
