"""`tessera build`: a task-uniform, gated, parallel, resumable dataset build.

The layout of a finished dataset is tessera.dataset.layout's. While a build runs, its state folder holds its config
hash and per-shard statistics, so an interrupted build resumes where it stopped and finishes with exactly the bytes
of an uninterrupted one.

Every row is a pure function of (config, taxonomy, versions): the parent only orders results and writes, so the
output is the same for any worker count, and for a Ray cluster.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import signal
import threading
import time
from collections import Counter, defaultdict
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..dataset.card import write_card
from ..dataset.layout import (DATA_DIR, DATASET_FORMAT, IMAGES_DIR, JSONL_DIR, MANIFEST, STATE_DIR, jsonl_name,
                              shard_name, shard_name_split)
from ..dataset.phash import dhash, nearest_distance
from ..dataset.provenance import TASK_PARTS, Fingerprint, differences, fingerprint, read_record, record_sha256
from ..dataset.rows import instance_row, leak_key, read_rows, write_file_atomic, write_shard
from ..errors import SamplingFailed, TesseraError
from ..trace.loop import generate
from ..trace.record import canonical_json, versions
from ..trace.target import BALANCE_REJECTION
from ..validate.gates import GateInput, run_gates
from .config import BalanceSpec, BuildConfig, options_only_rules


class BuildFailed(TesseraError):
    pass


class WorkerDied(BuildFailed):
    pass


class StaleOutput(BuildFailed):
    """--out holds rows made from other inputs (config, code, versions or task specs); reusing them would mix."""


class BuildInterrupted(KeyboardInterrupt):
    """Ctrl-C during a build; the message says what was kept and how to resume (the CLI exits 130)."""


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
    answer_format: str | None = None  # the build's override of each contract's convention
    variety: str = "none"  # the build's visual variety (none, mild, strong)
    balance: str | None = None  # canonical JSON of the item's balance target (export.balance); None: unbalanced


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


def plan(config: BuildConfig, taxonomy, workers: int = 1) -> dict[str, list[Item]]:
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
                                  config.spec.image.scale, config.spec.answer_format, config.spec.variety))
        out[split] = items
    rules = options_only_rules(config.spec)
    if config.spec.balance is not None or rules:
        from .balance import assign_targets

        policy = config.spec.balance or BalanceSpec()
        out = assign_targets(out, taxonomy, policy, config.spec.seed, rules, workers)
    return out


# seeds an item tries with its target before it gives the target up (a class its level cannot produce)
TARGET_SEEDS = 5


# -- the worker side ------------------------------------------------------------------------------------------
_WORKER: dict = {}


def init_worker(root: str, reject_hashes: dict[str, list[bytes]], near_bits: int, max_retries: int,
                expected: dict | None = None) -> None:
    """reject_hashes: leak_key(task, answer) → image hashes in earlier splits (a later split keeps away from them).
    expected: the build's code hash and task inputs; a worker that compiles the library itself (spawn, Ray)
    checks it built the same, so an edit made while the build runs cannot slip into some of its rows."""
    from ..taxonomy import open_taxonomy

    if _WORKER.get("root") != root:
        _WORKER["taxonomy"] = open_taxonomy(root)  # each task compiles when the worker first builds one
        _WORKER["root"] = root
        _WORKER["stale"] = _stale_worker(expected, _WORKER["taxonomy"]) if expected else ""
    _WORKER.update(reject=reject_hashes, bits=near_bits, retries=max_retries)


def _adopt(taxonomy) -> None:
    """The parent's compiled taxonomy is the one the build's fingerprint describes; forked workers inherit it."""
    _WORKER.update(taxonomy=taxonomy, root=str(taxonomy.root), stale="")


def _stale_worker(expected: dict, taxonomy) -> str:
    from ..dataset.provenance import code_sha256, component_hashes, task_parts

    if code_sha256() != expected["code"]:
        return "a worker runs other tessera code or library versions than the build's parent"
    from ..errors import CompileFailed

    components = component_hashes(Path(taxonomy.root))

    def differs(t: str, parts: dict) -> bool:
        try:
            return t not in taxonomy.tasks or task_parts(taxonomy.tasks[t], taxonomy, components) != parts
        except CompileFailed:  # edited into a mistake since the parent compiled it
            return True

    changed = [t for t, parts in expected["tasks"].items() if differs(t, parts)]
    if changed:
        return (f"the library changed while the build ran (tasks {', '.join(changed[:5])}"
                f"{' …' if len(changed) > 5 else ''}); rerun the build when the edit is done")
    return ""


def _pool_worker_init(parent: int, *args) -> None:
    # Ctrl-C reaches the whole process group: only the parent acts on it (it stops the pool and says so).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _exit_with_parent(parent)
    init_worker(*args)


def _exit_with_parent(parent: int, every: float = 0.5) -> None:
    """A parent killed with -9 cannot stop its workers, and they would wait on the pool's pipes forever. (`parent`
    comes from the parent: one that died before this ran has already been replaced by the reaper here.)"""
    import threading

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os._exit(1)

    threading.Thread(target=watch, name="tessera-parent-watch", daemon=True).start()


def build_item(item: Item) -> ItemResult:
    """Generate, gate and hash one item, retrying with fresh seeds; everything expensive happens here."""
    if _WORKER.get("stale"):
        raise BuildFailed(_WORKER["stale"])
    tax = _WORKER["taxonomy"]
    task = tax.tasks[item.task]
    rejections: Counter = Counter()
    retries: Counter = Counter()
    start = time.perf_counter()
    last = ""
    balance = json.loads(item.balance) if item.balance else None
    near_while_chasing = False
    for attempt in range(_WORKER["retries"] + 1):
        chasing = bool(balance and "target" in balance)
        # A target narrows the states an item can have; where that leaves only images like an earlier split's,
        # the split's diversity wins over its balance.
        if chasing and (attempt == TARGET_SEEDS or near_while_chasing):
            # Deterministic like everything here: the row says (no target in its trace) and the manifest counts it.
            balance = {k: v for k, v in balance.items() if k != "target"} or None
            retries["balance:target_given_up"] += 1
            chasing = False
        try:
            inst = generate(task, item_seed(item, attempt), item.level, dict(item.query), tax.vocab,
                            image_scale=item.image_scale, answer_format=item.answer_format,
                            variety=item.variety, balance=balance)
        except SamplingFailed as exc:
            if chasing and BALANCE_REJECTION in str(exc):
                retries["balance:target_unmet"] += 1  # no state in its target class: a retry of the balance
            else:
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
        row = instance_row(inst, item.split, h)
        if item.split_index > 0 and nearest_distance(h, _WORKER["reject"].get(leak_key(item.task, row["answer"]), [])) \
                <= _WORKER["bits"]:
            rejections["near_duplicate_of_earlier_split"] += 1
            near_while_chasing = chasing
            last = "near duplicate of an earlier split"
            continue
        return ItemResult(item, row, dict(rejections), dict(retries), attempt + 1, time.perf_counter() - start)
    return ItemResult(item, None, dict(rejections), dict(retries), _WORKER["retries"] + 1,
                      time.perf_counter() - start, last)


def build_shard_items(items: list[Item]) -> list[ItemResult]:
    return [build_item(it) for it in items]


def _ray_shard(args, items: list[Item]) -> list[ItemResult]:
    """One shard as a Ray task (export.ray_backend): the worker compiles the taxonomy once per Ray process."""
    init_worker(*args)
    return build_shard_items(items)


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
    write_file_atomic(path, (json.dumps(value, indent=2, sort_keys=True) + "\n").encode())


def _read_json(path: Path, what: str):
    try:
        return json.loads(path.read_text())
    except ValueError as exc:
        raise TesseraError(f"{path}: {what} is not valid JSON ({exc}); if the folder was damaged, "
                           f"choose a new --out folder") from None


@dataclass
class _Shard:
    split: str
    index: int
    name: str
    items: list[Item]

    @property
    def tasks(self) -> list[str]:
        return sorted({it.task for it in self.items})


def build(config: BuildConfig, taxonomy, out: Path, workers: int = 1, ray_address: str | None = None,
          use_ray: bool = False, progress=None, discard_stale: bool = False) -> BuildResult:
    """discard_stale: where an unfinished build in `out` was made from other inputs (an edited task, config or code,
    another set of tasks), delete the shards that cannot be kept and build them again, instead of refusing."""
    t0 = time.perf_counter()
    out = Path(out)
    data = out / DATA_DIR
    state = out / STATE_DIR
    manifest_path = out / MANIFEST
    fp = fingerprint(config, taxonomy)
    if manifest_path.exists():
        manifest = _read_json(manifest_path, "the manifest")
        if not isinstance(manifest, dict) or manifest.get("config_sha256") != config.sha256:
            raise StaleOutput(f"{out} already holds a finished dataset of another build config "
                               f"('{manifest.get('build') if isinstance(manifest, dict) else '?'}'); "
                               f"choose a new --out folder")
        built = {"config_sha256": manifest.get("config_sha256"), "code_sha256": manifest.get("code_sha256"),
                 "versions": manifest.get("versions"), "tasks": (manifest.get("taxonomy") or {}).get("inputs")}
        whole, tasks = differences(built, fp, config.tasks)
        gone = sorted(set(built["tasks"] or {}) - set(config.tasks))
        if gone:  # the dataset holds rows of a task this build no longer makes
            whole.append(_tasks_changed(gone, []))
        if whole or tasks:
            what = whole + [f"task {t}: its {', '.join(parts)} changed" for t, parts in sorted(tasks.items())]
            raise StaleOutput(f"{out} already holds a finished dataset of this config, but built from other "
                               f"inputs ({'; '.join(what[:10])}{' …' if len(what) > 10 else ''}); to build it "
                               f"again, choose a new --out folder (or delete {out})")
        return BuildResult(out, manifest, {}, 0, time.perf_counter() - t0, already_complete=True)
    if out.exists() and any(out.iterdir()) and not state.is_dir():
        raise TesseraError(f"{out} exists and is not a Tessera build folder; choose an empty or new --out folder")
    if (state / "config.json").exists():
        old = _read_json(state / "config.json", "the build state")
        changed = _plan_changes(old if isinstance(old, dict) else {}, config)
        if changed and not discard_stale:
            raise StaleOutput("\n".join([
                f"{out} holds an unfinished build made from other inputs; resuming would mix old and new rows, so "
                f"the build stops:", *(f"  {c}" for c in changed),
                f"to finish that build, rerun with its config and library; to throw its shards away and build this "
                f"one here, rerun with --discard-stale; or build into a fresh --out folder"]))
        if changed:  # every shard there belongs to the other plan
            for folder in (data, out / JSONL_DIR, out / IMAGES_DIR, state / "shards"):
                shutil.rmtree(folder, ignore_errors=True)
    items_by_split = plan(config, taxonomy, workers if not use_ray else 1)
    shards_by_split = {split: _shards(split, items, config.spec.shard_size) for split, items in items_by_split.items()}
    reusable = _check_resume(out, fp, taxonomy, [sh for shards in shards_by_split.values() for sh in shards],
                             discard_stale)

    # The state folder first: it marks the folder as a build's (a failure right after must not make it foreign).
    state.mkdir(parents=True, exist_ok=True)
    _write_json_atomic(state / "config.json", {"build": config.spec.build, "config_sha256": config.sha256,
                                               "code_sha256": fp.code_sha256, "config": config.spec.recorded(),
                                               "tasks": config.tasks})
    (state / "shards").mkdir(exist_ok=True)
    data.mkdir(exist_ok=True)
    for stale in list(data.glob(".*.tmp")) + list(state.glob("shards/.*.tmp")) + list(out.glob("jsonl/.*.tmp")) + \
            list(state.glob(".*.tmp")) + list(out.glob(".README.md.tmp")):
        stale.unlink()

    stats: dict[str, TaskStats] = defaultdict(TaskStats)
    earlier_hashes: dict[str, list[bytes]] = defaultdict(list)  # leak_key → image hashes in earlier splits
    files: dict[str, list[dict]] = {}
    failures: list[ItemResult] = []
    resumed = written = 0
    total_items = sum(len(v) for v in items_by_split.values())
    job = progress.add_task("building", total=total_items) if progress else None

    try:
        for split, shards in shards_by_split.items():
            split_hashes: list[tuple[str, bytes]] = []
            todo = []
            for sh in shards:
                if sh.name in reusable:
                    resumed += 1
                    split_hashes.extend((leak_key(r["task"], r["answer"]), r["phash"])
                                        for r in read_rows(data / sh.name, ["task", "answer", "phash"]))
                    _absorb_stats(stats, reusable[sh.name])
                    if progress:
                        progress.advance(job, len(sh.items))
                else:
                    todo.append(sh)
            reject = {t: list(hs) for t, hs in earlier_hashes.items()}
            # Each shard is written as soon as its items are in, so a failure later keeps it.
            runner = _run(config, taxonomy, fp, todo, reject, workers, use_ray, ray_address, progress, job)
            with closing(runner):  # an error while writing stops the workers at once
                for sh, results in runner:
                    shard_stats: dict[str, TaskStats] = defaultdict(TaskStats)
                    for res in results:
                        shard_stats[res.item.task].add(res)
                        if res.row is None:
                            failures.append(res)
                    if any(r.row is None for r in results):
                        _absorb_stats(stats, {t: s.to_json() for t, s in shard_stats.items()})
                        continue
                    rows = [r.row for r in results]
                    _write_json_atomic(state / "shards" / f"{sh.name}.json",
                                       {t: s.to_json() for t, s in shard_stats.items()})
                    if config.spec.jsonl:
                        _write_jsonl(out, split, sh.name, rows)
                    write_shard(rows, data / sh.name, fp.record(sh.tasks))
                    written += 1
                    split_hashes.extend((leak_key(r["task"], r["answer"]), r["phash"]) for r in rows)
                    _absorb_stats(stats, {t: s.to_json() for t, s in shard_stats.items()})
                    for res in results:
                        stats[res.item.task].seconds += res.seconds
            for key, h in split_hashes:
                earlier_hashes[key].append(h)
            files[split] = [{"name": sh.name} for sh in shards]
    except WorkerDied as exc:
        raise WorkerDied(f"{exc}; {_kept(out, resumed + written)}\n{_DEATH_HINT}") from None
    except KeyboardInterrupt:
        raise BuildInterrupted(f"the build stopped; {_kept(out, resumed + written)}") from None

    bad_rate = {t: s.reject_rate for t, s in stats.items() if s.reject_rate > config.spec.max_reject_rate}
    if failures or bad_rate:
        raise BuildFailed(_failure_report(failures, bad_rate, stats, config))

    if config.spec.jsonl:
        _drop_orphans(out, files)
    manifest = _manifest(config, taxonomy, fp, out, files, stats, items_by_split)
    manifest["card"] = write_card(out, manifest, taxonomy)  # README.md before the manifest, which hashes it
    _write_json_atomic(manifest_path, manifest)  # last: its presence marks the dataset finished
    shutil.rmtree(state, ignore_errors=True)
    return BuildResult(out, manifest, dict(stats), resumed, time.perf_counter() - t0)


def _kept(out: Path, shards: int) -> str:
    return (f"{shards} finished shard(s) are kept in {out}; rerun the same command to resume" if shards else
            "no shard was finished yet; rerun the same command to start again")


def _shards(split: str, items: list[Item], size: int) -> list[_Shard]:
    n = math.ceil(len(items) / size) if items else 0
    return [_Shard(split, k, shard_name(split, k, n), items[k * size:(k + 1) * size]) for k in range(n)]


def _short(h) -> str:
    return f"{h[:12]}…" if isinstance(h, str) else "none"


def _tasks_changed(gone: list[str], new: list[str]) -> str:
    parts = []
    if gone:
        parts.append(f"task(s) {', '.join(gone[:10])}{' …' if len(gone) > 10 else ''} no longer in the build "
                     f"(removed from the library, or no longer selected)")
    if new:
        parts.append(f"task(s) {', '.join(new[:10])}{' …' if len(new) > 10 else ''} new to the build")
    return "the build's tasks changed: " + "; ".join(parts)


def _plan_changes(old: dict, config: BuildConfig) -> list[str]:
    """What differs between an unfinished build's state and this build: its config, or the tasks its config
    selects (a task added to or removed from the library changes which rows every shard holds, not the config)."""
    changed = []
    if old.get("config_sha256") != config.sha256:
        was, now = old.get("config"), config.spec.recorded()
        keys = sorted(k for k in set(was) | set(now) if was.get(k) != now.get(k)) if isinstance(was, dict) else []

        def shown(k: str) -> str:  # a scalar with its values, a table by its key
            a, b = was.get(k), now.get(k)
            scalar = all(isinstance(v, (str, int, float, bool)) or v is None for v in (a, b))
            return f"{k} {json.dumps(a)[:40]} → {json.dumps(b)[:40]}" if scalar else k

        named = f"{', '.join(shown(k) for k in keys)}; " if keys else ""
        changed.append(f"the build config changed ({named}config sha256 {_short(old.get('config_sha256'))} → "
                       f"{_short(config.sha256)})")
    elif isinstance(old.get("tasks"), list) and old["tasks"] != config.tasks:
        changed.append(_tasks_changed(sorted(set(old["tasks"]) - set(config.tasks)),
                                      sorted(set(config.tasks) - set(old["tasks"]))))
    return changed


def _part_source(taxonomy, task: str, part: str) -> str:
    """Where an author changes `part` of `task`: what a refusal names beside the hashes."""
    t = taxonomy.tasks[task]
    return {"program": str(t.source), "grammar": str(t.grammar.source), "contract": f"contract {t.contract.id}",
            "components": "the components its scene uses", "vocab": "the vocabulary"}.get(part, part)


def _check_resume(out: Path, fp: Fingerprint, taxonomy, shards: list[_Shard],
                  discard_stale: bool = False) -> dict[str, dict]:
    """Finished shards of an interrupted build that this build may keep (name → their statistics). A shard built
    from other specs, code or versions, or not in this build's plan at all, is refused with the tasks, files and
    hashes named: keeping it would mix rows. With `discard_stale`, such shards are deleted and built again."""
    data, state = out / DATA_DIR, out / STATE_DIR / "shards"
    reusable: dict[str, dict] = {}
    whole: dict[str, list[str]] = defaultdict(list)  # what differs → shards
    changed: dict[str, dict] = defaultdict(dict)  # task → part → (old hash, new hash)
    stale: dict[str, list[str]] = defaultdict(list)  # task → shards holding its old rows
    planned = {sh.name for sh in shards}
    if data.is_dir():  # a finished shard of another plan (other tasks or counts) would sit beside this build's
        for path in sorted(data.iterdir()):
            if shard_name_split(path.name) is not None and path.name not in planned:
                whole["not a shard of this build's plan (the selected tasks or their counts changed)"].append(
                    path.name)
    for sh in shards:
        if not (data / sh.name).exists() or not (state / f"{sh.name}.json").exists():
            continue  # not finished: rebuilt
        try:
            shard_stats = json.loads((state / f"{sh.name}.json").read_text())
        except ValueError:
            continue  # damaged statistics: rebuilt (the shard is rewritten whole)
        record = read_record(data / sh.name)
        if record is None:
            whole["no build record: written by an older tessera, or damaged"].append(sh.name)
            continue
        what, tasks = differences(record, fp, sh.tasks)
        if set(record.get("tasks") or {}) != set(sh.tasks):
            what.append("its tasks differ from this build's")
        for w in what:
            whole[w].append(sh.name)
        was = record.get("tasks") if isinstance(record.get("tasks"), dict) else {}
        for t, parts in tasks.items():
            for p in parts:
                old = was.get(t).get(p) if isinstance(was.get(t), dict) else None
                changed[t][p] = (old, fp.tasks[t].get(p))
            stale[t].append(sh.name)
        if not what and not tasks:
            reusable[sh.name] = shard_stats
    if not whole and not changed:
        return reusable
    named = sorted({n for names in list(whole.values()) + list(stale.values()) for n in names})
    if discard_stale:
        for n in named:
            _discard_shard(out, n)
        return reusable
    lines = [f"{out} holds finished shards of an interrupted build made from other inputs; resuming would mix "
             f"old and new rows, so the build stops:"]
    for what, names in sorted(whole.items()):
        lines.append(f"  {what} ({len(names)} shard(s))")
    for t in sorted(changed):
        for p, (old, new) in sorted(changed[t].items()):
            if p not in TASK_PARTS:  # the record does not list the task at all
                lines.append(f"  task {t}: {p} ({len(stale[t])} shard(s))")
                continue
            lines.append(f"  task {t}: its {p} changed ({_part_source(taxonomy, t, p)}: sha256 {_short(old)} → "
                         f"{_short(new)}; {len(stale[t])} shard(s))")
    listed = " ".join(str(data / n) for n in named[:20])
    more = f" … and {len(named) - 20} more" if len(named) > 20 else ""
    lines.append(f"to rebuild only those, rerun with --discard-stale (or delete them and rerun: rm {listed}{more})")
    lines.append("or build into a fresh --out folder")
    raise StaleOutput("\n".join(lines))


def _discard_shard(out: Path, name: str) -> None:
    """A finished shard that cannot be kept, with its statistics and JSONL (its images go with the orphans)."""
    for path in (out / DATA_DIR / name, out / STATE_DIR / "shards" / f"{name}.json", out / JSONL_DIR / jsonl_name(name)):
        path.unlink(missing_ok=True)


def _absorb_stats(stats: dict[str, TaskStats], shard: dict) -> None:
    for tid, s in shard.items():
        st = stats[tid]
        st.accepted += s["accepted"]
        st.rejected.update(s["rejected"])
        st.retries.update(s["retries"])
        st.attempts += s["attempts"]


def _run(config, taxonomy, fp: Fingerprint, shards: list[_Shard], reject, workers, use_ray, ray_address, progress,
         job):
    """(shard, its results in item order) for each shard, in shard order, as each completes."""
    if not shards:
        return
    _adopt(taxonomy)
    args = (str(taxonomy.root), reject, config.spec.near_duplicate_bits, config.spec.max_retries,
            {"code": fp.code_sha256, "tasks": fp.tasks})
    if use_ray:
        from .ray_backend import run_shards

        yield from zip(shards, run_shards([sh.items for sh in shards], args, ray_address, progress, job, _ray_shard,
                                          WorkerDied))
        return
    flat = [it for sh in shards for it in sh.items]
    with closing(_local_results(flat, args, workers) if workers > 1 else _inline_results(flat, args)) as results:
        for sh in shards:
            done = []
            for _ in sh.items:
                done.append(next(results))
                if progress:
                    progress.advance(job)
            yield sh, done


def _inline_results(flat: list[Item], args):
    init_worker(*args)
    yield from (build_item(it) for it in flat)


def _local_results(flat: list[Item], args, workers: int):
    """Results in item order from a process pool. A worker that dies (kill -9, the OOM killer) breaks the pool at
    once (concurrent.futures notices; multiprocessing.Pool would wait forever) and the build says which one."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    ctx = mp.get_context("fork" if hasattr(os, "fork") else "spawn")
    with _interrupts_deferred():  # a half-made pool (workers forked, none told to stop) would hang the exit
        pool = ProcessPoolExecutor(workers, mp_context=ctx, initializer=_pool_worker_init,
                                   initargs=(os.getpid(), *args))
    processes: dict = {}
    finished = False
    try:
        with _interrupts_deferred():
            it = pool.map(build_item, flat, chunksize=2)
        processes.update(getattr(pool, "_processes", None) or {})  # pid → Process, for the message below
        yield from it
        finished = True
    except BrokenProcessPool:
        processes.update(getattr(pool, "_processes", None) or {})
        # The pool's manager thread is reaping the workers right now; two threads waiting on one pid race (the
        # loser reads no status), so let it finish before the exit codes are read.
        manager = getattr(pool, "_executor_manager_thread", None)
        if manager is not None:
            manager.join(10)
        raise WorkerDied(_death_notice(processes)) from None
    finally:
        with _interrupts_deferred():  # a Ctrl-C in the middle of a shutdown would leave the pool's thread waiting
            if finished:
                pool.shutdown(wait=True)
            else:  # an error, Ctrl-C, or the consumer stopped: stop the workers now, not after their queue drains
                live = list((getattr(pool, "_processes", None) or {}).values())
                pool.shutdown(wait=False, cancel_futures=True)
                for proc in live:
                    if proc.is_alive():
                        proc.terminate()
                for proc in live:
                    proc.join(5)


@contextmanager
def _interrupts_deferred():
    """Hold Ctrl-C (SIGINT) until the block is done, then raise it: starting or stopping a pool is not safe to
    interrupt halfway. Only the main thread can own signal handlers; elsewhere the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if held:
        raise KeyboardInterrupt


def _pid_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def _death_notice(processes: dict) -> str:
    dead, unknown = [], []
    for proc in processes.values():
        proc.join(2)
        code = proc.exitcode
        if code is None and not _pid_exists(proc.pid):
            # Gone, but its status was collected elsewhere: named only when no worker with a known death explains
            # the break (the pool stops the others).
            unknown.append(f"pid {proc.pid}, exit status unknown")
            continue
        if code is None or code == -signal.SIGTERM:  # still running, or stopped by the pool after the death
            continue
        how = f"killed by {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
        dead.append(f"pid {proc.pid}, {how}")
    return f"a build worker process died ({'; '.join(dead or unknown) or 'which one is unknown'}), so the build stopped"


_DEATH_HINT = ("(a worker killed by SIGKILL that nobody killed by hand usually means the machine ran out of "
               "memory: try fewer --workers)")


def _write_jsonl(out: Path, split: str, shard: str, rows: list[dict]) -> None:
    images = out / IMAGES_DIR / split
    images.mkdir(parents=True, exist_ok=True)
    (out / JSONL_DIR).mkdir(exist_ok=True)
    lines = []
    for r in rows:
        png = images / r["image"]["path"]  # <id>.png, or <id>.jpg (variety strong)
        write_file_atomic(png, r["image"]["bytes"])
        rec = {k: v for k, v in r.items() if k not in ("image", "trace", "phash")}
        rec["phash"] = r["phash"].hex()
        rec["image"] = f"{IMAGES_DIR}/{split}/{png.name}"
        lines.append(canonical_json(rec))
    write_file_atomic(out / JSONL_DIR / jsonl_name(shard), ("\n".join(lines) + "\n").encode())


def _drop_orphans(out: Path, files: dict[str, list[dict]]) -> None:
    """A shard left unfinished wrote its images and JSONL before it stopped; rebuilt from an edited task, its rows
    have other ids, and in another plan (a task removed) it has another name. images/ and jsonl/ keep exactly the
    files of the dataset's shards and rows."""
    keep_jsonl = {jsonl_name(e["name"]) for entries in files.values() for e in entries}
    for path in (out / JSONL_DIR).glob("*.jsonl"):
        if path.name not in keep_jsonl:
            path.unlink()
    for split, entries in files.items():
        keep = {r["instance_id"] for e in entries for r in read_rows(out / DATA_DIR / e["name"], ["instance_id"])}
        for png in (out / IMAGES_DIR / split).glob("*"):
            if png.suffix in (".png", ".jpg") and png.stem not in keep:
                png.unlink()


def _manifest(config: BuildConfig, taxonomy, fp: Fingerprint, out: Path, files, stats, items_by_split) -> dict:
    splits = {}
    for split, entries in files.items():
        listed = []
        for e in entries:
            path = out / DATA_DIR / e["name"]
            record = read_record(path)
            listed.append({"name": f"{DATA_DIR}/{e['name']}", "sha256": _sha256_file(path), "bytes": path.stat().st_size,
                           "rows": len(list(read_rows(path, ["instance_id"]))),
                           "spec_sha256": record_sha256(record) if record else None})
        per_task = Counter(it.task for it in items_by_split[split])
        splits[split] = {"rows": sum(f["rows"] for f in listed), "files": listed,
                         "per_task": dict(sorted(per_task.items()))}
    ids: dict[str, set] = {}
    for split, entries in splits.items():
        ids[split] = {r["instance_id"] for f in entries["files"] for r in read_rows(out / f["name"], ["instance_id"])}
    names = list(ids)
    shared = {f"{a}/{b}": len(ids[a] & ids[b]) for i, a in enumerate(names) for b in names[i + 1:]}
    manifest = {
        "format": DATASET_FORMAT, "build": config.spec.build, "summary": config.spec.summary,
        "config": config.spec.recorded(), "config_sha256": config.sha256, "seed": config.spec.seed,
        "variety": config.spec.variety,
        "taxonomy": {"name": taxonomy.name, "version": taxonomy.version,
                     "tasks": {t: taxonomy.tasks[t].spec_hash for t in config.tasks},
                     "inputs": fp.tasks},  # task → hash of each input its rows depend on (provenance.py)
        "versions": versions(), "code_sha256": fp.code_sha256, "splits": splits,
        "tasks": {t: stats[t].to_json() for t in sorted(stats)},
        "split_overlap": {"shared_instance_ids": shared,
                          "near_duplicate_bits": config.spec.near_duplicate_bits,
                          "rule": "every image of a later split is more than near_duplicate_bits (256-bit dHash "
                                  "Hamming distance) from every image of the same task with the same answer in "
                                  "earlier splits"},
    }
    if any(it.balance for items in items_by_split.values() for it in items):
        # what the planner dealt (export.balance); what the rows met is in each trace, what it cost in `tasks`
        dealt: dict = {}
        for split, items in items_by_split.items():
            per: dict = defaultdict(Counter)
            for it in items:
                b = json.loads(it.balance) if it.balance else {}
                per[it.task]["items"] += 1
                per[it.task]["targeted"] += "target" in b
                per[it.task]["options_only_gated"] += "options_only" in b
            dealt[split] = {t: dict(sorted(c.items())) for t, c in sorted(per.items())}
        manifest["balance"] = {"dealt": dealt}
    return manifest


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
