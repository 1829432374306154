"""Oracles of the grammar games.tic_tac_toe (grammars/games/tic_tac_toe.yaml, programs/games/tic_tac_toe/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


def _ttt_board(state):
    side = state["side"]
    board = [""] * (side * side)
    for p in state["pieces"]:
        board[p["row"] * side + p["col"]] = p["player"]
    return board, side


def _ttt_lines(side):
    """Every line of three cells on a side × side board (8 on 3×3, 24 on 4×4), enumerated independently."""
    out = []
    for r in range(side):
        for c in range(side):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + k * dr, c + k * dc) for k in range(3)]
                if all(0 <= y < side and 0 <= x < side for y, x in cells):
                    out.append(tuple(y * side + x for y, x in cells))
    return out


def _ttt_wins(state, other: bool = False):
    board, side = _ttt_board(state)
    me = "X" if sum(1 for b in board if b) % 2 == 0 else "O"
    if other:
        me = "O" if me == "X" else "X"
    out = []
    for k in range(side * side):
        if board[k]:
            continue
        trial = board[:]
        trial[k] = me
        if any(trial[a] == trial[b] == trial[c] == me for a, b, c in _ttt_lines(side)):
            out.append(k + 1)
    return out


@oracle("games.tic_tac_toe.winning_cell")
def _ttt_winning_cell(tr):
    assert tr["state"]["side"] == (3 if tr["level"] < 6 else 4)
    assert len(_ttt_lines(tr["state"]["side"])) == (8 if tr["level"] < 6 else 24)
    wins = _ttt_wins(tr["state"])
    assert len(wins) == 1
    if tr["level"] >= 5:  # the other player threatens elsewhere: a decoy
        theirs = _ttt_wins(tr["state"], other=True)
        assert theirs and wins[0] not in theirs
    return wins[0]


@oracle("games.tic_tac_toe.winning_count")
def _ttt_winning_count(tr):
    cells = set(_ttt_wins(tr["state"]))
    if tr["level"] >= 5:  # either player's winning cells, each once
        cells |= set(_ttt_wins(tr["state"], other=True))
    return len(cells)
