"""Oracles of the grammar charts.grouped_bars (grammars/charts/grouped_bars.yaml, programs/charts/grouped_bars/): each
task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


@oracle("charts.grouped_bars.store_total")
def _grouped_store_total(tr):
    store = step(tr, "store")["name"]
    return sum(b["value"] for b in tr["state"]["bars"] if b["store"] == store)
