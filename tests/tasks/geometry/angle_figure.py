"""Oracles of the grammar geometry.angle_figure (grammars/geometry/angle_figure.yaml, programs/geometry/angle_figure/):
each task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


def _corner_degrees(tr):
    """Every angle of the figure: the shown ones, and the hidden one from the angle sum (n - 2) · 180."""
    corners = tr["state"]["corners"]
    shown = {c["name"]: int(c["text"].rstrip("°")) for c in corners if c["text"] != "?"}
    hidden = [c["name"] for c in corners if c["text"] == "?"]
    assert len(hidden) == 1
    shown[hidden[0]] = (len(corners) - 2) * 180 - sum(shown.values())
    return shown, hidden[0]


@oracle("geometry.angle_figure.missing_angle")
def _missing_angle(tr):
    degrees, hidden = _corner_degrees(tr)
    return degrees[hidden]


@oracle("geometry.angle_figure.extreme_angle_vertex")
def _extreme_angle_vertex(tr):
    degrees, _ = _corner_degrees(tr)
    pick = max if tr["query"]["extreme"] == "largest" else min
    return pick(degrees, key=degrees.get)


@oracle("geometry.angle_figure.count_angle_kind")
def _count_angle_kind(tr):
    degrees, _ = _corner_degrees(tr)
    if tr["query"]["kind"] == "obtuse":
        return sum(d > 90 for d in degrees.values())
    return sum(d < 90 for d in degrees.values())
