"""Tessera: a declarative task-taxonomy compiler for visual-reasoning RLVR data.

    import tessera
    tax = tessera.compile()                                      # the bundled YAML library
    inst = tessera.generate("charts.bar_chart.extremum_label", seed=7, level=3)
    tessera.sample_state("charts.bar_chart.extremum_label", seed=7, level=3).answer  # the same, without the picture
    tessera.score(inst.label, response).reward
    tessera.build("config.yaml", "out/ds", workers=4); tessera.replay("out/ds")

The API is in `tessera.api` (loaded on first use, so the CLI starts fast). The pipeline, one subpackage per stage:
load → check → codegen (compile) → sample → execute → render → trace → dataset → validate → export, with verify
(the scorer) low beside them; `tessera.layers` states the order. The OpenRLHF, verl and TRL integration is
`tessera.training`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .version import __version__  # in the lowest layer, so the trace can record it (tessera.layers)

if TYPE_CHECKING:  # what the lazy attributes below resolve to, for type checkers and IDEs
    from .api import (BuildResult, Instance, ReplayResult, Score, Taxonomy, UnrenderedSample, build, compile,
                      generate, replay, sample_state, score)
    from .errors import CompileFailed, SamplingFailed, TesseraError

_API = {"compile", "generate", "sample_state", "score", "build", "replay", "Taxonomy", "Instance",
        "UnrenderedSample", "Score", "BuildResult", "ReplayResult"}
_ERRORS = {"TesseraError", "CompileFailed", "SamplingFailed"}
__all__ = ["BuildResult", "CompileFailed", "Instance", "ReplayResult", "SamplingFailed", "Score", "Taxonomy",
           "TesseraError", "UnrenderedSample", "__version__", "build", "compile", "generate", "replay", "sample_state",
           "score"]


def __getattr__(name: str):
    if name in _API:
        from . import api

        return getattr(api, name)
    if name in _ERRORS:
        from . import errors

        return getattr(errors, name)
    raise AttributeError(f"module 'tessera' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _API | _ERRORS)
