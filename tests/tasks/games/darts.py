"""Oracles of the grammar games.darts (grammars/games/darts.yaml, programs/games/darts/): each task's answer recomputed
by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


# ---- darts ---------------------------------------------------------------------------------------------------
_BOARD = [20, 1, 18, 4, 13, 6, 10, 15, 2, 17, 3, 19, 7, 16, 8, 11, 14, 9, 12, 5]


def _dart_score(d):
    """From where the dart sits: the sector under its angle and the band under its radius (the drawn rings)."""
    r = d["r"]
    if r < 0.06:
        return 50
    if r < 0.15:
        return 25
    number = _BOARD[int(d["a"]) % 20]
    if 0.52 <= r < 0.62:
        return 3 * number
    if 0.9 <= r < 1.0:
        return 2 * number
    assert r < 0.9
    return number


@oracle("games.darts.total_score")
def _darts_total(tr):
    return sum(_dart_score(d) for d in tr["state"]["darts"])


@oracle("games.darts.best_dart")
def _darts_best(tr):
    scores = sorted(_dart_score(d) for d in tr["state"]["darts"])
    assert len(scores) == 1 or scores[-1] > scores[-2]
    return scores[-1]
