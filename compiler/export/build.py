"""`tessera build`: a task-uniform, gated, parallel, resumable dataset build.

Layout of a finished dataset:
    DIR/manifest.json                                written last: its presence marks a finished dataset
    DIR/data/<split>-<k:05d>-of-<n:05d>.parquet      shards, each renamed into place only when complete
    DIR/jsonl/<split>-<k>-of-<n>.jsonl + DIR/images/<split>/<id>.png   (optional)
While a build runs, DIR/.tessera-build/ holds its config hash and per-shard statistics, so an interrupted build
resumes where it stopped and finishes with exactly the bytes of an uninterrupted one.

Every row is a pure function of (config, taxonomy, versions): the parent only orders results and writes, so the
output is the same for any worker count, and for a Ray cluster.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import SamplingFailed, TesseraError
from ..trace.instance import canonical_json, generate, versions
from ..validate.gates import GateInput, run_gates
from ..validate.phash import dhash, nearest_distance
from .config import BuildConfig
from .rows import instance_row, read_rows, shard_name, write_shard

MANIFEST = "manifest.json"
STATE_DIR = ".tessera-build"
DATASET_FORMAT = "tessera.dataset/1"


class BuildFailed(TesseraError):
    pass


@dataclass(frozen=True)
class Item:
    split: str
    split_index: int
    task: str
    index: int
    level: int
    query: tuple  # ((name, value), ...) — hashable and picklable
    dataset_seed: int
    image_scale: float = 1.0


@dataclass
class ItemResult:
    item: Item
    row: dict | None
    rejections: dict[str, int]
    retries: dict[str, int]
    attempts: int
    seconds: float
    error: str = ""


def item_seed(item: Item, attempt: int) -> int:
    key = f"tessera/build/{item.dataset_seed}/{item.split}/{item.task}/{item.index}/{attempt}"
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") >> 1


def plan(config: BuildConfig, taxonomy) -> dict[str, list[Item]]:
    """Items per split, interleaved across tasks (i-th instance of every task, then the next), so each shard mixes
    tasks. Within a task, instance i takes query i mod |queries| and cycles through the levels, so queries and
    levels are exactly balanced; a query value never gives its task more rows."""
    out: dict[str, list[Item]] = {}
    for si, (split, per_task) in enumerate(config.counts.items()):
        items = []
        for i in range(max(per_task.values(), default=0)):
            for tid in config.tasks:
                if i >= per_task[tid]:
                    continue
                space = taxonomy.tasks[tid].query_space()
                levels = config.levels[tid]
                query = space[i % len(space)]
                level = levels[(i // len(space)) % len(levels)]
                items.append(Item(split, si, tid, i, level, tuple(query.items()), config.spec.seed,
                                  config.spec.image.scale))
        out[split] = items
    return out


# -- the worker side ------------------------------------------------------------------------------------------
_WORKER: dict = {}


def init_worker(root: str, reject_hashes: dict[str, list[bytes]], near_bits: int, max_retries: int) -> None:
    """reject_hashes: task → image hashes of that task in earlier splits (a later split keeps away from them)."""
    from ..taxonomy import compile_taxonomy

    if _WORKER.get("root") != root:
        _WORKER["taxonomy"] = compile_taxonomy(root)
        _WORKER["root"] = root
    _WORKER.update(reject=reject_hashes, bits=near_bits, retries=max_retries)


def build_item(item: Item) -> ItemResult:
    """Generate, gate and hash one item, retrying with fresh seeds; everything expensive happens here."""
    tax = _WORKER["taxonomy"]
    task = tax.tasks[item.task]
    rejections: Counter = Counter()
    retries: Counter = Counter()
    start = time.perf_counter()
    last = ""
    for attempt in range(_WORKER["retries"] + 1):
        try:
            inst = generate(task, item_seed(item, attempt), item.level, dict(item.query), tax.vocab,
                            image_scale=item.image_scale)
        except SamplingFailed as exc:
            rejections["sampling_failed"] += 1
            last = str(exc)
            continue
        retries.update(inst.stats["rejections"])
        r = inst.trace["render"]
        gate_input = GateInput(inst.png, inst.prompt, inst.answer, inst.label, inst.witness, r["width"], r["height"],
                               inst.rgb)
        reasons = run_gates(gate_input)
        if reasons:
            rejections.update(reasons)
            last = ", ".join(reasons)
            continue
        h = dhash(inst.rgb, gate_input.gray())
        if item.split_index > 0 and nearest_distance(h, _WORKER["reject"].get(item.task, [])) <= _WORKER["bits"]:
            rejections["near_duplicate_of_earlier_split"] += 1
            last = "near duplicate of an earlier split"
            continue
        return ItemResult(item, instance_row(inst, item.split, h), dict(rejections), dict(retries), attempt + 1,
                          time.perf_counter() - start)
    return ItemResult(item, None, dict(rejections), dict(retries), _WORKER["retries"] + 1,
                      time.perf_counter() - start, last)


def build_shard_items(items: list[Item]) -> list[ItemResult]:
    return [build_item(it) for it in items]


# -- the parent side ------------------------------------------------------------------------------------------
@dataclass
class TaskStats:
    accepted: int = 0
    rejected: Counter = field(default_factory=Counter)
    retries: Counter = field(default_factory=Counter)
    attempts: int = 0
    seconds: float = 0.0
    failed_items: int = 0

    def add(self, res: ItemResult) -> None:
        self.accepted += res.row is not None
        self.failed_items += res.row is None
        self.rejected.update(res.rejections)
        self.retries.update(res.retries)
        self.attempts += res.attempts
        self.seconds += res.seconds

    def to_json(self) -> dict:
        return {"accepted": self.accepted, "rejected": dict(sorted(self.rejected.items())),
                "retries": dict(sorted(self.retries.items())), "attempts": self.attempts}

    @property
    def reject_rate(self) -> float:
        return sum(self.rejected.values()) / self.attempts if self.attempts else 0.0


@dataclass
class BuildResult:
    out: Path
    manifest: dict
    stats: dict[str, TaskStats]
    resumed_shards: int
    seconds: float
    already_complete: bool = False


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _write_json_atomic(path: Path, value) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(value, indent=2, sort_keys=True) + "\n")
    tmp.replace(path)


def build(config: BuildConfig, taxonomy, out: Path, workers: int = 1, ray_address: str | None = None,
          use_ray: bool = False, progress=None) -> BuildResult:
    t0 = time.perf_counter()
    out = Path(out)
    data = out / "data"
    state = out / STATE_DIR
    manifest_path = out / MANIFEST
    if manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
        if manifest.get("config_sha256") == config.sha256:
            return BuildResult(out, manifest, {}, 0, time.perf_counter() - t0, already_complete=True)
        raise TesseraError(f"{out} already holds a finished dataset of another build config "
                           f"('{manifest.get('build')}'); choose a new --out folder")
    if out.exists() and any(out.iterdir()) and not (state / "config.json").exists():
        raise TesseraError(f"{out} exists and is not a Tessera build folder; choose an empty or new --out folder")
    if (state / "config.json").exists():
        old = json.loads((state / "config.json").read_text())
        if old.get("config_sha256") != config.sha256:
            raise TesseraError(f"{out} holds an unfinished build of another config ('{old.get('build')}'); "
                               f"finish it with that config or choose a new --out folder")
    (state / "shards").mkdir(parents=True, exist_ok=True)
    data.mkdir(parents=True, exist_ok=True)
    _write_json_atomic(state / "config.json", {"build": config.spec.build, "config_sha256": config.sha256})
    for stale in list(data.glob(".*.tmp")) + list(state.glob("shards/.*.tmp")) + list(out.glob("jsonl/.*.tmp")):
        stale.unlink()

    items_by_split = plan(config, taxonomy)
    stats: dict[str, TaskStats] = defaultdict(TaskStats)
    earlier_hashes: dict[str, list[bytes]] = defaultdict(list)  # task → image hashes in earlier splits
    files: dict[str, list[dict]] = {}
    failures: list[ItemResult] = []
    resumed = 0
    total_items = sum(len(v) for v in items_by_split.values())
    job = progress.add_task("building", total=total_items) if progress else None

    for split, items in items_by_split.items():
        size = config.spec.shard_size
        nshards = math.ceil(len(items) / size) if items else 0
        names = [shard_name(split, k, nshards) for k in range(nshards)]
        shard_items = [items[k * size:(k + 1) * size] for k in range(nshards)]
        split_hashes: list[tuple[str, bytes]] = []
        todo = []
        for k, name in enumerate(names):
            if (data / name).exists() and (state / "shards" / f"{name}.json").exists():
                resumed += 1
                split_hashes.extend((r["task"], r["phash"]) for r in read_rows(data / name, ["task", "phash"]))
                _absorb_stats(stats, json.loads((state / "shards" / f"{name}.json").read_text()))
                if progress:
                    progress.advance(job, len(shard_items[k]))
            else:
                todo.append(k)
        reject = {t: list(hs) for t, hs in earlier_hashes.items()}
        results_per_shard = _run(config, taxonomy, [shard_items[k] for k in todo], reject, workers, use_ray,
                                 ray_address, progress, job)
        for k, results in zip(todo, results_per_shard):
            shard_stats: dict[str, TaskStats] = defaultdict(TaskStats)
            for res in results:
                shard_stats[res.item.task].add(res)
                if res.row is None:
                    failures.append(res)
            if any(r.row is None for r in results):
                _absorb_stats(stats, {t: s.to_json() for t, s in shard_stats.items()})
                continue
            rows = [r.row for r in results]
            _write_json_atomic(state / "shards" / f"{names[k]}.json", {t: s.to_json() for t, s in shard_stats.items()})
            if config.spec.jsonl:
                _write_jsonl(out, split, names[k], rows)
            write_shard(rows, data / names[k])
            split_hashes.extend((r["task"], r["phash"]) for r in rows)
            _absorb_stats(stats, {t: s.to_json() for t, s in shard_stats.items()})
            for res in results:
                stats[res.item.task].seconds += res.seconds
        for tid, h in split_hashes:
            earlier_hashes[tid].append(h)
        files[split] = [{"name": n} for n in names]

    bad_rate = {t: s.reject_rate for t, s in stats.items() if s.reject_rate > config.spec.max_reject_rate}
    if failures or bad_rate:
        raise BuildFailed(_failure_report(failures, bad_rate, stats, config))

    manifest = _manifest(config, taxonomy, out, files, stats, items_by_split)
    _write_json_atomic(manifest_path, manifest)
    shutil.rmtree(state, ignore_errors=True)
    return BuildResult(out, manifest, dict(stats), resumed, time.perf_counter() - t0)


def _absorb_stats(stats: dict[str, TaskStats], shard: dict) -> None:
    for tid, s in shard.items():
        st = stats[tid]
        st.accepted += s["accepted"]
        st.rejected.update(s["rejected"])
        st.retries.update(s["retries"])
        st.attempts += s["attempts"]


def _run(config, taxonomy, shards: list[list[Item]], reject, workers, use_ray, ray_address, progress, job):
    """Results for each shard, in item order."""
    if not shards:
        return []
    root = str(taxonomy.root)
    args = (root, reject, config.spec.near_duplicate_bits, config.spec.max_retries)
    if use_ray:
        from .ray_backend import run_shards

        return run_shards(shards, args, ray_address, progress, job)
    flat = [it for shard in shards for it in shard]
    results: list[ItemResult] = []
    if workers <= 1:
        init_worker(*args)
        for it in flat:
            results.append(build_item(it))
            if progress:
                progress.advance(job)
    else:
        import multiprocessing as mp

        ctx = mp.get_context("fork" if hasattr(os, "fork") else "spawn")
        with ctx.Pool(workers, initializer=init_worker, initargs=args) as pool:
            for res in pool.imap(build_item, flat, chunksize=2):
                results.append(res)
                if progress:
                    progress.advance(job)
    out, pos = [], 0
    for shard in shards:
        out.append(results[pos:pos + len(shard)])
        pos += len(shard)
    return out


def _write_jsonl(out: Path, split: str, shard: str, rows: list[dict]) -> None:
    images = out / "images" / split
    images.mkdir(parents=True, exist_ok=True)
    (out / "jsonl").mkdir(exist_ok=True)
    lines = []
    for r in rows:
        (images / f"{r['instance_id']}.png").write_bytes(r["image"]["bytes"])
        rec = {k: v for k, v in r.items() if k not in ("image", "trace", "phash")}
        rec["phash"] = r["phash"].hex()
        rec["image"] = f"images/{split}/{r['instance_id']}.png"
        lines.append(canonical_json(rec))
    target = out / "jsonl" / shard.replace(".parquet", ".jsonl")
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.write_text("\n".join(lines) + "\n")
    tmp.replace(target)


def _manifest(config: BuildConfig, taxonomy, out: Path, files, stats, items_by_split) -> dict:
    splits = {}
    for split, entries in files.items():
        listed = []
        for e in entries:
            path = out / "data" / e["name"]
            listed.append({"name": f"data/{e['name']}", "sha256": _sha256_file(path), "bytes": path.stat().st_size,
                           "rows": len(list(read_rows(path, ["instance_id"])))})
        per_task = Counter(it.task for it in items_by_split[split])
        splits[split] = {"rows": sum(f["rows"] for f in listed), "files": listed,
                         "per_task": dict(sorted(per_task.items()))}
    ids: dict[str, set] = {}
    for split, entries in splits.items():
        ids[split] = {r["instance_id"] for f in entries["files"] for r in read_rows(out / f["name"], ["instance_id"])}
    names = list(ids)
    shared = {f"{a}/{b}": len(ids[a] & ids[b]) for i, a in enumerate(names) for b in names[i + 1:]}
    return {
        "format": DATASET_FORMAT, "build": config.spec.build, "summary": config.spec.summary,
        "config": config.spec.model_dump(mode="json"), "config_sha256": config.sha256, "seed": config.spec.seed,
        "taxonomy": {"name": taxonomy.name, "version": taxonomy.version,
                     "tasks": {t: taxonomy.tasks[t].spec_hash for t in config.tasks}},
        "versions": versions(), "splits": splits,
        "tasks": {t: stats[t].to_json() for t in sorted(stats)},
        "split_overlap": {"shared_instance_ids": shared,
                          "near_duplicate_bits": config.spec.near_duplicate_bits,
                          "rule": "every image of a later split is more than near_duplicate_bits (256-bit dHash "
                                  "Hamming distance) from every image of the same task in earlier splits"},
    }


def _failure_report(failures: list[ItemResult], bad_rate: dict, stats, config) -> str:
    lines = ["the build did not finish; finished shards are kept and a rerun resumes after the fix:"]
    for tid, rate in sorted(bad_rate.items()):
        reasons = ", ".join(f"{k} ×{v}" for k, v in stats[tid].rejected.most_common(4))
        lines.append(f"  {tid}: {rate:.0%} of attempts rejected (limit {config.spec.max_reject_rate:.0%}): {reasons}")
    by_task = Counter(f.item.task for f in failures)
    for tid, n in sorted(by_task.items()):
        example = next(f for f in failures if f.item.task == tid)
        lines.append(f"  {tid}: {n} item(s) found no acceptable instance in {config.spec.max_retries + 1} seeds; "
                     f"last reason: {example.error}")
    return "\n".join(lines)
