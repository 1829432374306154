"""Oracles of the grammar geometry.symmetric_figure (grammars/geometry/symmetric_figure.yaml,
programs/geometry/symmetric_figure/): each task's answer recomputed by plain Python from the recorded trace, never
the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


# -- figures of unit squares: symmetries about the figure's own centre ---------------------------------------------
def _figure_moves(tr):
    """Which of the eight moves of the figure's bounding box map its squares onto themselves."""
    sq = {(c["row"], c["col"]) for c in tr["state"]["cells"]}
    rows, cols = [r for r, _ in sq], [c for _, c in sq]
    r0, c0 = min(rows), min(cols)
    h, w = max(rows) - r0, max(cols) - c0
    local = {(r - r0, c - c0) for r, c in sq}
    moves = {"vertical": lambda r, c: (r, w - c), "horizontal": lambda r, c: (h - r, c),
             "half": lambda r, c: (h - r, w - c)}
    if h == w:  # the diagonal moves keep only a square box
        moves.update({"diagonal": lambda r, c: (c, r), "anti": lambda r, c: (w - c, h - r),
                      "quarter": lambda r, c: (c, h - r)})
    return {name for name, f in moves.items() if {f(r, c) for r, c in local} == local}


@oracle("geometry.symmetric_figure.mirror_lines")
def _mirror_lines(tr):
    return len(_figure_moves(tr) & {"vertical", "horizontal", "diagonal", "anti"})


@oracle("geometry.symmetric_figure.turn_order")
def _turn_order(tr):
    ok = _figure_moves(tr)
    return 4 if "quarter" in ok else (2 if "half" in ok else 1)


@oracle("geometry.symmetric_figure.complete_mirror")
def _complete_mirror(tr):
    # the dashed line runs down the paper's middle: a square (r, c) needs its partner (r, n - 1 - c)
    st = tr["state"]
    sq = {(c["row"], c["col"]) for c in st["cells"]}
    return len({(r, st["n"] - 1 - c) for r, c in sq} - sq)


@oracle("geometry.symmetric_figure.mirror_axes")
def _mirror_axes(tr):
    names = {"vertical": "vertical", "horizontal": "horizontal", "diagonal": "falling diagonal",
             "anti": "rising diagonal"}
    return [word for key, word in names.items() if key in _figure_moves(tr)]
