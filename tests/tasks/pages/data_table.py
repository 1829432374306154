"""Oracles of the grammar pages.data_table (grammars/pages/data_table.yaml, programs/pages/data_table/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


def _cell(p, column):
    return p["price"] if column == "price" else p["stock"]


@oracle("pages.data_table.cell_lookup")
def _table_lookup(tr):
    row = step(tr, "row")
    return _cell(row, tr["query"]["column"])


@oracle("pages.data_table.count_rows")
def _table_count(tr):
    q = tr["query"]
    cat, t = step(tr, "cat"), step(tr, "threshold")
    more = q["relation"] == "more than"
    assert (cat == "") == (tr["level"] >= 5)  # from level 5 every row counts
    return sum(1 for p in tr["state"]["products"] if (cat == "" or p["category"] == cat)
               and ((_cell(p, q["column"]) > t) if more else (_cell(p, q["column"]) < t)))
