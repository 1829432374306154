"""`tessera export`: prompt sets in the layout OpenRLHF's `--data.prompt_dataset` reads (and verl's and TRL's, below).

Two OpenRLHF formats, both a folder `OUT/` holding `OUT/data/<split>-<k:05d>-of-<n:05d>.parquet` (Hugging Face infers the
splits from those names: `--data.prompt_split train`, `--eval.split validation`) and `OUT/export.json`, written
last, with counts and the flags to pass:

* `openrlhf` (offline, from a `tessera build` dataset): one row per instance —
    prompt      "<image>" + the instance prompt (`--data.input_key prompt --data.apply_chat_template`)
    images      [absolute picture path] (default) or [picture bytes: PNG, or JPEG under variety strong]  (`--data.image_key images --data.max_images_per_prompt 1`)
    label       canonical JSON: the verifier label + task, domain, domain shares (`--data.label_key label`);
                evaluation rows (every split but train) also `eval_weight` (training/reward.py)
    datasource  the domain; `macro` on evaluation rows, so OpenRLHF's eval logs the exact macro accuracy as
                `eval_macro_pass1` (its per-datasource pass1 is a mean of rewards over each datasource)
  plus task, level, seed, instance_id and the typed answer for people reading the shards.
* `openrlhf-online` (for `training/agent.py`, no dataset needed): one row per (task, seed, level) token; the agent
  rebuilds the instance from the seed. Training rows leave the level to the curriculum; validation rows fix it.

OpenRLHF shuffles the prompt set and takes no sampler, so task-uniform sampling is made in the data: every task
gets the same number of rows in each split (the smallest count over the split's tasks, or --rows-per-task).
The export is atomic: it is written under a temporary name and renamed when complete.

`verl` and `trl` (export_trainer) write a built dataset in verl's RL parquet layout and TRL's conversational image
format, with the same checks, quotas and order; training/verl_reward.py and training/trl_reward.py score them.
"""
from __future__ import annotations

import json
import math
import os
import shutil
from collections import Counter
from pathlib import Path

from tessera.errors import TesseraError
from tessera.render.png import image_suffix
from tessera.sample.rng import Rng, derive_seed
from tessera.trace.instance import canonical_json

from .reward import EVAL_DATASOURCE, eval_weights

EXPORT_FORMAT = "tessera.openrlhf/1"
TRAIN_SPLIT = "train"  # every other split is evaluation data: its rows carry eval weights
ROWS_PER_SHARD = 4096
EVAL_SEED_OFFSET = 10**12  # validation rows of the online set draw seeds far from the training rows'
CURRICULUM = "curriculum"  # the level of an online training row: chosen by the curriculum at rollout time
SOURCE_COLUMNS = ("instance_id", "task", "domain", "level", "seed", "prompt", "answer", "label", "image")


def _pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise TesseraError("exporting needs pyarrow: pip install -e '.[train]'") from None
    return pa, pq


# -- reading a built dataset ------------------------------------------------------------------------------------
# A dataset is untrusted input: its manifest and rows are checked (tessera.dataset.untrusted) before any value is
# used, ids name files only after they match the builder's pattern, and images come from the row's bytes — a path in
# a row is never opened, so an export can neither write outside --out nor copy a file into the prompt set.
def read_manifest(dataset: Path) -> dict:
    from tessera.dataset.layout import MANIFEST
    from tessera.dataset.untrusted import read_manifest as read_checked

    if not os.path.lexists(dataset / MANIFEST):
        raise TesseraError(f"{dataset}: no {MANIFEST} (not a finished `tessera build` dataset)")
    return read_checked(dataset)


def _split_files(dataset: Path, split: str, entry: dict) -> list[Path]:
    files = []
    for item in entry["files"]:  # names checked by read_manifest: data/<split>-<k>-of-<n>.parquet
        path = dataset / item["name"]
        if not os.path.lexists(path):
            raise TesseraError(f"{dataset}: shard '{item['name']}' of split '{split}' is listed in the manifest but "
                               "missing")
        files.append(path)
    if not files:
        raise TesseraError(f"{dataset}: split '{split}' lists no files")
    return files


def _iter_rows(dataset: Path, files: list[Path], columns: tuple[str, ...]):
    """Rows of the shards with `columns` checked (ids, types, sizes) and JSON columns parsed; a bad row raises an
    error naming the shard, the row and the field."""
    from tessera.dataset.untrusted import check_row, iter_shard, row_where

    for f in files:
        name = str(f.relative_to(dataset))
        for index, row in iter_shard(f, list(columns), f"{dataset}/{name}"):
            parsed, problems = check_row(row, columns)
            if problems:
                raise TesseraError(f"{dataset}/{row_where(name, index, row)}: {problems[0]}"
                                   + (f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""))
            yield {**row, **{f"{k}_parsed": v for k, v in parsed.items()}}


# -- writing ----------------------------------------------------------------------------------------------------
class _ShardWriter:
    """Rows of one split into `<split>-<k>-of-<n>.parquet`, ROWS_PER_SHARD rows per shard."""

    def __init__(self, folder: Path, split: str, total_rows: int, schema):
        self.folder, self.split, self.schema = folder, split, schema
        self.n_shards = max(1, math.ceil(total_rows / ROWS_PER_SHARD))
        self.rows: list[dict] = []
        self.files: list[str] = []

    def add(self, row: dict) -> None:
        self.rows.append(row)
        if len(self.rows) == ROWS_PER_SHARD:
            self.flush()

    def flush(self) -> None:
        pa, pq = _pyarrow()
        if not self.rows and self.files:
            return
        from tessera.dataset.layout import DATA_DIR, shard_name

        name = shard_name(self.split, len(self.files), self.n_shards)
        pq.write_table(pa.Table.from_pylist(self.rows, schema=self.schema), self.folder / name)
        self.files.append(f"{DATA_DIR}/{name}")
        self.rows = []


def _prepare_out(out: Path, force: bool) -> Path:
    if out.exists():
        if not force:
            raise TesseraError(f"{out} exists; choose another --out or pass --force to replace an earlier export")
        if not (out / "export.json").is_file():
            raise TesseraError(f"{out} exists and is not a tessera export; refusing to replace it")
    partial = out.parent / f".{out.name}.partial"
    if partial.exists():
        shutil.rmtree(partial)
    (partial / "data").mkdir(parents=True)
    return partial


def _finish(partial: Path, out: Path, info: dict) -> None:
    (partial / "export.json").write_text(json.dumps(info, indent=2) + "\n")
    if out.exists():
        shutil.rmtree(out)
    partial.rename(out)


def _shares(counts: Counter) -> dict[str, float]:
    total = sum(counts.values())
    return {d: round(n / total, 6) for d, n in sorted(counts.items())}


def round_robin(rows_by_task: dict[str, list], salt: str) -> list:
    """All rows, one per task per round, tasks in a seeded order within each round. OpenRLHF's `--data.max_samples`
    keeps the *first* rows of the prompt set (before shuffling), so every prefix must stay task-uniform."""
    tasks = sorted(rows_by_task)
    out: list = []
    for k in range(max((len(v) for v in rows_by_task.values()), default=0)):
        order = Rng(derive_seed(k, salt, "export-order")).shuffle(list(tasks))
        out.extend(rows_by_task[t][k] for t in order if k < len(rows_by_task[t]))
    return out


def _equal_quota(per_task: Counter, rows_per_task: int | None, where: str) -> int:
    if not per_task:
        raise TesseraError(f"{where}: no rows")
    quota = min(per_task.values())
    if rows_per_task is not None:
        if rows_per_task > quota:
            few = ", ".join(f"{t} ({n})" for t, n in sorted(per_task.items()) if n < rows_per_task)
            raise TesseraError(f"{where}: --rows-per-task {rows_per_task} but some tasks have fewer rows: {few}")
        quota = rows_per_task
    if quota == 0:
        raise TesseraError(f"{where}: a task has no rows")
    return quota


def _plan_splits(dataset: Path, splits: list[str] | None, rows_per_task: int | None):
    """The splits to export, their shard files, rows per task and the equal quota per task. The pass over the rows
    checks every column an export reads, so a bad row is refused before anything is written."""
    manifest = read_manifest(dataset)
    chosen = splits or sorted(manifest["splits"])
    unknown = [s for s in chosen if s not in manifest["splits"]]
    if unknown:
        raise TesseraError(f"{dataset}: no split {', '.join(unknown)} (splits: {', '.join(sorted(manifest['splits']))})")
    files = {s: _split_files(dataset, s, manifest["splits"][s]) for s in chosen}
    counts = {s: Counter(r["task"] for r in _iter_rows(dataset, files[s], SOURCE_COLUMNS)) for s in chosen}
    quotas = {s: _equal_quota(counts[s], rows_per_task, f"{dataset} split '{s}'") for s in chosen}
    return manifest, chosen, files, counts, quotas


# -- offline ----------------------------------------------------------------------------------------------------
def export_offline(dataset: Path, out: Path, images: str = "path", rows_per_task: int | None = None,
                   splits: list[str] | None = None, force: bool = False) -> dict:
    """Write the OpenRLHF prompt set of a built dataset; returns the export summary (also in OUT/export.json)."""
    pa, _ = _pyarrow()
    if images not in ("path", "bytes"):
        raise TesseraError(f"--images is 'path' or 'bytes', got '{images}'")
    dataset, out = Path(dataset), Path(out).resolve()
    manifest, chosen, files, counts, quotas = _plan_splits(dataset, splits, rows_per_task)

    image_type = pa.list_(pa.string()) if images == "path" else pa.list_(pa.binary())
    schema = pa.schema([("prompt", pa.string()), ("images", image_type), ("label", pa.string()),
                        ("datasource", pa.string()), ("task", pa.string()), ("level", pa.int32()),
                        ("seed", pa.int64()), ("instance_id", pa.string()), ("answer", pa.string())])
    partial = _prepare_out(out, force)
    summary = {}
    try:
        for s in chosen:
            quota, tasks = quotas[s], sorted(counts[s])
            kept_domains: Counter[str] = Counter()
            taken: Counter[str] = Counter()
            # Domain shares go into every label, so count the kept rows' domains before writing any of them.
            for r in _iter_rows(dataset, files[s], ("task", "domain")):
                if taken[r["task"]] < quota:
                    taken[r["task"]] += 1
                    kept_domains[r["domain"]] += 1
            shares = _shares(kept_domains)
            weights = eval_weights(kept_domains) if s != TRAIN_SPLIT else None
            image_dir = partial / "images" / s
            if images == "path":
                image_dir.mkdir(parents=True)
            kept: dict[str, list] = {t: [] for t in tasks}
            for r in _quota_rows(dataset, files[s], s, tasks, quota):
                iid = r["instance_id"]  # 24 hex digits (checked), so a safe file name under OUT/images/<split>/
                png = r["image"]["bytes"]
                if images == "path":
                    name = iid + image_suffix(png)  # .png, or .jpg (variety strong)
                    (image_dir / name).write_bytes(png)
                    image = str(out / "images" / s / name)
                else:
                    image = png  # held until the split is written: bytes mode needs the split's images in memory
                label = r["label_parsed"]
                label.update(task=r["task"], domain=r["domain"], domains=shares, instance_id=iid, level=r["level"])
                if weights is not None:
                    label["eval_weight"] = weights[r["domain"]]
                kept[r["task"]].append({
                    "prompt": "<image>" + r["prompt"], "images": [image], "label": canonical_json(label),
                    "datasource": r["domain"] if weights is None else EVAL_DATASOURCE, "task": r["task"], "level": r["level"], "seed": r["seed"],
                    "instance_id": iid, "answer": r["answer"]})
            writer = _ShardWriter(partial / "data", s, quota * len(tasks), schema)
            for row in round_robin(kept, s):
                writer.add(row)
            writer.flush()
            summary[s] = {"rows": quota * len(tasks), "tasks": len(tasks), "rows_per_task": quota,
                          "dropped": sum(counts[s].values()) - quota * len(tasks), "domains": shares,
                          "files": writer.files}
            if weights is not None:
                summary[s]["eval_weights"] = weights
        info = {"format": EXPORT_FORMAT, "kind": "openrlhf", "source": str(dataset.resolve()), "images": images,
                "splits": summary, "openrlhf_flags": offline_flags(out)}
        _finish(partial, out, info)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return info


def offline_flags(out: Path) -> list[str]:
    return ["--data.prompt_dataset", str(out / "data"), "--data.prompt_split", "train",
            "--data.input_key", "prompt", "--data.label_key", "label", "--data.image_key", "images",
            "--data.apply_chat_template", "--data.max_images_per_prompt", "1"]


# -- online -----------------------------------------------------------------------------------------------------
def online_row(task_id: str, domain: str, seed: int, level, shares: dict[str, float],
               eval_weight: float | None = None) -> dict:
    """eval_weight: on evaluation rows, the row's reward is answer · eval_weight and its datasource is the macro one,
    so OpenRLHF's eval mean is the macro answer accuracy (training/reward.py), as offline."""
    token = {"task": task_id, "seed": seed, "level": level, "domain": domain, "domains": shares}
    if eval_weight is not None:
        token["eval_weight"] = eval_weight
    return {"prompt": f"tessera {task_id} seed {seed} level {level}", "label": canonical_json(token),
            "datasource": domain if eval_weight is None else EVAL_DATASOURCE, "task": task_id, "seed": seed,
            "level": -1 if level == CURRICULUM else level}


def export_online(tax, out: Path, rows_per_task: int, eval_rows_per_task: int = 0, seed: int = 0,
                  tasks: list[str] | None = None, domains: list[str] | None = None,
                  eval_levels: list[int] | None = None, force: bool = False) -> dict:
    """Write (task, seed, level) rows for the online executor: `rows_per_task` training rows per task (level left to
    the curriculum) and `eval_rows_per_task` validation rows per task at fixed levels."""
    pa, _ = _pyarrow()
    if rows_per_task < 1:
        raise TesseraError("--rows-per-task must be at least 1")
    chosen = sorted(tasks) if tasks else sorted(tax.tasks)
    for t in chosen:
        tax.task(t)  # unknown ids get the taxonomy's own message
    if domains:
        unknown = [d for d in domains if d not in tax.domains]
        if unknown:
            raise TesseraError(f"unknown domain {', '.join(unknown)} (known: {', '.join(sorted(tax.domains))})")
        chosen = [t for t in chosen if tax.info(t).domain in domains]
    if not chosen:
        raise TesseraError("no task selected")
    levels = eval_levels if eval_levels is not None else list(range(10))
    if not levels or any(not 0 <= lv <= 9 for lv in levels):
        raise TesseraError("--eval-levels must be levels between 0 and 9")
    out = Path(out).resolve()
    shares = _shares(Counter(tax.info(t).domain for t in chosen))
    schema = pa.schema([("prompt", pa.string()), ("label", pa.string()), ("datasource", pa.string()),
                        ("task", pa.string()), ("seed", pa.int64()), ("level", pa.int32())])
    plan: dict[str, list[tuple[str, int, int | str]]] = {
        "train": [(t, seed + i, CURRICULUM) for t in chosen for i in range(rows_per_task)]}
    if eval_rows_per_task:
        plan["validation"] = [(t, EVAL_SEED_OFFSET + seed + i, levels[i % len(levels)])
                              for t in chosen for i in range(eval_rows_per_task)]
    partial = _prepare_out(out, force)
    summary = {}
    try:
        for split, rows in plan.items():
            writer = _ShardWriter(partial / "data", split, len(rows), schema)
            weights = None if split == TRAIN_SPLIT else \
                eval_weights(Counter(tax.info(t).domain for t, _, _ in rows))
            by_task: dict[str, list] = {}
            for t, s, lv in rows:
                domain = tax.info(t).domain
                by_task.setdefault(t, []).append(online_row(t, domain, s, lv, shares,
                                                            None if weights is None else weights[domain]))
            for row in round_robin(by_task, split):
                writer.add(row)
            writer.flush()
            summary[split] = {"rows": len(rows), "tasks": len(chosen), "rows_per_task": len(rows) // len(chosen),
                              "domains": shares, "files": writer.files}
            if weights is not None:
                summary[split]["eval_weights"] = weights
        info = {"format": EXPORT_FORMAT, "kind": "openrlhf-online", "taxonomy": tax.name, "seed": seed,
                "eval_levels": levels, "splits": summary, "openrlhf_flags": online_flags(out)}
        _finish(partial, out, info)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return info


def online_flags(out: Path, images_per_prompt: int = 1) -> list[str]:
    """`images_per_prompt`: vLLM's image limit per prompt; a tool episode holds one image more per call."""
    return ["--data.prompt_dataset", str(out / "data"), "--data.prompt_split", "train",
            "--data.input_key", "prompt", "--data.label_key", "label",
            "--data.max_images_per_prompt", str(images_per_prompt)]


# -- other trainers: verl and TRL -------------------------------------------------------------------------------
# Both read a built dataset like the offline format (same checks, same task-uniform quota and round-robin order) and
# embed each PNG in its row, as their loaders decode images from the rows. Labels are the verifier label + task,
# domain, instance_id: no eval weights, since both trainers log validation metrics as plain means per data source.
TRAINER_FORMATS = ("verl", "trl")
_IMAGE_FEATURE = {"_type": "Image"}


def _hf_metadata(features: dict) -> dict:
    """Schema metadata that makes `datasets` decode the image column to PIL (it honours its own feature JSON)."""
    return {"huggingface": json.dumps({"info": {"features": features}}, sort_keys=True)}


def _verl_schema(pa):
    extra = pa.struct([("split", pa.string()), ("index", pa.int64()), ("task", pa.string()), ("domain", pa.string()),
                       ("level", pa.int32()), ("seed", pa.int64()), ("instance_id", pa.string())])
    return pa.schema([
        ("data_source", pa.string()),
        ("prompt", pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())]))),
        ("images", pa.list_(pa.struct([("bytes", pa.binary()), ("path", pa.string())]))),
        ("ability", pa.string()),
        ("reward_model", pa.struct([("style", pa.string()), ("ground_truth", pa.string())])),
        ("extra_info", extra)]).with_metadata(_hf_metadata({
            "data_source": {"dtype": "string", "_type": "Value"},
            "prompt": {"feature": {"role": {"dtype": "string", "_type": "Value"},
                                   "content": {"dtype": "string", "_type": "Value"}}, "_type": "List"},
            "images": {"feature": _IMAGE_FEATURE, "_type": "List"},
            "ability": {"dtype": "string", "_type": "Value"},
            "reward_model": {"style": {"dtype": "string", "_type": "Value"},
                             "ground_truth": {"dtype": "string", "_type": "Value"}},
            "extra_info": {k: {"dtype": t, "_type": "Value"} for k, t in (
                ("split", "string"), ("index", "int64"), ("task", "string"), ("domain", "string"),
                ("level", "int32"), ("seed", "int64"), ("instance_id", "string"))}}))


def _trl_schema(pa):
    part = pa.struct([("type", pa.string()), ("text", pa.string())])
    value = {"dtype": "string", "_type": "Value"}
    return pa.schema([
        ("prompt", pa.list_(pa.struct([("role", pa.string()), ("content", pa.list_(part))]))),
        ("image", pa.struct([("bytes", pa.binary()), ("path", pa.string())])),
        ("label", pa.string()), ("task", pa.string()), ("domain", pa.string()), ("level", pa.int32()),
        ("seed", pa.int64()), ("instance_id", pa.string())]).with_metadata(_hf_metadata({
            "prompt": {"feature": {"role": value, "content": {"feature": {"type": value, "text": value},
                                                              "_type": "List"}}, "_type": "List"},
            "image": _IMAGE_FEATURE, "label": value, "task": value, "domain": value,
            "level": {"dtype": "int32", "_type": "Value"}, "seed": {"dtype": "int64", "_type": "Value"},
            "instance_id": value}))


def _verl_row(r: dict, split: str, index: int, label: str) -> dict:
    # verl's RLHFDataset swaps each "<image>" in the content for the processor's image tokens, in `images` order.
    return {"data_source": f"tessera/{r['domain']}",
            "prompt": [{"role": "user", "content": "<image>" + r["prompt"]}],
            "images": [{"bytes": r["image"]["bytes"], "path": None}],
            "ability": r["domain"],
            "reward_model": {"style": "rule", "ground_truth": label},
            "extra_info": {"split": split, "index": index, "task": r["task"], "domain": r["domain"],
                           "level": r["level"], "seed": r["seed"], "instance_id": r["instance_id"]}}


def _trl_row(r: dict, split: str, index: int, label: str) -> dict:
    # TRL's conversational image format: an {"type": "image"} part where the image goes, the image in `image`.
    return {"prompt": [{"role": "user", "content": [{"type": "image", "text": None},
                                                    {"type": "text", "text": r["prompt"]}]}],
            "image": {"bytes": r["image"]["bytes"], "path": None},
            "label": label, "task": r["task"], "domain": r["domain"], "level": r["level"], "seed": r["seed"],
            "instance_id": r["instance_id"]}


def trainer_usage(fmt: str, out: Path, summary: dict) -> dict:
    """How to point the trainer at the export (recorded in OUT/export.json)."""
    reward = Path(__file__).resolve().parent / ("verl_reward.py" if fmt == "verl" else "trl_reward.py")
    if fmt == "verl":
        # Hydra list overrides naming each shard: verl hands every entry to its file copier before `datasets` sees it.
        def files(split):
            return "[" + ",".join(str(out / f) for f in summary[split]["files"]) + "]"
        overrides = [f"data.train_files={files(TRAIN_SPLIT)}"] if TRAIN_SPLIT in summary else []
        overrides += [f"data.val_files={files(s)}" for s in sorted(summary) if s != TRAIN_SPLIT][:1]
        return {"overrides": overrides + ["data.prompt_key=prompt", "data.image_key=images",
                                          f"custom_reward_function.path={reward}",
                                          "custom_reward_function.name=compute_score"]}
    return {"load": f"datasets.load_dataset('parquet', data_dir='{out / 'data'}')",
            "reward": f"from tessera.training.trl_reward import tessera_reward  # {reward}"}


def _quota_rows(dataset: Path, files: list, split: str, tasks: list[str], quota: int):
    """The rows of one split an export keeps, in shard order: the first `quota` of each task. A task the plan did not
    see or an instance id met twice means the shards changed (or were forged) since the plan: stop."""
    taken: Counter = Counter()
    seen: set[str] = set()
    wanted = set(tasks)
    for r in _iter_rows(dataset, files, SOURCE_COLUMNS):
        if r["task"] not in wanted:
            raise TesseraError(f"{dataset} split '{split}': the shards changed while being exported")
        if taken[r["task"]] >= quota:
            continue
        if r["instance_id"] in seen:
            raise TesseraError(f"{dataset} split '{split}': instance id {r['instance_id']} appears twice")
        seen.add(r["instance_id"])
        taken[r["task"]] += 1
        yield r


def export_trainer(dataset: Path, out: Path, fmt: str, rows_per_task: int | None = None,
                   splits: list[str] | None = None, force: bool = False) -> dict:
    """Write a built dataset as verl's RL parquet layout (`verl`) or TRL's conversational image dataset (`trl`)."""
    pa, _ = _pyarrow()
    if fmt not in TRAINER_FORMATS:
        raise TesseraError(f"unknown trainer format '{fmt}' (known: {', '.join(TRAINER_FORMATS)})")
    dataset, out = Path(dataset), Path(out).resolve()
    manifest, chosen, files, counts, quotas = _plan_splits(dataset, splits, rows_per_task)
    schema, make_row = (_verl_schema(pa), _verl_row) if fmt == "verl" else (_trl_schema(pa), _trl_row)
    partial = _prepare_out(out, force)
    summary = {}
    try:
        for s in chosen:
            quota, tasks = quotas[s], sorted(counts[s])
            kept: dict[str, list] = {t: [] for t in tasks}
            for r in _quota_rows(dataset, files[s], s, tasks, quota):
                label = r["label_parsed"]
                label.update(task=r["task"], domain=r["domain"], instance_id=r["instance_id"])
                kept[r["task"]].append((r, canonical_json(label)))
            writer = _ShardWriter(partial / "data", s, quota * len(tasks), schema)
            domains: Counter[str] = Counter()
            for index, (r, label) in enumerate(round_robin(kept, s)):
                domains[r["domain"]] += 1
                writer.add(make_row(r, s, index, label))
            writer.flush()
            summary[s] = {"rows": quota * len(tasks), "tasks": len(tasks), "rows_per_task": quota,
                          "dropped": sum(counts[s].values()) - quota * len(tasks), "domains": _shares(domains),
                          "files": writer.files}
        info = {"format": f"tessera.{fmt}/1", "kind": fmt, "source": str(dataset.resolve()), "splits": summary,
                "usage": trainer_usage(fmt, out, summary)}
        _finish(partial, out, info)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return info
