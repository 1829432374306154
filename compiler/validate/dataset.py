"""`tessera validate DIR`: is this a finished, intact, well-formed dataset? Schema, counts, hashes, manifest,
gates on every row, and split disjointness. Returns every problem found, not just the first."""
from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.parquet as pq

from ..export.build import DATASET_FORMAT, MANIFEST, STATE_DIR, _sha256_file
from ..export.rows import SCHEMA
from ..render.png import decode_png_rgb
from .gates import GateInput, run_gates
from .phash import dhash, nearest_distance


@dataclass
class DatasetReport:
    path: Path
    problems: list[str] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    tasks: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


def validate_dataset(path: Path, progress=None) -> DatasetReport:
    path = Path(path)
    rep = DatasetReport(path)
    manifest_path = path / MANIFEST
    if not manifest_path.exists():
        hint = " (an interrupted build: rerun the same `tessera build` command to finish it)" \
            if (path / STATE_DIR).exists() else ""
        rep.problems.append(f"not a finished dataset: {MANIFEST} is missing{hint}")
        return rep
    try:
        manifest = json.loads(manifest_path.read_text())
    except ValueError as exc:
        rep.problems.append(f"{MANIFEST} is not valid JSON: {exc}")
        return rep
    if manifest.get("format") != DATASET_FORMAT:
        rep.problems.append(f"{MANIFEST}: format is {manifest.get('format')!r}, expected {DATASET_FORMAT!r}")
        return rep
    if (path / STATE_DIR).exists():
        rep.problems.append(f"{STATE_DIR}/ is still present: a build may be running or was interrupted")
    listed = {f["name"] for s in manifest["splits"].values() for f in s["files"]}
    on_disk = {str(p.relative_to(path)) for p in (path / "data").glob("*")}
    for extra in sorted(on_disk - listed):
        rep.problems.append(f"{extra}: not listed in the manifest (left over from another build?)")

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
            if not file.exists():
                rep.problems.append(f"{f['name']}: listed in the manifest but missing")
                continue
            if _sha256_file(file) != f["sha256"]:
                rep.problems.append(f"{f['name']}: sha256 differs from the manifest (the file was changed)")
            try:
                table = pq.read_table(file)
            except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for damaged files
                rep.problems.append(f"{f['name']}: cannot be read as Parquet ({type(exc).__name__})")
                continue
            if table.schema.remove_metadata() != SCHEMA.remove_metadata():
                rep.problems.append(f"{f['name']}: schema differs from the Tessera dataset schema")
                continue
            if table.num_rows != f["rows"]:
                rep.problems.append(f"{f['name']}: {table.num_rows} rows, manifest says {f['rows']}")
            for row in table.to_pylist():
                _check_row(rep, f["name"], split, row, ids, per_task, hashes)
                if progress:
                    progress.advance(job)
        if dict(sorted(per_task.items())) != info.get("per_task"):
            rep.problems.append(f"split {split}: rows per task differ from the manifest")
        rep.rows[split] = sum(per_task.values())
        tasks |= set(per_task)
        near = sum(1 for t, h in hashes if nearest_distance(h, earlier.get(t, [])) <= bits)
        if near:
            rep.problems.append(f"split {split}: {near} image(s) within {bits} bits of an earlier split's image")
        for other, other_ids in ids_by_split.items():
            shared = len(ids & other_ids)
            if shared:
                rep.problems.append(f"splits {other} and {split} share {shared} instance id(s)")
        ids_by_split[split] = ids
        for t, h in hashes:
            earlier.setdefault(t, []).append(h)
    rep.tasks = len(tasks)
    return rep


def _check_row(rep, name, split, row, ids, per_task, hashes) -> None:
    where = f"{name}: {row['instance_id']}"
    if row["split"] != split:
        rep.problems.append(f"{where}: split column says {row['split']!r}, file belongs to {split!r}")
    if row["instance_id"] in ids:
        rep.problems.append(f"{where}: duplicate instance id within split {split}")
    ids.add(row["instance_id"])
    per_task[row["task"]] += 1
    png = row["image"]["bytes"]
    try:
        trace = json.loads(row["trace"])
        label = json.loads(row["label"])
        answer = json.loads(row["answer"])
        witness = json.loads(row["witness"])
    except ValueError:
        rep.problems.append(f"{where}: a JSON column does not parse")
        return
    if hashlib.sha256(png).hexdigest() != trace["hashes"]["image"]:
        rep.problems.append(f"{where}: image bytes differ from the trace's image hash")
        return
    try:
        rgb = decode_png_rgb(png)
    except Exception:  # noqa: BLE001
        rep.problems.append(f"{where}: image does not decode")
        return
    if dhash(rgb) != row["phash"]:
        rep.problems.append(f"{where}: phash column does not match the image")
    hashes.append((row["task"], row["phash"]))
    r = trace["render"]
    for reason in run_gates(GateInput(png, row["prompt"], answer, label, witness, r["width"], r["height"], rgb)):
        rep.problems.append(f"{where}: gate failed: {reason}")
