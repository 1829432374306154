"""Reading what came from elsewhere: datasets (Parquet shards and manifest), traces, instance files, labels and
responses. They are data, never paths or instructions: every file is checked to be a regular file before it is
read (a FIFO or device would block or never end), every size is capped before it is read or parsed, JSON depth is
measured before Python's recursive parser sees it, and every id, name and type is checked against what the builder
writes before anything uses it.

The bounds (README "Bounds" states them):
    a trace or instance .json           MAX_TRACE_BYTES            JSON nesting     MAX_JSON_DEPTH
    a manifest                          MAX_MANIFEST_BYTES         a score response MAX_RESPONSE_BYTES
    a dataset row: image bytes MAX_IMAGE_BYTES (and MAX_IMAGE_SIDE, MAX_IMAGE_PIXELS once decoded), prompt
    MAX_PROMPT_CHARS, each JSON column MAX_JSON_COLUMN_BYTES (the trace column MAX_TRACE_BYTES); a shard
    MAX_SHARD_BYTES and MAX_SHARD_ROWS, one row group MAX_ROW_GROUP_BYTES uncompressed.
"""
from __future__ import annotations

import json
import math
import os
import re
import stat
import sys
from pathlib import Path
from collections.abc import Iterator
from typing import Any, TypeGuard

from ..errors import TesseraError
from ..load.models import BUCKETS, ID_PATTERN, NAME_PATTERN
from .layout import DATASET_FORMAT, MANIFEST, SHARD_NAME, is_split_name

MiB = 1 << 20
# Generous against what the library makes (largest trace 35 KB, PNG 67 KB, prompt 714 chars, label 296 bytes,
# nesting 7 levels over all 136 tasks at levels 0 and 9), small enough that reading one never exhausts memory.
MAX_JSON_DEPTH = 100
MAX_TRACE_BYTES = 16 * MiB
MAX_MANIFEST_BYTES = 64 * MiB
MAX_RESPONSE_BYTES = 1 * MiB
MAX_IMAGE_BYTES = 32 * MiB
MAX_IMAGE_SIDE = 16384
MAX_IMAGE_PIXELS = 8192 * 8192  # decoded (validate's gates): the largest canvas, 2048 × 2048, at image scale 4
MAX_PROMPT_CHARS = 64 * 1024
MAX_JSON_COLUMN_BYTES = 1 * MiB
MAX_SHARD_BYTES = 16 * 1024 * MiB
MAX_ROW_GROUP_BYTES = 1024 * MiB
MAX_SHARD_ROWS = 100_000  # the largest shard_size a build config allows
MAX_NAME_CHARS = 200

INSTANCE_ID = re.compile(r"[0-9a-f]{24}")  # sha256(...)[:24], see trace.record.instance_record
SHA256 = re.compile(r"[0-9a-f]{64}")
TASK_ID = re.compile(ID_PATTERN.strip("^$"))
NAME = re.compile(NAME_PATTERN.strip("^$"))
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class UntrustedInput(TesseraError):
    """A file or value from outside failed a check; the message names the file (and row, field) and the rule."""


def shown(value: Any, limit: int = 60) -> str:
    """A value for a message: repr (so control characters and terminal escapes print as escapes), shortened."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _size(n: int) -> str:
    return f"{n / MiB:.0f} MiB" if n >= MiB else f"{n} bytes"


# -- files ------------------------------------------------------------------------------------------------------
def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return "not a regular file"


def regular_file(path: Path, what: str) -> os.stat_result:
    """stat (following symlinks) and refuse anything but a regular file, without opening it."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise UntrustedInput(f"{path}: no such {what}" + (" (a broken symlink)" if os.path.islink(path) else ""))\
            from None
    except OSError as exc:
        raise UntrustedInput(f"{path}: cannot read the {what}: {exc.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        via = " (through a symlink)" if os.path.islink(path) else ""
        raise UntrustedInput(f"{path}: the {what} is {_kind(st.st_mode)}{via}, not a regular file; refusing to read it")
    return st


def dataset_own(path: Path, what: str, levels: int = 2) -> None:
    """A dataset's files are its own: the file and the folders on its way up from the dataset (`levels` path parts:
    data/<shard> is 2, manifest.json 1) may not be symbolic links, so an untrusted dataset cannot make validate,
    replay, audit or export read (and vouch for) a file outside it."""
    p = Path(path)
    for _ in range(levels):
        if os.path.islink(p):
            raise UntrustedInput(f"{path}: the {what} is reached through a symbolic link ({p}); a dataset's files "
                                 f"must be regular files inside it")
        p = p.parent


def open_regular(path: Path, limit: int, what: str):
    """A binary file object for a regular file of at most `limit` bytes. Opened non-blocking and checked again on the
    open descriptor, so a file swapped for a FIFO after the first check still cannot block."""
    regular_file(path, what)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise UntrustedInput(f"{path}: cannot open the {what}: {exc.strerror}") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise UntrustedInput(f"{path}: the {what} is {_kind(st.st_mode)}, not a regular file; refusing to read it")
    if st.st_size > limit:
        os.close(fd)
        raise UntrustedInput(f"{path}: the {what} is {_size(st.st_size)}, over the {_size(limit)} limit")
    return os.fdopen(fd, "rb")


def read_bytes(path: Path, limit: int, what: str) -> bytes:
    with open_regular(path, limit, what) as f:
        data = f.read(limit + 1)  # a file that grew after the size check is still cut off at the limit
    if len(data) > limit:
        raise UntrustedInput(f"{path}: the {what} is over the {_size(limit)} limit")
    return data


def read_text(path: Path, limit: int, what: str, errors: str = "strict") -> str:
    data = read_bytes(path, limit, what)
    try:
        return data.decode("utf-8", errors)
    except UnicodeDecodeError as exc:
        raise UntrustedInput(f"{path}: the {what} is not UTF-8 (byte {exc.start})") from None


def read_stdin_text(limit: int, what: str) -> str:
    data = sys.stdin.buffer.read(limit + 1) if hasattr(sys.stdin, "buffer") else sys.stdin.read(limit + 1).encode()
    if len(data) > limit:
        raise UntrustedInput(f"standard input: the {what} is over the {_size(limit)} limit")
    return data.decode("utf-8", "replace")


# -- JSON -------------------------------------------------------------------------------------------------------
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)


def json_depth(text: str) -> int:
    """Deepest [ / { nesting of a JSON text, counted without recursion (strings removed first). For invalid JSON it
    may over-count but never under-counts the prefix a parser would read before failing."""
    import numpy as np

    if text.count("[") + text.count("{") <= 1:
        return text.count("[") + text.count("{")
    codes = np.frombuffer(_STRING.sub("", text).encode("utf-8", "replace"), dtype=np.uint8)
    opens = (codes == ord("[")) | (codes == ord("{"))
    is_open = opens[opens | (codes == ord("]")) | (codes == ord("}"))]  # one flag per bracket, in order
    if not is_open.size:
        return 0
    return int(np.cumsum(is_open.astype(np.int32) * 2 - 1, dtype=np.int32).max())


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:30]} is out of range")
    return value


def parse_json(text: str | bytes, where: str, limit: int, depth: int = MAX_JSON_DEPTH) -> Any:
    """json.loads with the size and depth refused first, and NaN/Infinity refused (we never write them)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UntrustedInput(f"{where}: not UTF-8 (byte {exc.start})") from None
    if not isinstance(text, str):
        raise UntrustedInput(f"{where}: expected JSON text, got {type(text).__name__}")
    if len(text) > limit:  # characters ≤ bytes, so this is a cheap first cut before encoding
        raise UntrustedInput(f"{where}: {_size(len(text))} of JSON, over the {_size(limit)} limit")
    # Fewer brackets than the limit cannot nest deeper than it: only then is the text scanned.
    found = json_depth(text) if text.count("[") + text.count("{") > depth else 0
    if found > depth:
        raise UntrustedInput(f"{where}: JSON nested {found} deep, over the limit of {depth}")
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except ValueError as exc:  # JSONDecodeError, an over-long integer, a refused constant
        raise UntrustedInput(f"{where}: not valid JSON ({exc})") from None


def read_json(path: Path, limit: int, what: str, depth: int = MAX_JSON_DEPTH) -> Any:
    return parse_json(read_text(path, limit, what), f"{path}", limit, depth)


# -- names ------------------------------------------------------------------------------------------------------
def check_name(value: Any, pattern: re.Pattern, what: str, where: str) -> str:
    if not isinstance(value, str):
        raise UntrustedInput(f"{where}: {what} should be a string, got {type(value).__name__}")
    if len(value) > MAX_NAME_CHARS or not pattern.fullmatch(value):
        raise UntrustedInput(f"{where}: {what} {shown(value)} does not match the pattern {pattern.pattern}")
    return value


def is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


# -- the manifest -----------------------------------------------------------------------------------------------
def check_manifest(manifest: Any, where: str) -> dict:
    """The manifest as the builder writes it, or UntrustedInput naming the first thing that is not."""
    if not isinstance(manifest, dict):
        raise UntrustedInput(f"{where}: expected a JSON object, got {type(manifest).__name__}")
    if manifest.get("format") != DATASET_FORMAT:
        raise UntrustedInput(f"{where}: format is {shown(manifest.get('format'))}, expected {DATASET_FORMAT!r}")
    splits = manifest.get("splits")
    if not isinstance(splits, dict) or not splits:
        raise UntrustedInput(f"{where}: no 'splits' table")
    for split, entry in splits.items():
        at = f"{where}: splits.{shown(split, 40) if not is_split_name(split) else split}"
        if not is_split_name(split):
            raise UntrustedInput(f"{at}: a split name is a plain name like train")
        if not isinstance(entry, dict):
            raise UntrustedInput(f"{at}: expected an object")
        if not is_int(entry.get("rows")) or entry["rows"] < 0:
            raise UntrustedInput(f"{at}.rows: expected a row count, got {shown(entry.get('rows'))}")
        per_task = entry.get("per_task")
        if not isinstance(per_task, dict):
            raise UntrustedInput(f"{at}.per_task: expected an object of task → rows")
        for task, n in per_task.items():
            check_name(task, TASK_ID, "task id", f"{at}.per_task")
            if not is_int(n) or n < 0:
                raise UntrustedInput(f"{at}.per_task.{task}: expected a row count, got {shown(n)}")
        files = entry.get("files")
        if not isinstance(files, list):
            raise UntrustedInput(f"{at}.files: expected a list")
        for i, f in enumerate(files):
            fat = f"{at}.files[{i}]"
            if not isinstance(f, dict):
                raise UntrustedInput(f"{fat}: expected an object with name, sha256, bytes and rows")
            name = f.get("name")
            # Only the builder's own names: data/<split>-<k>-of-<n>.parquet, never a path elsewhere.
            m = SHARD_NAME.fullmatch(name[5:]) if isinstance(name, str) and name.startswith("data/") else None
            if m is None or m["split"] != split:
                raise UntrustedInput(f"{fat}.name: {shown(name)} is not a shard of split {split} "
                                     f"(data/{split}-NNNNN-of-NNNNN.parquet)")
            if not isinstance(f.get("sha256"), str) or not SHA256.fullmatch(f["sha256"]):
                raise UntrustedInput(f"{fat}.sha256: expected 64 hex digits, got {shown(f.get('sha256'))}")
            for key in ("bytes", "rows"):
                if not is_int(f.get(key)) or f[key] < 0:
                    raise UntrustedInput(f"{fat}.{key}: expected a count, got {shown(f.get(key))}")
    overlap = manifest.get("split_overlap", {})
    bits = overlap.get("near_duplicate_bits", 12) if isinstance(overlap, dict) else None
    if not is_int(bits) or not 0 <= bits <= 256:
        raise UntrustedInput(f"{where}: split_overlap.near_duplicate_bits should be 0..256, got {shown(bits)}")
    return manifest


def read_manifest(dataset: Path) -> dict:
    path = Path(dataset) / MANIFEST
    dataset_own(path, "manifest", 1)
    return check_manifest(read_json(path, MAX_MANIFEST_BYTES, "manifest"), str(path))


# -- shards and rows ----------------------------------------------------------------------------------------------
def shard_split(path: Path) -> str:
    """The split a shard belongs to, from its name (the builder's `<split>-<k>-of-<n>.parquet`)."""
    m = SHARD_NAME.fullmatch(path.name)
    if m is None or not is_split_name(m["split"]):
        raise UntrustedInput(f"{path}: not a shard name the builder writes (<split>-NNNNN-of-NNNNN.parquet)")
    return m["split"]


class Shard:
    """One Parquet shard opened safely: a regular file under MAX_SHARD_BYTES whose metadata names no row group over
    MAX_ROW_GROUP_BYTES. Rows are decoded a batch at a time. Errors are UntrustedInput naming `where`."""

    def __init__(self, path: Path, where: str):
        import pyarrow.parquet as pq

        self.where = where
        dataset_own(path, "Parquet shard")
        self.file = open_regular(path, MAX_SHARD_BYTES, "Parquet shard")
        try:
            self.parquet = pq.ParquetFile(self.file)
            meta = self.parquet.metadata
            self.schema = self.parquet.schema_arrow
        except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for damaged files
            self.file.close()
            raise UntrustedInput(f"{where}: cannot be read as Parquet ({type(exc).__name__}: {exc})") from None
        self.num_rows = meta.num_rows
        if self.num_rows > MAX_SHARD_ROWS:
            self.file.close()
            raise UntrustedInput(f"{where}: {self.num_rows} rows, over the {MAX_SHARD_ROWS} a shard holds")
        for g in range(meta.num_row_groups):
            size = meta.row_group(g).total_byte_size
            if size > MAX_ROW_GROUP_BYTES:
                self.file.close()
                raise UntrustedInput(f"{where}: row group {g} holds {_size(size)}, over the "
                                     f"{_size(MAX_ROW_GROUP_BYTES)} limit")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.file.close()

    def rows(self, columns: list[str] | None = None, batch_rows: int = 64) -> Iterator[tuple[int, dict]]:
        missing = [c for c in (columns or []) if c not in self.schema.names]
        if missing:
            raise UntrustedInput(f"{self.where}: missing column(s) {', '.join(missing)}")
        index = 0
        batches = self.parquet.iter_batches(batch_size=batch_rows, columns=columns)
        while True:
            try:
                rows = next(batches).to_pylist()
            except StopIteration:
                return
            except Exception as exc:  # noqa: BLE001
                raise UntrustedInput(f"{self.where}: cannot be read as Parquet at row {index} "
                                     f"({type(exc).__name__}: {exc})") from None
            for row in rows:
                yield index, row
                index += 1


def iter_shard(path: Path, columns: list[str] | None, where: str) -> Iterator[tuple[int, dict]]:
    """(row index, row) of one shard, read as Shard does."""
    with Shard(path, where) as shard:
        yield from shard.rows(columns)


def sha256_file(path: Path, limit: int, what: str) -> str:
    """sha256 of a dataset's file (a shard), read as open_regular does; the file must be the dataset's own."""
    import hashlib

    dataset_own(path, what)
    h = hashlib.sha256()
    with open_regular(path, limit, what) as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# -- images -----------------------------------------------------------------------------------------------------
def png_size(png: bytes) -> tuple[int, int] | None:
    """(width, height) from the IHDR chunk, or None when there is none where a PNG has it."""
    import struct

    if len(png) < 33 or not png.startswith(PNG_SIGNATURE) or png[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", png[16:24])


def picture_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) of a PNG (IHDR) or JPEG (frame header), or None when it is neither."""
    from ..render.png import jpeg_size

    return jpeg_size(data) if data.startswith(b"\xff\xd8") else png_size(data)


def decode_image_bounded(data: bytes):
    """The pixels of a picture as Tessera writes them, a PNG (decode_png_bounded) or a baseline 8-bit 3-channel JPEG
    (variety strong), checked against the size limits before a byte is decoded. UntrustedInput otherwise."""
    if not data.startswith(b"\xff\xd8"):
        return decode_png_bounded(data)
    from ..render.png import jpeg_frame

    frame = jpeg_frame(data)
    if frame is None:
        raise UntrustedInput("not a JPEG as Tessera writes them (no frame header)")
    w, h, *kind = frame
    if not (1 <= w <= MAX_IMAGE_SIDE and 1 <= h <= MAX_IMAGE_SIDE and w * h <= MAX_IMAGE_PIXELS):
        raise UntrustedInput(f"a {w}×{h} JPEG is over the {MAX_IMAGE_SIDE}-pixel side / {MAX_IMAGE_PIXELS} pixel limit")
    # baseline (one scan: decoding is linear in the file), 8 bits, 3 components: a progressive file's scans could
    # make a small file cost far more to decode than its size says
    if kind != [0xC0, 8, 3]:
        raise UntrustedInput("not a baseline 8-bit colour JPEG as Tessera writes them")
    from ..render.raster import decode_jpeg

    try:
        pixels = decode_jpeg(data)
    except Exception as exc:  # noqa: BLE001 - Pillow's errors for a damaged file vary by version
        raise UntrustedInput(f"the JPEG does not decode ({type(exc).__name__}: {exc})") from None
    if pixels.shape != (h, w, 3):
        raise UntrustedInput(f"the JPEG decodes to {pixels.shape[1]}×{pixels.shape[0]}, its header states {w}×{h}")
    return pixels


def decode_png_bounded(png: bytes):
    """The pixels of a PNG as our encoder writes it (RGB, 8 bits, filter 0, Sub or Up), decompressing no more than its IHDR
    promises, so a small file cannot inflate into gigabytes. UntrustedInput otherwise."""
    import struct
    import zlib

    import numpy as np

    size = png_size(png)
    if size is None:
        raise UntrustedInput("not a PNG (no IHDR chunk after the signature)")
    w, h = size
    if not (1 <= w <= MAX_IMAGE_SIDE and 1 <= h <= MAX_IMAGE_SIDE and w * h <= MAX_IMAGE_PIXELS):
        raise UntrustedInput(f"a {w}×{h} PNG is over the {MAX_IMAGE_SIDE}-pixel side / "
                             f"{MAX_IMAGE_PIXELS} pixel limit")
    if png[24:29] != bytes([8, 2, 0, 0, 0]):
        raise UntrustedInput("not an 8-bit RGB PNG as Tessera writes them")
    expected = h * (w * 3 + 1)
    inflate = zlib.decompressobj()
    raw = bytearray()
    pos = 8
    try:
        while pos + 8 <= len(png):
            (length,) = struct.unpack(">I", png[pos:pos + 4])
            kind = png[pos + 4:pos + 8]
            if kind == b"IDAT":
                raw += inflate.decompress(png[pos + 8:pos + 8 + length], expected + 1 - len(raw))
                if len(raw) > expected:
                    raise UntrustedInput(f"the image data inflates past the {w}×{h} its header states")
            pos += 12 + length
    except zlib.error as exc:
        raise UntrustedInput(f"the image data does not inflate ({exc})") from None
    if len(raw) != expected:
        raise UntrustedInput(f"the image data holds {len(raw)} bytes, a {w}×{h} RGB image needs {expected}")
    pixels = np.frombuffer(raw, dtype=np.uint8).reshape(h, w * 3 + 1)
    filters = pixels[:, 0]
    rows = pixels[:, 1:]
    if (filters == 1).all():  # Sub on every row: how render.png writes pictures with raster noise (0.9 on)
        return np.cumsum(rows.reshape(h, w, 3), axis=1, dtype=np.uint8)
    if (filters == 2).all():  # Up on every row: how render.png wrote pictures with raster noise until 0.9
        rows = np.cumsum(rows, axis=0, dtype=np.uint8)
    elif filters.any():
        raise UntrustedInput("the image rows use PNG filters Tessera does not write (it writes 0 on every row, 1 "
                             "on every row, or, until 0.9, 2 on every row)")
    return rows.reshape(h, w, 3)


def _string(value, limit: int) -> str | None:
    if not isinstance(value, str):
        return f"should be a string, got {type(value).__name__}"
    if len(value) > limit:
        return f"{len(value)} characters, over the {limit} limit"
    return None


def _named(pattern: re.Pattern):
    def check(value, _row):
        problem = _string(value, MAX_NAME_CHARS)
        if problem:
            return problem
        return None if pattern.fullmatch(value) else f"{shown(value)} does not match {pattern.pattern}"
    return check


def _split(value, _row):
    return None if is_split_name(value) else f"{shown(value)} is not a split name"


def _bucket(value, _row):
    return None if value in BUCKETS else f"{shown(value)} is not a bucket ({', '.join(BUCKETS)})"


def _operations(value, _row):
    if not isinstance(value, list) or len(value) > 64:
        return "should be a list of at most 64 operation names"
    bad = next((v for v in value if not isinstance(v, str) or not NAME.fullmatch(v)), None)
    return None if bad is None else f"{shown(bad)} is not an operation name"


def _int_between(lo: int, hi: int):
    def check(value, _row):
        if not is_int(value) or not lo <= value <= hi:
            return f"should be an integer {lo}..{hi}, got {shown(value)}"
        return None
    return check


def _prompt(value, _row):
    return _string(value, MAX_PROMPT_CHARS)


def _image(value, row):
    if not isinstance(value, dict):
        return "should be a struct of bytes and path"
    png = value.get("bytes")
    if not isinstance(png, bytes) or not png:
        return "image.bytes: the row holds no image bytes (a dataset carries its images; paths are never read)"
    if len(png) > MAX_IMAGE_BYTES:
        return f"image.bytes: {_size(len(png))}, over the {_size(MAX_IMAGE_BYTES)} limit"
    size = picture_size(png)
    if size is None:
        return "image.bytes: not a PNG or JPEG (no signature with an IHDR or frame header)"
    kind = "JPEG" if png.startswith(b"\xff\xd8") else "PNG"
    if not (1 <= size[0] <= MAX_IMAGE_SIDE and 1 <= size[1] <= MAX_IMAGE_SIDE and size[0] * size[1] <= MAX_IMAGE_PIXELS):
        return f"image.bytes: a {size[0]}×{size[1]} {kind}, over the {MAX_IMAGE_SIDE}-pixel side / " \
               f"{MAX_IMAGE_PIXELS} pixel limit"
    path = value.get("path")
    iid = row.get("instance_id")
    # The builder writes the bare name <instance_id>.png (.jpg for a JPEG) for `datasets`; nothing reads it, and
    # anything else is forged.
    suffix = ".jpg" if kind == "JPEG" else ".png"
    if path is not None and path != f"{iid}{suffix}":
        return (f"image.path: {shown(path)} is not the builder's '<instance_id>{suffix}' for a {kind} "
                f"(paths are never read)")
    return None


def _phash(value, _row):
    return None if isinstance(value, bytes) and len(value) == 32 else "should be 32 bytes (a 256-bit dHash)"


# The JSON columns and what their parsed value must be.
JSON_COLUMNS = {"query": dict, "answer": object, "label": dict, "witness": dict, "trace": dict}

ROW_CHECKS = {
    "instance_id": _named(INSTANCE_ID), "split": _split, "task": _named(TASK_ID), "domain": _named(NAME),
    "grammar": _named(TASK_ID), "bucket": _bucket, "answer_type": _named(NAME), "contract": _named(NAME),
    "operations": _operations, "level": _int_between(0, 9), "seed": _int_between(-(2 ** 63), 2 ** 63 - 1),
    "prompt": _prompt, "image": _image, "phash": _phash,
}


def check_row(row: Any, columns=None) -> tuple[dict, list[str]]:
    """Check every present column of a dataset row (or only `columns`): ids against their patterns, sizes against
    their caps, types against the schema; JSON columns are parsed under the caps. Returns (parsed JSON columns,
    problems as "field 'x': message")."""
    if not isinstance(row, dict):
        return {}, ["the row is not a record"]
    problems: list[str] = []
    parsed: dict = {}
    for col in (columns if columns is not None else row):
        if col not in row:
            problems.append(f"field '{col}': missing")
            continue
        value = row[col]
        if col in JSON_COLUMNS:
            limit = MAX_TRACE_BYTES if col == "trace" else MAX_JSON_COLUMN_BYTES
            problem = _string(value, limit)
            if problem is None:
                try:
                    parsed[col] = parse_json(value, "", limit)
                except UntrustedInput as exc:
                    problem = str(exc).lstrip(": ")
                else:
                    kind = JSON_COLUMNS[col]
                    if not isinstance(parsed[col], kind):
                        problem = f"should be a JSON {'object' if kind is dict else 'value'}"
                    elif col == "label" and not (isinstance(parsed[col].get("type"), str) and "answer" in parsed[col]):
                        problem = "not a verifier label (needs 'type' and 'answer')"
        else:
            check = ROW_CHECKS.get(col)
            problem = check(value, row) if check else None
        if problem:
            parsed.pop(col, None)
            sub, _, rest = problem.partition(": ")  # "image.bytes: ..." names the part of the column
            problems.append(f"field '{sub}': {rest}" if sub.startswith(f"{col}.") else f"field '{col}': {problem}")
    return parsed, problems


def row_where(shard: str, index: int, row: Any) -> str:
    """`<shard> row <i>` plus the instance id when it is a well-formed one (a forged id is not echoed here)."""
    iid = row.get("instance_id") if isinstance(row, dict) else None
    return f"{shard} row {index}" + (f" ({iid})" if isinstance(iid, str) and INSTANCE_ID.fullmatch(iid) else "")
