"""Oracles of the grammar puzzles.pattern_matrix (grammars/puzzles/pattern_matrix.yaml,
programs/puzzles/pattern_matrix/): each task's answer recomputed by plain Python from the recorded trace, never the
expression language."""
from __future__ import annotations

from tests.tasks.registry import option_fit, oracle


# ---- pattern matrix ------------------------------------------------------------------------------------------
def _matrix_missing(state):
    """The missing panel inferred from the visible ones: the last row's shape, its count step, the colour cycle."""
    at = {(c["row"], c["col"]): c for c in state["cells"] if not c["missing"]}
    cols = (len(at) + 1) // 3
    assert len(at) == 3 * cols - 1 and cols == state["cols"] in (3, 4)
    for i in range(3):  # one shape per row, a constant step along each row
        assert len({at[i, j]["shape"] for j in range(cols) if (i, j) in at}) == 1
    steps = {at[i, j + 1]["count"] - at[i, j]["count"] for i in range(3) for j in range(cols - 1) if (i, j + 1) in at}
    assert len(steps) == 1
    count = at[2, cols - 2]["count"] + steps.pop()
    colors = {c["color"] for c in at.values()}
    if len(colors) == 1:
        color = next(iter(colors))
    elif cols == 4:  # colours repeat every three panels along a row
        color = at[2, 0]["color"]
    else:
        color = (colors - {at[2, 0]["color"], at[2, 1]["color"]}).pop()
    return {"shape": at[2, 0]["shape"], "count": count, "color": color}


@option_fit("puzzles.pattern_matrix.missing_panel")
def _matrix_fits(tr):
    want = _matrix_missing(tr["state"])
    return [i for i, o in enumerate(tr["state"]["options"]) if all(o[k] == v for k, v in want.items())]


@oracle("puzzles.pattern_matrix.missing_panel")
def _matrix_option(tr):
    (hit,) = _matrix_fits(tr)
    return tr["state"]["options"][hit]["label"]


@oracle("puzzles.pattern_matrix.missing_count")
def _matrix_count(tr):
    return _matrix_missing(tr["state"])["count"]
