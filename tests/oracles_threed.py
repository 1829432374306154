"""Oracles for the 3-D scene tasks (independent Python over the recorded state)."""
from __future__ import annotations

from tests.oracles import step


def _heights(state):
    return {(c["x"], c["y"]): c["h"] for c in state["columns"]}


def _cube_total(tr):
    return sum(c["h"] for c in tr["state"]["columns"])


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


def _bar_tallest_fruit(tr):
    bars = tr["state"]["bars"]
    top = max(b["value"] for b in bars)
    (best,) = [b for b in bars if b["value"] == top]
    return best["fruit"]


def _bar_value(tr):
    bar = step(tr, "bar")
    (match,) = [b for b in tr["state"]["bars"] if b["fruit"] == bar["fruit"] and b["year"] == bar["year"]]
    return match["value"]


ORACLES = {
    "three_d.bar_chart_3d.tallest_fruit": _bar_tallest_fruit,
    "three_d.bar_chart_3d.bar_value": _bar_value,
    "three_d.cube_stack.total_cubes": _cube_total,
    "three_d.cube_stack.visible_cubes": _cube_visible,
}
