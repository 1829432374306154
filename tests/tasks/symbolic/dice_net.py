"""Oracles of the grammar symbolic.dice_net (grammars/symbolic/dice_net.yaml, programs/symbolic/dice_net/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


def _fold_normals(faces) -> dict[int, tuple]:
    """Fold the net around square 0 (lying face down): crossing an edge turns the next square up by 90 degrees,
    so its outward normal is the direction it was walked in, and the old normal becomes its backward axis."""
    at = {(f["row"], f["col"]): f["i"] for f in faces}
    neg = lambda a: tuple(-x for x in a)  # noqa: E731
    frames = {faces[0]["i"]: ((1, 0, 0), (0, 1, 0), (0, 0, -1))}  # (col axis, row axis, normal)
    todo = [(faces[0]["row"], faces[0]["col"])]
    while todo:
        r, c = todo.pop()
        u, v, n = frames[at[(r, c)]]
        for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            nxt = at.get((r + dr, c + dc))
            if nxt is None or nxt in frames:
                continue
            if dc:
                axis = u if dc > 0 else neg(u)
                frames[nxt] = (neg(n) if dc > 0 else n, v, axis)
            else:
                axis = v if dr > 0 else neg(v)
                frames[nxt] = (u, neg(n) if dr > 0 else n, axis)
            todo.append((r + dr, c + dc))
    assert len(frames) == 6 and len({f[2] for f in frames.values()}) == 6, "not a cube net"
    return {i: f[2] for i, f in frames.items()}


@oracle("symbolic.dice_net.opposite_face")
def _net_opposite(tr):
    pick = step(tr, "pick")
    faces = [f for f in tr["state"]["faces"] if f["sheet"] == pick["sheet"]]
    normals = _fold_normals(faces)
    (other,) = [f for f in faces if normals[f["i"]] == tuple(-x for x in normals[pick["i"]])]
    return other["value"]


@oracle("symbolic.dice_net.side_sum")
def _net_side_sum(tr):
    pick = step(tr, "pick")
    faces = [f for f in tr["state"]["faces"] if f["sheet"] == pick["sheet"]]
    normals = _fold_normals(faces)
    n = normals[pick["i"]]
    # the four sides are the faces whose normal is perpendicular to the named face's
    return sum(f["value"] for f in faces if sum(a * b for a, b in zip(normals[f["i"]], n)) == 0)
