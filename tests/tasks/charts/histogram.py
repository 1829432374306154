"""Oracles of the grammar charts.histogram (grammars/charts/histogram.yaml, programs/charts/histogram/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


@oracle("charts.histogram.count_in_range")
def _hist_range(tr):
    first, span = step(tr, "first"), step(tr, "span")
    return sum(tr["state"]["counts"][first:first + span])


@oracle("charts.histogram.fullest_bin")
def _hist_fullest(tr):
    counts = tr["state"]["counts"]
    pick = max if tr["query"]["extreme"] == "most" else min
    i = counts.index(pick(counts))
    return tr["state"]["edges"][i]
