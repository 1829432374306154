"""Replay: rebuild an instance from its trace and compare every recorded field and hash, byte for byte."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import TesseraError
from .instance import TRACE_FORMAT, canonical_json, generate

COMPARED = ("instance_id", "query", "streams", "attempts", "rejections", "state", "steps", "answer", "label", "witness", "render",
            "prompt_template", "prompt", "hashes")


@dataclass
class ReplayResult:
    instance_id: str
    task: str
    ok: bool
    differences: list[str] = field(default_factory=list)


def replay_trace(trace: dict, taxonomy) -> ReplayResult:
    if not isinstance(trace, dict) or trace.get("format") != TRACE_FORMAT:
        raise TesseraError(f"not a Tessera trace (expected format '{TRACE_FORMAT}')")
    for key in ("task", "seed", "level", "query"):
        if key not in trace:
            raise TesseraError(f"trace is missing '{key}'")
    task = taxonomy.task(trace["task"])
    diffs: list[str] = []
    old = trace.get("hashes", {})
    if old.get("task_spec") != task.spec_hash:
        diffs.append("hashes.task_spec: the task's YAML changed since this trace was written")
    if old.get("grammar_spec") != task.grammar.spec_hash:
        diffs.append("hashes.grammar_spec: the grammar's YAML changed since this trace was written")
    rebuilt = generate(task, trace["seed"], trace["level"], trace["query"] if trace.get("query_forced") else None,
                       taxonomy.vocab, trace.get("stream_overrides") or None).trace
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
