"""One instance from one seed: D = (image, prompt, answer, label, witness, trace).

The four seed streams are derived from (seed, task id, stream name), so render-only choices never move the state
or the answer. The answer is computed from the state before anything is drawn.
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import json
import platform
import zlib
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..codegen.levels import level_values
from ..codegen.task import CompiledTask
from ..errors import EvalError, SamplingFailed, TesseraError
from ..execute.program import run_program
from ..render.scene import RenderRejected, render_scene
from ..sample.rng import STREAMS, Rng, derive_seed
from ..sample.state import Rejected, SampleWork, sample_state
from ..verify.score import FORMATS, format_instruction
from .target import BALANCE_REJECTION, OPTIONS_ONLY_REJECTION, check_balance, in_class, options_only_pick

TRACE_FORMAT = "tessera.trace/1"
RENDER_ATTEMPTS = 8
VARIETIES = ("none", "mild", "strong")  # render-only visual variety; "none" is the plain look, byte for byte
# A balance target keeps about one attempt in k (k letters, bins, ...): it may use this many times the grammar's
# attempts (still within the one total of work, sample.state.MAX_SAMPLE_STEPS).
BALANCED_ATTEMPTS = 4


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def sha256(data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode()
    return hashlib.sha256(data).hexdigest()


@lru_cache(maxsize=1)
def versions() -> dict[str, str]:
    import jinja2
    import lark
    import numpy
    import skia

    from .. import __version__

    import PIL
    from PIL import features
    from zlib_ng import zlib_ng

    # libdeflate (the `deflate` package, which bundles one libdeflate release) writes every PNG (render/png.py; zlib
    # and zlib-ng wrote them until 0.9, and stay recorded); the libjpeg-turbo that Pillow bundles codes the jpeg
    # edit, OpenCV runs the raster edits' pixel passes (raster.py)
    return {"tessera": __version__, "python": platform.python_version(), "skia": skia.__version__,
            "numpy": numpy.__version__, "zlib": zlib.ZLIB_RUNTIME_VERSION, "zlib_ng": zlib_ng.ZLIBNG_VERSION,
            "deflate": importlib.metadata.version("deflate"), "lark": lark.__version__, "jinja2": jinja2.__version__,
            "pillow": PIL.__version__, "libjpeg": features.version("jpg") or "none",
            "opencv": _opencv_version()}


def _opencv_version() -> str:
    """OpenCV's version from its package's metadata (importing cv2 costs 0.15 s, and plain builds never use it)."""
    for dist in ("opencv-python-headless", "opencv-python", "opencv-contrib-python-headless", "opencv-contrib-python"):
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return "none"


@dataclass
class RenderInputs:
    """What drew the accepted picture, kept beside the instance (not serialised: the trace rebuilds it): the render
    stream as it stood when that render began, so a tool can redraw the same picture at another resolution."""
    level: int
    vocab: dict
    rng: Rng  # the render stream at the start of the accepted render attempt (copy it before drawing from it)
    scale: float
    variety: str


@dataclass
class Instance:
    instance_id: str
    task: CompiledTask
    png: bytes
    prompt: str
    answer: Any
    label: dict
    witness: dict
    trace: dict
    stats: dict = field(default_factory=dict)
    rgb: Any = None  # decoded pixels of `png` (not serialised)
    render_inputs: RenderInputs | None = None  # what drew `png` (not serialised; tools.zoom redraws from it)

    def record(self) -> dict:
        """The instance as written next to its image: what a consumer needs, without the full trace."""
        t = self.task
        return {
            "instance_id": self.instance_id, "task": t.id, "domain": t.domain, "grammar": t.grammar.id,
            "operations": t.operations, "bucket": t.bucket, "answer_type": t.answer_type,
            "query": self.trace["query"], "level": self.trace["level"], "seed": self.trace["seed"],
            "prompt": self.prompt, "answer": self.answer, "label": self.label, "witness": self.witness,
            "image_sha256": self.trace["hashes"]["image"],
        }


def object_paths(state: dict) -> dict[int, str]:
    """id(record) → its path in the state ("bars[2]"); records are the scene objects witnesses can name."""
    paths: dict[int, str] = {}

    def walk(v, path):
        if isinstance(v, dict):
            paths.setdefault(id(v), path)
            for k, x in v.items():
                walk(x, f"{path}.{k}")
        elif isinstance(v, list):
            for i, x in enumerate(v):
                walk(x, f"{path}[{i}]")

    for name, v in state.items():
        walk(v, name)
    return paths


def _traced(value: Any, paths: dict[int, str]) -> Any:
    """A value for the trace: scene objects become {"$ref": path} so steps read as references into the state."""
    if isinstance(value, dict):
        p = paths.get(id(value))
        if p is not None:
            return {"$ref": p}
        return {k: _traced(v, paths) for k, v in value.items()}
    if isinstance(value, list):
        return [_traced(v, paths) for v in value]
    return value


def _witness(task: CompiledTask, value: Any, paths: dict[int, str], render_map: dict) -> dict:
    kind = task.witness_kind
    if kind == "scalar":
        return {"kind": kind, "value": value}

    def geom(obj, what: str):
        p = paths.get(id(obj))
        if p is None:
            raise TesseraError(f"{task.witness.where}: task {task.id}: the witness is not a scene object from the "
                               f"state")
        entry = render_map.get(p)
        if entry is None:
            raise TesseraError(f"{task.witness.where}: task {task.id}: witness object {p} was not drawn by the scene "
                               f"(no mark binds it)")
        return p, entry[what]

    if kind in ("bbox", "point"):
        p, g = geom(value, kind)
        return {"kind": kind, "objects": [p], "value": g}
    if kind == "segment":
        if len(value) != 2:
            raise TesseraError(f"{task.witness.where}: task {task.id}: a segment witness needs exactly two objects, "
                               f"got {len(value)}")
        (pa, a), (pb, b) = geom(value[0], "point"), geom(value[1], "point")
        return {"kind": kind, "objects": [pa, pb], "value": [a[0], a[1], b[0], b[1]]}
    if kind == "map":
        entries = {name: geom(obj, "bbox") for name, obj in value.items()}
        return {"kind": kind, "objects": [p for p, _ in entries.values()],
                "value": {name: g for name, (_, g) in entries.items()}}
    pairs = [geom(v, "bbox") for v in value]
    return {"kind": kind, "objects": [p for p, _ in pairs], "value": [g for _, g in pairs]}


def _prompt(task: CompiledTask, state: dict, q: dict, result, level: int, vocab: dict, prompt_seed: int,
            answer_format: str) -> tuple[int, str]:
    # Exactly the names the prompt templates were compiled against (codegen.task): the program's scope.
    values = {**state, **q, **result.steps, **level_values(task.levels, level, vocab), "vocab": vocab}
    template_index = Rng(prompt_seed).below(len(task.prompts))
    body = task.prompts[template_index].render(values).strip()
    contract = task.contract
    instruction = format_instruction(contract.type, contract.items, contract.spec.key, answer_format,
                                     contract.spec.normalize.form)
    return template_index, f"{body}\n\n{instruction}"


def _balance_check(task: CompiledTask, balance: dict, rules, state: dict, q: dict, result, level: int, vocab: dict,
                   prompt_seed: int, answer_format: str) -> None:
    """Raise Rejected when this attempt misses the build's target. Runs before the render: a miss costs no pixels."""
    target = balance.get("target")
    if target is not None and not in_class(target, result.answer):
        raise Rejected(BALANCE_REJECTION)
    names = balance.get("options_only")
    if not names or task.contract.type != "option" or not isinstance(result.answer, str) or len(result.answer) != 1:
        return
    from ..validate.shortcuts import option_texts

    _, prompt = _prompt(task, state, q, result, level, vocab, prompt_seed, answer_format)
    record = {"task": task.id, "query": q, "level": level, "prompt": prompt, "answer": result.answer,
              "label": task.contract.label(result.answer, answer_format), "answer_type": task.answer_type}
    rule = options_only_pick(rules, names, option_texts(record), ord(result.answer.upper()) - ord("A"))
    if rule is not None:
        raise Rejected(OPTIONS_ONLY_REJECTION + rule)


def _sample_program(task: CompiledTask, seed: int, level: int, vocab: dict, seeds: dict, q: dict, q_rng: Rng,
                    rejections: dict, work: SampleWork, balance: dict | None, rules, answer_format: str):
    """States and programs until one satisfies every constraint (and the balance target): (state, result, attempts,
    last rejection detail), or SamplingFailed."""
    s_rng = Rng(seeds["state"])
    grammar = task.grammar
    last_detail = ""
    max_attempts = grammar.max_attempts * (BALANCED_ATTEMPTS if balance else 1)
    for attempt in range(1, max_attempts + 1):
        if work.exhausted():
            raise SamplingFailed(work.failure(f"{task.id} (level {level}, seed {seed})", attempt - 1, rejections))
        try:
            state = sample_state(grammar, level, vocab, s_rng, q, work.budget())  # q first: the state may read it
            result = run_program(task, state, q, level, vocab, q_rng, work.budget())
            if balance is not None:
                _balance_check(task, balance, rules, state, q, result, level, vocab, seeds["prompt"], answer_format)
            return state, result, attempt, last_detail
        except Rejected as rej:
            rejections[rej.reason] = rejections.get(rej.reason, 0) + 1
            last_detail = rej.detail or last_detail
            work.note(rej)
    table = ", ".join(f"{k} ×{v}" for k, v in sorted(rejections.items(), key=lambda kv: -kv[1]))
    detail = f"; last error: {last_detail}" if last_detail else ""
    raise SamplingFailed(f"{task.id} (level {level}, seed {seed}): no state satisfied the constraints in "
                         f"{max_attempts} attempts ({table}){detail}")


def sample_answer(task: CompiledTask, seed: int, level: int, query: dict, vocab: dict | None = None,
                  answer_format: str | None = None) -> tuple:
    """(answer, prompt) of one sample without rendering it: what a balanced build's pilot learns answers from.
    Raises SamplingFailed like generate()."""
    vocab = vocab if vocab is not None else task.vocab
    seeds = {name: derive_seed(seed, task.id, name) for name in STREAMS}
    answer_format = answer_format or task.contract.spec.format
    state, result, _, _ = _sample_program(task, seed, level, vocab, seeds, dict(query), Rng(seeds["query"]), {},
                                          SampleWork(), None, None, answer_format)
    return result.answer, _prompt(task, state, query, result, level, vocab, seeds["prompt"], answer_format)[1]


def instance_state(task: CompiledTask, seed: int, level: int, vocab: dict | None = None) -> tuple[dict, dict]:
    """(query, state) of the instance generate() builds from this seed and level, without rendering it: the render
    stream never moves the state, so this is the state of the generated instance (for checks of scene size)."""
    vocab = vocab if vocab is not None else task.vocab
    seeds = {name: derive_seed(seed, task.id, name) for name in STREAMS}
    q_rng = Rng(seeds["query"])
    q = q_rng.choice(task.query_space())
    state, _, _, _ = _sample_program(task, seed, level, vocab, seeds, q, q_rng, {}, SampleWork(), None, None,
                                     task.contract.spec.format)
    return q, state


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
    rules = None
    if balance is not None:
        if balance.get("options_only"):
            from ..validate.shortcuts import OPTION_RULES as rules
        check_balance(balance, rules)
    answer_format = answer_format or task.contract.spec.format
    space = task.query_space()
    seeds = {name: derive_seed(seed, task.id, name) for name in STREAMS}
    for name, value in (stream_seeds or {}).items():
        if name not in seeds:
            raise TesseraError(f"unknown seed stream '{name}' (streams: {', '.join(STREAMS)})")
        seeds[name] = value
    q_rng = Rng(seeds["query"])
    if query is None:
        q = q_rng.choice(space)
        forced = False
    else:
        if query not in space:
            raise TesseraError(f"query {query} is not in the query space of {task.id}: "
                               f"{', '.join(f'{k} ∈ {v}' for k, v in task.queries.items()) or 'no query variables'}")
        q, forced = dict(query), True

    grammar = task.grammar
    rejections: dict[str, int] = {}
    work = SampleWork()  # bounds the work of all attempts together (sample.state.MAX_SAMPLE_STEPS)
    state, result, attempt, last_detail = _sample_program(task, seed, level, vocab, seeds, q, q_rng, rejections, work,
                                                          balance, rules, answer_format)

    paths = object_paths(state)
    r_rng = Rng(seeds["render"])
    for render_attempt in range(1, RENDER_ATTEMPTS + 1):
        if work.exhausted():
            raise SamplingFailed(f"{task.id} (level {level}, seed {seed}): sampling used its whole work budget "
                                 f"({work.total} steps) before a legible render ({last_detail or 'no render yet'})")
        start = r_rng.copy()
        try:
            # Render attempts draw on the same total as states and programs: one sample ends in bounded work.
            rendered = render_scene(grammar, state, level, vocab, r_rng, paths, image_scale, work.budget(), variety)
            break
        except RenderRejected as exc:
            reason = "render:" + str(exc).split(" ")[-1]  # "render:overlap", "render:canvas", ...
            rejections[reason] = rejections.get(reason, 0) + 1
            last_detail = str(exc)
        except EvalError as exc:
            raise SamplingFailed(f"{task.id}: rendering failed: {exc}") from None
    else:
        raise SamplingFailed(f"{task.id} (level {level}, seed {seed}): no legible render in {RENDER_ATTEMPTS} "
                             f"attempts ({last_detail}); the grammar's constraints must keep marks apart")

    template_index, prompt = _prompt(task, state, q, result, level, vocab, seeds["prompt"], answer_format)
    label = task.contract.label(result.answer, answer_format)
    witness = _witness(task, result.witness, paths, rendered.render_map)
    hashes = {
        "task_spec": task.spec_hash, "grammar_spec": grammar.spec_hash,
        "contract": sha256(canonical_json(label | {"answer": None})),
        "state": sha256(canonical_json(state)), "prompt": sha256(prompt), "image": sha256(rendered.png),
    }
    instance_id = sha256(canonical_json([task.id, hashes["state"], hashes["prompt"], hashes["image"],
                                         result.answer]))[:24]
    trace = {
        "format": TRACE_FORMAT, "instance_id": instance_id, "task": task.id, "seed": seed, "level": level,
        "query": q, "query_forced": forced,
        "streams": seeds, "stream_overrides": dict(stream_seeds or {}),
        "attempts": attempt, "rejections": rejections,
        "state": state, "steps": {k: _traced(v, paths) for k, v in result.steps.items()},
        "program_work": result.work,
        "answer": result.answer, "label": label, "witness": witness,
        "render": {"decisions": rendered.decisions, "render_attempts": render_attempt,
                   "render_map": rendered.render_map, "scale": image_scale,
                   # the final image's size: a varied canvas differs from the grammar's
                   "width": int(rendered.rgb.shape[1]), "height": int(rendered.rgb.shape[0])},
        "prompt_template": template_index, "prompt": prompt,
        "versions": versions(), "hashes": hashes,
    }
    if variety != "none":
        trace["variety"] = variety
    if balance is not None:
        trace["balance"] = balance  # only balanced builds carry it: other traces keep the bytes they always had
    return Instance(instance_id, task, rendered.png, prompt, result.answer, label, witness, trace,
                    {"attempts": attempt, "rejections": rejections}, rendered.rgb,
                    RenderInputs(level, vocab, start, image_scale, variety))
