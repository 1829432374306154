"""The curved and pointed 3-D solids (sphere, cone, torus, pyramid: render/marks3d.py, space.py) and the 2-D
`ellipse_arc`: projected geometry against space.py's own camera, depth order and occlusion read back from the pixels
and the render map, silhouette-only outlines, drawing-budget charges and positioned errors."""
from __future__ import annotations

import math
import shutil

import numpy as np
import pytest

from tessera.errors import EvalError
from tessera.expr.compile import Budget
from tessera.render.camera import FIT_MARGIN
from tessera.render.marks3d import CONE_SEGMENTS, SPHERE_BANDS, SPHERE_SEGMENTS, TORUS_SEGMENTS, TORUS_TUBE
from tessera.render.scene import render_scene
from tessera.render.space import Camera, box_corners, fit, sphere_faces, torus_faces
from tessera.render.work import FACE_STEPS, POINT3_STEPS, SOLID_STEPS
from tessera.sample.rng import Rng
from tessera.taxonomy import compile_taxonomy
from tessera.trace.instance import object_paths
from tests.conftest import LIBRARY_DIRS, ROOT

W = H = 400
BOUNDS = [[0, 0, 0], [4, 4, 4]]


def probe(name: str, camera: str) -> str:
    return f"""
grammar: three_d.{name}
summary: Test scene — spheres, cones, tori, pyramids and boxes in a 4 × 4 × 4 world.
state:
  spheres: "[{{x: 0.5, y: 0.5, z: 0.5, r: 0.5}}]"
  cones: "[{{x: 0.5, y: 0.5, z: 0.5, r: 0.5, h: 0.5}}]"
  tori: "[{{x: 0.5, y: 0.5, z: 0.5, r: 0.5, ri: 0.25}}]"
  pyramids: "[{{x: 0.5, y: 0.5, z: 0.5, size: 0.5, h: 0.5}}]"
  boxes: "[{{x: 0.5, y: 0.5, z: 0.5, d: 0.5}}]"
render:
  canvas: {{width: {W}, height: {H}}}
  scene:
    frame:
      camera: {camera}
    marks:
      - box: {{each: boxes, as: b, x: b.x, y: b.y, z: b.z, dx: b.d, dy: b.d, dz: b.d, fill: "'#0000ff'"}}
      - sphere: {{each: spheres, as: s, x: s.x, y: s.y, z: s.z, r: s.r, fill: "'#ff0000'", stroke: "'#000000'"}}
      - cone: {{each: cones, as: c, x: c.x, y: c.y, z: c.z, r: c.r, height: c.h, fill: "'#00c000'"}}
      - torus: {{each: tori, as: t, x: t.x, y: t.y, z: t.z, r: t.r, r_inner: t.ri, fill: "'#e0a000'"}}
      - pyramid: {{each: pyramids, as: p, x: p.x, y: p.y, z: p.z, size: p.size, height: p.h, fill: "'#a000a0'"}}
"""


TOP = "{projection: orthographic, azimuth: 0, elevation: 90, bounds: \"[[0, 0, 0], [4, 4, 4]]\"}"
ISO = "{projection: isometric, bounds: \"[[0, 0, 0], [4, 4, 4]]\"}"
ARC = """
grammar: three_d.probe_ellipse_arc
summary: Test scene — one elliptical arc with an arrowhead.
state:
  arcs: "[{x: 200, y: 200, rx: 150, ry: 60, rotate: 0, start: 0, end: 90}]"
render:
  canvas: {width: 400, height: 400}
  scene:
    marks:
      - ellipse_arc: {each: arcs, as: a, x: a.x, y: a.y, rx: a.rx, ry: a.ry, rotate: a.rotate, start: a.start,
                      end: a.end, stroke: "'#000000'", stroke_width: 2, arrow: end}
"""


@pytest.fixture(scope="module")
def tax(tmp_path_factory):
    root = tmp_path_factory.mktemp("lib")
    for d in LIBRARY_DIRS:
        shutil.copytree(ROOT / d, root / d)
    (root / "grammars/three_d/probe_top.yaml").write_text(probe("probe_top", TOP))
    (root / "grammars/three_d/probe_iso.yaml").write_text(probe("probe_iso", ISO))
    (root / "grammars/three_d/probe_ellipse_arc.yaml").write_text(ARC)
    return compile_taxonomy(root)


def render(tax, grammar="three_d.probe_top", budget=None, **lists):
    state = {k: [] for k in ("spheres", "cones", "tori", "pyramids", "boxes")}
    state.update(lists)
    return render_scene(tax.grammars[grammar], state, 0, tax.vocab, Rng(7), object_paths(state), budget=budget)


def spent(tax, grammar="three_d.probe_iso", **lists) -> int:
    budget = Budget()
    render(tax, grammar, budget, **lists)
    return budget.limit - budget.left


def camera_fit(projection, azimuth=None, elevation=None):
    kw = {} if azimuth is None else {"azimuth": azimuth, "elevation": elevation}
    cam = Camera(projection, target=(2.0, 2.0, 2.0), **kw)
    return cam, fit([cam.project(*c) for c in box_corners(*BOUNDS)], (0, 0, W, H), FIT_MARGIN)


def px(cam, fit_, x, y, z):
    u, v, _ = cam.project(x, y, z)
    return fit_.to_px(u, v)


def is_red(p):
    return p[0] > 120 and p[1] < 60 and p[2] < 60


def test_a_sphere_seen_from_above_is_a_disc_of_radius_r_times_scale(tax):
    rr = render(tax, spheres=[{"x": 2, "y": 2, "z": 1, "r": 1.5}])
    cam, fit_ = camera_fit("orthographic", 0, 90)
    cx, cy = px(cam, fit_, 2, 2, 1)
    want = 1.5 * fit_.scale
    red = np.array([[is_red(p) for p in row] for row in rr.rgb[:, :, :3].tolist()])
    # The red disc (inside the ink outline) along 16 directions: it reaches the radius less the outline, within 1 px.
    for k in range(16):
        a = 2 * math.pi * k / 16
        reach = max(t for t in np.arange(0, want + 5, 0.25)
                    if red[int(cy + t * math.sin(a)), int(cx + t * math.cos(a))] or t == 0)
        assert want - 2.5 <= reach <= want + 1.0, (k, reach, want)  # a pixel, less the ink outline
    # The render map's box is the disc's box, to the visibility cell and the facets' 1 − cos(π/32).
    x0, y0, x1, y1 = rr.render_map["spheres[0]"]["bbox"]
    assert (x1 - x0) / 2 == pytest.approx(want, abs=1.0) and (y1 - y0) / 2 == pytest.approx(want, abs=1.0)
    assert rr.render_map["spheres[0]"]["mark"] == "sphere"
    assert rr.render_map["spheres[0]"]["geometry"]["visible"] == pytest.approx(1.0, abs=0.01)


def test_every_sphere_corner_lies_on_the_sphere_and_faces_point_outwards():
    faces = sphere_faces(1.0, 2.0, 3.0, 2.0, SPHERE_SEGMENTS, SPHERE_BANDS)
    assert len(faces) == SPHERE_SEGMENTS * SPHERE_BANDS == 512
    for f in faces:
        for p in f.points:
            assert math.dist(p, (1.0, 2.0, 3.0)) == pytest.approx(2.0, abs=1e-9)
        c = f.centroid
        assert sum(n * (a - b) for n, a, b in zip(f.normal, c, (1.0, 2.0, 3.0))) > 0
    tfaces = torus_faces(0.0, 0.0, 0.0, 2.0, 1.0, TORUS_SEGMENTS, TORUS_TUBE)
    assert len(tfaces) == TORUS_SEGMENTS * TORUS_TUBE
    for f in tfaces:  # every corner 0.5 from the tube's centre circle (radius 1.5)
        for x, y, z in f.points:
            assert math.hypot(math.hypot(x, y) - 1.5, z) == pytest.approx(0.5, abs=1e-9)


def test_a_cones_apex_projects_where_the_camera_says(tax):
    rr = render(tax, "three_d.probe_iso", cones=[{"x": 2, "y": 2, "z": 0, "r": 1, "h": 3}])
    cam, fit_ = camera_fit("isometric")
    ax, ay = px(cam, fit_, 2, 2, 3)
    x0, y0, x1, y1 = rr.render_map["cones[0]"]["bbox"]
    assert y0 == pytest.approx(ay, abs=0.6)  # the apex is the topmost point of the silhouette
    # Green just below the apex, background just above it.
    assert rr.rgb[int(ay) + 4, int(ax), 1] > 100 and rr.rgb[int(ay) + 4, int(ax), 0] < 60
    assert rr.rgb[int(ay) - 3, int(ax), :3].tolist() == rr.rgb[2, 2, :3].tolist()
    # The base circle's lowest point (the rim nearest the camera) is the bottom of the silhouette.
    low = max(px(cam, fit_, 2 + math.cos(a), 2 + math.sin(a), 0)[1]
              for a in np.linspace(0, 2 * math.pi, CONE_SEGMENTS, endpoint=False))
    assert y1 == pytest.approx(low, abs=1.0)


def test_a_torus_seen_from_above_has_background_in_its_hole(tax):
    rr = render(tax, tori=[{"x": 2, "y": 2, "z": 1, "r": 1.6, "ri": 0.8}])
    cam, fit_ = camera_fit("orthographic", 0, 90)
    cx, cy = px(cam, fit_, 2, 2, 1)
    bg = rr.rgb[2, 2, :3].tolist()
    assert rr.rgb[int(cy), int(cx), :3].tolist() == bg  # the hole
    s = fit_.scale
    for d in (1.2, -1.2):  # the tube's middle, either side: orange
        p = rr.rgb[int(cy), int(cx + d * s), :3].tolist()
        assert p[0] > 150 and p[2] < 60, p
    assert rr.rgb[int(cy), int(cx + 1.9 * s), :3].tolist() == bg  # outside the outer rim
    entry = rr.render_map["tori[0]"]
    assert (entry["bbox"][2] - entry["bbox"][0]) / 2 == pytest.approx(1.6 * s, abs=1.0)


@pytest.mark.parametrize("order", [0, 1])
def test_a_sphere_in_front_of_a_box_hides_it_whatever_the_order(tax, order):
    sphere = {"x": 1.5, "y": 1.5, "z": 1.5, "r": 1.3}
    box = {"x": 2.2, "y": 2.2, "z": 0.5, "d": 1.0}  # behind the sphere along the isometric view
    spheres, boxes = [sphere], [box]
    rr = render(tax, "three_d.probe_iso", spheres=spheres, boxes=boxes)
    assert "boxes[0]" not in rr.render_map  # under a quarter visible: no witness
    assert rr.render_map["spheres[0]"]["geometry"]["visible"] == pytest.approx(1.0, abs=0.01)
    cam, fit_ = camera_fit("isometric")
    x, y = px(cam, fit_, 2.7, 2.7, 1.0)  # the box's centre: painted over by the sphere
    assert is_red(rr.rgb[int(y), int(x), :3].tolist())
    # Moved in front, the box covers the sphere's middle instead.
    front = {"x": 0.2, "y": 0.2, "z": 1.0, "d": 1.0}
    rr = render(tax, "three_d.probe_iso", spheres=spheres, boxes=[front])
    x, y = px(cam, fit_, 0.7, 0.7, 2.0)  # the box's top face centre
    p = rr.rgb[int(y), int(x), :3].tolist()
    assert p[2] > 200 and p[0] < 40
    assert rr.render_map["boxes[0]"]["geometry"]["visible"] == pytest.approx(1.0, abs=0.01)


def test_a_pyramid_shows_its_apex_and_four_sides_from_above(tax):
    rr = render(tax, pyramids=[{"x": 2, "y": 2, "z": 0, "size": 2, "h": 1.5}])
    cam, fit_ = camera_fit("orthographic", 0, 90)
    cx, cy = px(cam, fit_, 2, 2, 1.5)
    s = fit_.scale
    shades = {tuple(rr.rgb[int(cy + dy * s), int(cx + dx * s), :3].tolist())
              for dx, dy in ((0.5, 0), (-0.5, 0), (0, 0.5), (0, -0.5))}
    assert len(shades) == 4  # four sides, each turned a different way to the light
    x0, y0, x1, y1 = rr.render_map["pyramids[0]"]["bbox"]
    assert x1 - x0 == pytest.approx(2 * s, abs=1.0) and y1 - y0 == pytest.approx(2 * s, abs=1.0)


def test_a_sphere_is_outlined_on_its_silhouette_not_as_a_grid(tax):
    rr = render(tax, spheres=[{"x": 2, "y": 2, "z": 1, "r": 1.5}])
    cam, fit_ = camera_fit("orthographic", 0, 90)
    cx, cy = px(cam, fit_, 2, 2, 1)
    row = rr.rgb[int(cy) + 7, :, :3].tolist()
    dark = [max(p) < 90 for p in row]
    assert sum(1 for i in range(1, len(dark)) if dark[i] and not dark[i - 1]) == 2  # left and right rim only


def test_solids_are_deterministic_and_charged_face_by_face(tax):
    lists = dict(spheres=[{"x": 1, "y": 1, "z": 1, "r": 0.8}], cones=[{"x": 3, "y": 1, "z": 0, "r": 0.7, "h": 2}],
                 tori=[{"x": 1, "y": 3, "z": 0.5, "r": 0.9, "ri": 0.4}],
                 pyramids=[{"x": 3, "y": 3, "z": 0, "size": 1.2, "h": 1}])
    a = render(tax, "three_d.probe_iso", **lists)
    b = render(tax, "three_d.probe_iso", **lists)
    assert a.png == b.png and a.render_map == b.render_map
    assert set(a.render_map) >= {"spheres[0]", "cones[0]", "tori[0]", "pyramids[0]"}
    sphere = SOLID_STEPS + SPHERE_SEGMENTS * 2 * (FACE_STEPS + 3 * POINT3_STEPS) \
        + SPHERE_SEGMENTS * (SPHERE_BANDS - 2) * (FACE_STEPS + 4 * POINT3_STEPS)
    assert spent(tax, spheres=lists["spheres"]) - spent(tax) >= sphere  # at least the faces' price (plus the order and the pixels)


@pytest.mark.parametrize("kind, item, message", [
    ("spheres", {"x": 1, "y": 1, "z": 1, "r": -0.5}, "r must be > 0, got -0.5"),
    ("cones", {"x": 1, "y": 1, "z": 0, "r": 0.5, "h": 0}, "height must be > 0, got 0"),
    ("tori", {"x": 1, "y": 1, "z": 0, "r": 0.5, "ri": 0.5}, "r_inner must be < r, got r_inner 0.5 and r 0.5"),
    ("pyramids", {"x": 1, "y": 1, "z": 0, "size": "big", "h": 1}, "size must be a number, got 'big'"),
])
def test_bad_solid_channels_are_positioned_errors(tax, kind, item, message):
    # The mark's record in probe(): its line, and the column where the record opens.
    mark, where = {"spheres": ("sphere", "17:17"), "cones": ("cone", "18:15"), "tori": ("torus", "19:16"),
                   "pyramids": ("pyramid", "20:18")}[kind]
    with pytest.raises(EvalError) as err:
        render(tax, **{kind: [item]})
    text = str(err.value)
    assert f"{mark} mark at " in text and f"probe_top.yaml:{where}: " in text and message in text, text


def test_an_ellipse_arc_ends_where_its_parameter_says_with_an_arrowhead(tax):
    state = {"arcs": [{"x": 200, "y": 200, "rx": 150, "ry": 60, "rotate": 30, "start": 0, "end": 270}]}
    rr = render_scene(tax.grammars["three_d.probe_ellipse_arc"], state, 0, tax.vocab, Rng(7), object_paths(state))
    g = rr.render_map["arcs[0]"]["geometry"]
    c, s = math.cos(math.radians(30)), math.sin(math.radians(30))
    start = (200 + 150 * c, 200 + 150 * s)  # parameter 0: (rx, 0) turned by 30° (screen degrees, y down)
    end = (200 - (-60) * s, 200 + (-60) * c)  # parameter 270: (0, −ry) turned
    assert g["ends"] == [pytest.approx(list(start), abs=0.01), pytest.approx(list(end), abs=0.01)]
    ink = rr.rgb[:, :, :3].max(axis=2) < 90
    # The stroke passes through both ends, and the arrowhead fills a patch behind the end point.
    assert ink[int(start[1]) - 1:int(start[1]) + 2, int(start[0]) - 2:int(start[0]) + 1].any()
    tip = ink[int(end[1]) - 6:int(end[1]) + 7, int(end[0]) - 9:int(end[0]) + 2].sum()
    plain = render_scene(tax.grammars["three_d.probe_ellipse_arc"], {"arcs": [{**state["arcs"][0]}]}, 0, tax.vocab,
                         Rng(7), object_paths(state))
    assert plain.png == rr.png  # deterministic
    assert tip >= 20  # a filled head, not a 2 px line alone
    # A point at parameter 135° lies on the arc; one at 315° (not swept) does not.
    for t, on in ((135, True), (315, False)):
        ex, ey = 150 * math.cos(math.radians(t)), 60 * math.sin(math.radians(t))
        x, y = 200 + ex * c - ey * s, 200 + ex * s + ey * c
        assert bool(ink[int(y) - 1:int(y) + 2, int(x) - 1:int(x) + 2].any()) is on
    with pytest.raises(EvalError, match="ellipse_arc spans at most 360°"):
        bad = {"arcs": [{**state["arcs"][0], "end": 400}]}
        render_scene(tax.grammars["three_d.probe_ellipse_arc"], bad, 0, tax.vocab, Rng(7), object_paths(bad))
