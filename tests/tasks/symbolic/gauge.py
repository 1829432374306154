"""Oracles of the grammar symbolic.gauge (grammars/symbolic/gauge.yaml, programs/symbolic/gauge/): each task's answer
recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


@oracle("symbolic.gauge.read_value")
def _gauge_value(tr):
    return tr["state"]["needle"]["value"]


@oracle("symbolic.gauge.zone_color")
def _gauge_zone(tr):
    v = tr["state"]["value"]
    return next(z["color"] for z in tr["state"]["zones"] if z["lo"] < v < z["hi"])
