"""Oracles of the grammar illustrations.street (grammars/illustrations/street.yaml, programs/illustrations/street/):
each task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


# -- street -------------------------------------------------------------------------------------------------------
def _kinds(tr, kind):
    return [s for s in tr["state"]["items"] if s["kind"] == kind]


@oracle("illustrations.street.count_kind")
def _street_count(tr):
    return len(_kinds(tr, tr["query"]["kind"]))


@oracle("illustrations.street.count_left_of")
def _street_left(tr):
    ref = step(tr, "ref")
    return sum(s["x"] < ref["x"] for s in _kinds(tr, tr["query"]["kind"]))


@oracle("illustrations.street.between")
def _street_between(tr):
    a, b = step(tr, "a"), step(tr, "b")
    row = [s for s in tr["state"]["items"] if s["row"] == a["row"] and min(a["x"], b["x"]) < s["x"] < max(a["x"], b["x"])]
    assert len(row) == 1 and a["row"] == b["row"]
    return row[0]["kind"]


@oracle("illustrations.street.nearer")
def _street_nearer(tr):
    a, b = step(tr, "a"), step(tr, "b")
    return max((a, b), key=lambda s: s["row"])["kind"]  # row 2 is the road at the front


@oracle("illustrations.street.more_of")
def _street_more(tr):
    a, b = step(tr, "a"), step(tr, "b")
    na, nb = len(_kinds(tr, a)), len(_kinds(tr, b))
    assert na != nb
    return a if na > nb else b


@oracle("illustrations.street.road_order")
def _street_road(tr):
    return [s["kind"] for s in sorted((s for s in tr["state"]["items"] if s["row"] == 2), key=lambda s: s["x"])]
