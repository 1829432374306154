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


def _c4_grid(state):
    grid = [[""] * 7 for _ in range(6)]
    for d in state["discs"]:
        grid[d["row"]][d["col"]] = d["color"]
    return grid


def _c4_four(grid, color):
    for r in range(6):
        for c in range(7):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + k * dr, c + k * dc) for k in range(4)]
                if all(0 <= a < 6 and 0 <= b < 7 and grid[a][b] == color for a, b in cells):
                    return True
    return False


def _c4_winning_column(tr):
    grid = _c4_grid(tr["state"])
    n = sum(1 for row in grid for x in row if x)
    me = "red" if n % 2 == 0 else "yellow"
    assert not _c4_four(grid, "red") and not _c4_four(grid, "yellow")
    wins = []
    for c in range(7):
        empty = [r for r in range(6) if not grid[r][c]]
        if not empty:
            continue
        r = max(empty)  # the lowest empty hole
        assert all(grid[k][c] for k in range(r + 1, 6))  # gravity
        trial = [row[:] for row in grid]
        trial[r][c] = me
        if _c4_four(trial, me):
            wins.append(c + 1)
    assert len(wins) == 1
    return wins[0]


def _c4_disc_count(tr):
    return sum(1 for d in tr["state"]["discs"] if d["color"] == tr["query"]["color"])


ORACLES.update({
    "games.connect_four.winning_column": _c4_winning_column,
    "games.connect_four.disc_count": _c4_disc_count,
})
