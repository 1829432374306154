"""3-D geometry for the camera frame (compiler/render/space.py): projections checked against hand formulas, faces,
culling, and the painter's order checked against an independent ray caster (slab intersection per pixel), never
against the ordering code itself."""
from __future__ import annotations

import math

import numpy as np
import pytest

from tessera.render.space import (
    ISO_ELEVATION, LIGHT_DIR, Camera, Solid, box_corners, box_faces, cylinder_faces, fit, id_buffer, paint_order,
    polygon3, prism_faces, project_face, project_faces, pyramid_faces, visibility,
)

BOX = (0.0, 0.0, 400.0, 400.0)


def cube(x, y, z, sid=None):
    return Solid(sid if sid is not None else f"c{x}{y}{z}", box_faces(x, y, z, 1, 1, 1))


def fit_scene(camera, lo, hi, box=BOX, margin=10.0):
    return fit([camera.project(*c) for c in box_corners(lo, hi)], box, margin)


# -- the ray caster: the independent oracle ---------------------------------------------------------------------
def box_planes(lo, hi):
    """An axis-aligned box as 6 half-spaces n·p ≤ d, written out by hand."""
    return [((-1, 0, 0), -lo[0]), ((1, 0, 0), hi[0]), ((0, -1, 0), -lo[1]), ((0, 1, 0), hi[1]),
            ((0, 0, -1), -lo[2]), ((0, 0, 1), hi[2])]


def face_planes(solid):
    """A convex solid as the half-spaces behind its faces."""
    return [(f.normal, float(np.dot(f.normal, f.points[0]))) for f in solid.faces]


def ray_cast(convex: list[list[tuple]], camera: Camera, fit_, shape, jitter=0.0):
    """For each pixel centre (+ jitter px) of a shape = (h, w) image: (index of the nearest convex solid hit or −1,
    (pixels × solids) ray parameter where the ray enters each solid, inf where it misses). Each solid is a list of
    half-spaces (normal, d); rays are built from the camera's basis and the Fit, clipped against every half-space."""
    h, w = shape
    py, px = np.mgrid[0:h, 0:w].astype(float) + 0.5 + jitter
    s = fit_.scale
    u = fit_.center_uv[0] + (px.ravel() - fit_.center_px[0]) / s
    v = fit_.center_uv[1] - (py.ravel() - fit_.center_px[1]) / s
    t, r, up, f = (np.array(a) for a in (camera.target, camera.right, camera.up, camera.view_dir))
    on_plane = t + u[:, None] * r + v[:, None] * up  # the point on the target's plane that lands on the pixel
    if camera.perspective:
        origin = np.broadcast_to(np.array(camera.eye), on_plane.shape)
        direction = on_plane - origin
    else:
        origin = on_plane - 1000.0 * f
        direction = np.broadcast_to(f, on_plane.shape)
    entry = np.full((len(u), len(convex)), np.inf)
    for j, planes in enumerate(convex):
        near, far = np.full(len(u), -np.inf), np.full(len(u), np.inf)
        for n, d in planes:
            denom = direction @ np.array(n, dtype=float)
            rest = d - origin @ np.array(n, dtype=float)
            with np.errstate(divide="ignore", invalid="ignore"):
                tt = rest / denom
            near = np.where(denom < 0, np.maximum(near, tt), near)
            far = np.where(denom > 0, np.minimum(far, tt), far)
            far = np.where((denom == 0) & (rest < 0), -np.inf, far)  # parallel and outside
        hit = far > near + 1e-9
        entry[hit, j] = near[hit]
    nearest = np.where(np.isfinite(entry).any(axis=1), entry.argmin(axis=1), -1)
    return nearest.reshape(h, w), entry


def robust_nearest(boxes, camera, fit_, shape):
    """The ray-cast nearest box at each pixel, or −2 where a quarter-pixel shift changes the answer (an edge)."""
    base, entry = ray_cast(boxes, camera, fit_, shape)
    out = base.copy()
    for dx in (-0.25, 0.25):
        shifted, _ = ray_cast(boxes, camera, fit_, shape, jitter=dx)
        out[shifted != base] = -2
    return out, entry


def lattice(missing=lambda x, y, z: False, n=3):
    return [(x, y, z) for z in range(n) for y in range(n) for x in range(n) if not missing(x, y, z)]


CAMERAS = [
    Camera(),
    Camera("isometric", azimuth=135),
    Camera("orthographic", azimuth=30, elevation=20),
    Camera("orthographic", azimuth=-70, elevation=55),
    Camera("perspective", azimuth=25, elevation=30, distance=9.0, target=(1.5, 1.5, 1.5)),
    Camera("perspective", azimuth=200, elevation=15, distance=6.0, target=(1.5, 1.5, 1.0)),
]


# -- projection --------------------------------------------------------------------------------------------------
def test_isometric_unit_cube_corners_match_the_hand_formula():
    # Convention: u = k(x − y)cos30°, v = k(z + (x + y)sin30°), k = √(2/3); depth = (x + y − z)/√3.
    cam = Camera()
    k = math.sqrt(2 / 3)
    for x, y, z in box_corners((0, 0, 0), (1, 1, 1)):
        u, v, d = cam.project(x, y, z)
        assert u == pytest.approx(k * (x - y) * math.cos(math.radians(30)), abs=1e-9)
        assert v == pytest.approx(k * (z + (x + y) * math.sin(math.radians(30))), abs=1e-9)
        assert d == pytest.approx((x + y - z) / math.sqrt(3), abs=1e-9)
    # The same, as plain numbers: (1,0,0) → (√2/2, √6/6), (0,0,1) → (0, √6/3).
    assert cam.project(1, 0, 0)[:2] == pytest.approx((math.sqrt(2) / 2, math.sqrt(6) / 6))
    assert cam.project(0, 0, 1)[:2] == pytest.approx((0.0, math.sqrt(6) / 3))
    assert cam.view_dir == pytest.approx((1 / math.sqrt(3), 1 / math.sqrt(3), -1 / math.sqrt(3)))
    assert ISO_ELEVATION == pytest.approx(35.264, abs=1e-3)


def test_isometric_fixes_its_angles():
    with pytest.raises(ValueError):
        Camera("isometric", azimuth=30)
    with pytest.raises(ValueError):
        Camera("isometric", elevation=20)
    with pytest.raises(ValueError):
        Camera("perspective")
    with pytest.raises(ValueError):
        Camera("oblique")
    # Other corners of the cube are isometric too: azimuth 135 swaps which sides show.
    assert Camera("isometric", azimuth=135).view_dir == pytest.approx((0.57735, -0.57735, -0.57735), abs=1e-5)


def test_orthographic_front_view_is_x_z():
    cam = Camera("orthographic", azimuth=0, elevation=0)
    for p in [(0, 0, 0), (1, 2, 3), (-4, 5, -6), (0.5, -7, 2.25)]:
        assert cam.project(*p) == (p[0], p[2], p[1])  # exact: the snapped basis is exactly (1,0,0), (0,0,1)
    assert Camera("orthographic", azimuth=90, elevation=0).project(1, 2, 3) == pytest.approx((-2, 3, 1))
    # Straight down (elevation 90): a plan view with north up.
    assert Camera("orthographic", azimuth=0, elevation=90).project(1, 2, 3)[:2] == pytest.approx((1, 2))


def test_perspective_shrinks_with_distance_and_centres_the_axis():
    cam = Camera("perspective", azimuth=0, elevation=0, distance=10.0)
    near_w = cam.project(0.5, 0, 0)[0] - cam.project(-0.5, 0, 0)[0]
    far_w = cam.project(0.5, 5, 0)[0] - cam.project(-0.5, 5, 0)[0]
    assert near_w == pytest.approx(1.0)  # at the target's depth the scale is the orthographic one
    assert far_w == pytest.approx(10 / 15) and far_w < near_w
    tilted = Camera("perspective", azimuth=30, elevation=25, distance=8.0, target=(1, 2, 0.5))
    f = tilted.view_dir
    for s in (-3.0, 0.0, 4.0, 20.0):
        u, v, d = tilted.project(1 + s * f[0], 2 + s * f[1], 0.5 + s * f[2])
        assert (u, v) == pytest.approx((0, 0), abs=1e-9)
        assert d == pytest.approx(8.0 + s)
    # ... and in pixels, to the centre of the box when the scene is symmetric about the axis.
    fit_ = fit_scene(cam, (-1, -1, -1), (1, 3, 1))
    for y in (-1.0, 0.0, 2.5):
        assert fit_.to_px(*cam.project(0, y, 0)[:2]) == pytest.approx((200, 200))
    with pytest.raises(ValueError):
        tilted.project(*tilted.eye)


def test_fit_keeps_aspect_and_centres():
    f = fit([(0, 0), (2, 0), (2, 1), (0, 1)], (0, 0, 200, 200), margin=10)
    assert f.scale == pytest.approx(90.0)  # width is the tighter: 180 px for 2 units
    assert f.to_px(1, 0.5) == pytest.approx((100, 100))
    assert f.to_px(0, 0) == pytest.approx((10, 145))  # v up → py down
    assert f.to_px(2, 1) == pytest.approx((190, 55))
    tall = fit([(5, 5), (6, 9)], (100, 0, 300, 100))
    assert tall.scale == pytest.approx(25.0) and tall.to_px(5.5, 7) == pytest.approx((200, 50))
    assert fit([(3, 3)], (0, 0, 10, 10)).to_px(3, 3) == (5, 5)


# -- faces -------------------------------------------------------------------------------------------------------
def _newell(points):
    n = np.zeros(3)
    for a, b in zip(points, points[1:] + points[:1]):
        n += np.cross(a, b)
    return n / np.linalg.norm(n)


@pytest.mark.parametrize("faces", [
    box_faces(0, 0, 0, 1, 2, 3), prism_faces([(0, 0), (3, 0), (3, 1), (1, 1), (1, 3), (0, 3)], 0, 2),
    prism_faces([(0, 0), (0, 2), (2, 2)], 1, 2), cylinder_faces(1, 1, 0, 2, 0.5),
    pyramid_faces([(0, 0, 0), (2, 0, 0), (2, 2, 0), (0, 2, 0)], (1, 1, 2)),
    pyramid_faces([(0, 0, 0), (0, 2, 0), (2, 0, 0)], (0.5, 0.5, -1)),
])
def test_faces_wind_counter_clockwise_outward(faces):
    centre = np.mean([p for f in faces for p in f.points], axis=0)
    tags = [f.tag for f in faces]
    assert len(set(tags)) == len(tags)
    for f in faces:
        assert np.allclose(_newell([np.array(p) for p in f.points]), f.normal)  # winding agrees with the normal
        assert np.linalg.norm(f.normal) == pytest.approx(1.0)
        # Outward: just outside the face's centroid is outside the solid. Every solid here is convex except the L,
        # which is tested by the point-in-polygon rule on its base.
        probe = np.mean(f.points, axis=0) + 0.01 * np.array(f.normal)
        if len(faces) == 8 and faces[0].tag == "bottom":  # the L-shaped prism
            assert not (0 < probe[2] < 2 and (probe[0] < 1 or probe[1] < 1) and 0 < probe[0] < 3 and 0 < probe[1] < 3)
        else:
            assert np.dot(probe - centre, f.normal) > 0
        assert 0.55 <= f.shade() <= 1.0


def test_shade_tops_lightest_and_visible_sides_differ():
    by_tag = {f.tag: f.shade() for f in box_faces(0, 0, 0, 1, 1, 1)}
    assert by_tag["top"] == max(by_tag.values()) and by_tag["bottom"] == min(by_tag.values())
    assert len(set(round(s, 6) for s in by_tag.values())) == 6
    assert max(by_tag["x-"], by_tag["x+"], by_tag["y-"], by_tag["y+"]) < by_tag["top"] - 0.15
    assert math.sqrt(sum(c * c for c in LIGHT_DIR)) == pytest.approx(1.0)
    tile = polygon3([(0, 0, 0), (0, 1, 0), (1, 1, 0)])[0]  # clockwise from above: normal down, but two-sided
    assert tile.normal == pytest.approx((0, 0, -1)) and tile.shade() == pytest.approx(by_tag["top"])


@pytest.mark.parametrize("azimuth, expected", [
    (45, {"top", "x-", "y-"}), (135, {"top", "x-", "y+"}), (-45, {"top", "x+", "y-"}), (225, {"top", "x+", "y+"}),
])
def test_isometric_box_shows_three_faces(azimuth, expected):
    cam = Camera("isometric", azimuth=azimuth)
    order = paint_order([Solid("b", box_faces(0, 0, 0, 2, 1, 1))], cam)
    assert {pf.face.tag for pf in order} == expected


def test_culling_edge_on_and_perspective():
    front = Camera("orthographic", azimuth=0, elevation=0)  # the top is edge-on: not drawn
    assert {pf.face.tag for pf in paint_order([cube(0, 0, 0)], front)} == {"y-"}
    # A perspective eye 2 units in front of a wide box's face centre sees only that face, though orthographic
    # culling with the same direction would also show the top.
    persp = Camera("perspective", azimuth=0, elevation=10, distance=2.0, target=(0.5, 0, 0.5))
    assert {pf.face.tag for pf in paint_order([Solid("w", box_faces(-5, 0, 0, 11, 1, 1))], persp)} == {"y-"}
    # A lone tile is drawn from below as from above (two-sided), but not edge-on.
    tile = Solid("t", polygon3([(0, 0, 5), (1, 0, 5), (1, 1, 5)]))
    below = Camera("perspective", azimuth=0, elevation=10, distance=5.0, target=(0.5, 0.5, 0))
    assert below.eye[2] < 5 and len(paint_order([tile], below)) == 1
    assert len(paint_order([tile], Camera())) == 1
    assert paint_order([tile], Camera("orthographic", elevation=0)) == []


# -- paint order, checked by ray casting -------------------------------------------------------------------------
def _holes(x, y, z):
    # A fixed pattern of missing cubes: arithmetic, not random.
    return (x * 7 + y * 3 + z * 5) % 4 == 0


def _check_order_against_rays(cells, camera, lo, hi, size=(160, 160)):
    solids = [Solid(i, box_faces(*c, 1, 1, 1)) for i, c in enumerate(cells)]
    box = (0.0, 0.0, float(size[1]), float(size[0]))
    fit_ = fit_scene(camera, lo, hi, box=box, margin=4)
    order = paint_order(solids, camera)
    last = {}
    for pos, pf in enumerate(order):
        last.setdefault(pf.id, [pos, pos])[1] = pos
    boxes = [box_planes(c, tuple(v + 1 for v in c)) for c in cells]
    nearest, entry = robust_nearest(boxes, camera, fit_, size)
    # 1. Pairwise: wherever two cubes lie on one ray (away from edges), the nearer one is painted after the other.
    robust = nearest.ravel() >= 0
    pairs = 0
    for a in range(len(cells)):
        for b in range(a + 1, len(cells)):
            both = robust & np.isfinite(entry[:, a]) & np.isfinite(entry[:, b])
            both[both] &= np.abs(entry[both, a] - entry[both, b]) > 1e-6  # not the shared face of two touching cubes
            if not both.any():
                continue
            pairs += 1
            a_nearer = entry[both, a] < entry[both, b]
            assert a_nearer.all() or not a_nearer.any()  # convex, disjoint: one is in front everywhere
            front, back = (a, b) if a_nearer[0] else (b, a)
            assert last[front][0] > last[back][1], (cells[front], cells[back])
    # 2. Whole image: the id buffer of the painted order equals the ray-cast nearest cube at every robust pixel.
    buf, index = id_buffer(project_faces(order, camera, fit_), box)
    inverse = {v: k for k, v in index.items()}
    painted = np.vectorize(lambda k: inverse.get(k, -1))(buf)
    check = nearest != -2
    assert (painted[check] == nearest[check]).all()
    return pairs


@pytest.mark.parametrize("camera", CAMERAS, ids=lambda c: f"{c.projection}-{c.azimuth}-{round(c.elevation)}")
def test_paint_order_on_a_holed_3x3x3_stack(camera):
    cells = lattice(_holes)
    assert 15 < len(cells) < 27
    assert _check_order_against_rays(cells, camera, (0, 0, 0), (3, 3, 3)) > 20


def test_paint_order_on_bars_of_different_heights():
    # A 3-D bar chart: 3 × 3 bars of heights 1..4 plus a wide, thin floor slab under them.
    heights = [[1, 3, 2], [4, 1, 2], [2, 2, 3]]
    solids, boxes = [], []
    for i in range(3):
        for j in range(3):
            lo, hi = (i * 1.5, j * 1.5, 0.2), (i * 1.5 + 1, j * 1.5 + 1, 0.2 + heights[i][j])
            boxes.append((lo, hi))
    boxes.append(((-0.5, -0.5, 0.0), (4.5, 4.5, 0.2)))
    solids = [Solid(k, box_faces(*lo, *(h - l for h, l in zip(hi, lo)))) for k, (lo, hi) in enumerate(boxes)]
    for camera in CAMERAS[:4]:
        fit_ = fit_scene(camera, (-0.5, -0.5, 0), (4.5, 4.5, 4.2), box=(0, 0, 200, 200), margin=4)
        order = paint_order(solids, camera)
        nearest, _ = robust_nearest([box_planes(lo, hi) for lo, hi in boxes], camera, fit_, (200, 200))
        buf, index = id_buffer(project_faces(order, camera, fit_), (0, 0, 200, 200))
        inverse = {v: k for k, v in index.items()}
        painted = np.vectorize(lambda k: inverse.get(k, -1))(buf)
        check = nearest != -2
        assert (painted[check] == nearest[check]).all()


def test_two_level_stack_where_centroid_sort_fails():
    # A 4 × 4 × 1 slab with a unit cube on its far corner. The cube's centre is farther from the viewer than the
    # slab's, so sorting by centroid paints the slab last and its top covers the cube's lower faces.
    cam = Camera()
    slab = Solid("slab", box_faces(0, 0, 0, 4, 4, 1))
    top = Solid("cube", box_faces(3, 3, 1, 1, 1, 1))
    fit_ = fit_scene(cam, (0, 0, 0), (4, 4, 2))
    assert cam.depth((3.5, 3.5, 1.5)) > cam.depth((2, 2, 0.5))  # the cube's centroid is the farther one
    order = paint_order([slab, top], cam)
    assert [pf.id for pf in order][-1] == "cube" and [pf.id for pf in order][0] == "slab"
    vis = visibility(project_faces(order, cam, fit_), BOX)
    assert vis["cube"].fraction == 1.0  # nothing is in front of the cube
    # What the centroid sort would have drawn, for contrast: the cube loses part of itself to the slab's top.
    naive = sorted(order, key=lambda pf: -cam.depth((3.5, 3.5, 1.5) if pf.id == "cube" else (2, 2, 0.5)))
    assert visibility(project_faces(naive, cam, fit_), BOX)["cube"].fraction < 0.9
    _check_order_against_rays([(3, 3, 1)], cam, (0, 0, 0), (4, 4, 2))  # (sanity of the oracle on one cube)


@pytest.mark.parametrize("camera", CAMERAS, ids=lambda c: f"{c.projection}-{c.azimuth}-{round(c.elevation)}")
def test_mixed_convex_solids_against_rays(camera):
    # Cans, wedges, pyramids and boxes packed close on a floor tile; checked against rays clipped by face planes.
    solids = [
        Solid("box", box_faces(0, 0, 0, 1, 1, 1)),
        Solid("cyl", cylinder_faces(1.6, 0.5, 0, 1.5, 0.5)),
        Solid("cyl2", cylinder_faces(2.6, 1.4, 0, 0.8, 0.45)),
        Solid("prism", prism_faces([(0, 1.2), (1, 1.2), (0.5, 2.6)], 0, 2)),
        Solid("pyr", pyramid_faces([(1.2, 2, 0), (2.2, 2, 0), (2.2, 3, 0), (1.2, 3, 0)], (1.7, 2.5, 1.5))),
        Solid("slab", box_faces(2.3, 2.2, 0, 0.6, 0.6, 2.5)),
    ]
    tile = Solid("tile", polygon3([(-0.5, -0.5, 0), (3.5, -0.5, 0), (3.5, 3.5, 0), (-0.5, 3.5, 0)]))
    order = paint_order(solids + [tile], camera)
    assert order == paint_order([tile] + solids[::-1], camera)
    ids = []
    for pf in order:
        if not ids or ids[-1] != pf.id:
            ids.append(pf.id)
    assert ids[0] == "tile" and len(ids) == len(solids) + 1  # each solid's faces stay together
    size = (200, 200)
    fit_ = fit_scene(camera, (-0.5, -0.5, 0), (3.5, 3.5, 2.5), box=(0, 0, 200, 200), margin=4)
    nearest, _ = robust_nearest([face_planes(s) for s in solids], camera, fit_, size)
    buf, index = id_buffer(project_faces(order, camera, fit_), (0, 0, 200, 200))
    position = {s.id: k for k, s in enumerate(solids)}
    painted = np.vectorize(lambda k: {v: position.get(i, -1) for i, v in index.items()}.get(k, -1))(buf)
    hit = nearest >= 0
    assert hit.sum() > 2000
    assert (painted[hit] == nearest[hit]).all()
    assert (painted[nearest == -1] == -1).all()  # where rays miss every solid only the floor (or nothing) shows


# -- visibility --------------------------------------------------------------------------------------------------
def test_visibility_hidden_partial_and_lone():
    front = Camera("orthographic", azimuth=0, elevation=0)
    row = [cube(x, 0, 0) for x in range(3)] + [cube(1, 1, 0, "behind")]
    fit_ = fit_scene(front, (0, 0, 0), (3, 2, 1))
    vis = visibility(project_faces(paint_order(row, front), front, fit_), BOX)
    assert vis["behind"].fraction == 0.0 and vis["behind"].bbox is None and vis["behind"].visible_px == 0.0
    assert vis["behind"].total_px > 0
    assert all(vis[f"c{x}00"].fraction == 1.0 for x in range(3))

    iso = Camera()
    full = [cube(*c) for c in lattice()]
    fit_ = fit_scene(iso, (0, 0, 0), (3, 3, 3))
    vis = visibility(project_faces(paint_order(full, iso), iso, fit_), BOX)
    assert vis["c111"].fraction == 0.0 and vis["c111"].bbox is None  # the core
    assert vis["c220"].fraction == 0.0  # the far bottom corner: all three of its shown faces are buried
    assert vis["c002"].fraction == 1.0  # the near top corner

    pair = [cube(1, 1, 0, "back"), cube(0, 0, 0, "front")]
    fit_ = fit_scene(iso, (0, 0, 0), (2, 2, 1))
    vis = visibility(project_faces(paint_order(pair, iso), iso, fit_), BOX)
    assert 0.1 < vis["back"].fraction < 0.9 and vis["front"].fraction == 1.0
    x0, y0, x1, y1 = vis["back"].bbox
    fx0, fy0, fx1, fy1 = vis["front"].bbox
    assert y0 < fy0 and x1 - x0 == pytest.approx(fx1 - fx0, abs=1.0)  # the back cube shows above the front one

    lone = [cube(0, 0, 0, "lone")]
    fit_ = fit_scene(iso, (0, 0, 0), (1, 1, 1))
    info = visibility(project_faces(paint_order(lone, iso), iso, fit_), BOX)["lone"]
    assert info.fraction == 1.0
    px = [p for f in paint_order(lone, iso) for p in project_face(f.face, iso, fit_)]
    xs, ys = [p[0] for p in px], [p[1] for p in px]
    # The visible box is the hexagon's box to within a cell.
    assert info.bbox == pytest.approx((min(xs), min(ys), max(xs), max(ys)), abs=1.0)
    # Its area is that of the three projected faces (shoelace formula), to within the rasterisation error.
    area = 0.0
    for f in paint_order(lone, iso):
        p = project_face(f.face, iso, fit_)
        area += abs(sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(p, p[1:] + p[:1]))) / 2
    assert info.total_px == pytest.approx(area, rel=0.01)


def test_visibility_resolution_and_clipping():
    iso = Camera()
    pair = [cube(1, 1, 0, "back"), cube(0, 0, 0, "front")]
    fit_ = fit_scene(iso, (0, 0, 0), (2, 2, 1))
    projected = project_faces(paint_order(pair, iso), iso, fit_)
    coarse = visibility(projected, BOX, resolution=0.5)["back"].fraction
    fine = visibility(projected, BOX, resolution=2.0)["back"].fraction
    assert coarse == pytest.approx(fine, abs=0.02)
    # Only what lies inside the pixel box counts.
    left = visibility(projected, (0, 0, 200, 400))
    assert left["front"].total_px < visibility(projected, BOX)["front"].total_px
    assert visibility(projected, (1000, 1000, 1100, 1100))["front"] == visibility(projected, (1000, 1000, 1100, 1100))[
        "back"]


def test_determinism():
    def run():
        cam = Camera("perspective", azimuth=33, elevation=28, distance=12.0, target=(1.5, 1.5, 1.5))
        solids = [cube(*c) for c in lattice(_holes)]
        fit_ = fit_scene(cam, (0, 0, 0), (3, 3, 3))
        order = paint_order(solids, cam)
        projected = project_faces(order, cam, fit_)
        return repr(order), repr(projected), repr(visibility(projected, BOX))
    assert run() == run()
    # Input order does not matter either: ties break by id, not by position.
    cam = Camera()
    solids = [cube(*c) for c in lattice(_holes)]
    assert paint_order(solids, cam) == paint_order(solids[::-1], cam)
    with pytest.raises(ValueError):
        paint_order([cube(0, 0, 0, "a"), cube(1, 0, 0, "a")], cam)
