"""Oracles of the grammar geometry.cube_net (grammars/geometry/cube_net.yaml, programs/geometry/cube_net/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import option_fit, oracle


# -- nets of a cube: roll a die over the squares and see whether every face lands once ------------------------------
def folds_into_cube(cells: list[dict]) -> bool:
    squares = {(c["row"], c["col"]) for c in cells}
    start = min(squares)
    # faces (down, north, east, south, west, up) of a die on each square; rolling onto a neighbour turns it
    faces = {start: ("D", "N", "E", "S", "W", "U")}
    todo = [start]
    while todo:
        r, c = todo.pop()
        d, n, e, s, w, u = faces[r, c]
        for (dr, dc), after in (((-1, 0), (n, u, e, d, w, s)), ((1, 0), (s, d, e, u, w, n)),
                                ((0, 1), (e, n, u, s, d, w)), ((0, -1), (w, n, d, s, u, e))):
            q = (r + dr, c + dc)
            if q in squares and q not in faces:
                faces[q] = after
                todo.append(q)
    return len(squares) == 6 and len({f[0] for f in faces.values()}) == 6


@option_fit("geometry.cube_net.foldable_option")
def cube_net_fits(tr) -> list[int]:
    return [i for i, p in enumerate(tr["state"]["panels"]) if folds_into_cube(p["cells"])]


@oracle("geometry.cube_net.foldable_count")
def _cube_net_count(tr):
    return len(cube_net_fits(tr))


@oracle("geometry.cube_net.foldable_option")
def _cube_net_option(tr):
    (i,) = cube_net_fits(tr)
    return tr["state"]["panels"][i]["mark"]
