"""Build configs: which tasks, how many instances per split, which levels, seed, shards. YAML, checked like the
rest of the library (file:line:col errors, all at once)."""
from __future__ import annotations

import fnmatch
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from ..errors import CompileFailed, Diagnostics
from ..load.models import OPERATIONS, Model
from ..load.validate_model import validate
from ..load.yaml_source import SourceDoc, read_yaml


class Select(Model):
    tasks: list[str] = []  # ids or fnmatch patterns
    domains: list[str] = []
    grammars: list[str] = []
    operations: list[str] = []
    buckets: list[str] = []


class ImageSettings(Model):
    scale: float = Field(1.0, ge=0.25, le=4.0)  # pixels per canvas unit: 2.0 doubles each side of every grammar's canvas


class BalanceSpec(Model):
    """Answer balancing (export.balance): each item gets a target answer class up front, met by construction."""
    max_top_share: float | None = Field(None, gt=0.0, le=1.0)  # per task and split: cap of any one answer's share
    uniform_options: bool = False  # the right option's letter uniform over the options shown
    uniform_yes_no: bool = False  # yes/no answers 50/50
    numeric_bins: int | None = Field(None, ge=2, le=50)  # numeric answers spread over this many bins of their range
    pilot_samples: int = Field(32, ge=4, le=512)  # answers sampled per task and level to learn ranges and shares


class BuildSpec(Model):
    build: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    summary: str = ""
    seed: int = Field(ge=0, lt=2**63)
    select: Select = Select()
    per_task: dict[str, int] | None = None  # split → instances per task
    total: dict[str, int] | None = None  # split → instances in all, spread evenly over tasks
    levels: Any = {"range": [0, 9]}
    task_levels: dict[str, Any] = {}  # task id or pattern → levels, overriding `levels`
    shard_size: int = Field(256, ge=1, le=100_000)
    max_reject_rate: float = Field(0.5, ge=0.0, le=1.0)
    max_retries: int = Field(20, ge=0, le=1000)
    near_duplicate_bits: int = Field(12, ge=0, le=128)
    image: ImageSettings = ImageSettings()
    jsonl: bool = False
    # every task's final-answer convention (json, boxed, tag), overriding its contract's `format`: one taxonomy
    # serves models trained on different conventions
    answer_format: Literal["json", "boxed", "tag"] | None = None
    # render-only visual variety (themes, raster edits, canvas size): none builds a clean evaluation set, mild or
    # strong a varied training set from the same tasks; answers never depend on it
    variety: Literal["none", "mild", "strong"] = "none"
    balance: BalanceSpec | None = None
    # reject instances whose right option an options-only rule (verify.shortcuts) picks: true for every rule, or
    # a list of rule names
    options_only_gate: bool | list[str] = False
    # thresholds `tessera audit` applies to this build's dataset (validate.audit.DEFAULT_THRESHOLDS names them)
    audit: dict[str, float] | None = None

    def recorded(self) -> dict:
        """The config as the manifest and card record it: keys added after a config was written are left out while
        unset, so the datasets of older configs keep their bytes."""
        dumped = self.model_dump(mode="json")
        for key, unset in (("balance", None), ("options_only_gate", False), ("audit", None), ("variety", "none")):
            if dumped[key] == unset:
                del dumped[key]
        return dumped


@dataclass
class BuildConfig:
    spec: BuildSpec
    doc: SourceDoc
    tasks: list[str]  # selected task ids, sorted
    counts: dict[str, dict[str, int]]  # split → task → instances
    levels: dict[str, list[int]]  # task → levels to cycle through
    sha256: str

    @property
    def splits(self) -> list[str]:
        return list(self.counts)


def _levels(raw: Any, doc: SourceDoc, loc: tuple, diags: Diagnostics) -> list[int] | None:
    if isinstance(raw, int) and not isinstance(raw, bool):
        values = [raw]
    elif isinstance(raw, list) and raw and all(isinstance(v, int) and not isinstance(v, bool) for v in raw):
        values = list(raw)
    elif isinstance(raw, dict) and set(raw) == {"range"} and isinstance(raw["range"], list) and \
            len(raw["range"]) == 2 and all(isinstance(v, int) for v in raw["range"]):
        values = list(range(raw["range"][0], raw["range"][1] + 1))
    else:
        diags.error(doc.pos(loc), "levels must be a level (0-9), a list of levels, or {range: [lo, hi]}",
                code="build-config")
        return None
    bad = [v for v in values if not 0 <= v <= 9]
    if bad or not values:
        diags.error(doc.pos(loc), f"levels must lie in 0..9, got {bad or values}", code="build-config")
        return None
    return values


# The most one build may ask for. A build plans every row before it draws one (task-uniform and balanced plans need
# the whole picture), so its planning memory grows with the rows: at about 0.5 kB a planned row, 2 M rows are about
# a GB. Larger datasets are several builds with different seeds. 0.8.0 accepted `per_task: {train: 10^12}` and grew
# until it was killed.
MAX_PER_TASK = 100_000  # instances of one task in one split
MAX_ROWS = 2_000_000  # rows of one build, all splits and tasks


def load_build_config(path: Path, taxonomy) -> BuildConfig:
    diags = Diagnostics()
    doc = read_yaml(Path(path), str(path), diags)
    spec = validate(BuildSpec, doc, diags) if doc is not None else None
    if spec is None:
        raise CompileFailed(diags)
    tasks = select_tasks(spec, doc, taxonomy, diags)
    if (spec.per_task is None) == (spec.total is None):
        diags.error(doc.pos(()), "give exactly one of per_task (instances per task per split) or total",
                code="build-config")
    counts: dict[str, dict[str, int]] = {}
    raw_counts = spec.per_task if spec.per_task is not None else spec.total or {}
    for split, n in raw_counts.items():
        key = "per_task" if spec.per_task is not None else "total"
        if not split.isidentifier():
            diags.error(doc.key_pos((key, split)), f"split name '{split}' must be a plain name like train",
                    code="build-config")
        if n < 0:
            diags.error(doc.pos((key, split)), f"instance count must be ≥ 0, got {n}", code="build-config")
            continue
        most = MAX_PER_TASK if spec.per_task is not None else MAX_PER_TASK * max(1, len(tasks))
        if n > most:
            what = "instances per task" if spec.per_task is not None else f"instances over {len(tasks)} tasks"
            diags.error(doc.pos((key, split)), f"{n:,} {what} in split '{split}' is more than one build makes "
                                               f"(at most {MAX_PER_TASK:,} per task and {MAX_ROWS:,} rows in all; "
                                               f"build a larger dataset as several builds with other seeds)",
                                                       code="bound")
            continue
        if spec.per_task is not None:
            counts[split] = {t: n for t in tasks}
        elif tasks:
            base, extra = divmod(n, len(tasks))
            counts[split] = {t: base + (1 if i < extra else 0) for i, t in enumerate(tasks)}
    rows = sum(sum(per.values()) for per in counts.values())
    if rows > MAX_ROWS:
        key = "per_task" if spec.per_task is not None else "total"
        diags.error(doc.pos((key,)), f"the build would make {rows:,} rows; the most one build makes is {MAX_ROWS:,} "
                                     f"(fewer tasks or instances, or several builds with other seeds)", code="bound")
    if not raw_counts and doc is not None and (spec.per_task is not None or spec.total is not None):
        diags.error(doc.pos(("per_task",) if spec.per_task is not None else ("total",)), "name at least one split",
                code="build-config")
    default = _levels(spec.levels, doc, ("levels",), diags)
    levels = {t: default for t in tasks}
    for pattern, raw in spec.task_levels.items():
        hits = [t for t in tasks if fnmatch.fnmatchcase(t, pattern)]
        if not hits:
            diags.error(doc.key_pos(("task_levels", pattern)), f"task_levels: '{pattern}' matches no selected task",
                    code="build-config")
        lv = _levels(raw, doc, ("task_levels", pattern), diags)
        for t in hits:
            levels[t] = lv
    _check_options_only(spec, doc, diags)
    _check_audit(spec, doc, diags)
    if diags:
        raise CompileFailed(diags)
    dumped = spec.recorded()
    if dumped["answer_format"] is None:
        del dumped["answer_format"]  # configs without the override keep the hash they always had
    # (recorded() leaves out variety none: a config without variety hashes as before it existed)
    canonical = json.dumps(dumped, sort_keys=True)
    return BuildConfig(spec, doc, tasks, counts, levels, hashlib.sha256(canonical.encode()).hexdigest())


def _check_audit(spec: BuildSpec, doc: SourceDoc, diags: Diagnostics) -> None:
    from ..validate.audit import DEFAULT_THRESHOLDS

    for name, value in (spec.audit or {}).items():
        if name not in DEFAULT_THRESHOLDS:
            diags.error(doc.key_pos(("audit", name)), f"unknown audit threshold '{name}' "
                                                      f"(known: {', '.join(DEFAULT_THRESHOLDS)})", code="unknown-kind")
        elif value < 0:
            diags.error(doc.pos(("audit", name)), f"audit threshold {name} must be ≥ 0, got {value}",
                    code="build-config")


def _check_options_only(spec: BuildSpec, doc: SourceDoc, diags: Diagnostics) -> None:
    gate = spec.options_only_gate
    if not isinstance(gate, list):
        return
    if not gate:
        diags.error(doc.pos(("options_only_gate",)), "options_only_gate: name at least one rule, or say true",
                code="build-config")
        return
    try:
        from ..verify.shortcuts import OPTION_RULES
    except ImportError:  # the audit's rules are not in this checkout
        diags.error(doc.pos(("options_only_gate",)), "options_only_gate: this tessera has no options-only rules",
                code="unknown-kind")
        return
    for i, name in enumerate(gate):
        if name not in OPTION_RULES:
            diags.error(doc.pos(("options_only_gate", i)), f"unknown options-only rule '{name}' "
                                                           f"(known: {', '.join(sorted(OPTION_RULES))})",
                                                                   code="unknown-kind")


def options_only_rules(spec: BuildSpec) -> list[str]:
    """The rule names the build's options-only gate applies, in a fixed order (none when the gate is off)."""
    gate = spec.options_only_gate
    if gate is False:
        return []
    from ..verify.shortcuts import OPTION_RULES

    return sorted(OPTION_RULES) if gate is True else list(dict.fromkeys(gate))


def select_tasks(spec: BuildSpec, doc: SourceDoc, taxonomy, diags: Diagnostics) -> list[str]:
    """A task is selected when it matches every non-empty criterion (any value within one criterion)."""
    sel = spec.select
    for i, d in enumerate(sel.domains):
        if d not in taxonomy.domains:
            diags.error(doc.pos(("select", "domains", i)), f"unknown domain '{d}' (known: "
                                                           f"{', '.join(sorted(taxonomy.domains))})",
                                                                   code="unknown-ref")
    for i, g in enumerate(sel.grammars):
        if g not in taxonomy.grammars:
            diags.error(doc.pos(("select", "grammars", i)), f"unknown grammar '{g}'", code="unknown-ref")
    for i, op in enumerate(sel.operations):
        if op not in OPERATIONS:
            diags.error(doc.pos(("select", "operations", i)), f"unknown operation family '{op}' "
                                                              f"(known: {', '.join(OPERATIONS)})", code="unknown-kind")
    for i, pattern in enumerate(sel.tasks):
        if not any(fnmatch.fnmatchcase(t, pattern) for t in taxonomy.tasks):
            diags.error(doc.pos(("select", "tasks", i)), f"'{pattern}' matches no task", code="build-config")
    chosen = []
    for tid in sorted(taxonomy.tasks):
        if sel.tasks and not any(fnmatch.fnmatchcase(tid, p) for p in sel.tasks):
            continue
        t = taxonomy.info(tid)  # the header: selecting compiles nothing
        if sel.domains and t.domain not in sel.domains:
            continue
        if sel.grammars and t.grammar not in sel.grammars:
            continue
        if sel.operations and not set(sel.operations) & set(t.operations):
            continue
        if sel.buckets and t.bucket not in sel.buckets:
            continue
        chosen.append(tid)
    if not chosen and not diags:
        diags.error(doc.pos(("select",)), "the selection matches no task", code="build-config")
    return chosen
