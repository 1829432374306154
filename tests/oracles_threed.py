"""Oracles for the 3-D scene tasks (independent Python over the recorded state)."""
from __future__ import annotations

import math
from collections import Counter

from tests.oracles import step


def _heights(state):
    return {(c["x"], c["y"]): c["h"] for c in state["columns"]}


def _cube_total(tr):
    return sum(c["h"] for c in tr["state"]["columns"])


def _cube_visible(tr):
    """March from the centre of each face a cube could show (top, x−, y−) towards the isometric viewer, along
    (−1, −1, +1), in small steps; a face is seen when no step lands inside a cube of the height map."""
    h = _heights(tr["state"])

    def solid(x, y, z):
        import math

        return z >= 0 and h.get((math.floor(x), math.floor(y)), 0) > z

    def seen(px, py, pz):
        t = 0.01
        while t < 40:
            if solid(px - t, py - t, pz + t):
                return False
            t += 0.05
        return True

    count = 0
    for (x, y), height in h.items():
        for z in range(height):
            faces = [(x + 0.5, y + 0.5, z + 1.0), (x, y + 0.5, z + 0.5), (x + 0.5, y, z + 0.5)]
            count += any(seen(*f) for f in faces)
    return count


def _bar_tallest_fruit(tr):
    bars = tr["state"]["bars"]
    top = max(b["value"] for b in bars)
    (best,) = [b for b in bars if b["value"] == top]
    return best["fruit"]


def _bar_value(tr):
    bar = step(tr, "bar")
    (match,) = [b for b in tr["state"]["bars"] if b["fruit"] == bar["fruit"] and b["year"] == bar["year"]]
    return match["value"]


# -- object scenes: positions from world coordinates and the camera's azimuth ------------------------------------
def _view(tr, o):
    """(left-to-right, away-from-camera) of a floor point: the camera's right (cos a, −sin a) and its horizontal
    viewing direction (sin a, cos a), azimuth a clockwise from +y."""
    a = math.radians(tr["state"]["azimuth"])
    return o["x"] * math.cos(a) - o["y"] * math.sin(a), o["x"] * math.sin(a) + o["y"] * math.cos(a)


def _obj_count_kind(tr):
    t, by = step(tr, "target"), tr["query"]["by"]
    return sum(o[by] == t[by] for o in tr["state"]["objects"])


def _obj_nearest(tr):
    objs = tr["state"]["objects"]
    key = (lambda o: _view(tr, o)[1]) if tr["query"]["extreme"] == "nearest to" else (lambda o: -_view(tr, o)[1])
    return min(objs, key=key)["color"] + " " + min(objs, key=key)["shape"]


def _obj_left_right(tr):
    a, b = step(tr, "a"), step(tr, "b")
    left = a if _view(tr, a)[0] < _view(tr, b)[0] else b
    right = b if left is a else a
    win = left if tr["query"]["side"] == "left" else right
    return f"{win['color']} {win['shape']}"


def _obj_tallest(tr):
    shape = step(tr, "shape")
    pool = [o for o in tr["state"]["objects"] if shape == "any" or o["shape"] == shape]
    best = (max if tr["query"]["extreme"] == "tallest" else min)(pool, key=lambda o: o["h"])
    return f"{best['color']} {best['shape']}"


def _obj_left_to_right(tr):
    shape = step(tr, "shape")
    pool = [o for o in tr["state"]["objects"] if o["shape"] == shape]
    return [o["color"] for o in sorted(pool, key=lambda o: _view(tr, o)[0])]


def _obj_count_behind(tr):
    ref = step(tr, "ref")
    d0 = _view(tr, ref)[1]
    farther = tr["query"]["relation"] == "farther from"
    return sum((_view(tr, o)[1] > d0) if farther else (_view(tr, o)[1] < d0)
               for o in tr["state"]["objects"] if o is not ref and o != ref)


# -- streets: buildings left to right along x --------------------------------------------------------------------
def _st_most(tr):
    bs = tr["state"]["buildings"]
    pick = max if tr["query"]["extreme"] == "most" else min
    return pick(bs, key=lambda b: b["storeys"])["color"]


def _st_storeys_of(tr):
    color = step(tr, "target")["color"]
    (b,) = [b for b in tr["state"]["buildings"] if b["color"] == color]
    return b["storeys"]


def _st_total(tr):
    return sum(b["storeys"] for b in tr["state"]["buildings"])


def _st_count_taller(tr):
    ref = step(tr, "ref")
    more = tr["query"]["relation"] == "more"
    return sum((b["storeys"] > ref["storeys"]) if more else (b["storeys"] < ref["storeys"])
               for b in tr["state"]["buildings"])


def _st_neighbour(tr):
    # Seen from across the road (|azimuth| < 90), the picture's left is the street's low x.
    ref, k = step(tr, "ref"), step(tr, "steps")
    assert abs(tr["state"]["azimuth"]) < 90
    row = sorted(tr["state"]["buildings"], key=lambda b: b["x"])
    i = [b["color"] for b in row].index(ref["color"])
    return row[i - k if tr["query"]["side"] == "left" else i + k]["color"]


# -- shelves: shelf 1 at the bottom ------------------------------------------------------------------------------
def _sh_from_bottom(tr, k):
    return k if tr["query"]["end"] == "bottom" else tr["state"]["shelves"] + 1 - k


def _sh_count_on(tr):
    # shelves k .. k + span - 1 counted from the asked end; the span is 1 below level 5, 2 from it
    k, span = step(tr, "k"), 1 + tr["level"] // 5
    asked = {_sh_from_bottom(tr, k + j) for j in range(span)}
    return sum(o["shelf"] in asked for o in tr["state"]["objects"])


def _sh_which(tr):
    return _sh_from_bottom(tr, step(tr, "target")["shelf"])


def _sh_fullest(tr):
    st = tr["state"]
    counts = Counter(o["shelf"] for o in st["objects"])
    per = [(counts.get(k, 0), k) for k in range(1, st["shelves"] + 1)]
    return (max if tr["query"]["extreme"] == "most" else min)(per)[1]


def _sh_count_above(tr):
    ref = step(tr, "ref")["shelf"]
    above = tr["query"]["relation"] == "above"
    return sum((o["shelf"] > ref) if above else (o["shelf"] < ref) for o in tr["state"]["objects"])


# -- side views of a cube stack ----------------------------------------------------------------------------------
def _side_view(heights, size, side):
    """Column heights from the viewer's left to right, looking straight at a side from outside: at the x = 0 side
    the viewer faces +x with +y on the left; at the y = 0 side the viewer faces +y with +x on the right. Each
    column is as tall as the tallest stack in its line of sight."""
    if side == "left":
        return [max(heights.get((x, y), 0) for x in range(size)) for y in reversed(range(size))]
    return [max(heights.get((x, y), 0) for y in range(size)) for x in range(size)]


def _cv_fits(tr):
    """The lettered views (A, B, ... in the prompt's order) that show the asked side."""
    st = tr["state"]
    want = _side_view(_heights(st), st["size"], tr["query"]["side"])
    return [i for i, v in enumerate(st["views"]) if v["heights"] == want]


def _cv_match(tr):
    st = tr["state"]
    want = _side_view(_heights(st), st["size"], tr["query"]["side"])
    (hit,) = [v for v in st["views"] if v["heights"] == want]
    return hit["letter"]


def _cube_view_squares(tr):
    st, side = tr["state"], tr["query"]["side"]
    h = _heights(st)
    if side == "top":
        return sum(v > 0 for v in h.values())
    if side == "left":  # lines of sight along +x
        return sum(max(h.get((x, y), 0) for x in range(st["nx"])) for y in range(st["ny"]))
    return sum(max(h.get((x, y), 0) for y in range(st["ny"])) for x in range(st["nx"]))


def _cube_cuboid_fill(tr):
    st = tr["state"]
    h = _heights(st)
    return st["nx"] * st["ny"] * max(h.values()) - sum(h.values())


# -- rooms: the footprint's middle, seen along the camera's axes -------------------------------------------------
def _room_mid(tr, f):
    return _view(tr, {"x": f["x"] + f["w"] / 2, "y": f["y"] + f["d"] / 2})


def _room_against(tr):
    st, wall = tr["state"], tr["query"]["wall"]
    back = 2.4 * st["rows"]
    touching = [f for f in st["furniture"] if (abs(f["y"] + f["d"] - back) < 1e-6 if wall == "back"
                                               else abs(f["x"]) < 1e-6)]
    # and every other piece stands clear of that wall
    assert all(back - f["y"] - f["d"] >= 0.3 if wall == "back" else f["x"] >= 0.5
               for f in st["furniture"] if f not in touching)
    return len(touching)


def _room_nearest(tr):
    fs = tr["state"]["furniture"]
    sign = 1 if tr["query"]["extreme"] == "nearest to" else -1
    return min(fs, key=lambda f: sign * _room_mid(tr, f)[1])["name"]


def _room_count_left(tr):
    ref = step(tr, "ref")
    s0 = _room_mid(tr, ref)[0]
    left = tr["query"]["side"] == "left"
    return sum((_room_mid(tr, f)[0] < s0) if left else (_room_mid(tr, f)[0] > s0)
               for f in tr["state"]["furniture"] if f["name"] != ref["name"])


# -- conveyor: piles along x, the belt running towards the arrow -------------------------------------------------
def _cv_arrives(tr):
    st = tr["state"]
    queue = sorted(st["piles"], key=lambda p: p["x"], reverse=st["towards"] == "right")
    return queue[step(tr, "k") - 1]["color"]


def _cv_between(tr):
    a, b = step(tr, "a"), step(tr, "b")
    lo, hi = sorted((a["x"], b["x"]))
    return sum(p["crates"] for p in tr["state"]["piles"] if lo < p["x"] < hi)


def _cv_total(tr):
    return sum(p["crates"] for p in tr["state"]["piles"])


def _obj_closest_to(tr):
    ref = step(tr, "ref")
    others = [o for o in tr["state"]["objects"] if o["name"] != ref["name"]]
    best = min(others, key=lambda o: math.dist((o["x"], o["y"]), (ref["x"], ref["y"])))
    return best["name"]


def _sh_beside(tr):
    # |azimuth| stays under 30°: the picture's left is the shelf's low slots
    ref, left = step(tr, "ref"), tr["query"]["side"] == "left"
    assert abs(tr["state"]["azimuth"]) < 30
    row = [o for o in tr["state"]["objects"] if o["shelf"] == ref["shelf"]
           and (o["slot"] < ref["slot"] if left else o["slot"] > ref["slot"])]
    return min(row, key=lambda o: abs(o["slot"] - ref["slot"]))["name"]


def _cv_ahead_of(tr):
    st, ref = tr["state"], step(tr, "ref")
    sign = 1 if st["towards"] == "right" else -1
    if tr["query"]["relation"] == "ahead of":  # the nearest pile on the arrow's side
        pool = [p for p in st["piles"] if sign * (p["x"] - ref["x"]) > 0]
    else:
        pool = [p for p in st["piles"] if sign * (p["x"] - ref["x"]) < 0]
    return min(pool, key=lambda p: abs(p["x"] - ref["x"]))["color"]


# -- disc towers: pegs left to right along x, larger discs lower ------------------------------------------------
def _dt_top(tr):
    # |azimuth| stays under 30°: the picture's left is peg 0
    assert abs(tr["state"]["azimuth"]) < 30
    stack = sorted((d for d in tr["state"]["discs"] if d["peg"] == step(tr, "k") - 1), key=lambda d: -d["r"])
    return (stack[-1] if tr["query"]["end"] == "top" else stack[0])["color"]


def _dt_on_peg(tr):
    st, k = tr["state"], step(tr, "k")
    peg = k - 1 if tr["query"]["from"] == "left" else st["pegs"] - k
    return sum(d["peg"] == peg for d in st["discs"])


def _dt_larger(tr):
    ref = step(tr, "ref")
    larger = tr["query"]["relation"] == "larger"
    return sum((d["r"] > ref["r"]) if larger else (d["r"] < ref["r"]) for d in tr["state"]["discs"])


ORACLES = {
    "three_d.bar_chart_3d.tallest_fruit": _bar_tallest_fruit,
    "three_d.bar_chart_3d.bar_value": _bar_value,
    "three_d.cube_stack.total_cubes": _cube_total,
    "three_d.cube_stack.visible_cubes": _cube_visible,
    "three_d.object_scene.count_kind": _obj_count_kind,
    "three_d.object_scene.nearest": _obj_nearest,
    "three_d.object_scene.left_right": _obj_left_right,
    "three_d.object_scene.tallest": _obj_tallest,
    "three_d.object_scene.left_to_right": _obj_left_to_right,
    "three_d.object_scene.count_behind": _obj_count_behind,
    "three_d.street.most_storeys": _st_most,
    "three_d.street.storeys_of": _st_storeys_of,
    "three_d.street.total_storeys": _st_total,
    "three_d.street.count_taller": _st_count_taller,
    "three_d.street.neighbour": _st_neighbour,
    "three_d.shelf.count_on_shelf": _sh_count_on,
    "three_d.shelf.which_shelf": _sh_which,
    "three_d.shelf.fullest_shelf": _sh_fullest,
    "three_d.shelf.count_above": _sh_count_above,
    "three_d.cube_views.match_view": _cv_match,
    "three_d.cube_stack.view_squares": _cube_view_squares,
    "three_d.cube_stack.cuboid_fill": _cube_cuboid_fill,
    "three_d.room.against_wall": _room_against,
    "three_d.room.nearest": _room_nearest,
    "three_d.room.count_left": _room_count_left,
    "three_d.conveyor.arrives": _cv_arrives,
    "three_d.conveyor.count_between": _cv_between,
    "three_d.conveyor.total_crates": _cv_total,
    "three_d.object_scene.closest_to": _obj_closest_to,
    "three_d.shelf.beside": _sh_beside,
    "three_d.conveyor.ahead_of": _cv_ahead_of,
    "three_d.disc_towers.top_disc": _dt_top,
    "three_d.disc_towers.discs_on_peg": _dt_on_peg,
    "three_d.disc_towers.larger_than": _dt_larger,
}


OPTION_FITS = {"three_d.cube_views.match_view": _cv_fits}
