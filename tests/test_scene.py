"""The scene language through the real pipeline: a one-grammar library is compiled from YAML, an instance is
generated, and the render map, pixels and errors are checked against numbers computed here independently."""
from __future__ import annotations

import math
import textwrap
from pathlib import Path

import numpy as np
import pytest

from tessera.errors import CompileFailed
from tessera.taxonomy import compile_taxonomy
from tessera.trace.instance import generate
from tessera.validate.replay import replay_trace

TAXONOMY = """\
taxonomy: scene-test
version: 1
domains:
  demo:
    summary: scenes under test
    tasks: ["demo.*"]
"""
CONTRACT = "contract: integer_exact\nsummary: an integer\ntype: integer\n"


def build(tmp_path: Path, state: str, scene: str, width: int = 400, height: int = 300, answer: str = "1",
          witness: str = "{scalar: 1}", components: dict[str, str] | None = None, require: str = ""):
    root = tmp_path / "lib"
    for d in ("taxonomy", "grammars/demo", "programs/demo/g", "contracts", "components"):
        (root / d).mkdir(parents=True, exist_ok=True)
    (root / "taxonomy/taxonomy.yaml").write_text(TAXONOMY)
    (root / "contracts/integer_exact.yaml").write_text(CONTRACT)
    grammar = (f"grammar: demo.g\nsummary: a test scene\nstate:\n{textwrap.indent(textwrap.dedent(state), '  ')}"
               + (f"require:\n{textwrap.indent(textwrap.dedent(require), '  ')}" if require else "")
               + f"render:\n  canvas: {{width: {width}, height: {height}}}\n  scene:\n"
               + textwrap.indent(textwrap.dedent(scene), "    "))
    (root / "grammars/demo/g.yaml").write_text(grammar)
    (root / "programs/demo/g/t.yaml").write_text(
        f"task: demo.g.t\ngrammar: demo.g\nsummary: t\noperations: [count]\nbucket: counting\n"
        f"answer: {{value: '{answer}', contract: integer_exact}}\nwitness: {witness}\nprompt: How many?\n")
    for name, text in (components or {}).items():
        (root / f"components/{name}.yaml").write_text(textwrap.dedent(text))
    return root


def sample(root: Path, seed: int = 0, level: int = 0):
    tax = compile_taxonomy(root)
    inst = generate(tax.tasks["demo.g.t"], seed, level, vocab=tax.vocab)
    return tax, inst


def errors_of(root: Path) -> list[str]:
    with pytest.raises(CompileFailed) as exc:
        compile_taxonomy(root)
    return [f"{Path(d.pos.path).name}:{d.pos.line}:{d.pos.col}: {d.message}" for d in exc.value.diagnostics.sorted()]


def pixel(inst, x: float, y: float) -> tuple[int, int, int]:
    return tuple(int(v) for v in inst.rgb[int(y), int(x), :3])


# -- frames and marks: geometry in the render map ---------------------------------------------------------------
def test_cartesian_band_and_linear_rect_geometry(tmp_path):
    root = build(tmp_path, """\
        bars: "[{label: 'a', value: 2}, {label: 'b', value: 5}, {label: 'c', value: 8}]"
        """, """\
        frame:
          cartesian:
            x: {band: "map(bars, b -> b.label)", padding: 0.5}
            y: {linear: "[0, 10]", nice: false}
        marks:
          - rect: {each: bars, as: b, x: b.label, y: 0, y2: b.value, fill: red}
        """)
    _, inst = sample(root)
    rm = inst.trace["render"]["render_map"]
    # Band of category i over a 400 px box: [i * 400/3, (i+1) * 400/3], padding 0.5 takes a quarter off each side.
    for i, v in enumerate((2, 5, 8)):
        x0, y0, x1, y1 = rm[f"bars[{i}]"]["bbox"]
        band = 400 / 3
        assert x0 == pytest.approx(i * band + band * 0.25, abs=0.01)
        assert x1 == pytest.approx((i + 1) * band - band * 0.25, abs=0.01)
        assert y1 == pytest.approx(300, abs=0.01) and y0 == pytest.approx(300 - v / 10 * 300, abs=0.01)
        assert rm[f"bars[{i}]"]["mark"] == "rect"
    # The pixels inside a bar are red, outside are background.
    x0, y0, x1, y1 = rm["bars[2]"]["bbox"]
    r, g, b = pixel(inst, (x0 + x1) / 2, (y0 + y1) / 2)
    assert r > 180 and g < 80 and b < 80
    assert pixel(inst, 5, 5)[0] > 230 and pixel(inst, 5, 5)[1] > 230


def test_polar_wedges_record_their_angles(tmp_path):
    root = build(tmp_path, """\
        parts: "[{v: 1}, {v: 1}, {v: 2}]"
        """, """\
        frame:
          polar:
            theta: {linear: "[0, 4]", nice: false}
            r: {linear: "[0, 1]", nice: false}
            inner: 0.5
        marks:
          - wedge: {each: parts, as: p, index: i, x: "sum(map(parts[:i], q -> q.v))", x2: "sum(map(parts[:i + 1], q -> q.v))", fill: blue}
        """)
    _, inst = sample(root)
    rm = inst.trace["render"]["render_map"]
    starts = [rm[f"parts[{i}]"]["geometry"]["start"] for i in range(3)]
    sweeps = [rm[f"parts[{i}]"]["geometry"]["sweep"] for i in range(3)]
    assert starts == pytest.approx([-90, 0, 90]) and sweeps == pytest.approx([90, 90, 180])
    g = rm["parts[2]"]["geometry"]
    assert g["center"] == pytest.approx([200, 150]) and g["r"] == pytest.approx(150)
    assert g["r_inner"] == pytest.approx(75)
    # The ring's hole is background; the ring itself is blue.
    assert pixel(inst, 200, 150)[2] < 256 and pixel(inst, 200, 150)[0] > 230
    r, gg, b = pixel(inst, 200, 150 + 110)  # straight down: inside the third (half-ring) wedge
    assert b > 150 and r < 90


def test_plane_frame_is_y_up_with_equal_aspect(tmp_path):
    root = build(tmp_path, """\
        pts: "[{x: 1, y: 1}, {x: 3, y: 1.5}]"
        """, """\
        frame: {plane: {x: "[0, 4]", y: "[0, 2]"}}
        marks:
          - circle: {each: pts, as: p, x: p.x, y: p.y, r: 0.2, sizes: frame, fill: green}
        """, width=400, height=400)
    _, inst = sample(root)
    rm = inst.trace["render"]["render_map"]
    # 4 × 2 units in 400 × 400: 100 px per unit, centred vertically (100 px above and below).
    assert rm["pts[0]"]["geometry"]["center"] == pytest.approx([100, 200])
    assert rm["pts[1]"]["geometry"]["center"] == pytest.approx([300, 150])
    assert rm["pts[0]"]["geometry"]["r"] == pytest.approx(20)


def test_grid_and_hex_cells(tmp_path):
    root = build(tmp_path, """\
        cells: "[{r: 0, c: 0}, {r: 1, c: 2}]"
        """, """\
        layers:
          - region: [0, 0, 0.5, 1]
            frame: {grid: {rows: 2, cols: 3}}
            marks:
              - cell: {each: cells, as: k, x: k.c, y: k.r, fill: orange}
          - region: [0.5, 0, 1, 1]
            frame: {grid: {rows: 2, cols: 3, hex: true}}
            marks:
              - cell: {each: cells, as: k, x: k.c, y: k.r, fill: purple, bind: false}
        """, width=600, height=200)
    _, inst = sample(root)
    rm = inst.trace["render"]["render_map"]
    # Square grid in a 300 × 200 box: cells of min(300/3, 200/2) = 100 px, the grid centred.
    assert rm["cells[0]"]["bbox"] == pytest.approx([0, 0, 100, 100])
    assert rm["cells[1]"]["bbox"] == pytest.approx([200, 100, 300, 200])
    # Hex cells: the centre of cell (0, 0) is purple, and a point between rows of the offset hexes too.
    from tessera.render.frames import GridFrame

    f = GridFrame((300, 0, 600, 200), 2, 3, True)
    cx, cy = f.point(0.5, 0.5)
    r, g, b = pixel(inst, cx, cy)
    assert r > 100 and b > 150 and g < 100
    assert len(f.cell_polygon(0, 0)) == 6


def test_lines_paths_text_and_angle_geometry(tmp_path):
    root = build(tmp_path, """\
        seg: "{x: 10, y: 20, x2: 110, y2: 20}"
        v: "{x: 200, y: 150}"
        """, """\
        marks:
          - line: {x: seg.x, y: seg.y, x2: seg.x2, y2: seg.y2, stroke_width: 4, arrow: end, bind: seg}
          - angle: {x: v.x, y: v.y, from: 0, to: 90, r: 30, bind: v}
          - path: {points: "[[20, 200], [60, 260], [100, 200]]", stroke: blue}
          - text: {x: 300, y: 50, text: "'A long label that must shrink'", size: 20, fit: 160}
        """)
    _, inst = sample(root)
    rm = inst.trace["render"]["render_map"]
    assert rm["seg"]["geometry"]["points"] == [[10, 20], [110, 20]]
    assert rm["seg"]["bbox"][0] == pytest.approx(8) and rm["seg"]["bbox"][2] == pytest.approx(112)
    assert rm["v"]["geometry"]["vertex"] == [200, 150] and rm["v"]["geometry"]["sweep"] == 90


def test_fitted_text_fits_its_width(tmp_path):
    from tessera.render.marks import MIN_FONT

    root = build(tmp_path, """\
        t: "{s: 'Quarterly revenue by region'}"
        """, """\
        marks:
          - text: {x: 200, y: 100, text: t.s, size: 30, fit: 120, bind: t}
        """)
    _, inst = sample(root)
    x0, _, x1, _ = inst.trace["render"]["render_map"]["t"]["bbox"]
    assert x1 - x0 <= 120.01
    assert inst.trace["render"]["render_map"]["t"]["geometry"]["size"] >= MIN_FONT


def test_z_order_draws_higher_z_later(tmp_path):
    root = build(tmp_path, "k: 1\n", """\
        marks:
          - rect: {x: 100, y: 100, x2: 200, y2: 200, fill: red, z: 1}
          - rect: {x: 150, y: 150, x2: 250, y2: 250, fill: blue}
        """)
    _, inst = sample(root)
    r, g, b = pixel(inst, 175, 175)
    assert r > 180 and b < 80  # red, declared first, is on top because of its z


def test_panels_split_the_box_and_centre_a_short_row(tmp_path):
    root = build(tmp_path, """\
        items: "[{k: i} for i in range(5)]"
        """, """\
        panels:
          each: items
          as: it
          cols: 3
          gap: 0
          panel:
            marks:
              - rect: {x: 0, y: 0, x2: 10, y2: 10, bind: it, fill: gray}
        """, width=300, height=200)
    _, inst = sample(root)
    rm = inst.trace["render"]["render_map"]
    lefts = [rm[f"items[{i}]"]["bbox"][0] for i in range(5)]
    tops = [rm[f"items[{i}]"]["bbox"][1] for i in range(5)]
    assert lefts == pytest.approx([0, 100, 200, 50, 150]) and tops == pytest.approx([0, 0, 0, 100, 100])


# -- guides -----------------------------------------------------------------------------------------------------
def test_legend_and_axes_take_room_before_the_frame(tmp_path):
    root = build(tmp_path, """\
        series: "[{name: 'north', color: 'red'}, {name: 'south', color: 'blue'}]"
        bars: "[{label: 'a', value: 3}]"
        """, """\
        frame:
          cartesian:
            x: {band: "['a']"}
            y: {linear: "[0, 10]"}
        guides:
          - legend: {each: series, as: s, label: s.name, color: s.color, side: right}
          - axis: {scale: y}
        marks:
          - rect: {each: bars, as: b, x: b.label, y: 0, y2: b.value}
        """)
    _, inst = sample(root)
    rm = inst.trace["render"]["render_map"]
    bar = rm["bars[0]"]["bbox"]
    swatch = rm["series[0]"]["bbox"]
    assert bar[2] < swatch[0], "the plot ends before the legend starts"
    assert bar[0] > 15, "the y axis labels took room on the left"


def test_ramp_colour_matches_the_cell(tmp_path):
    root = build(tmp_path, """\
        cells: "[{c: i, v: i * 10} for i in range(5)]"
        """, """\
        frame:
          cartesian:
            x: {band: "map(cells, c -> c.c)", padding: 0}
            y: {band: "[0]", padding: 0}
        guides:
          - ramp: {domain: "[0, 40]", palette: "'reds'", side: bottom}
        marks:
          - rect: {each: cells, as: k, x: k.c, y: 0, fill: "ramp(k.v, 0, 40, 'reds')"}
        """)
    _, inst = sample(root)
    from tessera.render.theme import ramp_rgb

    rm = inst.trace["render"]["render_map"]
    for i in (0, 4):
        x0, y0, x1, y1 = rm[f"cells[{i}]"]["bbox"]
        assert pixel(inst, (x0 + x1) / 2, (y0 + y1) / 2) == ramp_rgb("reds", i / 4)


def test_table_binds_rows_and_fits_cells(tmp_path):
    root = build(tmp_path, """\
        rows: "[{name: 'apple', price: 3}, {name: 'banana', price: 12}, {name: 'cherry', price: 7}]"
        """, """\
        guides:
          - table:
              each: rows
              as: r
              columns:
                - {header: Fruit, text: r.name}
                - {header: Price, text: r.price}
        """)
    _, inst = sample(root)
    rm = inst.trace["render"]["render_map"]
    boxes = [rm[f"rows[{i}]"]["bbox"] for i in range(3)]
    assert [b[1] for b in boxes] == sorted(b[1] for b in boxes)
    heights = {round(b[3] - b[1], 2) for b in boxes}
    assert len(heights) == 1 and boxes[0][0] == 0 and boxes[0][2] == 400


# -- legibility rules -------------------------------------------------------------------------------------------
def test_overlapping_group_members_are_redrawn_then_refused(tmp_path):
    root = build(tmp_path, """\
        dots: "[{x: 100, y: 100}, {x: 105, y: 100}]"
        """, """\
        marks:
          - circle: {each: dots, as: d, x: d.x, y: d.y, r: 10, group: dots}
        """)
    tax = compile_taxonomy(root)
    from tessera.errors import SamplingFailed

    with pytest.raises(SamplingFailed, match="overlap"):
        generate(tax.tasks["demo.g.t"], 0, 0, vocab=tax.vocab)


def test_marks_outside_the_canvas_are_refused(tmp_path):
    root = build(tmp_path, "d: \"{x: 395, y: 10}\"\n", """\
        marks:
          - circle: {x: d.x, y: d.y, r: 10, bind: d}
        """)
    tax = compile_taxonomy(root)
    from tessera.errors import SamplingFailed

    with pytest.raises(SamplingFailed, match="outside the canvas"):
        generate(tax.tasks["demo.g.t"], 0, 0, vocab=tax.vocab)


def test_text_crossed_by_a_stroke_is_refused(tmp_path):
    root = build(tmp_path, "k: 1\n", """\
        marks:
          - text: {x: 200, y: 100, text: "'label'", size: 16, clear: true}
          - line: {x: 100, y: 100, x2: 300, y2: 100}
        """)
    tax = compile_taxonomy(root)
    from tessera.errors import SamplingFailed

    with pytest.raises(SamplingFailed, match="crossed"):
        generate(tax.tasks["demo.g.t"], 0, 0, vocab=tax.vocab)


def test_text_that_cannot_fit_is_refused(tmp_path):
    root = build(tmp_path, "k: 1\n", """\
        marks:
          - text: {x: 200, y: 100, text: "'an extremely long label that cannot possibly fit'", fit: 20}
        """)
    tax = compile_taxonomy(root)
    from tessera.errors import SamplingFailed

    with pytest.raises(SamplingFailed, match="does not fit"):
        generate(tax.tasks["demo.g.t"], 0, 0, vocab=tax.vocab)


# -- compile-time errors ----------------------------------------------------------------------------------------
def test_scene_mistakes_are_all_reported_with_positions(tmp_path):
    root = build(tmp_path, "bars: \"[{v: 1}]\"\n", """\
        frame: {cartesain: {}}
        marks:
          - rectangle: {x: 1}
          - circle: {each: bars, as: b, x: b.w, y: 0, radius: 3}
          - text: {x: 0, y: 0}
        guides:
          - axis: {scale: z}
        """)
    errs = errors_of(root)
    assert "g.yaml:8:13: unknown frame 'cartesain' (known: canvas, cartesian, plane, polar, grid, camera, geo)" in errs
    assert any(e.startswith("g.yaml:10:9: unknown mark 'rectangle'") for e in errs)
    assert any(e.startswith("g.yaml:11:42: unknown field 'w'") for e in errs)
    assert any(e.startswith("g.yaml:11:51: unknown key 'radius' in a circle mark") for e in errs)
    assert "g.yaml:12:15: a text mark needs 'text'" in errs
    assert "g.yaml:14:23: axis 'scale' must be one of x, y, got 'z'" in errs


COMPONENT = """\
component: dots
summary: a row of dots
params:
  items: {kind: list}
  size: {kind: fn}
  title: {kind: template, default: ""}
limits: {items: 3}
scene:
  title: "{{ title }}"
  frame: {cartesian: {x: {linear: "[0, len(items)]", nice: false}, y: {linear: "[0, 1]", nice: false}}}
  marks:
    - circle: {each: items, as: d, index: i, x: "i + 0.5", y: 0.5, r: size(d)}
"""


def test_component_binds_the_callers_records(tmp_path):
    root = build(tmp_path, """\
        big: 7
        dots: "[{w: 2}, {w: 3}]"
        """, """\
        use: dots
        with: {items: dots, size: "d -> d.w * big", title: "{{ big }} dots"}
        """, components={"dots": COMPONENT})
    tax, inst = sample(root)
    rm = inst.trace["render"]["render_map"]
    assert rm["dots[0]"]["geometry"]["r"] == pytest.approx(14) and rm["dots[1]"]["geometry"]["r"] == 21
    assert replay_trace(inst.trace, tax).ok


FRAMELESS = """\
component: pins
summary: dots at the caller's coordinates, in the caller's frame
params:
  items: {kind: list}
scene:
  marks:
    - circle: {each: items, as: d, x: d.x, y: d.y, r: 5, fill: red}
"""


def test_a_frameless_component_layer_draws_in_its_callers_frame(tmp_path):
    root = build(tmp_path, """\
        pts: "[{x: 1, y: 1}, {x: 3, y: 1.5}]"
        """, """\
        frame: {plane: {x: "[0, 4]", y: "[0, 2]"}}
        layers:
          - use: pins
            with: {items: pts}
        """, width=400, height=400, components={"pins": FRAMELESS})
    _, inst = sample(root)
    rm = inst.trace["render"]["render_map"]
    # the plane frame of the calling node (100 px per unit, y up), not the box's pixels
    assert rm["pts[0]"]["geometry"]["center"] == pytest.approx([100, 200])
    assert rm["pts[1]"]["geometry"]["center"] == pytest.approx([300, 150])
    # used as the scene itself (no caller frame) it still draws in pixels
    root = build(tmp_path / "top", """\
        pts: "[{x: 10, y: 10}]"
        """, """\
        use: pins
        with: {items: pts}
        """, width=400, height=400, components={"pins": FRAMELESS})
    _, inst = sample(root)
    assert inst.trace["render"]["render_map"]["pts[0]"]["geometry"]["center"] == pytest.approx([10, 10])


def test_component_errors_name_the_parameter_and_the_use(tmp_path):
    root = build(tmp_path, "dots: \"[{w: 2}]\"\n", """\
        use: dots
        with: {items: 3, size: "d -> d.v", colour: red}
        """, components={"dots": COMPONENT})
    errs = errors_of(root)
    assert any("component 'dots' has no parameter 'colour'" in e for e in errs)
    assert any("component 'dots' parameter 'items' must be a list, got integer" in e for e in errs)


def test_component_type_errors_point_into_the_component(tmp_path):
    root = build(tmp_path, "dots: \"[{w: 2}]\"\n", """\
        use: dots
        with: {items: dots, size: "d -> d.v"}
        """, components={"dots": COMPONENT})
    errs = errors_of(root)
    assert any(e.startswith("g.yaml") and "unknown field 'v'" in e for e in errs), errs
    assert any(e.startswith("g.yaml") and "come from this use" in e for e in errs), errs


def test_component_limits_are_enforced(tmp_path):
    root = build(tmp_path, "dots: \"[{w: 1} for i in range(5)]\"\n", """\
        use: dots
        with: {items: dots, size: "d -> d.w"}
        """, components={"dots": COMPONENT})
    tax = compile_taxonomy(root)
    from tessera.errors import SamplingFailed

    with pytest.raises(SamplingFailed, match="at most 3 items"):
        generate(tax.tasks["demo.g.t"], 0, 0, vocab=tax.vocab)


def test_a_component_cannot_use_itself(tmp_path):
    loop = COMPONENT.replace("  marks:\n    - circle: {each: items, as: d, index: i, x: \"i + 0.5\", y: 0.5, r: size(d)}\n",
                             "  layers:\n    - {use: dots, with: {items: items, size: size}}\n")
    root = build(tmp_path, "dots: \"[{w: 2}]\"\n", """\
        use: dots
        with: {items: dots, size: "d -> d.w"}
        """, components={"dots": loop})
    errs = errors_of(root)
    assert any("component 'dots' uses itself (dots → dots)" in e for e in errs), errs


def test_render_choices_replay_byte_for_byte(tmp_path):
    root = build(tmp_path, "bars: \"[{v: randint(1, 9)} for i in range(4)]\"\n", """\
        let:
          ratio: uniform(0.3, 0.7)
        frame: {cartesian: {x: {band: "range(len(bars))", padding: ratio}, y: {linear: "[0, 10]"}}}
        marks:
          - rect: {each: bars, as: b, index: i, x: i, y: 0, y2: b.v}
        """)
    tax, inst = sample(root, seed=5)
    assert 0.3 <= inst.trace["render"]["decisions"]["ratio"] <= 0.7
    assert replay_trace(inst.trace, tax).ok
    _, again = sample(root, seed=5)
    assert again.png == inst.png
    assert np.array_equal(again.rgb, inst.rgb)
    assert math.isfinite(inst.trace["render"]["decisions"]["ratio"])


def test_line_trims_and_offset_are_pixels(tmp_path):
    root = build(tmp_path, "e: \"{x: 100, y: 100, x2: 300, y2: 100}\"\n", """\
        marks:
          - line: {x: e.x, y: e.y, x2: e.x2, y2: e.y2, trim: 20, trim2: 30, offset: 5, bind: e}
        """)
    _, inst = sample(root)
    # Along +x: trimmed by 20 at the start and 30 at the end, shifted 5 px to the right of the direction (down).
    assert inst.trace["render"]["render_map"]["e"]["geometry"]["points"] == [[120, 105], [270, 105]]


def test_text_spots_take_the_first_clear_candidate(tmp_path):
    root = build(tmp_path, "t: \"{s: 'w'}\"\n", """\
        marks:
          - line: {x: 0, y: 100, x2: 400, y2: 100}
          - text: {x: 200, y: 100, text: t.s, clear: true, bind: t, z: 1, spots: "[[200, 102], [200, 130], [200, 160]]"}
        """)
    _, inst = sample(root)
    x0, y0, x1, y1 = inst.trace["render"]["render_map"]["t"]["bbox"]
    assert (y0 + y1) / 2 == pytest.approx(130, abs=0.6)


def test_ink_on_reads_the_fill():
    from tessera.expr.lib_color import ink_on_color, ramp_hex

    assert ink_on_color("black") == "white" and ink_on_color("yellow") == "ink"
    assert ink_on_color("#101010") == "white" and ink_on_color("#f0f0f0") == "ink"
    assert ramp_hex(0, 0, 10, "blues") == "#eff5fc" and ramp_hex(99, 0, 10, "blues") == "#084594"
    from tessera.errors import EvalError

    with pytest.raises(EvalError, match="unknown palette 'rainbow'"):
        ramp_hex(1, 0, 2, "rainbow")


def test_a_closed_layout_is_an_unknown_key(tmp_path):
    root = build(tmp_path, "k: 1\n", "marks: []\n")
    g = root / "grammars/demo/g.yaml"
    g.write_text(g.read_text().replace("  scene:\n    marks: []\n", "  layout:\n    bar_chart: {items: bars}\n"))
    errs = errors_of(root)
    assert "g.yaml:7:3: unknown key 'layout' (allowed here: canvas, fonts, raster, tools, scene)" in errs, errs
    assert "g.yaml:6:3: missing required key 'scene'" in errs, errs


def test_component_requirements_check_the_arguments(tmp_path):
    guarded = COMPONENT.replace("limits: {items: 3}\n", "limits: {items: 3}\nrequire:\n  positive_sizes: \"all(items, d -> size(d) > 0)\"\n")
    root = build(tmp_path, "dots: \"[{w: 2}, {w: 0}]\"\n", """\
        use: dots
        with: {items: dots, size: "d -> d.w"}
        """, components={"dots": guarded})
    tax = compile_taxonomy(root)
    from tessera.errors import SamplingFailed

    with pytest.raises(SamplingFailed, match=r"component 'dots' requires positive_sizes: `all\(items, d -> size\(d\) > "
                                             r"0\)` is false for the arguments given at .*g.yaml:8:10"):
        generate(tax.tasks["demo.g.t"], 0, 0, vocab=tax.vocab)


def test_component_requirement_must_be_bool(tmp_path):
    bad = COMPONENT.replace("limits: {items: 3}\n", "limits: {items: 3}\nrequire:\n  count: len(items)\n")
    root = build(tmp_path, "dots: \"[{w: 2}]\"\n", """\
        use: dots
        with: {items: dots, size: "d -> d.w"}
        """, components={"dots": bad})
    errs = errors_of(root)
    assert "dots.yaml:9:10: requirement 'count' of component 'dots' must be a boolean expression, got integer" in errs, errs


def test_ellipse_arc_glyph_polyline_and_segments_geometry(tmp_path):
    root = build(tmp_path, """\
        e: "{x: 100, y: 80}"
        a: "{x: 300, y: 80}"
        g: "{x: 100, y: 220}"
        p: "{k: 1}"
        s: "{k: 2}"
        """, """\
        marks:
          - ellipse: {x: e.x, y: e.y, rx: 40, ry: 20, bind: e, fill: red}
          - arc: {x: a.x, y: a.y, r: 30, start: 0, end: 90, stroke_width: 2, bind: a}
          - glyph: {x: g.x, y: g.y, shape: "'square'", size: 20, bind: g, fill: blue}
          - polyline: {points: "[[200, 200], [250, 260], [300, 200]]", stroke_width: 2, bind: p}
          - segments: {segments: "[[320, 200, 380, 200], [320, 260, 380, 260]]", stroke_width: 2, bind: s}
        """)
    _, inst = sample(root)
    rm = inst.trace["render"]["render_map"]
    assert rm["e"]["bbox"] == pytest.approx([60, 60, 140, 100], abs=0.6)
    # A quarter arc clockwise from east (y down): from (330, 80) to (300, 110).
    assert rm["a"]["geometry"]["start"] == 0 and rm["a"]["geometry"]["sweep"] == 90
    x0, y0, x1, y1 = rm["a"]["bbox"]
    assert (x0, y0, x1, y1) == pytest.approx([300, 80, 330, 110], abs=0.6)
    # A square glyph of radius 20 has a side of 2 × 0.85 × 20 = 34.
    gx0, gy0, gx1, gy1 = rm["g"]["bbox"]
    assert gx1 - gx0 == pytest.approx(34, abs=0.01) and gy1 - gy0 == pytest.approx(34, abs=0.01)
    assert rm["p"]["geometry"]["points"] == [[200, 200], [250, 260], [300, 200]]
    assert rm["s"]["bbox"] == pytest.approx([319, 199, 381, 261])
    r, g_, b = pixel(inst, 100, 220)
    assert b > 150 and r < 90


def test_a_constant_list_over_a_component_limit_fails_at_compile_time(tmp_path):
    root = build(tmp_path, "k: 1\n", """\
        use: dots
        with: {items: "[{w: 1}, {w: 2}, {w: 3}, {w: 4}]", size: "d -> d.w"}
        """, components={"dots": COMPONENT})
    errs = errors_of(root)
    assert "g.yaml:9:19: component 'dots' draws at most 3 items; this list has 4" in errs, errs
