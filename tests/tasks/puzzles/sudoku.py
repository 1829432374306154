"""Oracles of the grammar puzzles.sudoku (grammars/puzzles/sudoku.yaml, programs/puzzles/sudoku/): each task's answer
recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import only, step
from tests.tasks.registry import oracle


# -- sudoku -----------------------------------------------------------------------------------------------------
def unit_cells(tr, unit: str, number: int) -> list[dict]:
    st = tr["state"]
    k = number - 1
    if unit == "row":
        return [c for c in st["cells"] if c["row"] == k]
    if unit == "column":
        return [c for c in st["cells"] if c["col"] == k]
    per_band = st["n"] // st["box_cols"]
    br, bc = divmod(k, per_band)
    return [c for c in st["cells"] if c["row"] // st["box_rows"] == br and c["col"] // st["box_cols"] == bc]


def _missing(tr, cells) -> list[int]:
    shown = {c["value"] for c in cells if c["shown"]}
    return sorted(set(range(1, tr["state"]["n"] + 1)) - shown)


@oracle("puzzles.sudoku.missing_digit")
def _missing_digit(tr):
    cells = unit_cells(tr, tr["query"]["unit"], step(tr, "place"))
    assert sum(not c["shown"] for c in cells) == 1
    return only(_missing(tr, cells))


@oracle("puzzles.sudoku.marked_cell")
def _marked_cell(tr):
    st = tr["state"]
    m = only([c for c in st["cells"] if c["marked"]])
    box = lambda c: (c["row"] // st["box_rows"], c["col"] // st["box_cols"])  # noqa: E731
    peers = [c for c in st["cells"] if c["row"] == m["row"] or c["col"] == m["col"] or box(c) == box(m)]
    return only(_missing(tr, peers))


@oracle("puzzles.sudoku.missing_set")
def _missing_set(tr):
    cells = unit_cells(tr, tr["query"]["unit"], step(tr, "place"))
    return [str(d) for d in _missing(tr, cells)]
