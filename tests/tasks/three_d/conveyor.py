"""Oracles of the grammar three_d.conveyor (grammars/three_d/conveyor.yaml, programs/three_d/conveyor/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


# -- conveyor: piles along x, the belt running towards the arrow -------------------------------------------------
@oracle("three_d.conveyor.arrives")
def _cv_arrives(tr):
    st = tr["state"]
    queue = sorted(st["piles"], key=lambda p: p["x"], reverse=st["towards"] == "right")
    return queue[step(tr, "k") - 1]["color"]


@oracle("three_d.conveyor.count_between")
def _cv_between(tr):
    a, b = step(tr, "a"), step(tr, "b")
    lo, hi = sorted((a["x"], b["x"]))
    return sum(p["crates"] for p in tr["state"]["piles"] if lo < p["x"] < hi)


@oracle("three_d.conveyor.total_crates")
def _cv_total(tr):
    return sum(p["crates"] for p in tr["state"]["piles"])


@oracle("three_d.conveyor.ahead_of")
def _cv_ahead_of(tr):
    st, ref = tr["state"], step(tr, "ref")
    sign = 1 if st["towards"] == "right" else -1
    if tr["query"]["relation"] == "ahead of":  # the nearest pile on the arrow's side
        pool = [p for p in st["piles"] if sign * (p["x"] - ref["x"]) > 0]
    else:
        pool = [p for p in st["piles"] if sign * (p["x"] - ref["x"]) < 0]
    return min(pool, key=lambda p: abs(p["x"] - ref["x"]))["color"]
