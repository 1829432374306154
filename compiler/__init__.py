"""Tessera: a declarative task-taxonomy compiler for visual-reasoning RLVR data.

    import tessera
    tax = tessera.compile()                                      # the bundled YAML library
    inst = tessera.generate("charts.bar_chart.extremum_label", seed=7, level=3)
    tessera.score(inst.label, response).reward
    tessera.build("config.yaml", "out/ds", workers=4); tessera.replay("out/ds")

The API is in `tessera.api` (loaded on first use, so the CLI starts fast). The pipeline, one subpackage per stage:
load → check → codegen (compile) → sample → execute → render → trace → validate → export → verify; the OpenRLHF,
verl and TRL integration is `tessera.training`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.10.0"  # 0.10: strong pictures are JPEG files (strong bytes change), drawing charged, render errors positioned; 0.9: PNGs through libdeflate 6 (plain image bytes and ids change, pixels do not), noise as rows of one strip (mild and strong bytes change); 0.8: raster edits on OpenCV (strong bytes change); 0.7: canvas aspect fixes, cheaper jpeg and vignette (strong bytes change); 0.6: tools, curriculum rules, faster variety (strong bytes change); 0.5: eleven domains (boards and shapes tasks re-homed: new ids); 0.4: one package, the API

if TYPE_CHECKING:  # what the lazy attributes below resolve to, for type checkers and IDEs
    from .api import BuildResult, Instance, ReplayResult, Score, Taxonomy, build, compile, generate, replay, score
    from .errors import CompileFailed, SamplingFailed, TesseraError

_API = {"compile", "generate", "score", "build", "replay", "Taxonomy", "Instance", "Score", "BuildResult",
        "ReplayResult"}
_ERRORS = {"TesseraError", "CompileFailed", "SamplingFailed"}
__all__ = ["BuildResult", "CompileFailed", "Instance", "ReplayResult", "SamplingFailed", "Score", "Taxonomy",
           "TesseraError", "__version__", "build", "compile", "generate", "replay", "score"]


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
