"""The names callers have always imported from here (`from tessera.trace.instance import generate` in training/,
bench/ and tests/): the generation loop is trace/loop.py, the instance and its trace are trace/record.py."""
from __future__ import annotations

from .loop import BALANCED_ATTEMPTS, RENDER_ATTEMPTS, generate, instance_state, sample_answer, sample_state
from .record import (TRACE_FORMAT, VARIETIES, Instance, RenderInputs, canonical_json, object_paths, sha256,
                     versions)

__all__ = ["BALANCED_ATTEMPTS", "RENDER_ATTEMPTS", "TRACE_FORMAT", "VARIETIES", "Instance", "RenderInputs",
           "canonical_json", "generate", "instance_state", "object_paths", "sample_answer", "sample_state", "sha256",
           "versions"]
