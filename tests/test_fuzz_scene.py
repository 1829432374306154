"""The scene language at run time: every error that comes from author YAML names its file:line:col, and a seeded fuzz
of scenes and components (bench/fuzz_scene.py) ends every case in an instance or a clean, positioned error within
the documented CPU bound.

0.8.0 raised render-time errors of the render layer (a camera's bounds, a grid's size, a palette, a scale's domain,
panels' columns), of library functions inside scene expressions and of an undrawn witness with no position at all:
224 of 1,960 fuzzed scene runs ended so. The composer now knows which node, frame, guide, mark or use it evaluates
and gives its position to an error that names none (render/compose.py `at`), `run` gives an expression's own.
"""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from tessera.errors import SamplingFailed, TesseraError, has_position, located
from tessera.taxonomy import compile_taxonomy
from tessera.trace.instance import generate
from tests.conftest import ROOT, probe_taxonomy

STATE = ['  n: 3', '  items: "[{x: i, y: 1, label: str(i)} for i in range(n)]"']


def scene_root(tmp: Path, scene: list[str], state: list[str] = STATE, witness: str = "{set: items}") -> Path:
    """A library with one grammar (the given state and scene lines, under `render.scene:`) and one task on it."""
    probe_taxonomy(tmp)
    grammar = ["grammar: probe.g", "summary: Probe.", "state:", *state, "render:",
               "  canvas: {width: 400, height: 300}", "  scene:", *scene]
    program = ["task: probe.g.count", "grammar: probe.g", "summary: Count items.", "operations: [count]",
               "bucket: counting", "compute:", "  k: len(items)", "answer: {value: k, contract: integer_exact}",
               f"witness: {witness}", "prompt: How many items?"]
    for folder, name, lines in (("grammars", "g.yaml", grammar), ("programs", "g/count.yaml", program)):
        (tmp / folder / "probe" / name).parent.mkdir(parents=True, exist_ok=True)  # a task's file is named by its id
        (tmp / folder / "probe" / name).write_text("\n".join(lines) + "\n")
    return tmp


def sample_error(root: Path) -> str:
    tax = compile_taxonomy(root)
    with pytest.raises(TesseraError) as info:
        generate(tax.tasks["probe.g.count"], 1, 0, vocab=tax.vocab)
    return str(info.value)


G = "grammars/probe/g.yaml"
DOTS = '      - circle: {each: items, as: b, x: b.x, y: b.y, r: 4}'


# Each scene's error is raised by the render layer (or a library function) with no position of its own; the message
# must name the exact line and column of the part of the scene that made it. Line 9 is the first line of the scene.
@pytest.mark.parametrize("scene,where,message", [
    (["    frame:", '      camera: {bounds: "[[1, 1, 1], [0, 0, 0]]"}', "    marks:",
      '      - box: {each: items, as: b, x: b.x, y: b.y}'],
     f"{G}:10:7", "a camera frame's bounds need lo ≤ hi on every axis and some extent"),
    (["    frame:", '      camera: {projection: orthographic, elevation: 95, bounds: "[[0, 0, 0], [3, 3, 3]]"}',
      "    marks:", '      - box: {each: items, as: b, x: b.x, y: b.y}'],
     f"{G}:10:7", "camera frame: elevation must be within"),
    (["    frame:", "      grid: {rows: 0, cols: 3}", "    marks:", DOTS],
     f"{G}:10:7", "a grid frame of 0 × 3 cells (allowed 1..60 each)"),
    (["    frame:", '      cartesian: {x: {linear: "[]"}, y: {linear: "[0, 1]"}}', "    marks:", DOTS],
     f"{G}:10:7", "a linear scale's domain is empty"),
    (["    frame:", '      plane: {x: "[0, 1, 2]", y: "[0, 1]"}', "    marks:", DOTS],
     f"{G}:10:7", "a plane frame's x range is [lo, hi], got [0, 1, 2]"),
    (['    frame: {plane: {x: "[0, 5]", y: "[0, 5]"}}', "    guides:",
      '      - ramp: {domain: "[0, 1]", palette: "\'nope\'"}', "    marks:", DOTS],
     f"{G}:11:9", "unknown palette 'nope'"),
    (['    frame: {plane: {x: "[0, 5]", y: "[0, 5]"}}', "    guides:", '      - ramp: {domain: "[1, 1]"}', "    marks:",
      DOTS],
     f"{G}:11:9", "a ramp's domain is [lo, hi] with lo < hi, got [1, 1]"),
    (["    guides:", "      - axis: {scale: x}", "    marks:", DOTS],
     f"{G}:10:9", "an axis on 'x' needs a frame with that scale"),
    (["    panels:", '      each: items', "      as: p", "      cols: 0 - n", "      panel:",
      '        marks: [{circle: {x: 10, y: 10, r: 4}}]'],
     f"{G}:10:7", "panels need cols ≥ 1, got -3"),
    (["    inset: '[1, 2, 3]'", "    marks:", DOTS],
     f"{G}:9:5", "inset takes pixels"),
    # a library function's error inside a scene expression: the expression's position (its first character)
    (["    marks:", '      - circle: {each: "range(100000)", as: i, x: 1, y: 1, r: 4}'],
     f"{G}:10:25", "range of 100000 items exceeds the limit"),
    (["    let:", '      top: "max(range(0))"', "    marks:", DOTS],
     f"{G}:10:13", "max() of an empty list"),
])
def test_render_time_errors_name_the_yaml_position(tmp_path, scene, where, message):
    text = sample_error(scene_root(tmp_path, scene))
    assert f"rendering failed: {tmp_path}/{where}: " in text, text
    assert message in text, text


def test_an_error_inside_a_component_names_the_component_file(tmp_path):
    # No bars: bar_chart's `ymax: max(map(items, value)) * 1.06` fails on an empty list, in components/bar_chart.yaml.
    scene = ["    use: bar_chart", '    with: {items: "items[:0]", label: "b -> b.label", value: "b -> b.x"}']
    text = sample_error(scene_root(tmp_path, scene))
    lines = (ROOT / "components/bar_chart.yaml").read_text().splitlines()
    line = next(i for i, t in enumerate(lines, 1) if t.strip().startswith("ymax:"))
    col = lines[line - 1].index("max(") + 1
    assert f"rendering failed: {tmp_path}/components/bar_chart.yaml:{line}:{col}: max() of an empty list" in text, text


def test_a_3d_mark_error_drawn_in_the_cameras_batch_names_the_mark(tmp_path):
    scene = ["    frame:", '      camera: {bounds: "[[0, 0, 0], [3, 3, 3]]"}', "    marks:",
             '      - box: {each: items, as: b, x: b.x, y: b.y, stroke_width: -1}']
    text = sample_error(scene_root(tmp_path, scene))
    assert f"box mark at {tmp_path}/{G}:12:14: stroke_width must be ≥ 0, got -1.0" in text, text


def test_an_undrawn_witness_names_the_witness(tmp_path):
    # The scene draws the items unbound (bind: false), so the set witness has nothing to point at.
    scene = ["    marks:", '      - circle: {each: items, as: b, x: "10 + 20 * b.x", y: 10, r: 4, bind: false}']
    text = sample_error(scene_root(tmp_path, scene))
    assert text.startswith(f"{tmp_path}/programs/probe/g/count.yaml:9:16: task probe.g.count: witness object items[0] "
                           f"was not drawn by the scene"), text


def test_a_state_step_error_quoted_in_a_sampling_failure_names_its_expression(tmp_path):
    state = [*STATE, '  top: "max(range(0))"']
    with pytest.raises(SamplingFailed) as info:
        tax = compile_taxonomy(scene_root(tmp_path, [DOTS.replace("      - ", "    marks: [") + "]"], state))
        generate(tax.tasks["probe.g.count"], 1, 0, vocab=tax.vocab)
    assert f"last error: {tmp_path}/{G}:6:9: max() of an empty list" in str(info.value), str(info.value)


def test_a_message_keeps_the_most_precise_position_it_has():
    assert located("division by zero", "g.yaml:3:4") == "g.yaml:3:4: division by zero"
    assert located("g.yaml:9:2: division by zero", "g.yaml:3:4") == "g.yaml:9:2: division by zero"
    assert located("circle mark at /t/g.yaml:9:2: bad", "g.yaml:3:4") == "circle mark at /t/g.yaml:9:2: bad"
    # a time quoted in a message is not a position
    assert not has_position("the clock shows 1:30:00") and has_position("at <expr>:1:5")


# -- the fuzz -------------------------------------------------------------------------------------------------------
SUITE_CASES = 200  # about 15 s of CPU on one core; the bench runs thousands (bench/fuzz_scene.py --cases N)


def test_fuzzed_scenes_end_in_an_instance_or_a_positioned_error(tmp_path):
    from bench.fuzz_scene import ALL_SAMPLES, SAMPLE_CPU_S, fuzz

    t0 = time.process_time()
    report = fuzz(tmp_path, SUITE_CASES, samples=ALL_SAMPLES[:2])  # level 0 plain, level 9 strong
    seconds = time.process_time() - t0
    print(f"\nscene fuzz: {len(report.cases)} cases, {len(report.runs)} runs, {seconds:.1f} s CPU\n{report.table()}")
    assert len(report.cases) == SUITE_CASES
    samples = [r for r in report.runs if r.what.startswith("sample")]
    # The mutations reach run time: instances, run-time errors and compile errors all occur.
    assert sum(r.outcome == "ok" for r in samples) > 40
    assert sum(r.outcome == "error" for r in samples) > 10
    assert sum(r.outcome == "error" for r in report.runs if r.what == "compile") > 10
    assert all(r.seconds <= SAMPLE_CPU_S for r in samples if r.outcome != "hang")
    assert not report.failures, "\n\n".join(report.describe(c) for c in report.failures[:5])
