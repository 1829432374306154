"""Oracles of the grammar charts.trend_scatter (grammars/charts/trend_scatter.yaml, programs/charts/trend_scatter/):
each task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


@oracle("charts.trend_scatter.trend_sign")
def _trend_sign(tr):
    import statistics
    pts = tr["state"]["points"]
    r = statistics.correlation([p["x"] for p in pts], [p["y"] for p in pts])
    return "positive" if r > 0.2 else ("negative" if r < -0.2 else "none")
