"""Replay: rebuild an instance from its trace and compare it with everything recorded about it — every field of the
trace, and the side files a consumer reads: the .png and the instance .json next to a trace file, or every column of
a dataset row. Replay vouches only for what it compared, and says what that was."""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..dataset.layout import RECORD_SUFFIX, TRACE_SUFFIX, is_dataset, shard_files
from ..dataset.phash import dhash
from ..dataset.untrusted import (INSTANCE_ID, MAX_IMAGE_BYTES, MAX_TRACE_BYTES, TASK_ID, UntrustedInput, check_name,
                                 check_row, is_int, iter_shard, read_bytes, read_json, regular_file, shard_split,
                                 shown)
from ..errors import TesseraError
from ..render.png import image_suffix
from ..taxonomy import open_taxonomy
from ..tools.session import replay_calls
from ..trace.loop import generate
from ..trace.record import TRACE_FORMAT, VARIETIES, Instance, canonical_json
from ..verify.score import FORMATS

__all__ = ["ReplayResult", "is_dataset", "rebuild", "replay_dataset", "replay_files", "replay_trace", "trace_files"]

# The environment that wrote the trace: a difference is reported as a note, never as a mismatch on its own.
ENVIRONMENT = ("versions",)
# A tool episode's calls over the instance (tools.session): replayed call by call after the instance itself.
EPISODE = "tools"


@dataclass
class ReplayResult:
    instance_id: str
    task: str
    ok: bool
    differences: list[str] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)  # what was compared: trace, png, json, row
    where: str = ""  # the file or shard row


def replay_trace(trace: dict, taxonomy) -> ReplayResult:
    """Rebuild and compare. A malformed trace raises TesseraError (a message), never a Python error."""
    return rebuild(trace, taxonomy)[0]


def rebuild(trace: dict, taxonomy) -> tuple[ReplayResult, Instance]:
    """The comparison of the trace with its rebuild, and the rebuilt instance (to compare side files with)."""
    try:
        return _replay(trace, taxonomy)
    except TesseraError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError) as exc:
        raise TesseraError(f"malformed trace ({type(exc).__name__}: {shown(str(exc), 120)})") from None


def _check_inputs(trace) -> None:
    """What generate() is called with comes from the trace: check every one of them first."""
    if not isinstance(trace, dict) or trace.get("format") != TRACE_FORMAT:
        raise TesseraError(f"not a Tessera trace (expected format '{TRACE_FORMAT}')")
    for key, kind in (("task", str), ("seed", int), ("level", int), ("query", dict)):
        if key not in trace:
            raise TesseraError(f"trace is missing '{key}'")
        if not isinstance(trace[key], kind) or isinstance(trace[key], bool):
            raise TesseraError(f"malformed trace: '{key}' should be {kind.__name__}, got {type(trace[key]).__name__}")
    check_name(trace["task"], TASK_ID, "the task id", "malformed trace")
    if not -(2 ** 64) < trace["seed"] < 2 ** 64:
        raise TesseraError("malformed trace: 'seed' is outside the 64-bit range")
    if not isinstance(trace.get("query_forced", False), bool):
        raise TesseraError("malformed trace: 'query_forced' should be true or false")
    overrides = trace.get("stream_overrides") or {}
    if not isinstance(overrides, dict) or not all(isinstance(k, str) and is_int(v) and 0 <= v < 2 ** 64
                                                  for k, v in overrides.items()):
        raise TesseraError("malformed trace: 'stream_overrides' should map stream names to 64-bit seeds")
    render = trace.get("render", {})
    scale = render.get("scale", 1.0) if isinstance(render, dict) else None
    if not isinstance(scale, (int, float)) or isinstance(scale, bool):
        raise TesseraError("malformed trace: 'render.scale' should be a number")
    if trace.get("variety", "none") not in VARIETIES:
        raise TesseraError(f"malformed trace: 'variety' should be one of {', '.join(VARIETIES)}")


def _answer_format(trace: dict) -> str:
    """The convention the label records (no `format` key: json), whatever the contract's default is now."""
    label = trace.get("label")
    answer_format = label.get("format", "json") if isinstance(label, dict) else "json"
    if answer_format not in FORMATS:
        raise TesseraError(f"malformed trace: 'label.format' should be one of {', '.join(FORMATS)}")
    return answer_format


def _replay(trace: dict, taxonomy) -> tuple[ReplayResult, Instance]:
    _check_inputs(trace)
    task = taxonomy.task(trace["task"])
    diffs: list[str] = []
    old = trace.get("hashes")
    if not isinstance(old, dict):
        diffs.append("hashes: missing from the trace or not an object")
    else:
        if old.get("task_spec") != task.spec_hash:
            diffs.append("hashes.task_spec: the task's YAML changed since this trace was written")
        if old.get("grammar_spec") != task.grammar.spec_hash:
            diffs.append("hashes.grammar_spec: the grammar's YAML changed since this trace was written")
    inst = generate(task, trace["seed"], trace["level"], trace["query"] if trace.get("query_forced") else None,
                    taxonomy.vocab, trace.get("stream_overrides") or None, trace.get("render", {}).get("scale", 1.0),
                    _answer_format(trace), trace.get("variety", "none"), trace.get("balance"))
    rebuilt = inst.trace
    # Every field, not a chosen few: a field we did not compare is a field someone could change unnoticed.
    keys = [k for k in rebuilt if k not in ENVIRONMENT] + sorted(k for k in trace if k not in rebuilt and k != EPISODE)
    for key in keys:
        if key not in rebuilt:
            diffs.append(f"{shown(key, 40)}: not a field of a Tessera trace")
        elif key not in trace:
            if key != "hashes":  # reported above
                diffs.append(f"{key}: missing from the trace")
        elif canonical_json(trace[key]) != canonical_json(rebuilt[key]):
            if key == "hashes":
                if not isinstance(old, dict):
                    continue  # reported above
                for h, v in rebuilt["hashes"].items():
                    if old.get(h) != v and not any(d.startswith(f"hashes.{h}") for d in diffs):
                        diffs.append(f"hashes.{h}: recorded {str(old.get(h))[:16]}…, rebuilt {v[:16]}…")
                if set(old) != set(rebuilt["hashes"]):
                    diffs.append("hashes: the recorded hashes name other fields than a rebuild's")
            elif key == "instance_id":
                diffs.append(f"instance_id: recorded {shown(trace[key])}, rebuilt {rebuilt[key]!r}")
            else:
                diffs.append(f"{key}: differs")
    checked = ["trace"]
    if EPISODE in trace:  # the calls run on the rebuilt instance: every result text and image hash compared
        diffs.extend(replay_calls(inst, trace[EPISODE]))
        checked.append("tools")
    if trace.get("versions") != rebuilt.get("versions") and diffs:
        diffs.append(f"note: versions differ: recorded {shown(trace.get('versions'), 300)}, "
                     f"now {rebuilt.get('versions')}")
    recorded_id = trace.get("instance_id")
    shown_id = recorded_id if isinstance(recorded_id, str) and INSTANCE_ID.fullmatch(recorded_id) else shown(recorded_id)
    return ReplayResult(shown_id, task.id, not diffs, diffs, checked), inst


# -- a trace file and the files next to it --------------------------------------------------------------------
def _differs(recorded, rebuilt) -> str:
    return f"recorded {shown(canonical_json(recorded), 80)}, rebuilt {shown(canonical_json(rebuilt), 80)}"


def replay_files(trace_path: Path, taxonomy) -> ReplayResult:
    """Replay `<id>.trace.json` and compare the picture (`<id>.png`, or `<id>.jpg` for a JPEG) and `<id>.json` beside
    it (as `tessera sample` writes them)
    with the rebuilt image and instance record. A side file that is absent is not checked, and the result says so;
    one that is present but not a regular file, too large or malformed is refused (TesseraError)."""
    trace_path = Path(trace_path)
    try:
        trace = read_json(trace_path, MAX_TRACE_BYTES, "trace")
    except UntrustedInput as exc:
        raise UntrustedInput(f"not a readable JSON trace: {exc}") from None
    try:
        result, inst = rebuild(trace, taxonomy)
    except UntrustedInput:
        raise
    except TesseraError as exc:
        raise TesseraError(f"{trace_path}: {exc}") from None
    result.where = str(trace_path)
    if not trace_path.name.endswith(TRACE_SUFFIX):
        return result
    stem = trace_path.name[: -len(TRACE_SUFFIX)]
    if INSTANCE_ID.fullmatch(stem) and stem != inst.instance_id:  # a file named as an instance holds that instance
        result.differences.append(f"file name: {shown(trace_path.name)} holds instance {inst.instance_id}")
    png_path = trace_path.with_name(stem + image_suffix(inst.png))
    if os.path.lexists(png_path):
        if read_bytes(png_path, MAX_IMAGE_BYTES, "image") != inst.png:
            result.differences.append(f"{png_path.name}: the image bytes differ from the rebuilt image")
        result.checked.append("png")
    record_path = trace_path.with_name(stem + RECORD_SUFFIX)
    if os.path.lexists(record_path):
        record, expected = read_json(record_path, MAX_TRACE_BYTES, "instance .json"), inst.record()
        if not isinstance(record, dict):
            result.differences.append(f"{record_path.name}: not an instance record (a JSON object)")
        else:
            for key in list(expected) + sorted(k for k in record if k not in expected):
                if key not in expected:
                    result.differences.append(f"{record_path.name}: {shown(key, 40)} is not a field of an instance")
                elif key not in record:
                    result.differences.append(f"{record_path.name}: {key} is missing")
                elif canonical_json(record[key]) != canonical_json(expected[key]):
                    result.differences.append(f"{record_path.name}: {key} differs "
                                              f"({_differs(record[key], expected[key])})")
        result.checked.append("json")
    result.ok = not result.differences
    return result


def trace_files(paths) -> list[Path]:
    """The trace files named by `paths`: files as given, folders searched for *.trace.json."""
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files.extend(sorted(p.rglob("*" + TRACE_SUFFIX)))
        elif os.path.lexists(p):
            regular_file(p, "trace")  # a FIFO or device named on the command line is refused, not opened
            files.append(p)
        else:
            raise TesseraError(f"no such file or folder: {p}")
    if not files:
        raise TesseraError(f"no trace files found (looked for *{TRACE_SUFFIX})")
    return files


# -- whole datasets -----------------------------------------------------------------------------------------------
_DATASET_WORKER: dict = {}


def _init_dataset_worker(root: str) -> None:
    _DATASET_WORKER["taxonomy"] = open_taxonomy(root)  # a row's task compiles when a row first needs it


def _replay_row(args) -> ReplayResult:
    """Check the row (types, ids, sizes), rebuild it from its trace and compare every column the rebuild
    determines; a malformed row is a failed result naming the field, not an exception."""
    from ..dataset.rows import SCHEMA, instance_row  # pyarrow: only a dataset replay needs it

    where, split, row = args
    parsed, problems = check_row(row, SCHEMA.names)
    iid = row.get("instance_id") if isinstance(row, dict) else "?"
    iid = iid if isinstance(iid, str) and not any(p.startswith("field 'instance_id'") for p in problems) \
        else shown(iid)
    task = row.get("task") if isinstance(row, dict) else None
    task = task if isinstance(task, str) and TASK_ID.fullmatch(task) else shown(task, 80)
    if problems:
        return ReplayResult(iid, task, False, problems, [], where)
    try:
        result, inst = rebuild(parsed["trace"], _DATASET_WORKER["taxonomy"])
    except TesseraError as exc:
        return ReplayResult(iid, task, False, [f"trace: {exc}"], [], where)
    result.where = where
    expected = instance_row(inst, split, dhash(inst.rgb))
    png = row["image"]["bytes"]
    for col in SCHEMA.names:
        if col == "trace" or row[col] == expected[col]:
            continue  # the trace column was compared field by field above
        if col == "image":
            if png != expected["image"]["bytes"]:
                recorded_hash = parsed["trace"].get("hashes", {})
                if isinstance(recorded_hash, dict) and hashlib.sha256(png).hexdigest() != recorded_hash.get("image"):
                    result.differences.insert(0, "image: the stored picture's bytes differ from the trace's image hash")
                else:
                    result.differences.insert(0, "image: the stored picture's bytes differ from the rebuilt image")
            if row["image"]["path"] != expected["image"]["path"]:
                result.differences.append(f"image.path: recorded {shown(row['image']['path'])}, "
                                          f"rebuilt {shown(expected['image']['path'])}")
        elif col == "phash":
            result.differences.append("phash: differs from the rebuilt image's dHash")
        else:  # a column's own value (JSON columns hold text): shown as stored
            result.differences.append(f"{col}: recorded {shown(row[col], 80)}, rebuilt {shown(expected[col], 80)}")
    result.checked.append("row")
    result.ok = not result.differences
    return result


def dataset_shards(path) -> list[Path]:
    files = shard_files(path)
    if not files:
        raise TesseraError(f"{path}: no Parquet shards under data/")
    return files


def replay_dataset(path, taxonomy_root, workers: int = 1, progress=None) -> list[ReplayResult]:
    """Rebuild every row of a dataset from its trace, in parallel, and compare every column byte for byte.
    Shards are read one at a time (a row batch at a time), so memory holds one shard, not the dataset."""
    from ..dataset.rows import SCHEMA

    path = Path(path)
    files = dataset_shards(path)
    splits = {f: shard_split(f) for f in files}
    job = progress.add_task("replaying", total=0) if progress else None
    results: list[ReplayResult] = []
    pool = None
    if workers > 1:
        import multiprocessing as mp

        pool = mp.get_context("fork").Pool(workers, initializer=_init_dataset_worker, initargs=(str(taxonomy_root),))
    else:
        _init_dataset_worker(str(taxonomy_root))
    try:
        for f in files:
            name = str(f.relative_to(path))
            try:
                rows = [(f"{name} row {i}", splits[f], row) for i, row in iter_shard(f, SCHEMA.names, name)]
            except UntrustedInput as exc:
                raise TesseraError(f"{path}: cannot be read as a Tessera shard: {exc}") from None
            if progress:
                progress.update(job, total=len(results) + len(rows))  # known shard by shard: each is read once
            for res in (pool.imap(_replay_row, rows, chunksize=4) if pool else map(_replay_row, rows)):
                results.append(res)
                if progress:
                    progress.advance(job)
    finally:
        if pool:
            pool.terminate()
            pool.join()
    return results
