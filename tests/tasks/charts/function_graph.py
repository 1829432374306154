"""Oracles of the grammar charts.function_graph (grammars/charts/function_graph.yaml, programs/charts/function_graph/):
each task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


def _poly(c, x):
    return c["a"] * x * x + c["b"] * x + c["c"]  # expanded form, independent of the vertex form


@oracle("charts.function_graph.value_at")
def _function_value(tr):
    return _poly(step(tr, "curve"), step(tr, "k"))


@oracle("charts.function_graph.x_crossings")
def _function_crossings(tr):
    c = step(tr, "curve")
    disc = c["b"] * c["b"] - 4 * c["a"] * c["c"]
    return 0 if disc < 0 else (1 if disc == 0 else 2)
