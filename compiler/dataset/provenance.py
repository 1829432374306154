"""What a shard's bytes depend on, as hashes a resume and `tessera validate` can compare.

A row is a pure function of (build config, the task's inputs, the code). The task's inputs are its program, its
grammar, its contract, the components its scene expands, and the vocabulary; the code is every file of the
`tessera` package (fonts and themes included) and the library versions `versions()` names. Each shard carries a
record of these hashes in its Parquet metadata, so a resume never mixes rows of two specs or two versions, and a
shard copied in from another build is caught by `validate`.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path

from ..codegen.grammar import spec_hash
from ..trace.record import versions

RECORD_KEY = b"tessera.build"  # Parquet key-value metadata of a shard
RECORD_FORMAT = "tessera.shard/1"
PACKAGE = Path(__file__).resolve().parent.parent  # the `tessera` package (the compiler/ folder of a checkout)
TASK_PARTS = ("program", "grammar", "contract", "components", "vocab")


def _sha(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _code_files_sha(package: Path) -> str:
    h = hashlib.sha256()
    for path in _package_files(package):
        h.update(str(path.relative_to(package)).encode() + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


CODE_SUFFIXES = (".py", ".lark", ".ttf", ".otf", ".json", ".yaml", ".yml")  # what the compiler runs or reads


# Installed from a wheel, the package also holds training/ and the YAML library (library/): neither shapes a row
# through the code (the library is hashed per task), and leaving them out keeps a wheel's hash equal to a checkout's.
NOT_CODE = ("training", "library")


def _package_files(package: Path) -> list[Path]:
    # Only what the compiler runs or reads: an editor's swap file or a bytecode cache is not a code change.
    return sorted(p for p in package.rglob("*")
                  if p.suffix in CODE_SUFFIXES and not p.name.startswith(".") and "__pycache__" not in p.parts
                  and p.relative_to(package).parts[0] not in NOT_CODE and p.is_file())


def code_sha256() -> str:
    """The compiler package's files and the library versions (about 70 files: milliseconds, so never cached)."""
    return _sha({"files": _code_files_sha(PACKAGE), "versions": versions()})


def _components_used(node, out: set[str]) -> set[str]:
    """Names of the components a compiled scene expands, nested ones included (CUse.body is the expansion)."""
    if node is None or isinstance(node, (str, bytes, int, float, bool)):
        return out
    if isinstance(node, (list, tuple)):
        for x in node:
            _components_used(x, out)
        return out
    if isinstance(node, dict):
        for x in node.values():
            _components_used(x, out)
        return out
    if is_dataclass(node):
        comp = getattr(node, "component", None)
        if isinstance(comp, str) and hasattr(node, "body"):
            out.add(comp)
        for f in fields(node):
            if f.name in ("layers", "panels", "tiles", "scene", "use", "body", "panel", "items"):
                _components_used(getattr(node, f.name), out)
    return out


def component_hashes(root: Path) -> dict[str, str]:
    """component id → spec hash, read from root/components (the compiled taxonomy keeps only their summaries).
    Not cached: an edit between two builds in one process must show."""
    from ..errors import Diagnostics
    from ..load.models import ComponentSpec
    from ..load.validate_model import validate
    from ..load.yaml_source import read_yaml

    out: dict[str, str] = {}
    folder = root / "components"
    if not folder.is_dir():
        return out
    for path in sorted(p for p in folder.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file()):
        diags = Diagnostics()
        doc = read_yaml(path, str(path), diags)
        spec = validate(ComponentSpec, doc, diags) if doc is not None else None
        if spec is not None:
            out[spec.component] = spec_hash(spec)
    return out


def task_parts(task, taxonomy, components: dict[str, str] | None = None) -> dict[str, str]:
    """One hash per input of the task (the parts say *what* changed in a refusal message)."""
    if components is None:
        components = component_hashes(Path(taxonomy.root).resolve())
    used = sorted(_components_used(task.grammar.scene, set()))
    return {
        "program": task.spec_hash,
        "grammar": task.grammar.spec_hash,
        "contract": spec_hash(task.contract.spec),
        "components": _sha({name: components.get(name) for name in used}),
        "vocab": _sha(taxonomy.vocab),
    }


def task_sha256(parts: dict[str, str]) -> str:
    return _sha(parts)


@dataclass(frozen=True)
class Fingerprint:
    """Everything that determines the bytes of a build's shards."""
    config_sha256: str
    code_sha256: str
    versions: dict
    tasks: dict  # task id → {part: hash}

    def record(self, task_ids) -> dict:
        """The record a shard holding rows of `task_ids` carries."""
        return {"format": RECORD_FORMAT, "config_sha256": self.config_sha256, "code_sha256": self.code_sha256,
                "versions": self.versions, "tasks": {t: self.tasks[t] for t in sorted(set(task_ids))}}


def fingerprint(config, taxonomy) -> Fingerprint:
    components = component_hashes(Path(taxonomy.root).resolve())
    return Fingerprint(config.sha256, code_sha256(), versions(),
                       {t: task_parts(taxonomy.tasks[t], taxonomy, components) for t in config.tasks})


def record_sha256(record: dict) -> str:
    return _sha(record)


def read_record(path: Path) -> dict | None:
    """A shard's build record, or None when it has none (or its footer does not read)."""
    import pyarrow.parquet as pq

    try:
        meta = pq.read_schema(path).metadata or {}
        record = json.loads(meta[RECORD_KEY]) if RECORD_KEY in meta else None
    except (OSError, ValueError, KeyError):
        return None
    except Exception:  # noqa: BLE001 - pyarrow raises its own types for a damaged footer
        return None
    return record if isinstance(record, dict) and record.get("format") == RECORD_FORMAT else None


def differences(old: dict, fp: Fingerprint, task_ids) -> tuple[list[str], dict[str, list[str]]]:
    """(what differs for the whole shard, task → parts that differ) between a shard's record and this build."""
    whole: list[str] = []
    if old.get("config_sha256") != fp.config_sha256:
        whole.append("the build config changed")
    if old.get("versions") != fp.versions:
        before, now = old.get("versions") or {}, fp.versions
        changed = [f"{k} {before.get(k)} → {now.get(k)}" for k in sorted(set(before) | set(now))
                   if before.get(k) != now.get(k)]
        whole.append("versions changed (" + ", ".join(changed) + ")")
    elif old.get("code_sha256") != fp.code_sha256:
        whole.append("the tessera code changed (files of the compiler package)")
    tasks: dict[str, list[str]] = {}
    recorded = was_recorded if isinstance(was_recorded := old.get("tasks"), dict) else {}
    for t in sorted(set(task_ids)):
        was = recorded.get(t)
        if not isinstance(was, dict):
            tasks[t] = ["not in this shard's record"]
            continue
        parts = [p for p in TASK_PARTS if was.get(p) != fp.tasks[t].get(p)]
        if parts:
            tasks[t] = parts
    return whole, tasks
