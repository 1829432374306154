"""Issue 11 part 4 (levels, legibility, chart vocabularies): levels that measurably raise difficulty, a text size
floor, labels that no stroke runs through, and bar charts whose topic and value labels vary."""
from __future__ import annotations

import statistics

import pytest

from tessera.expr.compile import Budget
from tessera.sample.rng import Rng
from tessera.render.marks import MIN_TEXT_PX, RenderRejected
from tessera.sample.state import sample_state
from tessera.trace.instance import generate
from tessera.trace.loop import sample_state as unrendered_sample
from tests.test_lib_icons import render_grammar
from tests.test_scene_geofig import _one_label



@pytest.fixture(scope="module")
def tax(taxonomy):
    return taxonomy  # the session's compiled library


def _solved(tax, tid: str, level: int, seeds: range) -> list[tuple[dict, object, int]]:
    """(state, answer, program work) of the instance generate() builds for each seed, without rendering it (the
    generation loop's unrendered sample: the same seed streams and attempts as generate)."""
    task = tax.tasks[tid]
    out = []
    for seed in seeds:
        drawn = unrendered_sample(task, seed, level, vocab=tax.vocab)
        out.append((drawn.state, drawn.answer, drawn.program_work))
    return out


# Each: task, what grows, the factor level 8-9 reaches over level 0-1 (mean over 30 instances per end: 120 in all).
GROWTH = [
    ("games.chess.move_count", "answer", 2.0),
    ("geometry.circle_plane.area_multiple_of_pi", "answer", 2.0),
    ("icons.sequence.next_count", "answer", 1.6),  # 3.7 → 6.4 over 30 seeds once the decoys draw from the state stream
    ("icons.shape_grid.row_extreme", "work", 1.8),
    ("icons.sequence.next_panel", "work", 1.5),
    ("icons.odd_one_out.odd_panel", "work", 1.8),
    ("geometry.symmetric_figure.complete_mirror", "answer", 2.0),
    ("charts.crossing_lines.crossing_count", "answer", 2.0),
    ("graphs.subway_map.direct_line", "work", 1.8),
]


@pytest.mark.parametrize("tid,what,factor", GROWTH)
def test_level_raises_answer_or_work(tax, tid, what, factor):
    def mean_of(levels):
        rows = [r for lv in levels for r in _solved(tax, tid, lv, range(30))]
        assert len(rows) == 30 * len(levels)
        return statistics.mean(abs(r[1]) if what == "answer" else r[2] for r in rows)

    low, high = mean_of((0, 1)), mean_of((8, 9))
    assert high >= factor * low, (tid, what, low, high)


def test_next_count_always_has_a_changing_count(tax):
    # The eye audit: at level 8 the panels often held one pictogram each and the answer was 1.
    for lv in (0, 4, 8, 9):
        for state, answer, _ in _solved(tax, "icons.sequence.next_count", lv, range(25)):
            counts = [p["count"] for p in state["panels"]]
            assert len(set(counts)) == len(counts) and 1 <= answer <= state["top"]


def test_odd_one_out_differences_get_subtler(tax):
    near = {"red": {"orange", "purple", "brown"}, "orange": {"red", "yellow", "brown"}, "yellow": {"orange", "green"},
            "green": {"yellow", "blue"}, "blue": {"purple", "green"}, "purple": {"blue", "red"},
            "gray": {"brown", "blue"}, "brown": {"orange", "gray", "red"}}
    seen = set()
    for lv in (5, 7, 9):
        for state, _, _ in _solved(tax, "icons.odd_one_out.odd_property", lv, range(40)):
            seen.add(state["change"])
            if state["change"] == "color":
                assert state["odd_color"] in near[state["color"]]
            if state["change"] == "size":  # adjacent sizes only
                assert {state["size"], state["odd_size"]} in ({"small", "medium"}, {"medium", "large"})
            assert state["count"] >= 1 + lv // 3
    assert seen == {"icon", "color", "size", "count", "angle"}  # every way of differing stays in play


def test_area_multiple_adds_the_named_circles(tax):
    for lv in (0, 5, 9):
        inst = generate(tax.tasks["geometry.circle_plane.area_multiple_of_pi"], 11, lv, vocab=tax.vocab)
        rings = [c for c in inst.trace["state"]["circles"] if f" {c['name']}" in inst.prompt.replace(",", " ")
                 .split("k·π")[0]]
        assert len(rings) == 1 + lv // 4
        area = "area" in inst.prompt.split("k·π")[0]
        assert inst.answer == sum(c["r"] ** 2 if area else 2 * c["r"] for c in rings)


# -- legibility -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("size,sizes", [("8", "px"), ("0.09", "frame"), ("9.9", "px")])
def test_text_under_the_floor_is_rejected(library_copy, size, sizes):
    with pytest.raises(RenderRejected, match=rf"under the {MIN_TEXT_PX:g} px floor: illegible"):
        render_grammar(library_copy, "grammars/shapes/t_small.yaml", f"""
            grammar: shapes.t_small
            summary: one tiny label
            state:
              n: 1
            render:
              canvas: {{width: 200, height: 200}}
              scene:
                frame: {{plane: {{x: "[0, 10]", y: "[0, 10]"}}}}
                marks:
                  - text: {{x: 5, y: 5, text: "'42'", size: {size}, sizes: {sizes}}}
            """)


def test_text_at_the_floor_is_drawn(library_copy):
    res, _ = render_grammar(library_copy, "grammars/shapes/t_ok.yaml", """
        grammar: shapes.t_ok
        summary: one label at the floor
        state:
          n: 1
        render:
          canvas: {width: 200, height: 200}
          scene:
            frame: {plane: {x: "[0, 10]", y: "[0, 10]"}}
            marks:
              - text: {x: 5, y: 5, text: "'42'", size: 0.5, sizes: frame}
        """)
    assert res.decisions["marks"] == 1


def test_balance_weights_clear_the_floor_at_every_level(tax):
    # Weight digits were drawn about 8 px tall at level 8: every render below rejects text under the floor, so a
    # render that comes back (no 'render:illegible' retries) drew every digit at 10 px or more.
    for tid in ("symbolic.balance_equation.total_weight", "symbolic.balance_equation.shape_weight"):
        for lv in (6, 8, 9):
            for seed in range(4):
                inst = generate(tax.tasks[tid], seed, lv, vocab=tax.vocab)
                assert "render:illegible" not in inst.trace["rejections"]


TWO_LOW = ("              - line: {x: -5, y: 0.2, x2: 5, y2: 0.2, stroke: ink, stroke_width: 2}\n"
           "              - line: {x: -5, y: 0.35, x2: 5, y2: 0.35, stroke: ink, stroke_width: 2}\n"
           "              - line: {x: -5, y: -0.3, x2: 5, y2: -0.3, stroke: ink, stroke_width: 2}")


def test_a_label_with_no_clear_spot_takes_the_least_crossed_one_with_a_halo(library_copy):
    # Spot 1 (right, at y 0.25) is crossed by two lines, spot 2 (right, at y -0.3) by one: spot 2 is taken, and the
    # halo paints the background over the line inside the label's letters.
    spots = "[{x: 0.6, y: 0.25, ux: 1, uy: 0}, {x: 0.6, y: -0.3, ux: 1, uy: 0}]"
    res = _one_label(library_copy, spots, ", clear: prefer", TWO_LOW, "t_halo")
    x0, y0, x1, y1 = res.render_map["pts[0]"]["bbox"]
    assert y1 > 110  # the label's box reaches below the dot: spot 2 (plane y -0.3 is pixel 106)
    line_y = round(100 + 0.3 * 20)
    bg = tuple(res.decisions["theme"]["background"][:3]) if "background" in res.decisions["theme"] else None
    row = res.rgb[line_y, int(x1) - 14:int(x1) - 2, :3]
    ink_dark = (row.sum(axis=1) < 200).sum()
    assert ink_dark < len(row)  # the line is knocked out somewhere under the label
    assert bg is None or any(tuple(int(c) for c in px) == bg for px in row)


# -- bar chart topics and value labels ---------------------------------------------------------------------------
def test_bar_charts_vary_topic_and_read_values_off_the_axis(tax):
    task = tax.tasks["charts.bar_chart.value_difference"]
    titles, labelled_by_level = set(), {}
    for lv in range(10):
        for seed in range(10):  # 100 instances over the levels
            rng = Rng(seed * 31 + lv)
            state = sample_state(task.grammar, lv, tax.vocab, rng, {}, Budget())
            topic = state["topic"]
            titles.add(topic["title"])
            assert {b["label"] for b in state["bars"]} <= set(topic["categories"])
            labelled_by_level.setdefault(lv, set()).add(state["labelled"])
            if not state["labelled"]:
                # every bar ends on a grid line the axis labels: the value is exactly readable
                assert all(b["value"] % state["step"] == 0 for b in state["bars"])
    assert len(titles) >= 5
    assert all(labelled_by_level[lv] == {True} for lv in (0, 1, 2))
    assert all(labelled_by_level[lv] == {False} for lv in (7, 8, 9))
    assert labelled_by_level[4] == {True, False}


@pytest.mark.parametrize("grammar_task", ["charts.grouped_bars.store_total", "charts.stacked_bars.fruit_total",
                                          "charts.heatmap.top_row_total", "charts.treemap.kth_largest"])
def test_sales_charts_draw_their_goods_from_the_vocabulary(tax, grammar_task):
    task = tax.tasks[grammar_task]
    goods = set()
    for seed in range(25):  # 25 states per grammar, 100 over the four
        state = sample_state(task.grammar, seed % 10, tax.vocab, Rng(seed), {"target": 1}, Budget())
        topic = state["goods"]
        goods.add(topic["goods"])
        names = state.get("fruits") or state.get("names")
        assert set(names) <= set(topic["categories"])
        assert not set(names) & set(tax.vocab["colors"])  # bars are coloured: no colour word names a category
    assert len(goods) >= 3


def test_line_chart_labels_by_level_and_reads_exactly_without_them(tax):
    task = tax.tasks["charts.line_chart.mean_value"]
    seen = {}
    for lv in range(10):
        for seed in range(10):
            state = sample_state(task.grammar, lv, tax.vocab, Rng(seed * 13 + lv), {}, Budget())
            seen.setdefault(lv, set()).add(state["labelled"])
            if not state["labelled"]:
                assert all(p["value"] % state["step"] == 0 for p in state["points"])
    assert seen[0] == seen[2] == {True} and seen[7] == seen[9] == {False} and seen[5] == {True, False}
    inst = generate(task, 3, 9, vocab=tax.vocab)
    assert inst.trace["state"]["topic"]["measure"] in inst.prompt


def test_value_labels_follow_the_level(tax, monkeypatch):
    import tessera.render.marks as marks

    drawn = []
    plain = marks._plain_text
    monkeypatch.setattr(marks, "_plain_text", lambda ctx, v, opts, s, *a: drawn.append(s) or plain(ctx, v, opts, s, *a))
    task = tax.tasks["charts.bar_chart.value_difference"]
    for lv, seed in [(0, 1), (1, 2), (8, 2), (9, 5)]:
        drawn.clear()
        inst = generate(task, seed, lv, vocab=tax.vocab)
        state = inst.trace["state"]
        values = [str(b["value"]) for b in state["bars"]]
        if lv < 3:  # one value label per bar (text marks; axis ticks are guides)
            assert sorted(d for d in drawn if d.isdigit()) == sorted(values)
        else:
            assert not state["labelled"] and not [d for d in drawn if d.isdigit()]
            assert inst.answer == max(b["value"] for b in state["bars"]) - min(b["value"] for b in state["bars"])
