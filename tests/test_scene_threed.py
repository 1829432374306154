"""The camera frame and the 3-D marks of the scene language (compiler/render/camera.py, marks3d.py): render-map
geometry against space.py's own projection, hidden solids kept out of the render map, depth order read back from
the pixels, and a fit that depends on the bounds only."""
from __future__ import annotations

import json
import shutil

import pytest

from tessera.errors import EvalError
from tessera.render.camera import FIT_MARGIN, CameraFrame
from tessera.render.scene import render_scene
from tessera.render.space import Camera, box_corners, box_faces, fit
from tessera.sample.rng import Rng
from tessera.taxonomy import compile_taxonomy
from tessera.trace.instance import generate, object_paths
from tests.conftest import LIBRARY_DIRS, ROOT

W = H = 300
PROBE = f"""
grammar: three_d.probe_cubes
summary: Test scene — cubes of given colours in a 3 × 3 × 3 world.
state:
  cubes: "[{{x: 0, y: 0, z: 0, color: '#ff0000'}}]"
render:
  canvas: {{width: {W}, height: {H}}}
  scene:
    frame:
      camera: {{projection: isometric, bounds: "[[0, 0, 0], [3, 3, 3]]"}}
    marks:
      - box: {{each: cubes, as: c, x: c.x, y: c.y, z: c.z, fill: c.color}}
      - text3: {{x: 1.5, y: 1.5, z: 3, text: "'top'", halo: true}}
"""
CYLINDER = f"""
grammar: three_d.probe_cylinder
summary: Test scene — one upright cylinder.
state:
  cans: "[{{x: 1.5, y: 1.5}}]"
render:
  canvas: {{width: {W}, height: {H}}}
  scene:
    frame:
      camera: {{projection: orthographic, azimuth: 20, elevation: 30, bounds: "[[0, 0, 0], [3, 3, 3]]"}}
    marks:
      - cylinder: {{each: cans, as: c, x: c.x, y: c.y, r: 1.2, height: 2.5, fill: "'#3060e0'"}}
"""
PLAIN = PROBE.replace("probe_cubes", "plain_box").replace("camera: {projection: isometric, bounds: \"[[0, 0, 0], "
                                                           "[3, 3, 3]]\"}", "canvas")


@pytest.fixture(scope="module")
def grammars(tmp_path_factory):
    root = tmp_path_factory.mktemp("lib")
    for d in LIBRARY_DIRS:
        shutil.copytree(ROOT / d, root / d)
    (root / "grammars/three_d/probe_cubes.yaml").write_text(PROBE)
    (root / "grammars/three_d/plain_box.yaml").write_text(PLAIN)
    (root / "grammars/three_d/probe_cylinder.yaml").write_text(CYLINDER)
    tax = compile_taxonomy(root)
    return tax


def render(tax, cubes, grammar="three_d.probe_cubes"):
    state = {"cubes": [{"x": x, "y": y, "z": z, "color": color} for x, y, z, color in cubes]}
    paths = object_paths(state)
    return render_scene(tax.grammars[grammar], state, 0, tax.vocab, Rng(7), paths)


def expected_fit():
    cam = Camera("isometric", target=(1.5, 1.5, 1.5))
    return cam, fit([cam.project(*c) for c in box_corners((0, 0, 0), (3, 3, 3))], (0, 0, W, H), FIT_MARGIN)


def px(cam, fit_, x, y, z):
    u, v, _ = cam.project(x, y, z)
    return fit_.to_px(u, v)


def test_box_corners_in_the_render_map_match_space_projection(grammars):
    rr = render(grammars, [(1, 0, 0, "#ff0000")])
    entry = rr.render_map["cubes[0]"]
    assert entry["mark"] == "box"
    assert entry["geometry"]["visible"] == pytest.approx(1.0, abs=0.02)
    cam, fit_ = expected_fit()
    want = [px(cam, fit_, *c) for c in box_corners((1, 0, 0), (2, 1, 1))]
    assert entry["geometry"]["corners"] == [pytest.approx(list(p), abs=0.01) for p in want]
    # The bbox is the visible part: here the whole hexagon the corners span (to the visibility cell).
    xs, ys = [p[0] for p in want], [p[1] for p in want]
    assert entry["bbox"] == pytest.approx([min(xs), min(ys), max(xs), max(ys)], abs=0.6)


def test_hidden_cube_is_not_in_the_render_map(grammars):
    block = [(x, y, z, "#ff0000") for z in (0, 1) for y in (0, 1) for x in (0, 1)]
    rr = render(grammars, block)
    hidden = block.index((1, 1, 0, "#ff0000"))  # behind and under the other seven
    assert f"cubes[{hidden}]" not in rr.render_map
    shown = {f"cubes[{i}]" for i in range(len(block)) if i != hidden}
    assert shown <= set(rr.render_map)
    for path in shown:
        assert rr.render_map[path]["geometry"]["visible"] >= 0.25
    # A cube exactly behind another one of the same size (isometric: (1, 1, 0) lies behind (0, 0, 1)).
    rr = render(grammars, [(1, 1, 0, "#0000ff"), (0, 0, 1, "#ff0000")])
    assert "cubes[0]" not in rr.render_map and "cubes[1]" in rr.render_map


@pytest.mark.parametrize("order", [0, 1])
def test_the_front_cube_covers_the_back_one_whatever_the_declaration_order(grammars, order):
    back, front = (1, 1, 0, "#0000ff"), (0, 0, 0, "#ff0000")
    rr = render(grammars, [back, front] if order == 0 else [front, back])
    cam, fit_ = expected_fit()
    # The centre of the front cube's top face: inside the back cube's silhouette too (it projects a cube-height up).
    x, y = px(cam, fit_, 0.5, 0.5, 1.0)
    bx = [px(cam, fit_, *c) for c in box_corners((1, 1, 0), (2, 2, 1))]
    assert min(p[1] for p in bx) < y < max(p[1] for p in bx)
    r, g, b, _ = (int(c) for c in rr.rgb[int(y), int(x)])
    top = box_faces(0, 0, 0, 1, 1, 1)[5]
    assert top.tag == "top" and (r, g, b) == (round(255 * top.shade()), 0, 0)  # red × the top face's shade
    # ... and the back cube still shows its own top above the front one.
    x2, y2 = px(cam, fit_, 1.5, 1.5, 1.0)
    r, g, b, _ = (int(c) for c in rr.rgb[int(y2), int(x2)])
    assert b > 200 and r < 40


def test_the_fit_depends_on_the_bounds_not_on_the_cubes(grammars):
    alone = render(grammars, [(0, 0, 0, "#ff0000")])
    crowd = render(grammars, [(0, 0, 0, "#ff0000"), (2, 2, 2, "#00ff00"), (2, 0, 0, "#0000ff")])
    assert alone.render_map["cubes[0]"]["geometry"]["corners"] == crowd.render_map["cubes[0]"]["geometry"]["corners"]
    f1 = CameraFrame((0, 0, W, H), "isometric", {"bounds": [[0, 0, 0], [3, 3, 3]]})
    f2 = CameraFrame((0, 0, W, H), "isometric", {"bounds": [[0, 0, 0], [3, 3, 6]]})
    assert f1.fit.scale > f2.fit.scale  # taller bounds: a smaller picture, whatever is drawn
    # 2-D marks draw on the ground.
    assert f1.point(1.25, 2) == f1.point3(1.25, 2, 0)


def test_text3_is_drawn_over_the_solids_and_3d_marks_need_a_camera(grammars):
    rr = render(grammars, [(1, 1, 2, "#ff0000")])
    cam, fit_ = expected_fit()
    x, y = px(cam, fit_, 1.5, 1.5, 3.0)  # the label's anchor: the centre of the cube's top face
    patch = rr.rgb[int(y) - 4:int(y) + 5, int(x) - 12:int(x) + 13, :3].reshape(-1, 3)
    assert any(max(p) < 90 for p in patch.tolist())  # dark ink of the label on the red top
    with pytest.raises(EvalError, match="camera frame"):
        render(grammars, [(0, 0, 0, "#ff0000")], "three_d.plain_box")


def test_cube_stack_binds_exactly_the_cubes_with_a_visible_face(taxonomy):
    task = taxonomy.tasks["three_d.cube_stack.visible_cubes"]
    for seed, level in ((0, 3), (1, 9), (2, 6)):
        inst = generate(task, seed, level, vocab=taxonomy.vocab)
        bound = {p for p in inst.trace["render"]["render_map"] if p.startswith("cubes")}
        assert bound == set(inst.witness["objects"])
        assert len(bound) < len(inst.trace["state"]["cubes"]) or level < 6
        json.dumps(inst.trace)


def test_a_cylinder_side_is_outlined_on_its_silhouette_not_in_stripes(grammars):
    state = {"cans": [{"x": 1.5, "y": 1.5}]}
    rr = render_scene(grammars.grammars["three_d.probe_cylinder"], state, 0, grammars.vocab, Rng(7),
                      object_paths(state))
    x0, y0, x1, y1 = rr.render_map["cans[0]"]["bbox"]
    row = rr.rgb[int((y0 + y1) / 2) + 10, :, :3].tolist()  # across the curved side, below the top disc
    dark = [max(p) < 90 for p in row]
    runs = sum(1 for i in range(1, len(dark)) if dark[i] and not dark[i - 1])
    assert runs == 2  # the left and right silhouette only: the 32 facets' edges are not inked
    side = [p for p, d in zip(row[int(x0):int(x1)], dark[int(x0):int(x1)]) if not d and p[2] > 120]
    assert len(side) > (x1 - x0) * 0.8  # and nothing else (no pale seams) breaks the blue side
