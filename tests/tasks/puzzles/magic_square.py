"""Oracles of the grammar puzzles.magic_square (grammars/puzzles/magic_square.yaml, programs/puzzles/magic_square/):
each task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


# ---- magic square --------------------------------------------------------------------------------------------
def _magic(state):
    """The grid (None where blank) and the common sum, read off a complete line; the full square is checked magic."""
    n = state["n"]
    full = [[0] * n for _ in range(n)]
    seen = [[None] * n for _ in range(n)]
    for c in state["grid"]:
        full[c["row"]][c["col"]] = c["value"]
        if c["shown"]:
            seen[c["row"]][c["col"]] = c["value"]
    lines = [[(r, c) for c in range(n)] for r in range(n)] + [[(r, c) for r in range(n)] for c in range(n)]
    lines += [[(i, i) for i in range(n)], [(i, n - 1 - i) for i in range(n)]]
    assert len({sum(full[r][c] for r, c in line) for line in lines}) == 1
    assert len({v for row in full for v in row}) == n * n
    total = next(sum(seen[r][c] for r, c in line) for line in lines if all(seen[r][c] is not None for r, c in line))
    return n, seen, lines, total


@oracle("puzzles.magic_square.missing_number")
def _magic_missing(tr):
    n, seen, lines, total = _magic(tr["state"])
    (q,) = [(c["row"], c["col"]) for c in tr["state"]["grid"] if c["asked"]]
    line = next(line for line in lines if q in line and all(seen[r][c] is not None for r, c in line if (r, c) != q))
    return total - sum(seen[r][c] for r, c in line if (r, c) != q)


@oracle("puzzles.magic_square.blank_total")
def _magic_blanks(tr):
    n, seen, lines, total = _magic(tr["state"])
    return n * total - sum(v for row in seen for v in row if v is not None)


@oracle("puzzles.magic_square.magic_sum")
def _magic_total(tr):
    return _magic(tr["state"])[3]
