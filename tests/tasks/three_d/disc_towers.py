"""Oracles of the grammar three_d.disc_towers (grammars/three_d/disc_towers.yaml, programs/three_d/disc_towers/): each
task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


# -- disc towers: pegs left to right along x, larger discs lower ------------------------------------------------
@oracle("three_d.disc_towers.top_disc")
def _dt_top(tr):
    # |azimuth| stays under 30°: the picture's left is peg 0
    assert abs(tr["state"]["azimuth"]) < 30
    stack = sorted((d for d in tr["state"]["discs"] if d["peg"] == step(tr, "k") - 1), key=lambda d: -d["r"])
    return (stack[-1] if tr["query"]["end"] == "top" else stack[0])["color"]


@oracle("three_d.disc_towers.discs_on_peg")
def _dt_on_peg(tr):
    st, k = tr["state"], step(tr, "k")
    peg = k - 1 if tr["query"]["from"] == "left" else st["pegs"] - k
    return sum(d["peg"] == peg for d in st["discs"])


@oracle("three_d.disc_towers.larger_than")
def _dt_larger(tr):
    ref = step(tr, "ref")
    larger = tr["query"]["relation"] == "larger"
    return sum((d["r"] > ref["r"]) if larger else (d["r"] < ref["r"]) for d in tr["state"]["discs"])
