"""Tessera's online environment for OpenRLHF: the implementation behind `--train.agent_func_path`.

OpenRLHF loads the agent file by path (`spec_from_file_location` + `exec_module`, not registered in
`sys.modules`), where `@dataclass` under `from __future__ import annotations` cannot resolve its own module. So the
file it loads (training/agent.py, or the copy `tessera train` writes into the run folder) is a thin shim, and
everything here lives in this ordinary, importable module.

OpenRLHF builds `AgentExecutor()` once per vLLM rollout actor. Each prompt-set row
(`tessera export --format openrlhf-online`) is a token `{"task", "seed", "level", ...}`; for every sample of the
row's GRPO group OpenRLHF calls `execute(...)` concurrently in the same actor. The executor

1. joins the sample to its group (the samples of one row started together), and the group's first sample asks the
   curriculum for the level (training rows: `"level": "curriculum"`; validation rows carry a fixed level);
2. builds the instance once for the group from (task, seed, level) with the taxonomy compiled once per process
   (generation is deterministic, so any rebuild from the seed gives the same bytes);
3. renders the chat prompt with the image, generates through the engine, scores the response with the exact
   verifier, records the score with the curriculum, and applies the uncertainty gate when configured.

With `tools.enabled`, a sample that `offers_tools` (step 3) is a tool episode instead: OpenRLHF's multi-turn
executor runs it (training/episode.py) and its final reply is scored; everything before and after is shared.

Settings {"root": taxonomy root or null, "curriculum": {...CurriculumConfig}, "state_dir": ..., "ckpt_path": ...,
"restore": bool, "shared": bool, "run": name, "tools": {...ToolsConfig}, optional, off when absent} come from, in
order: the file `tessera_agent.json` beside the agent file OpenRLHF was given (what `tessera train` writes: the
path itself reaches every engine, however Ray was started), else the environment variable TESSERA_AGENT_CONFIG
(inline JSON or a path to a JSON file; what `ray job submit --runtime-env-json` ships). Neither present is an
error: an engine never runs on defaults.
"""
from __future__ import annotations

import asyncio
import json
import os
import threading
from collections import OrderedDict
from copy import deepcopy
from dataclasses import dataclass, field
from pathlib import Path

from openrlhf.utils.agent import AgentExecutorBase

from tessera.errors import SamplingFailed, TesseraError
from tessera.taxonomy import open_taxonomy
from tessera.trace.instance import generate
from tessera.verify.score import score
from tessera.training.chat import extract_response, prompt_chat, vision_tokenizer
from tessera.training.curriculum import (
    CurriculumActor, CurriculumConfig, CurriculumService, service_from_settings)
from tessera.training.episode import Episode, ToolsConfig, ToolTurns, check_rule_needs_tools
from tessera.training.export import CURRICULUM
from tessera.training.reward import MAX_EVAL_WEIGHT, Scored, sample_logs, valid_eval_weight

CONFIG_ENV = "TESSERA_AGENT_CONFIG"
SETTINGS_FILE = "tessera_agent.json"  # beside the agent file OpenRLHF loads
# What a run must state: an engine that silently used defaults would train on another curriculum, write its
# state elsewhere and never resume.
REQUIRED_SETTINGS = ("curriculum", "state_dir", "ckpt_path", "restore", "run")
RESEED_ATTEMPTS = 4  # seeds tried at a level before a lower level is tried; the same choice for the whole group
INSTANCE_CACHE = 256


@dataclass
class AgentSettings:
    root: str | None = None
    curriculum: CurriculumConfig = field(default_factory=CurriculumConfig)
    state_dir: str | None = None
    ckpt_path: str | None = None
    restore: bool = False
    shared: bool = True  # one curriculum for all rollout engines (a named Ray actor) when running under Ray
    run: str = "tessera"
    gate_timeout: float = 1800.0  # seconds a downweighted group waits for its last sample
    tools: ToolsConfig = field(default_factory=ToolsConfig)  # tool episodes (training/episode.py); off unless set

    @classmethod
    def from_mapping(cls, data: dict, where: str = CONFIG_ENV) -> "AgentSettings":
        data = dict(data)
        data.pop("tessera_version", None)  # checked by the agent shim (training/agent.py)
        curriculum = CurriculumConfig.from_mapping(data.pop("curriculum", None), f"{where}: curriculum")
        tools = ToolsConfig.from_mapping(data.pop("tools", None), f"{where}: tools")
        known = {"root", "state_dir", "ckpt_path", "restore", "shared", "run", "gate_timeout"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise TesseraError(f"{where}: unknown key(s) {', '.join(unknown)}")
        check_rule_needs_tools(curriculum, tools, where)
        return cls(curriculum=curriculum, tools=tools, **data)

    @classmethod
    def from_env(cls) -> "AgentSettings":
        return load_settings(None)

    def to_mapping(self) -> dict:
        from dataclasses import asdict

        return asdict(self)


def _read_settings(path: Path, where: str) -> dict:
    try:
        data = json.loads(path.read_text())
    except OSError as exc:
        raise TesseraError(f"{where}: cannot read {path} ({exc.strerror})") from None
    except ValueError as exc:
        raise TesseraError(f"{where}: {path} is not valid JSON ({exc})") from None
    return data


def load_settings(beside: Path | str | None) -> AgentSettings:
    """The run's settings: `beside` (the settings file next to the loaded agent file) when it exists, else
    TESSERA_AGENT_CONFIG; a TesseraError naming both places when neither is there or a required key is missing."""
    beside = Path(beside) if beside is not None else None
    raw = os.environ.get(CONFIG_ENV, "").strip()
    if beside is not None and beside.is_file():
        where, data = str(beside), _read_settings(beside, str(beside))
    elif raw:
        where = CONFIG_ENV
        if raw.startswith("{"):
            try:
                data = json.loads(raw)
            except ValueError as exc:
                raise TesseraError(f"{CONFIG_ENV}: not valid inline JSON ({exc})") from None
        else:
            data = _read_settings(Path(raw), CONFIG_ENV)
    else:
        import socket

        looked = f"no {beside} and " if beside is not None else ""
        raise TesseraError(
            f"tessera agent settings missing in this vLLM engine (host {socket.gethostname()}, pid {os.getpid()}): "
            f"{looked}no {CONFIG_ENV} in its environment. Start online runs with `tessera train CONFIG --mode "
            f"online`, which writes OUTPUT/agent/agent.py with {SETTINGS_FILE} beside it and points "
            f"--train.agent_func_path there. A variable exported in the launching shell does not reach the engines "
            f"when Ray was started before the run (`ray start --head`): ship it with "
            f"`ray job submit --runtime-env-json '{{\"env_vars\": {{\"{CONFIG_ENV}\": ...}}}}'`.")
    if not isinstance(data, dict):
        raise TesseraError(f"{where}: agent settings are a JSON object, got {type(data).__name__}")
    missing = [k for k in REQUIRED_SETTINGS if k not in data]
    if missing:
        raise TesseraError(f"{where}: agent settings lack {', '.join(missing)} (an engine never falls back to "
                           f"defaults; write them with `tessera train CONFIG --mode online`)")
    try:
        return AgentSettings.from_mapping(data, where)
    except TypeError as exc:
        raise TesseraError(f"{where}: {exc}") from None


# -- curriculum backends ----------------------------------------------------------------------------------------
class LocalCurriculum:
    """The curriculum inside this process (tests, a single engine, or Ray unavailable)."""

    def __init__(self, service: CurriculumService):
        self.service = service

    async def level_for(self, task: str, seed: int) -> int:
        return self.service.level_for(task, seed)

    async def record(self, task: str, level: int, accuracy: float, tools: bool | None = None) -> float:
        return self.service.record(task, level, accuracy, tools)

    async def mean_level(self) -> float:
        return self.service.mean_level()


class RayCurriculum:
    """The curriculum in a named Ray actor, shared by every rollout engine of the run."""

    def __init__(self, handle):
        self.handle = handle

    async def level_for(self, task: str, seed: int) -> int:
        return await self.handle.level_for.remote(task, seed)

    async def record(self, task: str, level: int, accuracy: float, tools: bool | None = None) -> float:
        return await self.handle.record.remote(task, level, accuracy, tools)

    async def mean_level(self) -> float:
        return await self.handle.mean_level.remote()


def make_service(settings: AgentSettings) -> CurriculumService:
    return service_from_settings(settings.to_mapping())


def make_backend(settings: AgentSettings):
    if settings.shared:
        try:
            import ray

            in_ray = ray.is_initialized()
        except ImportError:
            in_ray = False
        if in_ray:
            actor_cls = ray.remote(num_cpus=0)(CurriculumActor)
            handle = actor_cls.options(name=f"{settings.run}-curriculum", get_if_exists=True).remote(
                settings.to_mapping())
            return RayCurriculum(handle)
    return LocalCurriculum(make_service(settings))


# -- rows and groups --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Row:
    task: str
    seed: int
    level: int | None  # None: the curriculum chooses
    domain: str | None
    shares: dict
    eval_weight: float | None = None  # evaluation rows: the reward is answer · eval_weight (training/reward.py)

    @property
    def key(self) -> str:
        return f"{self.task}\x00{self.seed}\x00{self.level}"


def parse_row(label) -> Row:
    try:
        token = json.loads(label) if isinstance(label, str) else label
    except ValueError:
        token = None
    if not isinstance(token, dict) or not isinstance(token.get("task"), str) \
            or not isinstance(token.get("seed"), int) or isinstance(token.get("seed"), bool):
        raise TesseraError(f"not a tessera online row (expected {{\"task\", \"seed\", \"level\"}}): {str(label)[:200]}")
    level = token.get("level", CURRICULUM)
    if level == CURRICULUM or level is None:
        level = None
    elif not isinstance(level, int) or isinstance(level, bool) or not 0 <= level <= 9:
        raise TesseraError(f"row level must be 0..9 or '{CURRICULUM}', got {level!r}")
    shares = domains if isinstance(domains := token.get("domains"), dict) else {}
    weight = token.get("eval_weight")
    if weight is not None and not valid_eval_weight(weight):
        raise TesseraError(f"row eval_weight must be a number in (0, {MAX_EVAL_WEIGHT:g}], got {weight!r}")
    return Row(token["task"], token["seed"], level, token.get("domain"), shares,
               None if weight is None else float(weight))


class _Group:
    """The samples of one row that OpenRLHF started together (one `generate_responses` call)."""

    def __init__(self):
        self.members = 0
        self.closed = False  # set once a member has finished generating: later samples of the row form a new group
        self.level_task: asyncio.Future | None = None
        self.instance_task: asyncio.Future | None = None
        self.rewards: list[float] = []
        self.passes: list[float] = []
        self.complete = asyncio.Event()


class AgentExecutor(AgentExecutorBase):
    def __init__(self, settings: AgentSettings | None = None, backend=None):
        self.settings = settings or AgentSettings.from_env()
        self.taxonomy = open_taxonomy(self.settings.root)  # tasks compile as rows first ask for them
        self.backend = backend if backend is not None else make_backend(self.settings)
        self.open_groups: dict[str, _Group] = {}
        self.instances: OrderedDict = OrderedDict()
        self.instances_lock = threading.Lock()  # instances are built in worker threads
        self.episodes = ToolTurns() if self.settings.tools.enabled else None  # OpenRLHF's multi-turn loop

    # -- the group ----------------------------------------------------------------------------------------------
    def _join(self, row: Row) -> tuple[_Group, int]:
        """The sample's group and its index in it (the order samples joined, from 0)."""
        group = self.open_groups.get(row.key)
        if group is None or group.closed:
            group = self.open_groups[row.key] = _Group()
        group.members += 1
        return group, group.members - 1

    def _close(self, row: Row, group: _Group) -> None:
        group.closed = True
        if self.open_groups.get(row.key) is group:
            del self.open_groups[row.key]

    async def _level(self, row: Row) -> int:
        if row.level is not None:
            return row.level
        if not self.settings.curriculum.enabled:
            return self.settings.curriculum.start_level
        return int(await self.backend.level_for(row.task, row.seed))

    def _build(self, task_id: str, seed: int, level: int):
        """The group's instance: (task, seed, level), or, should no state satisfy the task there, the next seeds,
        then lower levels — the same choice for every sample, since generation is deterministic."""
        key = (task_id, seed, level)
        with self.instances_lock:
            if key in self.instances:
                self.instances.move_to_end(key)
                return self.instances[key]
        task = self.taxonomy.task(task_id)
        failures = []
        for lv in range(level, -1, -1):
            for s in range(seed, seed + RESEED_ATTEMPTS):
                try:
                    inst = generate(task, s, lv, None, self.taxonomy.vocab)
                    break
                except SamplingFailed as exc:
                    failures.append(str(exc))
            else:
                continue
            break
        else:
            raise TesseraError(f"{task_id}: no instance from seeds {seed}..{seed + RESEED_ATTEMPTS - 1} at levels "
                               f"{level}..0 (last: {failures[-1]})")
        with self.instances_lock:
            self.instances[key] = inst
            if len(self.instances) > INSTANCE_CACHE:
                self.instances.popitem(last=False)
        return inst

    async def offers_tools(self, task: str, seed: int, index: int) -> bool:
        """Whether sample `index` (join order, from 0) of a group on (task, seed) is offered tools, in a run that
        enables them: every sample, except in the share of groups the curriculum pairs (`paired_share`), whose odd
        samples are asked without tools, so the margin rule sees both. A pure function of the curriculum config and
        the arguments, so every engine answers it locally."""
        return self.settings.curriculum.tools_for(task, seed, index)

    # -- one sample ---------------------------------------------------------------------------------------------
    async def execute(self, prompt, label, sampling_params, max_length: int, hf_tokenizer, llm_engine, images=None):
        row = parse_row(label)
        group, index = self._join(row)  # before the first await: every sample of the group joins before any finishes
        if group.level_task is None:
            group.level_task = asyncio.ensure_future(self._level(row))
        level = await group.level_task
        if group.instance_task is None:
            group.instance_task = asyncio.ensure_future(asyncio.to_thread(self._build, row.task, row.seed, level))
        inst = await group.instance_task
        level = inst.trace["level"]  # the level actually built (lower only if the task could not be met at `level`)

        # evaluation rows (those with an eval weight) are always offered tools in a tools run: their accuracy is
        # the run's figure, not half of it without tools
        offered = self.settings.tools.enabled and (row.eval_weight is not None or
                                                   bool(await self.offers_tools(row.task, row.seed, index)))
        if offered:
            assert self.episodes is not None  # tools are offered only in a run that enables them
            episode = Episode(inst, self.settings.tools, hf_tokenizer, max_length)
            out = await self.episodes.run(episode, prompt, sampling_params, max_length, hf_tokenizer, llm_engine)
            self._close(row, group)
            out.update(label=label, images=images)  # the multi-turn loop was handed the episode's key as its label
            scored_reply = episode.scored if episode.scored is not None else score(inst.label, "")
            reward_before_gate = episode.reward
        else:
            out, text = await self._single_turn(inst, row, prompt, label, sampling_params, max_length, hf_tokenizer,
                                                llm_engine, images)
            self._close(row, group)
            scored_reply = score(inst.label, extract_response(text))
            reward_before_gate = float(scored_reply.reward)

        scored = Scored(reward_before_gate, float(scored_reply.answer), float(scored_reply.format),
                        inst.task.domain, scored_reply.reason, row.eval_weight, level)
        curriculum_row = row.level is None and self.settings.curriculum.enabled
        if curriculum_row:
            mean_level = float(await self.backend.record(row.task, level, scored.answer,
                                                         offered if self.settings.tools.enabled else None))
        else:
            mean_level = float(await self.backend.mean_level())
        if row.eval_weight is None:
            reward, gated = await self._gate(group, scored)
        else:  # an evaluation row: exact weighted accuracy, never gated (eval figures are accuracies)
            reward, gated = scored.logged_reward, False

        logs = sample_logs(scored, row.shares)
        logs.update(level=float(level), curriculum_level_mean=mean_level, gated=float(gated))
        if self.settings.tools.enabled:
            calls = episode.session.calls if offered else []
            logs.update(tools_offered=float(offered), tool_calls=float(len(calls)),
                        tool_errors=float(sum(c["text"].startswith("tool error:") for c in calls)))
            if offered:
                out["tools"] = episode.session.trace()  # with the instance's trace: a replayable tool episode
        out.update(reward=reward, scores=scored.answer, extra_logs=logs, instance_id=inst.instance_id)
        return out

    async def _single_turn(self, inst, row: Row, prompt, label, sampling_params, max_length: int, hf_tokenizer,
                           llm_engine, images) -> tuple[dict, str]:
        """One reply to the prompt with the image: OpenRLHF's sample fields, and the reply's text."""
        prompt_ids, mm_train_inputs, pil_images = self._tokenize(hf_tokenizer, inst)
        params = sampling_params
        if getattr(sampling_params, "max_tokens", None) is None:
            params = deepcopy(sampling_params)
            params.max_tokens = max(1, max_length - len(prompt_ids))
        if len(prompt_ids) > max_length - params.max_tokens:
            raise ValueError(f"{row.task}: prompt of {len(prompt_ids)} tokens leaves no room for {params.max_tokens} "
                             f"new tokens within --data.max_len {max_length}; raise --data.max_len")
        request = await llm_engine.generate(prompt_ids, deepcopy(params),
                                            multi_modal_data={"image": pil_images} if pil_images else None)
        out = request.outputs[0]
        action_ids = list(out.token_ids)
        text = out.text if isinstance(getattr(out, "text", None), str) else \
            hf_tokenizer.decode(action_ids, skip_special_tokens=False)
        observation = prompt_ids + action_ids
        log_probs = None
        if getattr(sampling_params, "logprobs", None) is not None and getattr(out, "logprobs", None) is not None:
            log_probs = [0.0] * len(prompt_ids)
            for token_id, entry in zip(action_ids, out.logprobs):
                lp = entry.get(token_id)
                log_probs.append(lp.logprob if lp is not None else 0.0)
        return {
            "prompt": prompt, "label": label, "images": images, "mm_train_inputs": mm_train_inputs,
            "observation_tokens": observation, "action_ranges": [(len(prompt_ids), len(observation))],
            "rollout_log_probs": log_probs, "truncated": getattr(out, "finish_reason", None) == "length",
        }, text

    def _tokenize(self, hf_tokenizer, inst):
        """Chat prompt with the image, as OpenRLHF's prompt dataset builds it from "<image>" + prompt."""
        text = prompt_chat(hf_tokenizer, inst.prompt)
        if vision_tokenizer(hf_tokenizer):
            from openrlhf.utils.vlm_utils import process_prompt_with_images

            return process_prompt_with_images(hf_tokenizer, text, [inst.png])
        # A text-only model (smoke tests of the plumbing): the prompt without the image.
        ids = hf_tokenizer(text=text, add_special_tokens=False, return_tensors="pt")["input_ids"][0].tolist()
        return ids, None, []

    async def _gate(self, group: _Group, scored: Scored) -> tuple[float, bool]:
        """Downweight gate: wait for the group's other samples, then shrink an all-pass/all-fail group's spread."""
        group.rewards.append(scored.reward)
        group.passes.append(scored.answer)
        if len(group.rewards) >= group.members:
            group.complete.set()
        if self.settings.curriculum.gate != "downweight":
            return scored.reward, False
        try:
            await asyncio.wait_for(group.complete.wait(), self.settings.gate_timeout)
        except asyncio.TimeoutError:
            pass  # judge the group on the samples that arrived
        rate = sum(group.passes) / len(group.passes)
        if 0.0 < rate < 1.0:
            return scored.reward, False
        mean = sum(group.rewards) / len(group.rewards)
        return mean + self.settings.curriculum.gate_weight * (scored.reward - mean), True
