"""Oracles of the grammar physics.thermometer (grammars/physics/thermometer.yaml, programs/physics/thermometer/): each
task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


# ---- graduated instruments: a reading is the value at the top of the column / the bottom of the meniscus
@oracle("physics.thermometer.read_temperature")
def _thermo_read(tr):
    name = step(tr, "t")["name"]
    (t,) = [t for t in tr["state"]["thermos"] if t["name"] == name]
    assert tr["state"]["lo"] < t["value"] < tr["state"]["hi"] and t["value"] % tr["state"]["step"] == 0
    return t["value"]


@oracle("physics.thermometer.temperature_difference")
def _thermo_diff(tr):
    a, b = step(tr, "a"), step(tr, "b")
    return abs(a["value"] - b["value"])
