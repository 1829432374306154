"""The dataset row: one Parquet row per instance, loadable by Hugging Face `datasets` with `image` as an Image."""
from __future__ import annotations

import json
import os
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from ..render.png import image_suffix
from ..trace.record import Instance, canonical_json
from .layout import shard_name  # noqa: F401  (re-exported: the writer's name for shard k of n)

STRING_COLUMNS = ("instance_id", "split", "task", "domain", "grammar", "bucket", "answer_type", "contract")
JSON_COLUMNS = ("query", "answer", "label", "witness", "trace")

# Fields stay nullable: `datasets` only honours our feature metadata (image → Image) for fields equal to its own.
SCHEMA = pa.schema([
    *(pa.field(name, pa.string()) for name in STRING_COLUMNS),
    pa.field("operations", pa.list_(pa.string())),
    pa.field("query", pa.string()),  # canonical JSON object
    pa.field("level", pa.int32()),
    pa.field("seed", pa.int64()),
    pa.field("prompt", pa.string()),
    pa.field("answer", pa.string()),  # canonical JSON of the typed answer
    pa.field("label", pa.string()),  # canonical JSON verifier label
    pa.field("witness", pa.string()),
    pa.field("image", pa.struct([pa.field("bytes", pa.binary()), pa.field("path", pa.string())])),
    pa.field("phash", pa.binary()),  # 256-bit dHash of the image (32 bytes)
    pa.field("trace", pa.string()),
])

# Hugging Face `datasets` reads features from this schema metadata, so `image` decodes as a PIL image.
_HF_FEATURES: dict[str, dict[str, Any]] = {
    **{name: {"dtype": "string", "_type": "Value"} for name in STRING_COLUMNS},
    "operations": {"feature": {"dtype": "string", "_type": "Value"}, "_type": "Sequence"},
    "query": {"dtype": "string", "_type": "Value"},
    "level": {"dtype": "int32", "_type": "Value"},
    "seed": {"dtype": "int64", "_type": "Value"},
    "prompt": {"dtype": "string", "_type": "Value"},
    "answer": {"dtype": "string", "_type": "Value"},
    "label": {"dtype": "string", "_type": "Value"},
    "witness": {"dtype": "string", "_type": "Value"},
    "image": {"_type": "Image"},
    "phash": {"dtype": "binary", "_type": "Value"},
    "trace": {"dtype": "string", "_type": "Value"},
}
SCHEMA = SCHEMA.with_metadata({"huggingface": json.dumps({"info": {"features": _HF_FEATURES}}, sort_keys=True)})


@contextmanager
def named_io(path: Path):
    """Give an OSError the file it concerns: pyarrow's write errors carry neither a file name nor always an errno,
    and "error: No space left on device" alone does not say which disk."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None and exc.errno is not None:
            raise
        code = exc.errno
        if code is None:  # pyarrow: "... Detail: [errno 28] No space left on device"
            m = re.search(r"\[errno (\d+)\]", str(exc))
            code = int(m.group(1)) if m else None
        what = os.strerror(code) if code is not None else (exc.strerror or str(exc))
        raise OSError(code, what, str(exc.filename if exc.filename is not None else path)) from exc


def instance_row(inst: Instance, split: str, phash: bytes) -> dict:
    t = inst.task
    return {
        "instance_id": inst.instance_id, "split": split, "task": t.id, "domain": t.domain, "grammar": t.grammar.id,
        "bucket": t.bucket, "answer_type": t.answer_type, "contract": t.contract.id, "operations": list(t.operations),
        "query": canonical_json(inst.trace["query"]), "level": inst.trace["level"], "seed": inst.trace["seed"],
        "prompt": inst.prompt, "answer": canonical_json(inst.answer), "label": canonical_json(inst.label),
        "witness": canonical_json(inst.witness), "image": {"bytes": inst.png, "path": inst.instance_id + image_suffix(inst.png)},
        "phash": phash, "trace": canonical_json(inst.trace),
    }


def write_shard(rows: list[dict], path: Path, record: dict | None = None) -> None:
    """Write under a temporary name, then rename: a shard with its final name is always complete. `record` (what
    the rows were built from, see provenance) goes into the Parquet metadata, so the shard itself says it."""
    schema = SCHEMA
    if record is not None:
        from .provenance import RECORD_KEY

        schema = SCHEMA.with_metadata({**SCHEMA.metadata, RECORD_KEY: json.dumps(record, sort_keys=True)})
    table = pa.Table.from_pylist(rows, schema=schema)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        with named_io(tmp):
            pq.write_table(table, tmp, compression="zstd", row_group_size=max(1, min(len(rows), 512)),
                           write_statistics=False)
            _fsync(tmp)
            tmp.replace(path)
    except BaseException:
        discard(tmp)  # a disk-full write leaves no half file behind
        raise


def write_file_atomic(path: Path, data: bytes, durable: bool = False) -> None:
    """Write `data` to `path` whole or not at all: under a temporary name beside it (`.NAME.tmp`), synced when
    `durable`, then renamed. Every build file but the shards goes through here, so a full disk leaves no half file
    with a final name, and the error names the file: write(2)'s ENOSPC reaches Python without one."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        with named_io(tmp):
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
            try:
                view = memoryview(data)
                while view:  # a write may take part of the bytes (the last blocks of a disk)
                    view = view[os.write(fd, view):]
                if durable:
                    os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, path)
    except BaseException:
        discard(tmp)
        raise


def discard(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass  # the error being reported already is the one that matters


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_rows(path: Path, columns: list[str] | None = None) -> Iterator[dict]:
    table = pq.read_table(path, columns=columns)
    yield from table.to_pylist()


def leak_key(task: str, answer_json: str) -> str:
    """What a later split must not repeat: a near-identical picture of the same task *with the same answer* (a model
    that memorised the training row would answer it right without looking). Pictures of a task that differ only
    slightly but have other answers (a gauge's needle a few degrees on) are what the task is about, not a leak.
    The builder keeps splits apart by it and validate checks them by it."""
    return f"{task}\0{answer_json}"
