"""Oracles of the grammar three_d.cube_stack (grammars/three_d/cube_stack.yaml, programs/three_d/cube_stack/): each
task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

import math

from tests.tasks.registry import oracle
from tests.tasks.three_d._shared import _heights


@oracle("three_d.cube_stack.total_cubes")
def _cube_total(tr):
    return sum(c["h"] for c in tr["state"]["columns"])


@oracle("three_d.cube_stack.visible_cubes")
def _cube_visible(tr):
    """March from the centre of each face a cube could show (top, x−, y−) towards the isometric viewer, along
    (−1, −1, +1), in small steps; a face is seen when no step lands inside a cube of the height map."""
    h = _heights(tr["state"])

    def solid(x, y, z):
        import math

        return z >= 0 and h.get((math.floor(x), math.floor(y)), 0) > z

    def seen(px, py, pz):
        t = 0.01
        while t < 40:
            if solid(px - t, py - t, pz + t):
                return False
            t += 0.05
        return True

    count = 0
    for (x, y), height in h.items():
        for z in range(height):
            faces = [(x + 0.5, y + 0.5, z + 1.0), (x, y + 0.5, z + 0.5), (x + 0.5, y, z + 0.5)]
            count += any(seen(*f) for f in faces)
    return count


@oracle("three_d.cube_stack.view_squares")
def _cube_view_squares(tr):
    st, side = tr["state"], tr["query"]["side"]
    h = _heights(st)
    if side == "top":
        return sum(v > 0 for v in h.values())
    if side == "left":  # lines of sight along +x
        return sum(max(h.get((x, y), 0) for x in range(st["nx"])) for y in range(st["ny"]))
    return sum(max(h.get((x, y), 0) for y in range(st["ny"])) for x in range(st["nx"]))


@oracle("three_d.cube_stack.cuboid_fill")
def _cube_cuboid_fill(tr):
    st = tr["state"]
    h = _heights(st)
    return st["nx"] * st["ny"] * max(h.values()) - sum(h.values())
