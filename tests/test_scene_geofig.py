"""Shared scene-layer additions made while re-expressing the geometry layouts (coordinate_plane, figure) as components:
directed label spots, `clear: prefer`, circle and angle strokes for `clear`, and per-mark no-overlap boxes."""
from __future__ import annotations

import pytest

from tessera.render.marks import RenderRejected
from tests.test_lib_icons import render_grammar


def _one_label(root, spots: str, extra: str = "", marks: str = "", name: str = "t_spot"):
    return render_grammar(root, f"grammars/geometry/{name}.yaml", f"""
        grammar: geometry.{name}
        summary: one dot and its label
        state:
          pts: "[{{x: 0, y: 0, name: 'Q'}}]"
        render:
          canvas: {{width: 200, height: 200}}
          scene:
            frame: {{plane: {{x: "[-5, 5]", y: "[-5, 5]"}}}}
            marks:
{marks}
              - circle: {{each: pts, as: p, x: p.x, y: p.y, r: 4, group: g}}
              - text: {{each: pts, as: p, x: p.x, y: p.y, text: p.name, size: 12, bind: p, group: g, z: 1,
                       spots: "{spots}"{extra}}}
        """)[0]


def test_a_spot_with_a_direction_puts_the_text_on_that_side_of_it(library_copy):
    # Plane frame 200 px over 10 units: the dot at (100, 100); the spot 1 unit right and up is (120, 80).
    for ux, uy, side in [(1, 1, "ne"), (-1, 0, "w"), (0, -1, "s")]:
        res = _one_label(library_copy, f"[{{x: {ux}, y: {uy}, ux: {ux}, uy: {uy}}}]")
        x0, y0, x1, y1 = res.render_map["pts[0]"]["bbox"]  # the dot's box united with the label's
        if side == "ne":
            assert x1 > 125 and y0 < 75 and x0 == pytest.approx(96, abs=0.5)
        elif side == "w":
            assert x0 < 75 and x1 == pytest.approx(104, abs=0.5)
        else:
            assert y1 > 125 and y0 == pytest.approx(96, abs=0.5)


def test_a_dot_and_its_own_label_are_separate_marks_for_the_no_overlap_rule(library_copy):
    # The label sits 1 px clear of its dot... but bound to the same record: their union is the render map's box,
    # never the box checked against other members of the group.
    res = _one_label(library_copy, "[{x: 0.3, y: 0, ux: 1, uy: 0}]")
    x0, y0, x1, y1 = res.render_map["pts[0]"]["bbox"]
    assert x0 == pytest.approx(96, abs=0.5) and x1 > 110


LINE = "              - line: {x: -5, y: 0.8, x2: 5, y2: 0.8, stroke: ink, stroke_width: 2}"
LOW = "              - line: {x: -5, y: 0.2, x2: 5, y2: 0.2, stroke: ink, stroke_width: 2}"
CIRCLE = "              - circle: {x: 1, y: 1, r: 0.6, sizes: frame, fill: none, stroke: ink, stroke_width: 2}"
ANGLE = "              - angle: {x: 0.2, y: 0.2, from: 0, to: 90, r: 12, stroke: ink, square: false}"


def test_clear_prefer_takes_a_clear_spot_else_the_first_legible_one(library_copy):
    spots = "[{x: 0.5, y: 0.5, ux: 1, uy: 1}, {x: 0.5, y: -0.5, ux: 1, uy: -1}]"
    # A horizontal line just above the dot crosses the first spot's label: the second (below) is taken.
    res = _one_label(library_copy, spots, ", clear: prefer", LINE)
    assert res.render_map["pts[0]"]["bbox"][3] > 115
    # Both crossed (a line through both): the first legible spot, no rejection.
    both = "[{x: 0.5, y: 0.2, ux: 1, uy: 0}, {x: 0.5, y: 0.2, ux: 1, uy: 0}]"
    res = _one_label(library_copy, both, ", clear: prefer", LOW, "t_spot2")
    assert res.render_map["pts[0]"]["bbox"][2] > 115
    with pytest.raises(RenderRejected, match="crowded"):
        _one_label(library_copy, both, ", clear: true", LOW, "t_spot3")


@pytest.mark.parametrize("obstacle", [CIRCLE, ANGLE])
def test_stroked_circles_and_angle_arcs_are_strokes_for_clear_text(library_copy, obstacle):
    # The first spot's label (north-east of the dot) lies under the circle's rim / the angle's arc.
    spots = "[{x: 0.4, y: 0.4, ux: 1, uy: 1}, {x: -0.4, y: -0.4, ux: -1, uy: -1}]"
    res = _one_label(library_copy, spots, ", clear: true", obstacle)
    x0, y0, x1, y1 = res.render_map["pts[0]"]["bbox"]
    assert x0 < 90 and y1 > 110  # the south-west spot was taken
