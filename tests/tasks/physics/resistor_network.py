"""Oracles of the grammar physics.resistor_network (grammars/physics/resistor_network.yaml,
programs/physics/resistor_network/): each task's answer recomputed by plain Python from the recorded trace, never
the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


# ---- physics.resistor_network: series blocks add, a parallel block's conductances add
def _network_ohms(state):
    from fractions import Fraction

    total = sum(1 / sum(Fraction(1, r) for r in b["rs"]) for b in state["blocks"])
    assert total.denominator == 1
    return int(total)


@oracle("physics.resistor_network.battery_current")
def _network_current(tr):
    amps, rem = divmod(tr["state"]["volts"], _network_ohms(tr["state"]))
    assert rem == 0
    return amps


@oracle("physics.resistor_network.total_resistance")
def _total_resistance(tr):
    return _network_ohms(tr["state"])
