"""Helpers shared by the oracles of several three_d grammars (moved from the old tests/oracles_*.py modules)."""
from __future__ import annotations

import math


def _heights(state):
    return {(c["x"], c["y"]): c["h"] for c in state["columns"]}


# -- object scenes: positions from world coordinates and the camera's azimuth ------------------------------------
def _view(tr, o):
    """(left-to-right, away-from-camera) of a floor point: the camera's right (cos a, −sin a) and its horizontal
    viewing direction (sin a, cos a), azimuth a clockwise from +y."""
    a = math.radians(tr["state"]["azimuth"])
    return o["x"] * math.cos(a) - o["y"] * math.sin(a), o["x"] * math.sin(a) + o["y"] * math.cos(a)
