"""Oracles of the grammar games.connect_four (grammars/games/connect_four.yaml, programs/games/connect_four/): each
task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


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


@oracle("games.connect_four.winning_column")
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


@oracle("games.connect_four.disc_count")
def _c4_disc_count(tr):
    return sum(1 for d in tr["state"]["discs"] if d["color"] == tr["query"]["color"])
