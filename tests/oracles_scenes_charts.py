"""Oracles for chart tasks on composed scenes (independent Python over the recorded state)."""
from __future__ import annotations

from tests.oracles import step


def _grouped_store_total(tr):
    store = step(tr, "store")["name"]
    return sum(b["value"] for b in tr["state"]["bars"] if b["store"] == store)


ORACLES = {
    "charts.grouped_bars.store_total": _grouped_store_total,
}
