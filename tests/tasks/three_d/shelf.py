"""Oracles of the grammar three_d.shelf (grammars/three_d/shelf.yaml, programs/three_d/shelf/): each task's answer
recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from collections import Counter

from tests.tasks.common import step
from tests.tasks.registry import oracle


# -- shelves: shelf 1 at the bottom ------------------------------------------------------------------------------
def _sh_from_bottom(tr, k):
    return k if tr["query"]["end"] == "bottom" else tr["state"]["shelves"] + 1 - k


@oracle("three_d.shelf.count_on_shelf")
def _sh_count_on(tr):
    # shelves k .. k + span - 1 counted from the asked end; the span is 1 below level 5, 2 from it
    k, span = step(tr, "k"), 1 + tr["level"] // 5
    asked = {_sh_from_bottom(tr, k + j) for j in range(span)}
    return sum(o["shelf"] in asked for o in tr["state"]["objects"])


@oracle("three_d.shelf.which_shelf")
def _sh_which(tr):
    return _sh_from_bottom(tr, step(tr, "target")["shelf"])


@oracle("three_d.shelf.fullest_shelf")
def _sh_fullest(tr):
    st = tr["state"]
    counts = Counter(o["shelf"] for o in st["objects"])
    per = [(counts.get(k, 0), k) for k in range(1, st["shelves"] + 1)]
    return (max if tr["query"]["extreme"] == "most" else min)(per)[1]


@oracle("three_d.shelf.count_above")
def _sh_count_above(tr):
    ref = step(tr, "ref")["shelf"]
    above = tr["query"]["relation"] == "above"
    return sum((o["shelf"] > ref) if above else (o["shelf"] < ref) for o in tr["state"]["objects"])


@oracle("three_d.shelf.beside")
def _sh_beside(tr):
    # |azimuth| stays under 30°: the picture's left is the shelf's low slots
    ref, left = step(tr, "ref"), tr["query"]["side"] == "left"
    assert abs(tr["state"]["azimuth"]) < 30
    row = [o for o in tr["state"]["objects"] if o["shelf"] == ref["shelf"]
           and (o["slot"] < ref["slot"] if left else o["slot"] > ref["slot"])]
    return min(row, key=lambda o: abs(o["slot"] - ref["slot"]))["name"]
