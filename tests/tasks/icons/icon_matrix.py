"""Oracles of the grammar icons.icon_matrix (grammars/icons/icon_matrix.yaml, programs/icons/icon_matrix/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import _letter_of
from tests.tasks.registry import option_fit, oracle


# -- matrices of panels: each candidate is tried in the gap, and kept when every property then obeys one rule ------
def _matrix_ok(grid: dict, n: int, key: str) -> bool:
    rows = [[grid[r, c][key] for c in range(n)] for r in range(n)]
    cols = [[grid[r, c][key] for r in range(n)] for c in range(n)]
    per_row = all(len(set(line)) == 1 for line in rows)
    per_col = all(len(set(line)) == 1 for line in cols)
    latin = all(len(set(line)) == n for line in rows + cols)
    return per_row or per_col or latin


@option_fit("icons.icon_matrix.missing_panel")
def matrix_fits(tr) -> list[int]:
    st = tr["state"]
    n = st["n"]
    seen = {(g["row"], g["col"]): g for g in st["cells"]}
    gap = next((r, c) for r in range(n) for c in range(n) if (r, c) not in seen)
    good = []
    for i, o in enumerate(st["options"]):
        grid = dict(seen)
        grid[gap] = o
        if all(_matrix_ok(grid, n, key) for key in ("icon", "color", "count")):
            good.append(i)
    return good


@oracle("icons.icon_matrix.changing_properties")
def _matrix_changing(tr):
    st = tr["state"]
    axis = "row" if tr["query"]["line"] == "row" else "col"
    out = []
    for word, key in (("pictogram", "icon"), ("colour", "color"), ("number", "count")):
        values = {}
        for g in st["cells"]:
            values.setdefault(g[axis], set()).add(g[key])
        if any(len(v) > 1 for v in values.values()):
            out.append(word)
    return out


oracle("icons.icon_matrix.missing_panel")(_letter_of(matrix_fits))
