"""Replay: rebuild an instance from its trace and compare every recorded field and hash, byte for byte."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import TesseraError
from .instance import TRACE_FORMAT, canonical_json, generate

COMPARED = ("instance_id", "query", "streams", "attempts", "rejections", "program_work", "state", "steps", "answer", "label", "witness", "render",
            "prompt_template", "prompt", "hashes")


@dataclass
class ReplayResult:
    instance_id: str
    task: str
    ok: bool
    differences: list[str] = field(default_factory=list)


def replay_trace(trace: dict, taxonomy) -> ReplayResult:
    """Rebuild and compare. A malformed trace raises TesseraError (a message), never a Python error."""
    try:
        return _replay(trace, taxonomy)
    except TesseraError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise TesseraError(f"malformed trace ({type(exc).__name__}: {exc})") from None


def _replay(trace: dict, taxonomy) -> ReplayResult:
    if not isinstance(trace, dict) or trace.get("format") != TRACE_FORMAT:
        raise TesseraError(f"not a Tessera trace (expected format '{TRACE_FORMAT}')")
    for key, kind in (("task", str), ("seed", int), ("level", int), ("query", dict)):
        if key not in trace:
            raise TesseraError(f"trace is missing '{key}'")
        if not isinstance(trace[key], kind) or isinstance(trace[key], bool):
            raise TesseraError(f"malformed trace: '{key}' should be {kind.__name__}, got {type(trace[key]).__name__}")
    task = taxonomy.task(trace["task"])
    diffs: list[str] = []
    old = trace.get("hashes", {})
    if old.get("task_spec") != task.spec_hash:
        diffs.append("hashes.task_spec: the task's YAML changed since this trace was written")
    if old.get("grammar_spec") != task.grammar.spec_hash:
        diffs.append("hashes.grammar_spec: the grammar's YAML changed since this trace was written")
    rebuilt = generate(task, trace["seed"], trace["level"], trace["query"] if trace.get("query_forced") else None,
                       taxonomy.vocab, trace.get("stream_overrides") or None,
                       trace.get("render", {}).get("scale", 1.0)).trace
    for key in COMPARED:
        if canonical_json(trace.get(key)) != canonical_json(rebuilt.get(key)):
            if key == "hashes":
                for h, v in rebuilt["hashes"].items():
                    if old.get(h) != v and not any(d.startswith(f"hashes.{h}") for d in diffs):
                        diffs.append(f"hashes.{h}: recorded {str(old.get(h))[:16]}…, rebuilt {v[:16]}…")
            else:
                diffs.append(f"{key}: differs")
    if trace.get("versions") != rebuilt.get("versions") and diffs:
        diffs.append(f"note: versions differ: recorded {trace.get('versions')}, now {rebuilt.get('versions')}")
    return ReplayResult(str(trace.get("instance_id")), task.id, not diffs, diffs)


# -- whole datasets -----------------------------------------------------------------------------------------------
_DATASET_WORKER: dict = {}


def _init_dataset_worker(root: str) -> None:
    from ..taxonomy import compile_taxonomy

    _DATASET_WORKER["taxonomy"] = compile_taxonomy(root)


def _replay_row(args) -> ReplayResult:
    import hashlib
    import json

    image, trace_text = args
    trace = json.loads(trace_text)
    result = replay_trace(trace, _DATASET_WORKER["taxonomy"])
    if hashlib.sha256(image).hexdigest() != trace["hashes"]["image"]:
        result.ok = False
        result.differences.insert(0, "image: the stored PNG bytes differ from the trace's image hash")
    return result


def replay_dataset(path, taxonomy_root, workers: int = 1, progress=None) -> list[ReplayResult]:
    """Rebuild every row of a dataset from its trace, in parallel, and compare byte for byte (the stored PNG too)."""
    from pathlib import Path

    import pyarrow.parquet as pq

    files = sorted((Path(path) / "data").glob("*.parquet"))
    if not files:
        raise TesseraError(f"{path}: no Parquet shards under data/")
    rows = []
    for f in files:
        try:
            table = pq.read_table(f, columns=["image", "trace"])
        except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for damaged files
            raise TesseraError(f"{f}: cannot be read as a Tessera shard ({type(exc).__name__}: {exc})") from None
        rows.extend((r["image"]["bytes"], r["trace"]) for r in table.to_pylist())
    job = progress.add_task("replaying", total=len(rows)) if progress else None
    results = []
    if workers <= 1:
        _init_dataset_worker(str(taxonomy_root))
        for r in rows:
            results.append(_replay_row(r))
            if progress:
                progress.advance(job)
        return results
    import multiprocessing as mp

    with mp.get_context("fork").Pool(workers, initializer=_init_dataset_worker, initargs=(str(taxonomy_root),)) as pool:
        for res in pool.imap(_replay_row, rows, chunksize=4):
            results.append(res)
            if progress:
                progress.advance(job)
    return results
