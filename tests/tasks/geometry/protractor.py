"""Oracles of the grammar geometry.protractor (grammars/geometry/protractor.yaml, programs/geometry/protractor/): each
task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


@oracle("geometry.protractor.ray_angle")
def _protractor_angle(tr):
    degs = [r["deg"] for r in tr["state"]["rays"]]
    return abs(degs[1] - degs[0])
