"""Helpers shared by the oracles of several geometry grammars (moved from the old tests/oracles_*.py modules)."""
from __future__ import annotations


# name → integer matrix ((a, b), (c, d)) acting on column vectors (x, y)
MATRICES = {
    "reflection in the x-axis": ((1, 0), (0, -1)),
    "reflection in the y-axis": ((-1, 0), (0, 1)),
    "reflection in the line y = x": ((0, 1), (1, 0)),
    "reflection in the line y = -x": ((0, -1), (-1, 0)),
    "rotation of 90° counterclockwise about the origin": ((0, -1), (1, 0)),
    "rotation of 90° clockwise about the origin": ((0, 1), (-1, 0)),
    "rotation of 180° about the origin": ((-1, 0), (0, -1)),
}


def apply(name: str, x: int, y: int) -> tuple[int, int]:
    (a, b), (c, d) = MATRICES[name]
    return a * x + b * y, c * x + d * y
