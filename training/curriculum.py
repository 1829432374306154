"""Per-task difficulty levels for the online environment, and where their state is kept.

Each task sits at a current level. The last `buffer_size` scored rollouts *at that level* are kept; when the buffer
is full and its mean accuracy reaches `threshold`, the task moves up one level and the buffer starts empty. A
sliding window keeps lower levels in play: a group is drawn from the `level_window` levels ending at the current
one (TRON: buffer 32 = 4 groups × 8, threshold 0.80; RLVE: threshold 0.90, window 4). The choice is a pure
function of (task, seed, current level, the rule's outcome windows) through Tessera's own RNG, so every sample of a
group, asked once, gets the same level, and a resumed run repeats it.

The `rule` weighs the levels of that window (the promotion above always moves its top):
- `threshold` (TRON, the default): every level of the window alike.
- `uncertainty` (R-Zero): levels whose recent pass rate p is near 1/2, weight 1 - |2p - 1|.
- `margin` (Marvo): levels where tools help most, weight = pass rate with tools - pass rate without.
Their figures come from outcome windows kept per task and level, one per kind: the last `rule_window` rollouts
offered tools (`tools`) and the last `rule_window` not offered them (`plain`: tools false, or a run without
tools). A level with fewer than `rule_min_outcomes` outcomes (uncertainty: of both kinds together; margin: of either
kind) is still unexplored and weighs `rule_explore`; an explored level weighs at least `rule_floor`, so no level of
the window starves and every window keeps moving. Without-tool outcomes of a run with tools come from paired
asking: a `paired_share` of groups, drawn from (task, seed), are offered tools on their even samples only
(`CurriculumConfig.tools_for`), so the same instance is asked both ways.

The uncertainty gate acts on groups whose pass rate is 0 or 1: `drop` removes them (OpenRLHF's dynamic filtering on
the score, which is the answer accuracy), `downweight` shrinks their reward spread around the group mean by
`gate_weight` (this scales their advantages for estimators that do not divide by the group's spread).

State persistence (`CurriculumStore`): the state is written atomically to `STATE_DIR/curriculum.json` (at most every
`save_interval` seconds, and at once on a promotion), promotions — and, under the uncertainty and margin rules,
every level choice with the figures of each level it weighed — are appended to `STATE_DIR/curriculum_log.jsonl`,
and when OpenRLHF writes a checkpoint (its DeepSpeed `CKPT/_actor/latest` tag changes) the state is copied to
`STATE_DIR/<tag>.json`. In synchronous training a checkpoint is saved after a step's rollouts and before the next
step's first level choice, where the tag is noticed, so the snapshot is the state at that checkpoint; on resume
the snapshot of the checkpoint DeepSpeed loads is restored.
"""
from __future__ import annotations

import json
import os
import time
from collections import deque
from dataclasses import asdict, dataclass
from pathlib import Path

from tessera.errors import TesseraError
from tessera.load.settings import settings_values
from tessera.sample.rng import Rng, derive_seed

GATES = ("off", "drop", "downweight")
RULES = ("threshold", "uncertainty", "margin")
KINDS = ("tools", "plain")  # outcome windows: offered tools, not offered (tools false, or a run without tools)
STATE_FORMAT = "tessera.curriculum/2"
READABLE_FORMATS = ("tessera.curriculum/1", STATE_FORMAT)  # /1 predates the outcome windows: it restores none


@dataclass(frozen=True)
class CurriculumConfig:
    enabled: bool = True
    threshold: float = 0.80  # promote when the buffer's mean accuracy reaches this
    buffer_size: int = 32  # scored rollouts kept per task at its current level
    level_window: int = 4  # levels in play: the current one and the (level_window - 1) below it
    start_level: int = 0
    max_level: int = 9
    gate: str = "off"  # uncertainty gate for groups that all pass or all fail: off | drop | downweight
    gate_weight: float = 0.1  # downweight: factor on such a group's reward spread
    save_interval: float = 5.0  # seconds between state writes (promotions are written at once)
    rule: str = "threshold"  # how the window's levels are weighed: threshold | uncertainty | margin
    rule_window: int = 32  # outcomes kept per task, level and kind (with tools / without)
    rule_min_outcomes: int = 8  # fewer outcomes (of a kind, for margin) and a level is unexplored
    rule_floor: float = 0.05  # least weight of an explored level
    rule_explore: float = 1.0  # weight of an unexplored level
    paired_share: float = 0.0  # share of groups asked both with and without tools (even samples get tools)

    @classmethod
    def from_mapping(cls, data: dict | None, where: str = "curriculum") -> "CurriculumConfig":
        data = dict(data or {})
        if data.get("gate") is False:
            data["gate"] = "off"  # YAML 1.1 reads a bare `off` as false
        config = cls(**settings_values(cls, data, where))
        problems = []
        if not 0.0 < config.threshold <= 1.0:
            problems.append("threshold must be in (0, 1]")
        if config.buffer_size < 1:
            problems.append("buffer_size must be at least 1")
        if config.level_window < 1:
            problems.append("level_window must be at least 1")
        if not 0 <= config.start_level <= config.max_level <= 9:
            problems.append("need 0 <= start_level <= max_level <= 9")
        if config.gate not in GATES:
            problems.append(f"gate must be one of {', '.join(GATES)}")
        if not 0.0 <= config.gate_weight <= 1.0:
            problems.append("gate_weight must be in [0, 1]")
        if config.save_interval < 0:
            problems.append("save_interval must be >= 0")
        if config.rule not in RULES:
            problems.append(f"rule must be one of {', '.join(RULES)}, got {config.rule!r}")
        if config.rule_window < 1:
            problems.append("rule_window must be at least 1")
        elif not 1 <= config.rule_min_outcomes <= config.rule_window:
            problems.append("rule_min_outcomes must be in 1..rule_window")
        if not 0.0 < config.rule_floor <= 1.0:
            problems.append("rule_floor must be in (0, 1]")
        if not 0.0 < config.rule_explore <= 1.0:
            problems.append("rule_explore must be in (0, 1]")
        if not 0.0 <= config.paired_share <= 1.0:
            problems.append("paired_share must be in [0, 1]")
        elif config.rule == "margin" and config.paired_share == 0.0:
            problems.append("rule margin needs paired_share > 0 (its without-tools outcomes come from paired groups)")
        if problems:
            raise TesseraError(f"{where}: " + "; ".join(problems))
        return config

    def paired(self, task: str, seed: int) -> bool:
        """Whether the group of (task, seed) is asked both with and without tools; a pure function of both."""
        if self.paired_share <= 0.0:
            return False
        return Rng(derive_seed(seed, task, "curriculum/paired")).random() < self.paired_share

    def tools_for(self, task: str, seed: int, sample_index: int) -> bool:
        """Whether sample `sample_index` (0, 1, ... in the order the group's samples arrive) of the group of
        (task, seed) is offered tools, in a run that offers tools: every sample of an unpaired group, the even
        samples of a paired one (half of any even group size, without knowing the size in advance)."""
        if not isinstance(sample_index, int) or isinstance(sample_index, bool) or sample_index < 0:
            raise TesseraError(f"sample_index must be an integer >= 0, got {sample_index!r}")
        return sample_index % 2 == 0 or not self.paired(task, seed)


def _rate(window) -> list:
    """[mean, count] of an outcome window (mean None when empty), as the log shows it."""
    return [round(sum(window) / len(window), 4) if window else None, len(window)]


class Curriculum:
    """Levels, rollout buffers and outcome windows of every task seen so far. Pure bookkeeping: no I/O, no clock."""

    def __init__(self, config: CurriculumConfig):
        self.config = config
        self.levels: dict[str, int] = {}
        self.buffers: dict[str, deque] = {}
        self.outcomes: dict[str, dict[int, dict[str, deque]]] = {}  # task → level → kind → last rule_window
        self.rollouts = 0  # scored rollouts recorded, at any level
        self.promotions: list[dict] = []

    def level(self, task: str) -> int:
        return self.levels.get(task, self.config.start_level)

    def level_range(self, task: str) -> tuple[int, int]:
        """The lowest and highest level a group of the task may be asked at: the window ending at its level."""
        current = self.level(task)
        return max(0, current - self.config.level_window + 1), current

    def weight(self, task: str, level: int) -> float:
        """The rule's weight of one level of the task (threshold: 1)."""
        cfg = self.config
        if cfg.rule == "threshold":
            return 1.0
        windows = self.outcomes.get(task, {}).get(level, {})
        tools, plain = windows.get("tools", ()), windows.get("plain", ())
        if cfg.rule == "uncertainty":
            n = len(tools) + len(plain)
            if n < cfg.rule_min_outcomes:
                return cfg.rule_explore
            rate = (sum(tools) + sum(plain)) / n
            return max(cfg.rule_floor, 1.0 - abs(2.0 * rate - 1.0))
        if min(len(tools), len(plain)) < cfg.rule_min_outcomes:
            return cfg.rule_explore
        return max(cfg.rule_floor, sum(tools) / len(tools) - sum(plain) / len(plain))

    def figures(self, task: str) -> dict[int, dict]:
        """Per level of the task's range: the rule's weight and [pass rate, outcomes] with and without tools."""
        lowest, current = self.level_range(task)
        windows = self.outcomes.get(task, {})
        return {level: {"weight": round(self.weight(task, level), 4),
                        **{kind: _rate(windows.get(level, {}).get(kind, ())) for kind in KINDS}}
                for level in range(lowest, current + 1)}

    def choose_level(self, task: str, seed: int) -> int:
        lowest, current = self.level_range(task)
        if lowest == current:
            return current
        if self.config.rule == "threshold":  # uniform; this stream and draw are the choices of every earlier run
            rng = Rng(derive_seed(seed, task, f"curriculum/{current}"))
            return lowest + rng.below(current - lowest + 1)
        levels = range(lowest, current + 1)
        weights = [self.weight(task, level) for level in levels]
        rng = Rng(derive_seed(seed, task, f"curriculum/{self.config.rule}/{current}"))
        point = rng.random() * sum(weights)
        for level, w in zip(levels, weights):
            point -= w
            if point < 0:
                return level
        return current  # rounding at the very top

    def record(self, task: str, level: int, accuracy: float, tools: bool | None = None) -> dict | None:
        """Count one scored rollout; `tools`: whether it was offered tools (None: the run has none). Returns the
        promotion it caused, if any."""
        self.rollouts += 1
        lowest, current = self.level_range(task)
        if lowest <= level <= current:  # a late rollout of a level that left the window says nothing any more
            kind = "tools" if tools else "plain"
            self.outcomes.setdefault(task, {}).setdefault(level, {}).setdefault(
                kind, deque(maxlen=self.config.rule_window)).append(float(accuracy))
        if level != current:
            return None  # a window level: it does not decide promotion
        buf = self.buffers.setdefault(task, deque(maxlen=self.config.buffer_size))
        buf.append(float(accuracy))
        if len(buf) < self.config.buffer_size or current >= self.config.max_level:
            return None
        mean = sum(buf) / len(buf)
        if mean < self.config.threshold:
            return None
        self.levels[task] = current + 1
        buf.clear()
        new_lowest = self.level_range(task)[0]
        windows = self.outcomes.get(task, {})
        for old in [lv for lv in windows if lv < new_lowest]:
            del windows[old]  # out of the window for good: levels only go up
        event = {"task": task, "from": current, "to": current + 1, "accuracy": round(mean, 4),
                 "rollout": self.rollouts}
        self.promotions.append(event)
        return event

    def mean_level(self) -> float:
        return sum(self.levels.values()) / len(self.levels) if self.levels else float(self.config.start_level)

    def summary(self) -> dict:
        return {"rollouts": self.rollouts, "mean_level": round(self.mean_level(), 4), "rule": self.config.rule,
                "promotions": len(self.promotions), "levels": dict(sorted(self.levels.items()))}

    def state_dict(self) -> dict:
        return {"format": STATE_FORMAT, "config": asdict(self.config), "rollouts": self.rollouts,
                "levels": dict(sorted(self.levels.items())),
                "buffers": {t: list(b) for t, b in sorted(self.buffers.items())},
                "outcomes": {t: {str(lv): {kind: list(w) for kind, w in sorted(kinds.items())}
                                 for lv, kinds in sorted(per_level.items())}
                             for t, per_level in sorted(self.outcomes.items())},
                "promotions": list(self.promotions)}

    def load_state_dict(self, state: dict) -> None:
        if not isinstance(state, dict) or state.get("format") not in READABLE_FORMATS:
            raise TesseraError(f"not a curriculum state (expected format {' or '.join(READABLE_FORMATS)})")
        try:
            rollouts = int(state.get("rollouts", 0))
            levels = {str(t): min(int(lv), self.config.max_level) for t, lv in state.get("levels", {}).items()}
            buffers = {str(t): deque((float(x) for x in b), maxlen=self.config.buffer_size)
                       for t, b in state.get("buffers", {}).items()}
            outcomes: dict[str, dict[int, dict[str, deque[float]]]] = {}
            for t, per_level in state.get("outcomes", {}).items():
                for lv, kinds in per_level.items():
                    unknown = sorted(set(kinds) - set(KINDS))
                    if unknown:
                        raise ValueError(f"unknown outcome kind(s) {', '.join(unknown)} at {t} level {lv}")
                    if int(lv) <= self.config.max_level:
                        outcomes.setdefault(str(t), {})[int(lv)] = {
                            kind: deque((float(x) for x in w), maxlen=self.config.rule_window)
                            for kind, w in kinds.items()}
            promotions = list(state.get("promotions", []))
        except (TypeError, ValueError, AttributeError) as exc:
            raise TesseraError(f"malformed curriculum state ({exc})") from None
        self.rollouts, self.levels, self.buffers, self.outcomes, self.promotions = (
            rollouts, levels, buffers, outcomes, promotions)


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


class CurriculumStore:
    """Where a curriculum's state lives on disk, next to OpenRLHF's checkpoints."""

    def __init__(self, state_dir: Path | str, ckpt_path: Path | str | None = None, clock=time.monotonic):
        self.state_dir = Path(state_dir)
        self.ckpt_path = Path(ckpt_path) if ckpt_path else None
        self.clock = clock
        self.last_save = None
        self.seen_tag: str | None = None
        self.last_check: float | None = None

    @property
    def state_file(self) -> Path:
        return self.state_dir / "curriculum.json"

    def latest_checkpoint(self) -> str | None:
        """The tag DeepSpeed resumes from (`CKPT/_actor/latest`), or None."""
        if self.ckpt_path is None:
            return None
        try:
            return (self.ckpt_path / "_actor" / "latest").read_text().strip() or None
        except OSError:
            return None

    def save(self, curriculum: Curriculum, force: bool = False) -> bool:
        now = self.clock()
        if not force and self.last_save is not None and now - self.last_save < curriculum.config.save_interval:
            return False
        self.state_dir.mkdir(parents=True, exist_ok=True)
        _write_atomic(self.state_file, json.dumps(curriculum.state_dict()) + "\n")
        self.last_save = now
        return True

    def log(self, event: dict) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        with open(self.state_dir / "curriculum_log.jsonl", "a") as fh:
            fh.write(json.dumps(event) + "\n")

    def watch_checkpoints(self, curriculum: Curriculum, min_interval: float = 1.0) -> str | None:
        """Snapshot the state under the newest checkpoint tag once it appears; returns the tag when it did."""
        now = self.clock()
        if self.ckpt_path is None or (self.last_check is not None and now - self.last_check < min_interval):
            return None
        self.last_check = now
        tag = self.latest_checkpoint()
        if tag is None or tag == self.seen_tag:
            return None
        self.seen_tag = tag
        self.state_dir.mkdir(parents=True, exist_ok=True)
        _write_atomic(self.state_dir / f"{tag}.json", json.dumps(curriculum.state_dict()) + "\n")
        self.log({"event": "checkpoint", "tag": tag, **curriculum.summary()})
        return tag

    def restore(self, curriculum: Curriculum) -> str | None:
        """Load the snapshot of the checkpoint OpenRLHF resumes from, else the last state written; returns the
        file it read, or None when there is nothing to restore."""
        tag = self.latest_checkpoint()
        candidates = ([self.state_dir / f"{tag}.json"] if tag else []) + [self.state_file]
        for path in candidates:
            if path.is_file():
                try:
                    curriculum.load_state_dict(json.loads(path.read_text()))
                except (ValueError, TesseraError) as exc:
                    raise TesseraError(f"{path}: cannot restore the curriculum ({exc})") from None
                self.seen_tag = tag
                self.log({"event": "restore", "file": str(path), **curriculum.summary()})
                return str(path)
        return None


class CurriculumService:
    """The curriculum as the executors see it: choose a level, record a score. One per run: in Ray it lives in a
    named actor shared by every rollout engine; without Ray, one per process."""

    def __init__(self, config: CurriculumConfig, store: CurriculumStore | None = None, restore: bool = False):
        self.curriculum = Curriculum(config)
        self.store = store
        self.restored_from = store.restore(self.curriculum) if (store is not None and restore) else None

    def level_for(self, task: str, seed: int) -> int:
        """The level of the group of (task, seed): ask once per group. Under the uncertainty and margin rules the
        choice is logged with the figures of every level it weighed."""
        if self.store is not None:
            self.store.watch_checkpoints(self.curriculum)
        level = self.curriculum.choose_level(task, seed)
        if self.store is not None and self.curriculum.config.rule != "threshold":
            self.store.log({"event": "choice", "task": task, "seed": seed, "rule": self.curriculum.config.rule,
                            "level": level, "rollout": self.curriculum.rollouts,
                            "levels": {str(lv): f for lv, f in self.curriculum.figures(task).items()}})
        return level

    def tools_for(self, task: str, seed: int, sample_index: int) -> bool:
        return self.curriculum.config.tools_for(task, seed, sample_index)

    def record(self, task: str, level: int, accuracy: float, tools: bool | None = None) -> float:
        """Count one rollout (`tools`: offered tools or not; None: the run has none); returns the mean current
        level over tasks (logged with every sample)."""
        event = self.curriculum.record(task, level, accuracy, tools)
        if self.store is not None:
            if event is not None:
                self.store.log({"event": "promotion", **event})
                print(f"[tessera curriculum] {event['task']}: level {event['from']} -> {event['to']} "
                      f"(accuracy {event['accuracy']:.2f} over the last {self.curriculum.config.buffer_size})",
                      flush=True)
            self.store.save(self.curriculum, force=event is not None)
        return self.curriculum.mean_level()

    def mean_level(self) -> float:
        return self.curriculum.mean_level()

    def state_dict(self) -> dict:
        return self.curriculum.state_dict()


def service_from_settings(settings: dict) -> CurriculumService:
    """The run's curriculum from the agent settings (`TESSERA_AGENT_CONFIG`): config, state folder, checkpoints."""
    config = CurriculumConfig.from_mapping(settings.get("curriculum"))
    state_dir = settings.get("state_dir")
    store = CurriculumStore(state_dir, settings.get("ckpt_path")) if state_dir else None
    return CurriculumService(config, store, restore=bool(settings.get("restore")))


class CurriculumActor:
    """Body of the named Ray actor that holds the run's one curriculum; every rollout engine's executor talks to it.
    Defined here, in an importable module, so Ray ships it by reference."""

    def __init__(self, settings: dict):
        self.service = service_from_settings(settings)

    def level_for(self, task: str, seed: int) -> int:
        return self.service.level_for(task, seed)

    def tools_for(self, task: str, seed: int, sample_index: int) -> bool:
        return self.service.tools_for(task, seed, sample_index)

    def record(self, task: str, level: int, accuracy: float, tools: bool | None = None) -> float:
        return self.service.record(task, level, accuracy, tools)

    def mean_level(self) -> float:
        return self.service.mean_level()
