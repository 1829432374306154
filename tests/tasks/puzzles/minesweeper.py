"""Oracles of the grammar puzzles.minesweeper (grammars/puzzles/minesweeper.yaml, programs/puzzles/minesweeper/): each
task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import option_fit, oracle


# ---- minesweeper ---------------------------------------------------------------------------------------------
def _around(a, b):
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])) == 1


@oracle("puzzles.minesweeper.mine_count")
def _mines_around(tr):
    s = tr["state"]
    (q,) = s["quiz"]
    return sum(1 for c in s["cells"] if c["mine"] and _around((c["row"], c["col"]), (q["row"], q["col"])))


def _mines_splits(tr):
    """Every mine/safe split of the four lettered cells that agrees with all open numbers."""
    from itertools import product

    s = tr["state"]
    flags = [(f["row"], f["col"]) for f in s["flags"]]
    hidden = [(h["row"], h["col"]) for h in s["hidden"]]
    opened = [c for c in s["cells"] if not c["mine"] and (c["row"], c["col"]) not in hidden]
    every_mine = [(c["row"], c["col"]) for c in s["cells"] if c["mine"]]
    assert all(c["number"] == sum(_around(m, (c["row"], c["col"])) for m in every_mine) for c in opened)
    fits = []
    for bits in product((False, True), repeat=4):
        mines = flags + [h for h, b in zip(hidden, bits) if b]
        if all(sum(_around(m, (c["row"], c["col"])) for m in mines) == c["number"] for c in opened):
            fits.append(bits)
    return fits


@option_fit("puzzles.minesweeper.safe_cell")
def _mines_safe_fits(tr):
    """Lettered cells that are safe in every split that fits the open numbers."""
    fits = _mines_splits(tr)
    return [i for i in range(4) if all(not bits[i] for bits in fits)]


@oracle("puzzles.minesweeper.safe_cell")
def _mines_safe(tr):
    fits = _mines_splits(tr)
    assert len(fits) == 1 and sum(fits[0]) == 3
    return "ABCD"[fits[0].index(False)]
