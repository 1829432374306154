"""Per-task difficulty levels for the online environment, and where their state is kept.

Each task sits at a current level. The last `buffer_size` scored rollouts *at that level* are kept; when the buffer
is full and its mean accuracy reaches `threshold`, the task moves up one level and the buffer starts empty. A
sliding window keeps lower levels in play: a group is drawn uniformly from the `level_window` levels ending at the
current one (TRON: buffer 32 = 4 groups × 8, threshold 0.80; RLVE: threshold 0.90, window 4). The choice is a pure
function of (task, seed, current level) through Tessera's own RNG, so every sample of a group, asked once, gets
the same level, and a resumed run repeats it.

The uncertainty gate acts on groups whose pass rate is 0 or 1: `drop` removes them (OpenRLHF's dynamic filtering on
the score, which is the answer accuracy), `downweight` shrinks their reward spread around the group mean by
`gate_weight` (this scales their advantages for estimators that do not divide by the group's spread).

State persistence (`CurriculumStore`): the state is written atomically to `STATE_DIR/curriculum.json` (at most every
`save_interval` seconds, and at once on a promotion), promotions are appended to `STATE_DIR/curriculum_log.jsonl`,
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
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from tessera.errors import TesseraError
from tessera.sample.rng import Rng, derive_seed

GATES = ("off", "drop", "downweight")
STATE_FORMAT = "tessera.curriculum/1"


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

    @classmethod
    def from_mapping(cls, data: dict | None, where: str = "curriculum") -> "CurriculumConfig":
        data = dict(data or {})
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise TesseraError(f"{where}: unknown key(s) {', '.join(unknown)} (keys: {', '.join(known)})")
        values = {}
        for name, value in data.items():
            default = known[name].default
            if name == "gate" and value is False:
                value = "off"  # YAML 1.1 reads a bare `off` as false
            if isinstance(default, bool):
                ok = isinstance(value, bool)
            elif isinstance(default, int):
                ok = isinstance(value, int) and not isinstance(value, bool)
            elif isinstance(default, float):
                ok = isinstance(value, (int, float)) and not isinstance(value, bool)
                value = float(value) if ok else value
            else:
                ok = isinstance(value, str)
            if not ok:
                raise TesseraError(f"{where}.{name}: expected {type(default).__name__}, got {value!r}")
            values[name] = value
        config = cls(**values)
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
        if problems:
            raise TesseraError(f"{where}: " + "; ".join(problems))
        return config


class Curriculum:
    """Levels and rollout buffers of every task seen so far. Pure bookkeeping: no I/O, no clock."""

    def __init__(self, config: CurriculumConfig):
        self.config = config
        self.levels: dict[str, int] = {}
        self.buffers: dict[str, deque] = {}
        self.rollouts = 0  # scored rollouts recorded, at any level
        self.promotions: list[dict] = []

    def level(self, task: str) -> int:
        return self.levels.get(task, self.config.start_level)

    def choose_level(self, task: str, seed: int) -> int:
        current = self.level(task)
        lowest = max(0, current - self.config.level_window + 1)
        if lowest == current:
            return current
        rng = Rng(derive_seed(seed, task, f"curriculum/{current}"))
        return lowest + rng.below(current - lowest + 1)

    def record(self, task: str, level: int, accuracy: float) -> dict | None:
        """Count one scored rollout; returns the promotion it caused, if any."""
        self.rollouts += 1
        current = self.level(task)
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
        event = {"task": task, "from": current, "to": current + 1, "accuracy": round(mean, 4),
                 "rollout": self.rollouts}
        self.promotions.append(event)
        return event

    def mean_level(self) -> float:
        return sum(self.levels.values()) / len(self.levels) if self.levels else float(self.config.start_level)

    def summary(self) -> dict:
        return {"rollouts": self.rollouts, "mean_level": round(self.mean_level(), 4),
                "promotions": len(self.promotions), "levels": dict(sorted(self.levels.items()))}

    def state_dict(self) -> dict:
        return {"format": STATE_FORMAT, "config": asdict(self.config), "rollouts": self.rollouts,
                "levels": dict(sorted(self.levels.items())),
                "buffers": {t: list(b) for t, b in sorted(self.buffers.items())},
                "promotions": list(self.promotions)}

    def load_state_dict(self, state: dict) -> None:
        if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
            raise TesseraError(f"not a curriculum state (expected format {STATE_FORMAT})")
        self.rollouts = int(state.get("rollouts", 0))
        self.levels = {str(t): min(int(lv), self.config.max_level) for t, lv in state.get("levels", {}).items()}
        self.buffers = {str(t): deque((float(x) for x in b), maxlen=self.config.buffer_size)
                        for t, b in state.get("buffers", {}).items()}
        self.promotions = list(state.get("promotions", []))


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
        self.seen_tag = None
        self.last_check = None

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
        if self.store is not None:
            self.store.watch_checkpoints(self.curriculum)
        return self.curriculum.choose_level(task, seed)

    def record(self, task: str, level: int, accuracy: float) -> float:
        """Count one rollout; returns the mean current level over tasks (logged with every sample)."""
        event = self.curriculum.record(task, level, accuracy)
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

    def record(self, task: str, level: int, accuracy: float) -> float:
        return self.service.record(task, level, accuracy)

    def mean_level(self) -> float:
        return self.service.mean_level()
