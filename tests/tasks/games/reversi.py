"""Oracles of the grammar games.reversi (grammars/games/reversi.yaml, programs/games/reversi/): each task's answer
recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import option_fit, oracle


# ---- reversi -------------------------------------------------------------------------------------------------
def _rv_flips(state, r, c):
    n = state["n"]
    grid = {(d["row"], d["col"]): d["color"] for d in state["discs"]}
    me = state["to_move"]
    if (r, c) in grid:
        return 0
    total = 0
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if dr == dc == 0:
                continue
            run, y, x = 0, r + dr, c + dc
            while 0 <= y < n and 0 <= x < n and grid.get((y, x)) not in (None, me):
                run, y, x = run + 1, y + dr, x + dc
            if run and 0 <= y < n and 0 <= x < n and grid.get((y, x)) == me:
                total += run
    return total


@oracle("games.reversi.flips")
def _rv_flips_move(tr):
    s = tr["state"]
    (m,) = s["ringed"]
    return _rv_flips(s, m["row"], m["col"])


@oracle("games.reversi.legal_moves")
def _rv_legal(tr):
    s = tr["state"]
    return sum(1 for r in range(s["n"]) for c in range(s["n"]) if _rv_flips(s, r, c) > 0)


@option_fit("games.reversi.best_move")
def _rv_best_fits(tr):
    """Indices of the lettered squares that turn over the most discs (each lettered square a legal move)."""
    s = tr["state"]
    counts = [_rv_flips(s, q["row"], q["col"]) for q in s["labelled"]]
    assert min(counts) > 0
    return [i for i, v in enumerate(counts) if v == max(counts)]


@oracle("games.reversi.best_move")
def _rv_best(tr):
    (best,) = _rv_best_fits(tr)
    assert len(tr["state"]["labelled"]) == 3 + tr["level"] // 3
    return "ABCDEF"[best]
