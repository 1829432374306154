"""Oracles of the grammar charts.candlestick (grammars/charts/candlestick.yaml, programs/charts/candlestick/): each
task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


@oracle("charts.candlestick.count_up_days")
def _candle_count(tr):
    higher = tr["query"]["direction"] == "higher"
    return sum((d["close"] > d["open"]) == higher for d in tr["state"]["days"])


@oracle("charts.candlestick.widest_range")
def _candle_range(tr):
    return max(tr["state"]["days"], key=lambda d: d["high"] - d["low"])["day"]
