"""Oracles of the grammar three_d.street (grammars/three_d/street.yaml, programs/three_d/street/): each task's answer
recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


# -- streets: buildings left to right along x --------------------------------------------------------------------
@oracle("three_d.street.most_storeys")
def _st_most(tr):
    bs = tr["state"]["buildings"]
    pick = max if tr["query"]["extreme"] == "most" else min
    return pick(bs, key=lambda b: b["storeys"])["color"]


@oracle("three_d.street.storeys_of")
def _st_storeys_of(tr):
    color = step(tr, "target")["color"]
    (b,) = [b for b in tr["state"]["buildings"] if b["color"] == color]
    return b["storeys"]


@oracle("three_d.street.total_storeys")
def _st_total(tr):
    return sum(b["storeys"] for b in tr["state"]["buildings"])


@oracle("three_d.street.count_taller")
def _st_count_taller(tr):
    ref = step(tr, "ref")
    more = tr["query"]["relation"] == "more"
    return sum((b["storeys"] > ref["storeys"]) if more else (b["storeys"] < ref["storeys"])
               for b in tr["state"]["buildings"])


@oracle("three_d.street.neighbour")
def _st_neighbour(tr):
    # Seen from across the road (|azimuth| < 90), the picture's left is the street's low x.
    ref, k = step(tr, "ref"), step(tr, "steps")
    assert abs(tr["state"]["azimuth"]) < 90
    row = sorted(tr["state"]["buildings"], key=lambda b: b["x"])
    i = [b["color"] for b in row].index(ref["color"])
    return row[i - k if tr["query"]["side"] == "left" else i + k]["color"]
