"""Oracles of the grammar illustrations.tile_puzzle (grammars/illustrations/tile_puzzle.yaml,
programs/illustrations/tile_puzzle/): each task's answer recomputed by plain Python from the recorded trace, never
the expression language."""
from __future__ import annotations

from tests.tasks.registry import option_fit, oracle


# -- tile puzzles -----------------------------------------------------------------------------------------------
def _slots(tr):
    return tr["state"]["slots"]


@oracle("illustrations.tile_puzzle.count_turned")
def _tp_count_turned(tr):
    return sum(s["turn"] % 4 != 0 for s in _slots(tr))


@oracle("illustrations.tile_puzzle.which_turned")
def _tp_which_turned(tr):
    (hit,) = [k for k, s in enumerate(_slots(tr)) if s["turn"] % 4]
    return hit + 1


@oracle("illustrations.tile_puzzle.swapped_pair")
def _tp_swapped(tr):
    out = [k for k, s in enumerate(_slots(tr)) if s["src"] != k]
    assert len(out) == 2 and _slots(tr)[out[0]]["src"] == out[1] and _slots(tr)[out[1]]["src"] == out[0]
    return [str(k + 1) for k in out]


@oracle("illustrations.tile_puzzle.count_moved")
def _tp_count_moved(tr):
    slots = _slots(tr)
    assert sorted(s["src"] for s in slots) == list(range(len(slots)))  # a permutation: nothing lost, nothing turned
    return sum(s["src"] != k for k, s in enumerate(slots))


@option_fit("illustrations.tile_puzzle.missing_tile")
def missing_tile_fits(tr) -> list[int]:
    """The candidate tiles (by position) that fill the empty slot upright: the missing tile, not turned."""
    (gap,) = [k for k, s in enumerate(_slots(tr)) if s["src"] == -1]
    return [i for i, o in enumerate(tr["state"]["options"]) if o["src"] == gap and o["turn"] % 4 == 0]


@oracle("illustrations.tile_puzzle.missing_tile")
def _tp_missing(tr):
    (fit,) = missing_tile_fits(tr)
    return tr["state"]["options"][fit]["letter"]
