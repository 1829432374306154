"""Oracles of the grammar pages.receipt (grammars/pages/receipt.yaml, programs/pages/receipt/): each task's answer
recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


# -- receipt: line cost = quantity × unit price, from the printed lines --------------------------------------------
def _line_cost(line):
    return line["qty"] * line["price"]


@oracle("pages.receipt.line_cost")
def _receipt_line(tr):
    return _line_cost(step(tr, "row"))


@oracle("pages.receipt.total")
def _receipt_total(tr):
    lines = tr["state"]["lines"]
    chosen = lines if tr["query"]["scope"] == "all" else step(tr, "chosen")
    assert all(c in lines for c in chosen)
    return sum(_line_cost(x) for x in chosen)


@oracle("pages.receipt.count_lines")
def _receipt_count(tr):
    lines = tr["state"]["lines"]
    if tr["query"]["test"] == "several":
        return sum(1 for x in lines if x["qty"] >= 2)
    bar = step(tr, "bar")
    return sum(1 for x in lines if _line_cost(x) > bar)


@oracle("pages.receipt.priciest_line")
def _receipt_extreme(tr):
    lines = tr["state"]["lines"]
    pick = max if tr["query"]["extreme"] == "most" else min
    best = pick(_line_cost(x) for x in lines)
    winners = [x["name"] for x in lines if _line_cost(x) == best]
    assert len(winners) == 1
    return winners[0]
