"""Oracles of the grammar puzzles.sliding (grammars/puzzles/sliding.yaml, programs/puzzles/sliding/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import option_fit, oracle


# ---- sliding tiles -------------------------------------------------------------------------------------------
def _slide_board(state):
    n = state["n"]
    board = [0] * (n * n)
    for t in state["tiles"]:
        board[t["row"] * n + t["col"]] = t["value"]
    assert sorted(board) == list(range(n * n))
    return n, tuple(board)


def _slide_solve(n, board, limit=20):
    """Fewest slides by IDA* with the Manhattan heuristic (admissible, so the first bound that succeeds is optimal)."""
    goal = tuple(list(range(1, n * n)) + [0])

    def h(b):
        return sum(abs((v - 1) // n - i // n) + abs((v - 1) % n - i % n) for i, v in enumerate(b) if v)

    def search(b, gap, g, bound, prev):
        f = g + h(b)
        if f > bound:
            return f
        if b == goal:
            return -1
        best = 10 ** 9
        r, c = divmod(gap, n)
        for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            y, x = r + dr, c + dc
            if 0 <= y < n and 0 <= x < n and y * n + x != prev:
                nb = list(b)
                nb[gap], nb[y * n + x] = nb[y * n + x], 0
                t = search(tuple(nb), y * n + x, g + 1, bound, gap)
                if t == -1:
                    return -1
                best = min(best, t)
        return best

    bound = h(board)
    while bound <= limit:
        t = search(board, board.index(0), 0, bound, -1)
        if t == -1:
            return bound
        bound = t
    raise AssertionError("no solution within the limit")


@oracle("puzzles.sliding.moves_to_solve")
def _slide_moves(tr):
    n, board = _slide_board(tr["state"])
    return _slide_solve(n, board)


@option_fit("puzzles.sliding.movable_tile")
def _slide_movable_fits(tr):
    n, board = _slide_board(tr["state"])
    g = board.index(0)
    near = {board[y * n + x] for y in range(n) for x in range(n) if abs(y - g // n) + abs(x - g % n) == 1}
    return [i for i, text in enumerate(tr["steps"]["options"]) if int(text.split()[1]) in near]


@oracle("puzzles.sliding.movable_tile")
def _slide_movable(tr):
    hits = _slide_movable_fits(tr)
    assert len(hits) == 1
    return "ABCD"[hits[0]]
