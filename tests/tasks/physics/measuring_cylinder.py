"""Oracles of the grammar physics.measuring_cylinder (grammars/physics/measuring_cylinder.yaml,
programs/physics/measuring_cylinder/): each task's answer recomputed by plain Python from the recorded trace, never
the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


@oracle("physics.measuring_cylinder.read_volume")
def _cyl_read(tr):
    (c,) = [c for c in tr["state"]["cylinders"] if c["name"] == tr["query"]["which"]]
    return c["value"]


@oracle("physics.measuring_cylinder.stone_volume")
def _cyl_stone(tr):
    by = {c["name"]: c["value"] for c in tr["state"]["cylinders"]}
    assert by["after"] > by["before"]
    return by["after"] - by["before"]
