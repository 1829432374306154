"""Issue 24: drawing is charged to the sample's budget, marks per scene are bounded, and a mark's pixel coordinates
are finite and near the canvas (render/work.py, render/frames.py MAX_DEVICE_PX).

Each case is a crafted one-grammar library whose scene asks for too much: it must end in a few seconds of CPU
(time.process_time) with an error naming the mark's YAML position, never with a traceback."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

import tessera.api as api
from tessera.cli import main
from tessera.errors import SamplingFailed
from tessera.render.frames import MAX_DEVICE_PX
from tessera.render.work import MAX_MARKS, MAX_SOLIDS
from tests.conftest import ROOT, probe_taxonomy

CPU_BOUND_S = 6.0  # generous: each case ends in about a second of CPU on a busy 2-core machine
CAMERA = 'frame:\n  camera: {projection: isometric, bounds: "[[0, 0, 0], [10, 10, 10]]"}\n'


def library(tmp: Path, scene: str, state: str = "") -> Path:
    """A library with one grammar drawing `scene` (YAML under `render.scene`) and one task on it. The scene's first
    line is line 8 of grammars/probe/g.yaml (one later with a `state` line: a field's name and expression).""" 
    probe_taxonomy(tmp)
    grammar = ["grammar: probe.g", "summary: Probe.", "state:", '  n: "3"', *(["  " + state] if state else []),
               "render:", "  canvas: {width: 400, height: 300}", "  scene:"]
    grammar += ["    " + line for line in scene.strip("\n").splitlines()]
    program = ["task: probe.g.count", "grammar: probe.g", "summary: Count.", "operations: [count]",
               "bucket: counting", "compute:", "  k: n", "answer: {value: k, contract: integer_exact}",
               "witness: {scalar: k}", "prompt: How many?"]
    for folder, lines in (("grammars", grammar), ("programs", program)):
        path = tmp / folder / "probe" / ("g.yaml" if folder == "grammars" else "g/count.yaml")  # named by its id
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n")
    return tmp


def where(root: Path, line: int, col: int) -> str:
    return f"{root}/grammars/probe/g.yaml:{line}:{col}"


def sample_failure(root: Path) -> tuple[str, float]:
    """(the error message, CPU seconds) of sampling the probe task through the public API."""
    tax = api.compile(root)
    start = time.process_time()
    with pytest.raises(SamplingFailed) as info:
        api.generate("probe.g.count", 1, 0, taxonomy=tax)
    return str(info.value), time.process_time() - start


# -- 3-D: solids are charged for what ordering, painting and measuring them costs ----------------------------------
def test_one_box_mark_over_ten_thousand_items_stops_at_the_solid_bound(tmp_path):
    # 0.8.0 drew all of them: about 80 s of CPU per sample (8 s per 1,000 boxes over the render attempts).
    root = library(tmp_path, CAMERA + 'marks:\n  - box: {each: "range(10000)", as: i, x: 0, y: 0, z: 0}\n')
    message, cpu = sample_failure(root)
    assert message == (f"probe.g.count: rendering failed: box mark at {where(root, 11, 14)}: a camera frame holds at "
                       f"most {MAX_SOLIDS} solids (this one is solid {MAX_SOLIDS + 1})")
    assert cpu < CPU_BOUND_S


def test_a_pile_of_solids_under_the_bound_runs_out_of_steps_before_ordering_them(tmp_path):
    # 900 boxes in one place: every pair overlaps on screen and needs face planes (about 400,000 pairs, 6 s of CPU
    # per render attempt in 0.8.0). The pairs are charged before they are listed.
    root = library(tmp_path, CAMERA + 'marks:\n  - box: {each: "range(900)", as: i, x: 0, y: 0, z: 0}\n')
    message, cpu = sample_failure(root)
    assert message.startswith(f"probe.g.count: rendering failed: box mark at {where(root, 11, 14)}: drawing 900 3-D "
                              f"solids exceeded 2000000 steps")
    assert cpu < CPU_BOUND_S


def test_solids_a_scene_can_afford_are_drawn(tmp_path):
    # A 10 × 10 × 4 grid of unit cubes: 400 solids, well within the bound and the budget.
    root = library(tmp_path, CAMERA + 'marks:\n  - box: {each: "range(400)", as: i, x: "i % 10", y: "(i // 10) % 10",'
                                      ' z: "i // 100"}\n')
    inst = api.generate("probe.g.count", 1, 0, taxonomy=api.compile(root))
    assert inst.trace["render"]["decisions"]["marks"] == 400


# -- 2-D: marks, points, characters and pixels ---------------------------------------------------------------------
def test_marks_per_scene_are_bounded_with_the_marks_position(tmp_path):
    # Three panels of 10,000 rects each: the mark that passes MAX_MARKS is named, with its item (the third
    # panel's first).
    scene = ('panels:\n  each: "range(3)"\n  as: p\n  panel:\n    marks:\n'
             '      - rect: {each: "range(10000)", as: i, x: "i % 50", y: "i // 50", width: 1, height: 1}\n')
    root = library(tmp_path, scene)
    message, cpu = sample_failure(root)
    assert message == (f"probe.g.count: rendering failed: rect mark at {where(root, 13, 19)}: the scene draws more "
                       f"than {MAX_MARKS} marks (this mark's item 1 of 10000 is mark {MAX_MARKS + 1})")
    assert cpu < CPU_BOUND_S


@pytest.mark.parametrize("mark", [
    # 10,000 stroke marks of the same 10,000 segments (0.8.0 drew them all, unbounded by the budget)
    'segments: {each: "range(10000)", as: i, segments: segs}',
    # 10,000 polygons through the same 10,000 points (one list, evaluated once): points
    'polygon: {each: "range(10000)", as: i, points: pts}',
    # 10,000 texts of 10,000 characters: characters
    'text: {each: "range(10000)", as: i, x: 5, y: 5, text: long}',
])
def test_drawing_many_marks_runs_out_of_steps_at_a_positioned_mark(tmp_path, mark):
    state = {"polygon": 'pts: "[[k % 400, k % 300] for k in range(10000)]"',
             "segments": 'segs: "[[k % 400, 0, 0, k % 300] for k in range(10000)]"',
             "text": 'long: "join([\'W\' for k in range(10000)], \'\')"'}
    kind = mark.split(":")[0]
    root = library(tmp_path, f"marks:\n  - {mark}\n", state.get(kind, ""))
    message, cpu = sample_failure(root)
    line = 10 if kind in state else 9
    assert message.startswith(f"probe.g.count: rendering failed: {kind} mark at {where(root, line, 9 + len(kind) + 2)}"
                              f": drawing the scene exceeded 2000000 steps"), message
    assert cpu < CPU_BOUND_S


# -- coordinates: finite and near the canvas, for every kind of mark --------------------------------------------
FAR = MAX_DEVICE_PX
MARKS_AT = {  # mark → (YAML, the message's subject)
    "text": ('text: {x: 1e300, y: 1e300, text: "\'hi\'"}', "the point lands at 1e+300 px"),
    "text_fit": ('text: {x: -1e300, y: 5, text: "\'hi\'", fit: 40}', "the point lands at -1e+300 px"),
    "rect": ('rect: {x: 5, y: -1e300, width: 10, height: 10}', "the point lands at -1e+300 px"),
    "rect_size": ('rect: {x: 5, y: 5, width: 1e300, height: 10}', "width lands at 1e+300 px"),
    "circle": ('circle: {x: 1e300, y: 5, r: 5}', "the point lands at 1e+300 px"),
    "circle_r": ('circle: {x: 5, y: 5, r: 1e300}', "r lands at 1e+300 px"),
    "line": ('line: {x: 0, y: 0, x2: -1e300, y2: 5}', "the point lands at -1e+300 px"),
    "polygon": ('polygon: {points: "[[1e300, 0.0], [0.0, 5.0], [5.0, 5.0]]"}', "the point lands at 1e+300 px"),
    "path": ('path: {points: "[[0.0, 0.0], [0.0, -1e300], [5.0, 5.0]]"}', "the point lands at -1e+300 px"),
    "svg": ('svg: {d: "\'M 0 0 L 100 100\'", x: 0, y: 0, x2: 1e300, y2: 10, stroke: "\'ink\'"}',
            "the point lands at 1e+300 px"),
    "glyph": ('glyph: {x: 1e300, y: 5, shape: "\'house\'"}', "the point lands at 1e+300 px"),
    "offset": ('rect: {x: 5, y: 5, width: 10, height: 10, dx: 1e300}', "the offset dx, dy lands at 1e+300 px"),
    "arrow": ('line: {x: 0, y: 0, x2: 50, y2: 5, stroke_width: 1e300, arrow: end}', "the mark's box lands at"),
    "box": ('box: {x: 1e300, y: 0, z: 0}', "the corner (1e+300, 0.0, 0.0) lands at 1.24708e+301 px"),
    "text3": ('text3: {x: 0, y: -1e300, z: 0, text: "\'a\'"}', "the point lands at"),
}


def sample_cli(capsys, root: Path, out: Path, variety: str) -> tuple[int, str]:
    code = main(["--root", str(root), "sample", "probe.g.count", "--seed", "1", "--out", str(out),
                 "--variety", variety])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.mark.parametrize("variety", ["none", "strong"])
@pytest.mark.parametrize("case", sorted(MARKS_AT))
def test_a_mark_at_absurd_coordinates_is_a_positioned_error(tmp_path, capsys, case, variety):
    # 0.8.0: under strong variety a text at 1e300 ended in OverflowError (int() of an infinite device rectangle in
    # Painter.readable); plainly, such marks were drawn at infinity and their boxes went into the render map.
    mark, subject = MARKS_AT[case]
    three_d = case in ("box", "text3")
    root = library(tmp_path / "lib", (CAMERA if three_d else "") + f"marks:\n  - {mark}\n")
    code, output = sample_cli(capsys, root, tmp_path / "out", variety)
    kind = mark.split(":")[0]
    line = 11 if three_d else 9
    col = 9 + len(kind) + 2
    assert code != 0 and "Traceback" not in output
    assert f"{kind} mark at {where(root, line, col)}: {subject}" in output, output
    assert f"must stay within ±{FAR:,.0f} px" in output


@pytest.mark.parametrize("frame,subject", [
    ('frame: {cartesian: {x: {linear: "[-1e308, 1e308]", nice: false}, y: {linear: "[0, 10]", nice: false}}}',
     "a linear scale's domain [-1e+308, 1e+308] has no finite, positive width as a float"),
    ('frame: {cartesian: {x: {linear: "[1e300, 1e300]"}, y: {linear: "[0, 10]"}}}',
     "a linear scale's domain [1e+300, 1e+300] has no finite, positive width as a float"),
    ('frame: {plane: {x: "[-1e308, 1e308]", y: "[0, 10]"}}',
     "a plane frame's range [-1e+308, 1e+308] has no finite, positive width as a float"),
    ('frame: {cartesian: {x: {linear: "[0, 1e-300]", nice: false}, y: {linear: "[0, 10]", nice: false}}}',
     "x lands at inf px"),
])
@pytest.mark.parametrize("variety", ["none", "strong"])
def test_frames_that_would_place_marks_at_nan_or_infinity_are_errors(tmp_path, capsys, frame, subject, variety):
    # 0.8.0: the overflowing domain became an OverflowError (int() of an infinite tick count) or NaN positions.
    root = library(tmp_path / "lib", frame + '\nmarks:\n  - text: {x: 1e300, y: 5, text: "\'hi\'"}\n')
    code, output = sample_cli(capsys, root, tmp_path / "out", variety)
    assert code != 0 and "Traceback" not in output
    assert subject in output, output
