"""Oracles of the grammar icons.shape_grid (grammars/icons/shape_grid.yaml, programs/icons/shape_grid/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from collections import Counter

from tests.tasks.common import options_matching, step
from tests.tasks.registry import option_fit, oracle


@oracle("icons.shape_grid.row_extreme")
def _grid_row(tr):
    st = tr["state"]
    counts = [sum(p["row"] == r for p in st["pieces"]) for r in range(st["rows"])]
    target = max(counts) if tr["query"]["extreme"] == "most" else min(counts)
    return counts.index(target) + 1


@oracle("icons.shape_grid.empty_cells")
def _grid_empty(tr):
    st = tr["state"]
    return st["rows"] * st["cols"] - len(st["pieces"])


@oracle("icons.shape_grid.common_shape_option")
def _grid_common_option(tr):
    top = Counter(p["shape"] for p in tr["state"]["pieces"]).most_common(1)[0][0]
    return "ABCDEFGH"[step(tr, "options").index(top)]


@oracle("icons.shape_grid.column_color_count")
def _grid_column_color(tr):
    col, color = step(tr, "column"), step(tr, "color")
    return sum(p["col"] == col and p["color"] == color for p in tr["state"]["pieces"])


@option_fit("icons.shape_grid.common_shape_option")
def _shape_fits(tr):
    counts = Counter(p["shape"] for p in tr["state"]["pieces"])
    return options_matching(tr, [k for k, n in counts.items() if n == max(counts.values())])
