"""`tessera validate DIR`: is this a finished, intact, well-formed dataset? Schema, counts, hashes, manifest,
gates on every row, and split disjointness. Returns every problem found, not just the first."""
from __future__ import annotations

import hashlib
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..dataset.card import check_card
from ..dataset.layout import DATA_DIR, MANIFEST, STATE_DIR
from ..dataset.phash import dhash, nearest_distance
from ..dataset.rows import SCHEMA, leak_key
from ..dataset.untrusted import (MAX_SHARD_BYTES, Shard, UntrustedInput, check_row, decode_image_bounded, is_int,
                                 picture_size, read_manifest, regular_file, row_where, sha256_file, shown)
from .balance_check import BalanceTally
from .gates import GateInput, run_gates


@dataclass
class DatasetReport:
    path: Path
    problems: list[str] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    tasks: int = 0
    warnings: list[str] = field(default_factory=list)  # the library moved on since the build (not a defect)

    @property
    def ok(self) -> bool:
        return not self.problems


def validate_dataset(path: Path, progress=None, taxonomy=None) -> DatasetReport:
    """Every problem of a dataset, as messages naming the file (and row, field). Nothing in the dataset is trusted:
    the manifest, shards and rows are checked against what the builder writes before they are used.
    taxonomy: when given, also say (as warnings) which tasks' inputs changed in the library since the build."""
    path = Path(path)
    rep = DatasetReport(path)
    manifest_path = path / MANIFEST
    if not os.path.lexists(manifest_path):
        hint = " (an interrupted build: rerun the same `tessera build` command to finish it)" \
            if (path / STATE_DIR).exists() else ""
        rep.problems.append(f"not a finished dataset: {MANIFEST} is missing{hint}")
        return rep
    try:
        manifest = read_manifest(path)
    except UntrustedInput as exc:
        rep.problems.append(str(exc).replace(f"{manifest_path}", MANIFEST, 1))
        return rep
    if (path / STATE_DIR).exists():
        rep.problems.append(f"{STATE_DIR}/ is still present: a build may be running or was interrupted")
    check_provenance(path, manifest, rep, taxonomy)
    card_problems, card_warnings = check_card(path, manifest)
    rep.problems += card_problems
    rep.warnings += card_warnings
    listed = {f["name"] for s in manifest["splits"].values() for f in s["files"]}
    on_disk = {str(p.relative_to(path)) for p in (path / DATA_DIR).glob("*")}
    for extra in sorted(on_disk - listed):
        rep.problems.append(f"{extra}: not listed in the manifest (left over from another build?)")

    tally = BalanceTally(manifest.get("config"))  # a balanced build's policy, recounted from the rows
    bits = manifest.get("split_overlap", {}).get("near_duplicate_bits", 12)
    earlier: dict[str, list[bytes]] = {}
    ids_by_split: dict[str, set] = {}
    tasks: set = set()
    total = sum(s["rows"] for s in manifest["splits"].values())
    job = progress.add_task("validating", total=total) if progress else None
    for split, info in manifest["splits"].items():
        per_task: Counter = Counter()
        hashes: list[tuple[str, bytes]] = []
        ids: set = set()
        for f in info["files"]:
            file = path / f["name"]
            if not os.path.lexists(file):
                rep.problems.append(f"{f['name']}: listed in the manifest but missing")
                continue
            try:
                if sha256_file(file, MAX_SHARD_BYTES, "Parquet shard") != f["sha256"]:
                    rep.problems.append(f"{f['name']}: sha256 differs from the manifest (the file was changed)")
                with Shard(file, f["name"]) as shard:
                    if shard.schema.remove_metadata() != SCHEMA.remove_metadata():
                        rep.problems.append(f"{f['name']}: schema differs from the Tessera dataset schema "
                                            f"({_schema_difference(shard.schema)})")
                        # the rows are still checked one by one: the problems then name each row and field
                    if shard.num_rows != f["rows"]:
                        rep.problems.append(f"{f['name']}: {shard.num_rows} rows, manifest says {f['rows']}")
                    for index, row in shard.rows():
                        _check_row(rep, row_where(f["name"], index, row), split, row, ids, per_task, hashes,
                                   tally if tally.active else None)
                        if progress:
                            progress.advance(job)
            except UntrustedInput as exc:
                rep.problems.append(str(exc).replace(str(file), f["name"], 1))
                continue
        if dict(sorted(per_task.items())) != info.get("per_task"):
            rep.problems.append(f"split {split}: rows per task differ from the manifest")
        rep.rows[split] = sum(per_task.values())
        tasks |= set(per_task)
        near = sum(1 for t, h in hashes if nearest_distance(h, earlier.get(t, [])) <= bits)
        if near:
            rep.problems.append(f"split {split}: {near} image(s) within {bits} bits of an earlier split's image of "
                                f"the same task with the same answer")
        for other, other_ids in ids_by_split.items():
            shared = len(ids & other_ids)
            if shared:
                rep.problems.append(f"splits {other} and {split} share {shared} instance id(s)")
        ids_by_split[split] = ids
        for t, h in hashes:
            earlier.setdefault(t, []).append(h)
    rep.tasks = len(tasks)
    rep.problems += tally.finish()
    return rep


def _schema_difference(schema) -> str:
    names = set(schema.names)
    parts = [f"missing {', '.join(n for n in SCHEMA.names if n not in names)}"] if set(SCHEMA.names) - names else []
    parts += [f"{field.name} is {field.type}, expected {SCHEMA.field(field.name).type}" for field in schema
              if field.name in SCHEMA.names and field.type != SCHEMA.field(field.name).type]
    parts += [f"extra column {shown(n)}" for n in schema.names if n not in SCHEMA.names]
    return "; ".join(parts[:5]) or "field order or nullability"


def _check_row(rep, where, split, row, ids, per_task, hashes, tally=None) -> None:
    parsed, problems = check_row(row, SCHEMA.names)
    if problems:
        rep.problems.extend(f"{where}: {p}" for p in problems)
        return
    if row["split"] != split:
        rep.problems.append(f"{where}: split column says {row['split']!r}, file belongs to {split!r}")
    if row["instance_id"] in ids:
        rep.problems.append(f"{where}: duplicate instance id within split {split}")
    ids.add(row["instance_id"])
    per_task[row["task"]] += 1
    png = row["image"]["bytes"]
    trace, label, answer, witness = (parsed[k] for k in ("trace", "label", "answer", "witness"))
    if tally is not None:
        tally.add(where, split, row, answer, label, trace)
    recorded = trace.get("hashes")
    if not isinstance(recorded, dict) or hashlib.sha256(png).hexdigest() != recorded.get("image"):
        rep.problems.append(f"{where}: image bytes differ from the trace's image hash")
        return
    r = trace.get("render")
    if not isinstance(r, dict) or not all(is_int(r.get(k)) for k in ("width", "height")):
        rep.problems.append(f"{where}: field 'trace': render.width and render.height should be integers")
        return
    if picture_size(png) != (r["width"], r["height"]):
        rep.problems.append(f"{where}: image is {picture_size(png)}, the trace says {r['width']}×{r['height']}")
        return
    try:
        rgb = decode_image_bounded(png)
    except UntrustedInput as exc:
        rep.problems.append(f"{where}: image does not decode: {exc}")
        return
    if dhash(rgb) != row["phash"]:
        rep.problems.append(f"{where}: phash column does not match the image")
    hashes.append((leak_key(row["task"], row["answer"]), row["phash"]))  # the build's split rule
    try:
        reasons = run_gates(GateInput(png, row["prompt"], answer, label, witness, r["width"], r["height"], rgb))
    except Exception as exc:  # noqa: BLE001 - a crafted label or witness may hold any JSON; report it, never raise
        reasons = [f"could not run on this row ({type(exc).__name__})"]
    for reason in reasons:
        rep.problems.append(f"{where}: gate failed: {reason}")


# -- provenance: one config, one code version, one spec per task, in every shard --------------------------------
def check_provenance(path: Path, manifest: dict, rep: DatasetReport, taxonomy=None) -> None:
    """Each shard carries the record of what built it (dataset/provenance.py). Every record must match the
    manifest, so shards of two builds (a resume after an edit, or files copied between datasets) never pass."""
    from ..dataset.provenance import read_record, record_sha256

    inputs = (manifest.get("taxonomy") or {}).get("inputs")
    code = manifest.get("code_sha256")
    if not isinstance(inputs, dict) or not isinstance(code, str):
        rep.problems.append(f"{MANIFEST}: no build provenance (code_sha256, taxonomy.inputs): written by an older "
                            f"tessera, so nothing shows its shards share one spec; rebuild the dataset")
        return
    for info in (manifest.get("splits") or {}).values():
        for f in info.get("files") or []:
            name = f.get("name") if isinstance(f, dict) else None
            if not isinstance(name, str) or Path(name).is_absolute() or ".." in Path(name).parts:
                continue  # the manifest checks report it
            file = path / name
            try:
                regular_file(file, "Parquet shard")
            except UntrustedInput:
                continue  # missing, or not a regular file: the shard checks below report it
            record = read_record(file)
            if record is None:
                rep.problems.append(f"{name}: carries no build record (not written by `tessera build`, or damaged)")
                continue
            if record_sha256(record) != f.get("spec_sha256"):
                rep.problems.append(f"{name}: its build record differs from the manifest's (spec_sha256): the "
                                    f"shard comes from another build")
            if record.get("config_sha256") != manifest.get("config_sha256"):
                rep.problems.append(f"{name}: built with another build config than the manifest's")
            if record.get("code_sha256") != code:
                was = record.get("versions") or {}
                now = manifest.get("versions") or {}
                diff = [f"{k} {was.get(k)} vs {now.get(k)}" for k in sorted(set(was) | set(now))
                        if was.get(k) != now.get(k)]
                rep.problems.append(f"{name}: built by other tessera code or versions than the rest of the dataset"
                                    + (f" ({', '.join(diff)})" if diff else ""))
            tasks = record.get("tasks") if isinstance(record.get("tasks"), dict) else {}
            changed = sorted(t for t, parts in tasks.items() if inputs.get(t) != parts)
            if changed:
                rep.problems.append(f"{name}: built from other specs of task(s) {', '.join(changed)} than the "
                                    f"manifest records: rows of two versions of a task are mixed")
            try:
                with Shard(file, name) as shard:
                    in_rows = {row.get("task") for _, row in shard.rows(columns=["task"])
                               if isinstance(row.get("task"), str)}
            except UntrustedInput:
                continue  # an unreadable or oversized shard is reported by the shard checks
            uncovered = sorted(t for t in in_rows if t not in tasks)
            if uncovered:
                rep.problems.append(f"{name}: holds rows of task(s) {', '.join(map(shown, uncovered[:10]))} that its build "
                                    f"record does not cover")
    if taxonomy is not None:
        from ..dataset.provenance import TASK_PARTS, code_sha256, component_hashes, task_parts

        components = component_hashes(Path(taxonomy.root))

        if code_sha256() != code:
            rep.warnings.append("the tessera code or library versions differ from the ones that built this dataset: "
                                "`tessera replay` may report differences")
        for t in sorted(inputs):
            if t not in taxonomy.tasks:
                rep.warnings.append(f"task {t} is no longer in the library at {taxonomy.root}")
                continue
            now = task_parts(taxonomy.tasks[t], taxonomy, components)
            was = inputs[t] if isinstance(inputs[t], dict) else {}
            parts = [p for p in TASK_PARTS if was.get(p) != now.get(p)]
            if parts:
                rep.warnings.append(f"task {t}: its {', '.join(parts)} changed in the library since the build: "
                                    f"replay will not match its rows")
