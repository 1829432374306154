"""Shared-layer addition made for the pages work: axis guides in a `plane` frame (their room is reserved before the
frame is fitted, so the plane's ranges must act as scales then too)."""
from __future__ import annotations

from tessera.render.frames import PlaneFrame
from tessera.trace.instance import generate


def test_plane_axis_scale_matches_the_fitted_frame():
    frame = PlaneFrame((0.0, 0.0, 400.0, 300.0), (-6, 6), (-4, 5))
    for ch, (lo, hi) in (("x", (-6, 6)), ("y", (-4, 5))):
        before = PlaneFrame.axis_scale(float(lo), float(hi))
        after = frame.scale(ch)
        assert [v for _, v in before.ticks()] == [v for _, v in after.ticks()]


def test_axis_guides_render_in_a_plane_frame(taxonomy):
    task = taxonomy.tasks["charts.function_graph.value_at"]
    inst = generate(task, 0, 0, vocab=taxonomy.vocab)
    rmap = inst.trace["render"]["render_map"]
    w, h = inst.trace["render"]["width"], inst.trace["render"]["height"]
    x0, y0, x1, y1 = rmap["curves[0]"]["bbox"]
    # the y-axis labels took room on the left, the x-axis labels at the bottom: the curve stays inside them
    assert 20 < x0 < x1 < w and 0 < y0 < y1 < h - 15


def test_a_node_draws_its_own_title_above_and_caption_below(tmp_path):
    """The title's draw op once read the caption's text (a late-bound closure): both must keep their own."""
    from tests.test_scene import build, sample

    def strips(caption: str):
        root = build(tmp_path / caption.replace(" ", "_"), "n: 1\n",
                     f'title: "WWWWWWWW WWWWWWWW"\n{caption}marks: []\n')
        rgb = sample(root)[1].rgb
        return rgb[:30].copy(), rgb[-22:].copy()

    top_alone, bottom_alone = strips("")
    top, bottom = strips('caption: "i"\n')
    assert (top == top_alone).all()  # the title strip is the same with a caption under it
    assert (bottom != bottom_alone).any()  # and the caption is drawn in its own strip
