"""Oracles of the grammar three_d.cube_views (grammars/three_d/cube_views.yaml, programs/three_d/cube_views/): each
task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import option_fit, oracle
from tests.tasks.three_d._shared import _heights


# -- side views of a cube stack ----------------------------------------------------------------------------------
def _side_view(heights, size, side):
    """Column heights from the viewer's left to right, looking straight at a side from outside: at the x = 0 side
    the viewer faces +x with +y on the left; at the y = 0 side the viewer faces +y with +x on the right. Each
    column is as tall as the tallest stack in its line of sight."""
    if side == "left":
        return [max(heights.get((x, y), 0) for x in range(size)) for y in reversed(range(size))]
    return [max(heights.get((x, y), 0) for y in range(size)) for x in range(size)]


@option_fit("three_d.cube_views.match_view")
def _cv_fits(tr):
    """The lettered views (A, B, ... in the prompt's order) that show the asked side."""
    st = tr["state"]
    want = _side_view(_heights(st), st["size"], tr["query"]["side"])
    return [i for i, v in enumerate(st["views"]) if v["heights"] == want]


@oracle("three_d.cube_views.match_view")
def _cv_match(tr):
    st = tr["state"]
    want = _side_view(_heights(st), st["size"], tr["query"]["side"])
    (hit,) = [v for v in st["views"] if v["heights"] == want]
    return hit["letter"]
