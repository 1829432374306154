"""The generation loop: one instance from one seed, D = (image, prompt, answer, label, witness, trace), in phases.

    1 seeds     the four seed streams (state, query, render, prompt), derived from (seed, task id, stream name), so
                render-only choices never move the state or the answer; `stream_seeds` may replace named ones
    2 query     the query variables: drawn from the query stream, or given (and checked to be in the query space)
    3 state     the grammar's state at the level, from the state stream (its `require`s reject by raising Rejected)
    4 execute   the task's program on the state: answer, steps, witness objects (its requirements reject too)
    5 target    a balanced build's answer class and options-only rules (rejects before a pixel is drawn)
                -- phases 3-5 repeat until an attempt passes, within the grammar's attempts and one work budget --
    6 render    the scene over the state, from the render stream (an illegible picture is redrawn, RENDER_ATTEMPTS)
    7 prompt    a prompt template (from the prompt stream), the answer format's instruction, the verifier's label
    8 witness   the witness objects as the geometry the render drew them with
    9 trace     hashes, the instance id and the trace replay rebuilds the instance from (trace/record.py)

The answer is decided in phase 4, before anything is drawn; phases 1-5 and 7 without 6 are `sample_state`, the
unrendered sample (tessera.sample_state) property checks read.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..codegen.levels import level_values
from ..codegen.task import CompiledTask
from ..errors import EvalError, SamplingFailed, TesseraError
from ..execute.program import run_program
from ..render.scene import RenderRejected, render_scene
from ..sample.rng import STREAMS, Rng, derive_seed
from ..sample.state import Rejected, SampleWork, sample_state as sample_grammar
from ..verify.score import FORMATS, format_instruction
from ..verify.shortcuts import OPTION_RULES, option_texts
from .record import VARIETIES, Instance, RenderInputs, instance_record, object_paths, witness
from .target import BALANCE_REJECTION, OPTIONS_ONLY_REJECTION, check_balance, in_class, options_only_pick

RENDER_ATTEMPTS = 8
# A balance target keeps about one attempt in k (k letters, bins, ...): it may use this many times the grammar's
# attempts (still within the one total of work, sample.state.MAX_SAMPLE_STEPS).
BALANCED_ATTEMPTS = 4


@dataclass
class Sample:
    """An accepted attempt of phases 1-5, unrendered: what the picture would show and what the answer is."""
    task: CompiledTask
    seed: int
    level: int
    query: dict
    query_forced: bool
    seeds: dict[str, int]          # phase 1: every stream's seed (the render stream's too, unused until phase 6)
    state: dict                    # phase 3
    result: Any                    # phase 4: execute.program's result (answer, steps, witness, work)
    attempts: int                  # the attempt (1-based) that passed
    rejections: dict[str, int] = field(default_factory=dict)  # reason → count over the rejected attempts
    last_detail: str = ""          # the last rejection's detail (for a render failure's message)

    @property
    def answer(self) -> Any:
        return self.result.answer

    @property
    def steps(self) -> dict:
        return self.result.steps


# -- phase 1: seeds -------------------------------------------------------------------------------------------
def stream_seeds_of(task: CompiledTask, seed: int, overrides: dict[str, int] | None = None) -> dict[str, int]:
    seeds = {name: derive_seed(seed, task.id, name) for name in STREAMS}
    for name, value in (overrides or {}).items():
        if name not in seeds:
            raise TesseraError(f"unknown seed stream '{name}' (streams: {', '.join(STREAMS)})")
        seeds[name] = value
    return seeds


# -- phase 2: query -------------------------------------------------------------------------------------------
def draw_query(task: CompiledTask, q_rng: Rng, query: dict | None) -> tuple[dict, bool]:
    """(query, forced): drawn from the query stream (which the program then continues), or the given one."""
    if query is None:
        return q_rng.choice(task.query_space()), False
    if query not in task.query_space():
        raise TesseraError(f"query {query} is not in the query space of {task.id}: "
                           f"{', '.join(f'{k} ∈ {v}' for k, v in task.queries.items()) or 'no query variables'}")
    return dict(query), True


# -- phases 3-5: state, execute, target, until an attempt passes ------------------------------------------------
def _options_only_rules(balance: dict | None) -> dict | None:
    return OPTION_RULES if balance is not None and balance.get("options_only") else None


def _check_target(task: CompiledTask, balance: dict, rules, state: dict, q: dict, result, level: int, vocab: dict,
                  prompt_seed: int, answer_format: str) -> None:
    """Phase 5: raise Rejected when this attempt misses the build's target. Runs before the render: a miss costs no
    pixels."""
    target = balance.get("target")
    if target is not None and not in_class(target, result.answer):
        raise Rejected(BALANCE_REJECTION)
    names = balance.get("options_only")
    if not names or task.contract.type != "option" or not isinstance(result.answer, str) or len(result.answer) != 1:
        return
    _, prompt = make_prompt(task, state, q, result, level, vocab, prompt_seed, answer_format)
    record = {"task": task.id, "query": q, "level": level, "prompt": prompt, "answer": result.answer,
              "label": task.contract.label(result.answer, answer_format), "answer_type": task.answer_type}
    rule = options_only_pick(rules, names, option_texts(record), ord(result.answer.upper()) - ord("A"))
    if rule is not None:
        raise Rejected(OPTIONS_ONLY_REJECTION + rule)


def draw_sample(task: CompiledTask, seed: int, level: int, vocab: dict, seeds: dict, q: dict, forced: bool,
                q_rng: Rng, work: SampleWork, balance: dict | None = None,
                answer_format: str | None = None) -> Sample:
    """Phases 3-5 until one attempt satisfies every constraint (and the balance target), or SamplingFailed.
    `q_rng` is the query stream after phase 2: the program draws its own choices from where the query left it."""
    answer_format = answer_format or task.contract.spec.format
    rules = _options_only_rules(balance)
    s_rng = Rng(seeds["state"])
    rejections: dict[str, int] = {}
    last_detail = ""
    max_attempts = task.grammar.max_attempts * (BALANCED_ATTEMPTS if balance else 1)
    for attempt in range(1, max_attempts + 1):
        if work.exhausted():
            raise SamplingFailed(work.failure(f"{task.id} (level {level}, seed {seed})", attempt - 1, rejections))
        try:
            state = sample_grammar(task.grammar, level, vocab, s_rng, q, work.budget())  # 3 (q first: it may read it)
            result = run_program(task, state, q, level, vocab, q_rng, work.budget())     # 4
            if balance is not None:                                                     # 5
                _check_target(task, balance, rules, state, q, result, level, vocab, seeds["prompt"], answer_format)
            return Sample(task, seed, level, q, forced, seeds, state, result, attempt, rejections, last_detail)
        except Rejected as rej:
            rejections[rej.reason] = rejections.get(rej.reason, 0) + 1
            last_detail = rej.detail or last_detail
            work.note(rej)
    table = ", ".join(f"{k} ×{v}" for k, v in sorted(rejections.items(), key=lambda kv: -kv[1]))
    detail = f"; last error: {last_detail}" if last_detail else ""
    raise SamplingFailed(f"{task.id} (level {level}, seed {seed}): no state satisfied the constraints in "
                         f"{max_attempts} attempts ({table}){detail}")


# -- phase 6: render --------------------------------------------------------------------------------------------
def render_sample(sample: Sample, vocab: dict, paths: dict[int, str], work: SampleWork, image_scale: float,
                  variety: str):
    """(rendered, render attempt, the render stream at the start of that attempt), or SamplingFailed. Render
    attempts draw on the same total of work as states and programs: one sample ends in bounded work."""
    task, level, seed = sample.task, sample.level, sample.seed
    r_rng = Rng(sample.seeds["render"])
    for render_attempt in range(1, RENDER_ATTEMPTS + 1):
        if work.exhausted():
            raise SamplingFailed(f"{task.id} (level {level}, seed {seed}): sampling used its whole work budget "
                                 f"({work.total} steps) before a legible render "
                                 f"({sample.last_detail or 'no render yet'})")
        start = r_rng.copy()
        try:
            rendered = render_scene(task.grammar, sample.state, level, vocab, r_rng, paths, image_scale,
                                    work.budget(), variety)
            return rendered, render_attempt, start
        except RenderRejected as exc:
            reason = "render:" + str(exc).split(" ")[-1]  # "render:overlap", "render:canvas", ...
            sample.rejections[reason] = sample.rejections.get(reason, 0) + 1
            sample.last_detail = str(exc)
        except EvalError as exc:
            raise SamplingFailed(f"{task.id}: rendering failed: {exc}") from None
    raise SamplingFailed(f"{task.id} (level {level}, seed {seed}): no legible render in {RENDER_ATTEMPTS} "
                         f"attempts ({sample.last_detail}); the grammar's constraints must keep marks apart")


# -- phase 7: prompt ----------------------------------------------------------------------------------------------
def make_prompt(task: CompiledTask, state: dict, q: dict, result, level: int, vocab: dict, prompt_seed: int,
                answer_format: str) -> tuple[int, str]:
    """(template index, prompt): a template drawn from the prompt stream, then the answer format's instruction."""
    # Exactly the names the prompt templates were compiled against (codegen.task): the program's scope.
    values = {**state, **q, **result.steps, **level_values(task.levels, level, vocab), "vocab": vocab}
    template_index = Rng(prompt_seed).below(len(task.prompts))
    body = task.prompts[template_index].render(values).strip()
    contract = task.contract
    instruction = format_instruction(contract.type, contract.items, contract.spec.key, answer_format,
                                     contract.spec.normalize.form)
    return template_index, f"{body}\n\n{instruction}"


# -- the entry points -----------------------------------------------------------------------------------------------
@dataclass
class UnrenderedSample:
    """tessera.sample_state: the instance generate() builds from the same arguments, without its picture."""
    task: str
    seed: int
    level: int
    query: dict
    state: dict
    steps: dict
    answer: Any
    prompt: str
    label: dict
    program_work: int              # the program's work (as the trace's `program_work` records it)
    attempts: int
    rejections: dict[str, int]


def sample_state(task: CompiledTask, seed: int, level: int = 0, query: dict | None = None, vocab: dict | None = None,
                 answer_format: str | None = None) -> UnrenderedSample:
    """Phases 1-5 and 7 of generate(task, seed, level, query, vocab, answer_format=...): the same query, state,
    steps, answer, prompt and label as the generated instance (the render stream never moves them), without
    drawing anything. Raises SamplingFailed like generate() (a sample whose every render is illegible is still
    returned here: rendering is what this leaves out)."""
    if not 0 <= level <= 9:
        raise TesseraError(f"level must be between 0 and 9, got {level}")
    vocab = vocab if vocab is not None else task.vocab
    answer_format = answer_format or task.contract.spec.format
    seeds = stream_seeds_of(task, seed)
    q_rng = Rng(seeds["query"])
    q, forced = draw_query(task, q_rng, query)
    sample = draw_sample(task, seed, level, vocab, seeds, q, forced, q_rng, SampleWork(), None, answer_format)
    _, prompt = make_prompt(task, sample.state, q, sample.result, level, vocab, seeds["prompt"], answer_format)
    return UnrenderedSample(task.id, seed, level, q, sample.state, sample.result.steps, sample.answer, prompt,
                            task.contract.label(sample.answer, answer_format), sample.result.work, sample.attempts,
                            dict(sample.rejections))


def sample_answer(task: CompiledTask, seed: int, level: int, query: dict, vocab: dict | None = None,
                  answer_format: str | None = None) -> tuple:
    """(answer, prompt) of one sample without rendering it: what a balanced build's pilot learns answers from.
    Raises SamplingFailed like generate()."""
    drawn = sample_state(task, seed, level, query, vocab, answer_format)
    return drawn.answer, drawn.prompt


def instance_state(task: CompiledTask, seed: int, level: int, vocab: dict | None = None) -> tuple[dict, dict]:
    """(query, state) of the instance generate() builds from this seed and level, without rendering it: the render
    stream never moves the state, so this is the state of the generated instance (for checks of scene size)."""
    drawn = sample_state(task, seed, level, None, vocab)
    return drawn.query, drawn.state


def generate(task: CompiledTask, seed: int, level: int = 0, query: dict | None = None, vocab: dict | None = None,
             stream_seeds: dict[str, int] | None = None, image_scale: float = 1.0,
             answer_format: str | None = None, variety: str = "none", balance: dict | None = None) -> Instance:
    """Build one instance. Raises SamplingFailed (with per-constraint counts) when no attempt satisfies the task.

    `stream_seeds` replaces the derived seed of named streams (state, query, render, prompt); it exists to show that
    the streams are independent, and is recorded in the trace so replay rebuilds the same instance.
    `answer_format` (json, boxed, tag) overrides the contract's final-answer convention; the label records it.
    `variety` (none, mild, strong) varies the picture only (theme, canvas, raster edits) from the render stream;
    the trace records it (only when not "none", so plain traces keep their bytes).
    `balance` ({"target": class, "options_only": [rule, ...]}, trace.target) rejects attempts whose answer is outside
    the target class, or whose right option an options-only rule picks; it is recorded in the trace."""
    if not 0 <= level <= 9:
        raise TesseraError(f"level must be between 0 and 9, got {level}")
    if answer_format is not None and answer_format not in FORMATS:
        raise TesseraError(f"answer format must be one of {', '.join(FORMATS)}, got {answer_format!r}")
    if variety not in VARIETIES:
        raise TesseraError(f"variety must be one of {', '.join(VARIETIES)}, got {variety!r}")
    if not 0.25 <= image_scale <= 4.0:
        raise TesseraError(f"image scale must be between 0.25 and 4, got {image_scale}")
    vocab = vocab if vocab is not None else task.vocab  # the vocabulary the task was compiled against
    if balance is not None:
        check_balance(balance, _options_only_rules(balance))
    answer_format = answer_format or task.contract.spec.format

    seeds = stream_seeds_of(task, seed, stream_seeds)                                      # 1 seeds
    q_rng = Rng(seeds["query"])
    q, forced = draw_query(task, q_rng, query)                                             # 2 query
    work = SampleWork()  # bounds the work of all attempts together (sample.state.MAX_SAMPLE_STEPS)
    sample = draw_sample(task, seed, level, vocab, seeds, q, forced, q_rng, work, balance,  # 3-5 state, execute,
                         answer_format)                                                    #     target
    paths = object_paths(sample.state)
    rendered, render_attempt, render_start = render_sample(sample, vocab, paths, work,     # 6 render
                                                           image_scale, variety)
    result = sample.result
    template_index, prompt = make_prompt(task, sample.state, q, result, level, vocab,      # 7 prompt, label
                                         seeds["prompt"], answer_format)
    label = task.contract.label(result.answer, answer_format)
    witness_ = witness(task, result.witness, paths, rendered.render_map)                   # 8 witness
    instance_id, trace = instance_record(task, seed, level, q, forced, seeds, stream_seeds or {},  # 9 trace
                                         sample.attempts, sample.rejections, sample.state, result, paths, rendered,
                                         render_attempt, image_scale, template_index, prompt, label, witness_,
                                         variety, balance)
    return Instance(instance_id, task, rendered.png, prompt, result.answer, label, witness_, trace,
                    {"attempts": sample.attempts, "rejections": sample.rejections}, rendered.rgb,
                    RenderInputs(level, vocab, render_start, image_scale, variety))
