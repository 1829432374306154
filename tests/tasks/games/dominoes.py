"""Oracles of the grammar games.dominoes (grammars/games/dominoes.yaml, programs/games/dominoes/): each task's answer
recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import option_fit, oracle


# ---- dominoes ------------------------------------------------------------------------------------------------
def _dom_ends(state):
    chain = state["chain"]
    for x, y in zip(chain, chain[1:]):
        assert x["b"] == y["a"]  # touching halves match
    return chain[0]["a"], chain[-1]["b"]


@oracle("games.dominoes.total_pips")
def _dom_total(tr):
    return sum(d["a"] + d["b"] for d in tr["state"]["chain"])


@option_fit("games.dominoes.fits_end")
def _dom_fits_end(tr):
    _, right = _dom_ends(tr["state"])
    return [i for i, d in enumerate(tr["state"]["options"]) if right in (d["a"], d["b"])]


@oracle("games.dominoes.fits_end")
def _dom_fits(tr):
    hits = _dom_fits_end(tr)
    assert len(hits) == 1 and len(tr["state"]["options"]) == 3 + tr["level"] // 3
    return "ABCDEF"[hits[0]]


@oracle("games.dominoes.playable")
def _dom_playable(tr):
    ends = set(_dom_ends(tr["state"]))
    return sum(1 for d in tr["state"]["loose"] if {d["a"], d["b"]} & ends)
