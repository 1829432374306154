"""Oracles of the grammar symbolic.tally_chart (grammars/symbolic/tally_chart.yaml, programs/symbolic/tally_chart/):
each task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


def _tally_rows(tr):
    return {r["label"]: r["count"] for r in tr["state"]["rows"]}


@oracle("symbolic.tally_chart.read_count")
def _tally_read(tr):
    return _tally_rows(tr)[step(tr, "pick")["label"]]


@oracle("symbolic.tally_chart.total")
def _tally_total(tr):
    return sum(_tally_rows(tr).values())


@oracle("symbolic.tally_chart.difference")
def _tally_difference(tr):
    a, b = step(tr, "pair")
    return abs(a["count"] - b["count"])


@oracle("symbolic.tally_chart.extreme_row")
def _tally_extreme(tr):
    rows = _tally_rows(tr)
    pick = max if tr["query"]["extreme"] == "most" else min
    best = pick(rows.values())
    (name,) = [k for k, v in rows.items() if v == best]
    return name
