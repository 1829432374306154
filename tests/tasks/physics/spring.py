"""Oracles of the grammar physics.spring (grammars/physics/spring.yaml, programs/physics/spring/): each task's answer
recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


# ---- physics.spring: Hooke's law, extension = length - natural length (spring A carries nothing)
def _spring_ext(tr, name):
    sp = {s["name"]: s for s in tr["state"]["springs"]}
    assert sp["A"]["load"] == 0
    return sp[name]["end"] - sp["A"]["end"]


@oracle("physics.spring.extension")
def _spring_extension(tr):
    return _spring_ext(tr, step(tr, "s")["name"])


@oracle("physics.spring.stiffness")
def _spring_stiffness(tr):
    s = step(tr, "s")
    per_cm, rem = divmod(s["load"], _spring_ext(tr, s["name"]))
    assert rem == 0
    return per_cm


@oracle("physics.spring.unknown_load")
def _spring_load(tr):
    from fractions import Fraction

    known, q = step(tr, "known"), step(tr, "q")
    assert q["ask"] and not known["ask"]
    load = Fraction(known["load"], _spring_ext(tr, known["name"])) * _spring_ext(tr, q["name"])
    assert load.denominator == 1
    return int(load)
