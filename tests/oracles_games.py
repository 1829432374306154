"""Oracles for the games and physics domains (independent Python over the recorded state)."""
from __future__ import annotations

from tests.oracles import step

TTT_LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def _ttt_board(state):
    board = [""] * 9
    for p in state["pieces"]:
        board[p["row"] * 3 + p["col"]] = p["player"]
    return board


def _ttt_wins(state):
    board = _ttt_board(state)
    me = "X" if sum(1 for b in board if b) % 2 == 0 else "O"
    out = []
    for k in range(9):
        if board[k]:
            continue
        trial = board[:]
        trial[k] = me
        if any(trial[a] == trial[b] == trial[c] == me for a, b, c in TTT_LINES):
            out.append(k + 1)
    return out


def _ttt_winning_cell(tr):
    wins = _ttt_wins(tr["state"])
    assert len(wins) == 1
    return wins[0]


def _ttt_winning_count(tr):
    return len(_ttt_wins(tr["state"]))


ORACLES = {
    "games.tic_tac_toe.winning_cell": _ttt_winning_cell,
    "games.tic_tac_toe.winning_count": _ttt_winning_count,
}
