"""The Python API, `import tessera`: compile a taxonomy, generate and score instances, build and replay datasets.

    import tessera

    tax = tessera.compile()                          # the bundled library (or compile("path/to/root"))
    task = tax.task("charts.bar_chart.extremum_label")
    inst = tessera.generate(task, seed=7, level=3)   # or generate("charts.bar_chart.extremum_label", 7)
    tessera.sample_state(task, seed=7, level=3)      # the same query, state and answer, without the picture
    inst.png, inst.prompt, inst.answer, inst.label   # image bytes, question, typed answer, verifier label
    tessera.score(inst.label, 'The answer is {"answer": "Apple"}').reward
    tessera.build("taxonomy/builds/demo.yaml", "out/ds", workers=2)
    assert all(r.ok for r in tessera.replay("out/ds"))

Everything here is what the CLI runs; errors are TesseraError (CompileFailed for authoring mistakes, with every
diagnostic), never a Python traceback from deep inside.
"""
from __future__ import annotations

import json
import os
import threading
import weakref
from functools import lru_cache
from pathlib import Path
from typing import Any

from .codegen.task import CompiledTask
from .errors import TesseraError
from .export.build import BuildResult
from .export.config import BuildConfig
from .taxonomy import Taxonomy, compile_taxonomy
from .trace.loop import UnrenderedSample
from .trace.record import Instance
from .validate.replay import ReplayResult
from .verify.score import Score

__all__ = ["compile", "generate", "sample_state", "score", "build", "replay", "Taxonomy", "Instance",
           "UnrenderedSample", "Score", "BuildResult", "ReplayResult"]

# Taxonomies compiled through this API, so that generate() can find the vocabulary of a task object it is handed.
_COMPILED: list[weakref.ref] = []  # (a Taxonomy is an unhashable dataclass: no WeakSet)
_LOCK = threading.Lock()


def compile(root: str | os.PathLike | None = None) -> Taxonomy:  # noqa: A001 (the name the issue asks for)
    """Load, check and compile the taxonomy at `root` (a folder holding taxonomy/, grammars/, programs/,
    contracts/, components/); None compiles the library bundled with the package. Raises CompileFailed listing
    every authoring mistake as path:line:col."""
    taxonomy = compile_taxonomy(root)
    with _LOCK:
        _COMPILED[:] = [ref for ref in _COMPILED if ref() is not None] + [weakref.ref(taxonomy)]
    return taxonomy


@lru_cache(maxsize=1)
def _default_taxonomy() -> Taxonomy:
    """The bundled library for generate/build/replay given ids: headers now, each task compiled when first used."""
    from .taxonomy import open_taxonomy

    taxonomy = open_taxonomy()
    with _LOCK:
        _COMPILED.append(weakref.ref(taxonomy))
    return taxonomy


def _owner(task: CompiledTask) -> Taxonomy | None:
    with _LOCK:
        for ref in _COMPILED:
            taxonomy = ref()
            if taxonomy is not None and taxonomy.tasks.get(task.id) is task:
                return taxonomy
    return None


def _resolve(task: str | CompiledTask, seed: int, level: int, query: dict | None,
             taxonomy: Taxonomy | None) -> tuple[CompiledTask, Taxonomy]:
    """The task object and the taxonomy whose vocabulary it samples with, after checking the arguments' types."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TesseraError(f"seed must be an integer, got {type(seed).__name__}")
    if isinstance(level, bool) or not isinstance(level, int):
        raise TesseraError(f"level must be an integer between 0 and 9, got {type(level).__name__}")
    if query is not None and not isinstance(query, dict):
        raise TesseraError(f"query must be a mapping of query variables to values, got {type(query).__name__}")
    if isinstance(task, str):
        taxonomy = taxonomy if taxonomy is not None else _default_taxonomy()
        task = taxonomy.task(task)
    elif isinstance(task, CompiledTask):
        owner = taxonomy if taxonomy is not None else _owner(task)
        if owner is None:
            raise TesseraError(f"task {task.id} was not compiled by tessera.compile(); pass taxonomy= (the "
                               f"taxonomy it came from) so its vocabulary is known")
        if owner.tasks.get(task.id) is not task:
            raise TesseraError(f"task {task.id} is not a task of the taxonomy passed as taxonomy= ({owner.root})")
        taxonomy = owner
    else:
        raise TesseraError(f"task must be a task id or a task from taxonomy.task(id), got {type(task).__name__}")
    return task, taxonomy


def generate(task: str | CompiledTask, seed: int, level: int = 0, query: dict | None = None, *,
             taxonomy: Taxonomy | None = None, answer_format: str | None = None) -> Instance:
    """One instance of `task` (an id, or a task object from `taxonomy.task(id)`) for `seed` at `level` (0-9).

    `query` fixes the query variables (a mapping in the task's query space); None samples them from the seed.
    The vocabulary comes from the taxonomy the task belongs to: `taxonomy`, else the one `tessera.compile` made it
    in, else (for an id) the bundled library. `answer_format` (json, boxed, tag) overrides the contract's
    final-answer convention. The same arguments give the same bytes in any process."""
    task, taxonomy = _resolve(task, seed, level, query, taxonomy)
    from .trace.loop import generate as _generate

    return _generate(task, seed, level, query, taxonomy.vocab, answer_format=answer_format)


def sample_state(task: str | CompiledTask, seed: int, level: int = 0, query: dict | None = None, *,
                 taxonomy: Taxonomy | None = None, answer_format: str | None = None) -> UnrenderedSample:
    """What `generate` with the same arguments decides, without drawing it: an UnrenderedSample with the query,
    state, program steps, answer, prompt and label of that instance (the picture's random stream never moves them).
    For property checks over many seeds: no pixels, about a tenth of the time."""
    task, taxonomy = _resolve(task, seed, level, query, taxonomy)
    from .trace.loop import sample_state as _sample_state

    return _sample_state(task, seed, level, query, taxonomy.vocab, answer_format)


def score(label: dict | str | Instance, response: Any) -> Score:
    """Score a model's `response` against a verifier label (the dict in `instance.label`, its JSON text as stored in
    a dataset's `label` column, or the Instance itself). Returns Score(answer, format, reward, parsed, reason):
    answer is 1.0 only for an exactly correct final answer; reward = 0.95 · answer + 0.05 · format."""
    from .verify.score import score as _score

    if isinstance(label, Instance):
        label = label.label
    elif isinstance(label, (str, bytes)):
        try:
            label = json.loads(label)
        except ValueError as exc:
            raise TesseraError(f"label is not valid JSON ({exc})") from None
    if not isinstance(label, dict):
        raise TesseraError(f"label must be a verifier label (a mapping), got {type(label).__name__}")
    return _score(label, response)


def build(config: str | os.PathLike | BuildConfig, out: str | os.PathLike, workers: int | None = None, *,
          taxonomy: Taxonomy | None = None, ray_address: str | None = None, use_ray: bool = False,
          progress: bool = False) -> BuildResult:
    """Build the dataset a build config describes (a YAML path such as taxonomy/builds/demo.yaml, or a loaded
    BuildConfig) into `out`: Parquet shards, dataset card and manifest, resumable and the same bytes for any
    worker count. `workers` defaults to the CPU count; `use_ray` computes the rows on Ray (`ray_address`, or a
    local Ray). The taxonomy defaults to the bundled library (a YAML config is read against it)."""
    from .export.build import build as _build
    from .export.config import load_build_config

    taxonomy = taxonomy if taxonomy is not None else _default_taxonomy()
    if not isinstance(config, BuildConfig):
        config = load_build_config(Path(config), taxonomy)
    workers = workers if workers is not None else (os.cpu_count() or 1)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise TesseraError(f"workers must be a positive integer, got {workers!r}")
    if not progress:
        return _build(config, taxonomy, Path(out), workers, ray_address, use_ray or ray_address is not None, None)
    from .console import progress as _progress

    with _progress() as bar:
        return _build(config, taxonomy, Path(out), workers, ray_address, use_ray or ray_address is not None, bar)


def replay(path: str | os.PathLike, *, taxonomy: Taxonomy | None = None, workers: int = 1) -> list[ReplayResult]:
    """Rebuild instances from their traces and compare them byte for byte: a dataset folder (every row, every
    column), a folder of `tessera sample` output (every *.trace.json with its .png and .json), or one trace file.
    Each ReplayResult says `ok`, what was `checked` and the `differences` found. Untrusted files are read with
    the same bounds as the CLI (a malformed file raises TesseraError)."""
    from .dataset.layout import is_dataset
    from .validate.replay import replay_dataset, replay_files, trace_files

    taxonomy = taxonomy if taxonomy is not None else _default_taxonomy()
    if is_dataset(Path(path)):
        return replay_dataset(Path(path), taxonomy.root, workers)
    return [replay_files(f, taxonomy) for f in trace_files([path])]
