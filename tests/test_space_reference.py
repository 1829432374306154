"""The fast paths of the camera frame's geometry (compiler/render/space.py) against straightforward reference
implementations written out here, on random scenes: the same answers, bit for bit, not merely close ones, since
visibility decides witnesses and the paint order decides pixels (variety: none bytes are pinned).

* visibility (counts and boxes from runs of cells, never an id buffer) against the id buffer painted cell by cell,
  and each solid's projected area against the same buffer with the solid drawn alone;
* the screen-box pairs of paint_order (a sweep along u) against the all-pairs test;
* the culled, depth-sorted faces of every solid (one vectorised pass) against Camera.faces_camera and
  Camera.depth(Face.centroid) face by face;
* pixels from project_px against project_face point by point;
* the whole paint order against the same rules assembled the plain way (all pairs, every silhouette);
* the paint order of random non-overlapping boxes against the ray caster of tests/test_space.py.
"""
from __future__ import annotations

import heapq
import random

import numpy as np
import pytest

from tessera.render.space import (
    DEPTH_DECIMALS, ISO_ELEVATION, Camera, Solid, _axis_votes, _box_pairs, _hull2, _id_key, _plane_vote, _Prepared,
    _silhouettes_overlap, _visible_faces, box_corners, box_faces, cylinder_faces, face_points, fit, id_buffer,
    paint_order, polygon3, prism_faces, project_face, project_faces, project_px, visibility,
)
from tests.test_space import box_planes, robust_nearest


def random_camera(rng: random.Random) -> Camera:
    kind = rng.choice(["isometric", "orthographic", "perspective"])
    if kind == "isometric":
        return Camera("isometric", azimuth=rng.choice([45, 135, 225, -45]), elevation=ISO_ELEVATION)
    if kind == "orthographic":
        return Camera("orthographic", azimuth=rng.choice([0, 90, rng.uniform(0, 360)]),
                      elevation=rng.choice([0, 90, rng.uniform(0, 90)]))
    return Camera("perspective", azimuth=rng.uniform(0, 360), elevation=rng.uniform(5, 80),
                  distance=rng.uniform(9, 20), target=(2, 2, 1))


def random_scene(rng: random.Random) -> list[Solid]:
    """Boxes (on a unit grid, touching, or of any size and overlapping), cylinders, L-shaped prisms (not convex) and
    lone polygons, with int and str ids."""
    out = []
    grid = rng.random() < 0.4
    for i in range(rng.randint(1, 45)):
        sid = i if rng.random() < 0.5 else f"s{i}"
        x, y, z = rng.uniform(0, 4), rng.uniform(0, 4), rng.uniform(0, 2)
        kind = rng.random()
        if grid:
            faces = box_faces(rng.randint(0, 4), rng.randint(0, 4), rng.randint(0, 3), 1, 1, 1)
        elif kind < 0.45:
            faces = box_faces(x, y, z, rng.uniform(0.2, 2), rng.uniform(0.2, 2), rng.uniform(0.2, 2))
        elif kind < 0.7:
            faces = cylinder_faces(x, y, z, z + rng.uniform(0.2, 2), rng.uniform(0.1, 1), rng.choice([5, 8, 32]))
        elif kind < 0.85:
            faces = prism_faces([(x, y), (x + 1, y), (x + 1, y + 0.4), (x + 0.4, y + 0.4), (x + 0.4, y + 1),
                                 (x, y + 1)], z, z + rng.uniform(0.2, 1.5))
        else:
            faces = polygon3([(x, y, z), (x + rng.uniform(-1, 1), y + 1, z), (x + 1, y, z + rng.uniform(0, 1))])
        out.append(Solid(sid, tuple(faces)))
    if grid:  # one cube per cell: duplicates would interpenetrate
        seen, unique = set(), []
        for s in out:
            if s.faces[0].points not in seen:
                seen.add(s.faces[0].points)
                unique.append(s)
        out = unique
    return out


def scene_fit(camera: Camera, box=(0.0, 0.0, 300.0, 240.0)):
    return fit([camera.project(*c) for c in box_corners((0, 0, 0), (6, 6, 4))], box, 5.0)


# -- visibility against the id buffer ----------------------------------------------------------------------------
def reference_visibility(projected, pixel_box, resolution):
    """Counts and boxes read off the id buffer cell by cell; each solid's projected area from a buffer of its faces
    alone (a cell painted by any of them counts once)."""
    buf, index = id_buffer(projected, pixel_box, resolution)
    out = {}
    for sid, k in index.items():
        alone, _ = id_buffer([(s, poly) for s, poly in projected if s == sid], pixel_box, resolution)
        total = int((alone >= 0).sum())
        rows, cols = np.nonzero(buf == k)
        bbox = None
        if len(rows):
            x0, y0 = pixel_box[0], pixel_box[1]
            bbox = (round(x0 + int(cols.min()) / resolution, 2), round(y0 + int(rows.min()) / resolution, 2),
                    round(x0 + (int(cols.max()) + 1) / resolution, 2),
                    round(y0 + (int(rows.max()) + 1) / resolution, 2))
        area = 1.0 / (resolution * resolution)
        out[sid] = (len(rows) / total if total else 0.0, bbox, len(rows) * area, total * area)
    return out


@pytest.mark.parametrize("seed", range(12))
def test_visibility_matches_the_id_buffer(seed):
    rng = random.Random(seed)
    for _ in range(4):
        camera = random_camera(rng)
        try:
            order = paint_order(random_scene(rng), camera)
        except ValueError:  # a perspective eye inside the scene
            continue
        projected = project_faces(order, camera, scene_fit(camera))
        pixel_box = rng.choice([(0.0, 0.0, 300.0, 240.0), (40.0, 30.0, 220.0, 200.0), (0.5, 0.25, 299.5, 240.0)])
        resolution = rng.choice([0.5, 1.0, 2.0])
        got = {sid: (i.fraction, i.bbox, i.visible_px, i.total_px)
               for sid, i in visibility(projected, pixel_box, resolution).items()}
        assert got == reference_visibility(projected, pixel_box, resolution)


def test_visibility_of_faces_painted_over_one_another():
    # Several faces of one solid stacked on the same cells, and another solid in between in paint order: the last
    # face over a cell owns it, and the area of a solid counts its cells once.
    sq = [(10.0, 10.0), (50.0, 10.0), (50.0, 50.0), (10.0, 50.0)]
    small = [(20.0, 20.0), (30.0, 20.0), (30.0, 30.0), (20.0, 30.0)]
    projected = [("a", sq), ("a", sq), ("b", sq), ("a", small), ("c", [(0.0, 0.0), (5.0, 0.0)])]
    vis = visibility(projected, (0.0, 0.0, 64.0, 64.0))
    assert vis["a"].visible_px == 100 and vis["a"].total_px == 1600 and vis["a"].bbox == (20, 20, 30, 30)
    assert vis["b"].visible_px == 1500 and vis["b"].bbox == (10, 10, 50, 50)
    assert vis["c"].total_px == 0 and vis["c"].bbox is None and vis["c"].fraction == 0.0
    assert {k: (v.fraction, v.bbox) for k, v in vis.items()} == {
        k: v[:2] for k, v in reference_visibility(projected, (0.0, 0.0, 64.0, 64.0), 1.0).items()}


# -- the pieces of paint_order -----------------------------------------------------------------------------------
def all_pairs(umin, umax, vmin, vmax, tol):
    overlap = ((umin[:, None] < umax[None, :] - tol) & (umin[None, :] < umax[:, None] - tol) &
               (vmin[:, None] < vmax[None, :] - tol) & (vmin[None, :] < vmax[:, None] - tol))
    return np.nonzero(np.triu(overlap, 1))


@pytest.mark.parametrize("seed", range(20))
def test_box_pairs_sweep_equals_all_pairs(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 120))
    # Coarse coordinates: many boxes share an edge or a left side exactly, and some are thinner than tol.
    lo = rng.integers(0, 12, (n, 2)).astype(float) / 2
    hi = lo + rng.integers(0, 6, (n, 2)) / 2 + rng.choice([0.0, 1e-12], (n, 2))
    tol = float(rng.choice([0.0, 1e-9, 0.25]))
    got = _box_pairs(lo[:, 0], hi[:, 0], lo[:, 1], hi[:, 1], tol)
    want = all_pairs(lo[:, 0], hi[:, 0], lo[:, 1], hi[:, 1], tol)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


@pytest.mark.parametrize("seed", range(8))
def test_visible_faces_equal_face_by_face_culling_and_depth(seed):
    rng = random.Random(seed)
    for _ in range(5):
        camera = random_camera(rng)
        solids = random_scene(rng)
        got = _visible_faces(solids, camera)
        for solid, faces in zip(solids, got):
            shown = [(i, f) for i, f in enumerate(solid.faces) if camera.faces_camera(f)]
            want = [f for _, f in sorted(shown, key=lambda t: (-round(camera.depth(t[1].centroid), DEPTH_DECIMALS),
                                                                t[0]))]
            assert faces == want


@pytest.mark.parametrize("seed", range(6))
def test_project_px_gives_project_face_bit_for_bit(seed):
    rng = random.Random(seed)
    for _ in range(5):
        camera = random_camera(rng)
        try:
            order = paint_order(random_scene(rng), camera)
        except ValueError:
            continue
        fit_ = scene_fit(camera)
        pts, counts = face_points(order)
        assert counts.tolist() == [len(pf.face.points) for pf in order]
        px = project_px(pts, camera, fit_).tolist()
        want = [list(q) for pf in order for q in project_face(pf.face, camera, fit_)]
        assert px == want  # exact float equality, not approx
        assert project_faces(order, camera, fit_) == [(pf.id, project_face(pf.face, camera, fit_)) for pf in order]


# -- the whole order, against rays -------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_paint_order_of_random_boxes_matches_the_ray_caster(seed):
    """Disjoint boxes of random sizes (each in its own cell of a 4 × 4 × 2 grid of 1.5-unit cells, touching where
    a size reaches the cell wall): the painted id buffer is the nearest box along every ray not on an edge."""
    rng = random.Random(100 + seed)
    boxes = []
    for cx in range(4):
        for cy in range(4):
            for cz in range(2):
                if rng.random() < 0.55:
                    lo = (cx * 1.5 + rng.choice([0.0, 0.25]), cy * 1.5 + rng.choice([0.0, 0.25]),
                          cz * 1.5 + rng.choice([0.0, 0.25]))
                    boxes.append((lo, tuple(a + rng.choice([1.0, 1.25]) for a in lo)))
    solids = [Solid(k, box_faces(*lo, *(h - l for h, l in zip(hi, lo)))) for k, (lo, hi) in enumerate(boxes)]
    for camera in (Camera(), Camera("isometric", azimuth=225), Camera("orthographic", azimuth=20, elevation=35),
                   Camera("perspective", azimuth=rng.uniform(0, 360), elevation=30, distance=14.0,
                          target=(3, 3, 1.5))):
        size = (150, 150)
        fit_ = fit([camera.project(*c) for c in box_corners((0, 0, 0), (6, 6, 3))], (0, 0, 150, 150), 4.0)
        order = paint_order(solids, camera)
        nearest, _ = robust_nearest([box_planes(lo, hi) for lo, hi in boxes], camera, fit_, size)
        buf, index = id_buffer(project_faces(order, camera, fit_), (0, 0, 150, 150))
        inverse = {v: k for k, v in index.items()}
        painted = np.vectorize(lambda k: inverse.get(k, -1))(buf)
        # Where a box is on top by the rays and by the painter (a silhouette edge level with a pixel centre is not
        # caught by robust_nearest's sideways jitter: which side of it the pixel lies is rasterisation, not order).
        check = (nearest >= 0) & (painted >= 0)
        assert check.mean() > 0.15
        assert (painted[check] == nearest[check]).all()


def reference_paint_order(items, camera):
    """paint_order assembled the plain way, from the same rules (_axis_votes, _plane_vote, _silhouettes_overlap):
    faces culled and sorted one by one, every pair of screen boxes tested, every silhouette built, every overlapping
    pair voted on, then the same topological sort (farthest ready solid first, ties by id, cycles released)."""
    n = len(items)
    counts = [len(s._verts) for s in items]
    uvd = camera.project_many(np.concatenate([s._verts for s in items]))
    starts = np.cumsum([0] + counts[:-1])
    prep = []
    for s, a, c in zip(items, starts, counts):
        shown = [(i, f) for i, f in enumerate(s.faces) if camera.faces_camera(f)]
        faces = [f for _, f in sorted(shown, key=lambda t: (-round(camera.depth(t[1].centroid), DEPTH_DECIMALS),
                                                             t[0]))]
        prep.append(_Prepared(s, camera, uvd[a:a + c, :2], faces))
    after, blockers = [[] for _ in range(n)], [0] * n
    if n > 1:
        umin = np.array([uvd[a:a + c, 0].min() for a, c in zip(starts, counts)])
        umax = np.array([uvd[a:a + c, 0].max() for a, c in zip(starts, counts)])
        vmin = np.array([uvd[a:a + c, 1].min() for a, c in zip(starts, counts)])
        vmax = np.array([uvd[a:a + c, 1].max() for a, c in zip(starts, counts)])
        tol = 1e-9 * max(1.0, float(np.abs(uvd[:, :2]).max()))
        I, J = all_pairs(umin, umax, vmin, vmax, tol)
        if len(I):
            keep = _silhouettes_overlap([_hull2(p.uv) for p in prep], I, J, tol)
            I, J = I[keep], J[keep]
        lo = np.array([s._verts.min(axis=0) for s in items])
        hi = np.array([s._verts.max(axis=0) for s in items])
        verdict, separated = _axis_votes(lo, hi, I, J, camera)
        for i, j, o, sep in zip(I.tolist(), J.tolist(), verdict.tolist(), separated.tolist()):
            o = o if sep else _plane_vote(prep[i], prep[j], camera)
            if o > 0:
                after[j].append(i)
                blockers[i] += 1
            elif o < 0:
                after[i].append(j)
                blockers[j] += 1
    keys = [(-p.depth, _id_key(p.solid.id), k) for k, p in enumerate(prep)]
    ready = [keys[k] for k in range(n) if blockers[k] == 0]
    heapq.heapify(ready)
    done, out = [False] * n, []
    for _ in range(n):
        if not ready:
            k = min(keys[k] for k in range(n) if not done[k])[2]
            blockers[k] = 0
            heapq.heappush(ready, keys[k])
        k = heapq.heappop(ready)[2]
        done[k] = True
        out.extend((prep[k].solid.id, f) for f in prep[k].faces)
        for m in after[k]:
            if not done[m]:
                blockers[m] -= 1
                if blockers[m] == 0:
                    heapq.heappush(ready, keys[m])
    return out


@pytest.mark.parametrize("seed", range(10))
def test_paint_order_equals_the_plain_assembly(seed):
    rng = random.Random(1000 + seed)
    for _ in range(6):
        camera = random_camera(rng)
        solids = random_scene(rng)
        try:
            want = reference_paint_order(solids, camera)
        except ValueError:
            with pytest.raises(ValueError):
                paint_order(solids, camera)
            continue
        assert [(pf.id, pf.face) for pf in paint_order(solids, camera)] == want
