"""Placement operators (compiler/expr/lib_place.py): the rule each result keeps, recomputed here independently of
the implementation; exact coordinates where they are determined; errors with their messages; bounded work."""
from __future__ import annotations

import math
import time

import pytest

from tessera.errors import Diagnostics, EvalError
from tessera.expr.compile import Budget, Scope, Site, compile_expr, new_env, run
from tessera.expr.lib_place import (PlacementFailed, choose_label_spots, embed_graph, fit_to_box, layer_forest,
                                     maze_open_pairs, nice_axis, wall_runs)
from tessera.expr.types import FLOAT, INT, ListT, record
from tessera.render import frames
from tessera.sample.rng import Rng

SCOPE = Scope({"edges": ListT(record(a=INT, b=INT)), "ids": ListT(INT), "parents": ListT(INT), "n": INT,
               "pts": ListT(record(x=FLOAT, y=FLOAT)), "segs": ListT(record(x=FLOAT, y=FLOAT, x2=FLOAT, y2=FLOAT))},
              allow_random=True)


def ev(src: str, values: dict | None = None, seed: int = 1, budget: Budget | None = None):
    d = Diagnostics()
    c = compile_expr(src, SCOPE, Site(None, (), "e.yaml"), d)
    assert c is not None, [str(x) for x in d.items]
    return str(c.type), run(c, new_env(values or {}, Rng(seed), budget))


def value(src: str, values: dict | None = None, seed: int = 1, budget: Budget | None = None):
    return ev(src, values, seed, budget)[1]


def errors(src: str, scope: Scope = SCOPE) -> list[str]:
    d = Diagnostics()
    assert compile_expr(src, scope, Site(None, (), "e.yaml"), d) is None
    return [str(x) for x in d.sorted()]


# -- independent geometry for the checks ------------------------------------------------------------------------
def point_segment(px, py, ax, ay, bx, by) -> float:
    """Distance from a point to a segment, by projecting onto the segment's line and clamping."""
    vx, vy = bx - ax, by - ay
    if vx == vy == 0:
        return math.hypot(px - ax, py - ay)
    t = min(1.0, max(0.0, ((px - ax) * vx + (py - ay) * vy) / (vx * vx + vy * vy)))
    return math.hypot(px - (ax + t * vx), py - (ay + t * vy))


def properly_cross(p, q, r, s) -> bool:
    def side(a, b, c):
        v = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
        return 0 if abs(v) < 1e-12 else (1 if v > 0 else -1)

    return side(p, q, r) * side(p, q, s) < 0 and side(r, s, p) * side(r, s, q) < 0


def boxes_overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def segment_meets_box(seg, box, samples: int = 400) -> bool:
    """Dense sampling along the segment: crude, but independent of the clipping code under test."""
    x0, y0, x1, y1 = seg
    return any(box[0] < x0 + (x1 - x0) * k / samples < box[2] and box[1] < y0 + (y1 - y0) * k / samples < box[3]
               for k in range(samples + 1))


def random_graph(rng: Rng, n: int, m: int) -> list[dict]:
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    return [{"a": a, "b": b} for a, b in rng.sample(pairs, min(m, len(pairs)))]


# -- spring_layout ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(8))
def test_spring_layout_keeps_the_gap_and_the_edge_clearance(seed):
    meta = Rng(1000 + seed)
    n = meta.randint(2, 10)
    edges = random_graph(meta, n, meta.randint(0, 2 * n))
    gap = 0.18
    typ, pts = ev("spring_layout(n, edges, 0.18)", {"n": n, "edges": edges}, seed)
    assert typ == "list[{x: number, y: number}]" and len(pts) == n
    assert all(0 <= p["x"] <= 1 and 0 <= p["y"] <= 1 for p in pts)
    for i in range(n):
        for j in range(i + 1, n):
            assert math.hypot(pts[i]["x"] - pts[j]["x"], pts[i]["y"] - pts[j]["y"]) >= gap
    for e in edges:
        a, b = pts[e["a"]], pts[e["b"]]
        for v in range(n):
            if v not in (e["a"], e["b"]):
                assert point_segment(pts[v]["x"], pts[v]["y"], a["x"], a["y"], b["x"], b["y"]) >= gap / 2


def test_spring_layout_is_deterministic_for_a_seed_and_varies_with_it():
    edges = [{"a": i, "b": (i + 1) % 6} for i in range(6)] + [{"a": 0, "b": 3}]
    src = "spring_layout(6, edges, 0.15)"
    first = value(src, {"edges": edges}, seed=7)
    assert value(src, {"edges": edges}, seed=7) == first
    assert value(src, {"edges": edges}, seed=8) != first


def test_spring_layout_small_cases():
    assert value("spring_layout(0, [], 0.1)") == []
    assert value("spring_layout(1, [], 0.1)") == [{"x": 0.5, "y": 0.5}]  # a flat axis is centred


def test_spring_layout_is_the_node_link_algorithm_in_the_unit_frame():
    # The builtin and the pixel layout run one embedding: the same stream, fitted to [0, 1]², gives these points.
    edges = [{"a": 0, "b": 1}, {"a": 1, "b": 2}, {"a": 2, "b": 3}]
    pts, how = embed_graph(4, [(0, 1), (1, 2), (2, 3)], Rng(3), lambda u: fit_to_box(u, (0, 0, 1, 1), 6), 0.2, 0.1)
    assert how in ("spring", "ring")
    assert value("spring_layout(4, edges, 0.2)", {"edges": edges}, seed=3) == [{"x": x, "y": y} for x, y in pts]


def test_spring_layout_fails_with_placement_failed():
    with pytest.raises(PlacementFailed, match=r"spring_layout\(\): the unit frame cannot hold 200 nodes 0.5 apart"):
        value("spring_layout(200, [], 0.5)")
    # Possible by area, but neither the springs nor a ring (chords of 0.105) keep 30 nodes 0.2 apart.
    with pytest.raises(PlacementFailed) as exc:
        value("spring_layout(30, [], 0.2)")
    assert str(exc.value).startswith("e.yaml:1:1: spring_layout(): no placement of 30 nodes and 0 edges keeps every "
                                     "two nodes 0.2 apart and every edge 0.1 clear of the nodes it does not join (last "
                                     "try: nodes ")
    assert isinstance(exc.value, EvalError)  # the renderer redraws; anything else treating EvalError still works


def test_spring_layout_work_is_bounded_by_the_budget():
    ring = [{"a": i, "b": (i + 1) % 200} for i in range(200)]
    t0 = time.process_time()
    with pytest.raises(EvalError, match="exceeded"):  # a small budget: refused before the first embedding runs
        value("spring_layout(200, edges, 0.07)", {"edges": ring}, budget=Budget(500_000))
    assert time.process_time() - t0 < 1.0
    with pytest.raises(EvalError, match="exceeded") as exc:  # the full budget pays for one 200-node try, not ten
        value("spring_layout(200, edges, 0.07)", {"edges": ring})
    assert not isinstance(exc.value, PlacementFailed)


@pytest.mark.parametrize("src,values,message", [
    ("spring_layout(201, [], 0.1)", {}, "spring_layout(): 201 nodes (allowed 0..200)"),
    ("spring_layout(3, edges, 0.1)", {"edges": [{"a": 0, "b": 3}]},
     "spring_layout(): edge 0–3 names node 3, but the nodes are 0..2"),
    ("spring_layout(3, edges, 0.1)", {"edges": [{"a": 1, "b": 1}]},
     "spring_layout(): edge 1–1 is a loop; edges join two different nodes"),
    ("spring_layout(3, [], -0.1)", {}, "spring_layout(): the gap must be a finite number ≥ 0.0, got -0.1"),
])
def test_spring_layout_run_time_errors(src, values, message):
    with pytest.raises(EvalError) as exc:
        value(src, values)
    assert str(exc.value) == f"e.yaml:1:1: {message} (in `{src}`)"  # the expression's position


# -- tree_layout ------------------------------------------------------------------------------------------------
def random_tree(rng: Rng, n: int) -> tuple[list[int], list[int]]:
    """Ids shuffled from 10..10+n-1; node k's parent is one of the nodes before it, so it is a tree."""
    ids = rng.shuffle(list(range(10, 10 + n)))
    parents = [-1] + [ids[rng.below(k)] for k in range(1, n)]
    order = rng.shuffle(list(range(n)))  # list order need not be parents first
    return [ids[k] for k in order], [parents[k] for k in order]


@pytest.mark.parametrize("seed", range(10))
def test_tree_layout_layers_without_overlap_or_crossing(seed):
    rng = Rng(seed)
    ids, parents = random_tree(rng, rng.randint(1, 40))
    typ, pts = ev("tree_layout(ids, parents)", {"ids": ids, "parents": parents})
    assert typ == "list[{x: number, y: number, depth: integer}]" and len(pts) == len(ids)
    at = dict(zip(ids, pts))
    up = dict(zip(ids, parents))

    def depth(v):
        d = 0
        while up[v] >= 0:
            v, d = up[v], d + 1
        return d

    leaves = sum(1 for v in ids if v not in parents)
    for v in ids:
        p = at[v]
        assert p["depth"] == depth(v)
        assert 0 < p["x"] < 1 and 0 < p["y"] < 1
        if up[v] >= 0:
            assert at[up[v]]["y"] < p["y"]  # the parent is above
    for a in ids:
        for b in ids:
            if a < b and at[a]["depth"] == at[b]["depth"]:
                assert at[a]["y"] == at[b]["y"]  # one layer, one height
                assert abs(at[a]["x"] - at[b]["x"]) >= 1 / leaves - 1e-6  # a leaf slot apart at least
            elif a < b:
                assert at[a]["y"] != at[b]["y"]
    links = [((at[up[v]]["x"], at[up[v]]["y"]), (at[v]["x"], at[v]["y"])) for v in ids if up[v] >= 0]
    for i, (p, q) in enumerate(links):
        for r, s in links[i + 1:]:
            assert not properly_cross(p, q, r, s)


def test_tree_layout_exact_small_tree():
    #      0
    #    /   \
    #   1     2
    #   |
    #   3
    assert value("tree_layout([0, 1, 2, 3], [-1, 0, 0, 1])") == [
        {"x": 0.5, "y": 0.166667, "depth": 0}, {"x": 0.25, "y": 0.5, "depth": 1},
        {"x": 0.75, "y": 0.5, "depth": 1}, {"x": 0.25, "y": 0.833333, "depth": 2}]
    assert value("tree_layout([7], [-1])") == [{"x": 0.5, "y": 0.5, "depth": 0}]
    assert value("tree_layout([], [])") == []


def test_layer_forest_directly():
    depth, slot, leaves = layer_forest({0: [1, 2], 1: [], 2: [3, 4], 3: [], 4: []}, [0], 5, "t")
    assert depth == {0: 0, 1: 1, 2: 1, 3: 2, 4: 2} and leaves == 3
    assert slot == {1: 0.0, 3: 1.0, 4: 2.0, 2: 1.5, 0: 0.75}


@pytest.mark.parametrize("ids,parents,message", [
    ([0, 1], [-1], "tree_layout(): 2 node ids but 1 parents; the lists are parallel"),
    ([0, 0], [-1, 0], "tree_layout(): node id 0 appears twice"),
    ([0, 1], [-1, 5], "tree_layout(): node 1 names parent 5, which is not among the ids"),
    ([0, 1, 2], [-1, 2, 1], "tree_layout(): some nodes are not below any root (the parent links form a cycle)"),
])
def test_tree_layout_run_time_errors(ids, parents, message):
    with pytest.raises(EvalError) as exc:
        value("tree_layout(ids, parents)", {"ids": ids, "parents": parents})
    assert str(exc.value) == f"e.yaml:1:1: {message} (in `tree_layout(ids, parents)`)"


# -- scatter_layout ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(5))
def test_scatter_layout_keeps_gap_and_margin(seed):
    typ, pts = ev("scatter_layout(25, 0.12, 0.1)", seed=seed)
    assert typ == "list[{x: number, y: number}]" and len(pts) == 25
    assert all(0.1 <= p["x"] <= 0.9 and 0.1 <= p["y"] <= 0.9 for p in pts)
    for i, p in enumerate(pts):
        for q in pts[i + 1:]:
            assert math.hypot(p["x"] - q["x"], p["y"] - q["y"]) >= 0.12
    assert value("scatter_layout(25, 0.12, 0.1)", seed=seed) == pts


def test_scatter_layout_refuses_what_cannot_fit():
    with pytest.raises(PlacementFailed) as exc:  # static: 100 · 0.2² · 0.6 = 2.4 > 0.8² = 0.64
        value("scatter_layout(100, 0.2, 0.1)")
    assert str(exc.value) == ("e.yaml:1:1: scatter_layout(): the area inside the margin (0.8 × 0.8) cannot hold 100 "
                              "points 0.2 apart (in `scatter_layout(100, 0.2, 0.1)`)")
    with pytest.raises(PlacementFailed, match=r"scatter_layout\(\): placed \d+ of 100 points 0.1 apart in 10100 "
                                              r"tries"):
        value("scatter_layout(100, 0.1, 0.0)")  # passes the area check, but random filling jams before 100
    with pytest.raises(PlacementFailed, match="a margin of 0.6 leaves no room"):
        value("scatter_layout(1, 0.1, 0.6)")
    assert value("scatter_layout(1, 0.5, 0.5)") == [{"x": 0.5, "y": 0.5}]
    with pytest.raises(EvalError, match=r"scatter_layout\(\): 2001 points \(allowed 0..2000\)"):
        value("scatter_layout(2001, 0.0, 0.0)")


# -- grid_layout, ring_layout -----------------------------------------------------------------------------------
def test_grid_layout_exact_centres_with_the_last_row_centred():
    typ, cells = ev("grid_layout(5, 3)")
    assert typ == "list[{x: number, y: number, row: integer, col: integer}]"
    assert cells == [
        {"x": 0.166667, "y": 0.25, "row": 0, "col": 0}, {"x": 0.5, "y": 0.25, "row": 0, "col": 1},
        {"x": 0.833333, "y": 0.25, "row": 0, "col": 2},
        {"x": 0.333333, "y": 0.75, "row": 1, "col": 0}, {"x": 0.666667, "y": 0.75, "row": 1, "col": 1}]
    assert value("grid_layout(4, 4)") == [{"x": x, "y": 0.5, "row": 0, "col": c}
                                          for c, x in enumerate((0.125, 0.375, 0.625, 0.875))]
    assert value("grid_layout(1, 3)") == [{"x": 0.5, "y": 0.5, "row": 0, "col": 0}]
    assert value("grid_layout(0, 3)") == []
    with pytest.raises(EvalError, match=r"grid_layout\(\): 0 columns \(allowed 1..2000\)"):
        value("grid_layout(3, 0)")


def test_ring_layout_exact_points_clockwise_from_start():
    typ, pts = ev("ring_layout(4, 90)")
    assert typ == "list[{x: number, y: number, angle: number}]"
    # y points down: 90° is straight below the centre, then round clockwise on the image (left, top, right).
    assert pts == [{"x": 0.5, "y": 1.0, "angle": 90.0}, {"x": 0.0, "y": 0.5, "angle": 180.0},
                   {"x": 0.5, "y": 0.0, "angle": 270.0}, {"x": 1.0, "y": 0.5, "angle": 0.0}]
    six = value("ring_layout(6, -30)")
    assert [p["angle"] for p in six] == [330.0, 30.0, 90.0, 150.0, 210.0, 270.0]
    assert six[0] == {"x": round(0.5 + 0.5 * math.cos(math.radians(30)), 6), "y": 0.25, "angle": 330.0}
    assert value("ring_layout(0, 0)") == []


# -- maze_walls -------------------------------------------------------------------------------------------------
def test_maze_walls_of_a_two_by_two_maze():
    # Cells 0 1 / 2 3 with passages 0–1, 1–3, 2–3: one wall inside, between 0 and 2 (y = 1, x from 0 to 1).
    typ, walls = ev("maze_walls(2, 2, [{a: 0, b: 1}, {a: 1, b: 3}, {a: 2, b: 3}])")
    assert typ == "list[{x: number, y: number, x2: number, y2: number}]"
    assert walls == [{"x": 0.0, "y": 0.0, "x2": 2.0, "y2": 0.0}, {"x": 0.0, "y": 1.0, "x2": 1.0, "y2": 1.0},
                     {"x": 0.0, "y": 2.0, "x2": 2.0, "y2": 2.0},
                     {"x": 0.0, "y": 0.0, "x2": 0.0, "y2": 2.0}, {"x": 2.0, "y": 0.0, "x2": 2.0, "y2": 2.0}]


def test_maze_walls_merge_collinear_pieces():
    # No passages at all: every grid line is one run, border included.
    walls = wall_runs(2, 3, set())
    assert len(walls) == 3 + 4
    assert {"x": 0.0, "y": 1.0, "x2": 3.0, "y2": 1.0} in walls and {"x": 2.0, "y": 0.0, "x2": 2.0, "y2": 2.0} in walls
    # A 1 × 3 corridor opened 0–1 only: the wall between 1 and 2 stays, the top and bottom are single runs.
    assert wall_runs(1, 3, maze_open_pairs(1, 3, [{"a": 1, "b": 0}])) == [
        {"x": 0.0, "y": 0.0, "x2": 3.0, "y2": 0.0}, {"x": 0.0, "y": 1.0, "x2": 3.0, "y2": 1.0},
        {"x": 0.0, "y": 0.0, "x2": 0.0, "y2": 1.0}, {"x": 2.0, "y": 0.0, "x2": 2.0, "y2": 1.0},
        {"x": 3.0, "y": 0.0, "x2": 3.0, "y2": 1.0}]


def test_maze_walls_and_passages_cover_every_grid_edge_once():
    # Walls and passages split the grid's unit edges between them: the border (2 · (4 + 5) pieces) plus every
    # neighbouring pair of cells that has no passage.
    passages = value("maze_passages(4, 5, 0)")
    walls = value("maze_walls(4, 5, maze_passages(4, 5, 0))")
    pieces = sum(abs(w["x2"] - w["x"]) + abs(w["y2"] - w["y"]) for w in walls)
    inner_edges = 4 * 4 + 3 * 5  # neighbouring pairs of the grid
    assert pieces == 2 * (4 + 5) + inner_edges - len(passages)


@pytest.mark.parametrize("src,message", [
    ("maze_walls(2, 2, [{a: 0, b: 3}])", "passage 0–3 does not join two neighbouring cells of the 2 × 2 maze"),
    ("maze_walls(2, 2, [{a: 1, b: 2}])", "passage 1–2 does not join two neighbouring cells of the 2 × 2 maze"),
    ("maze_walls(41, 2, [])", "maze of 41 × 2 cells (allowed 1..40 each)"),
])
def test_maze_walls_run_time_errors(src, message):
    with pytest.raises(EvalError) as exc:
        value(src)
    assert str(exc.value) == f"e.yaml:1:1: {message} (in `{src}`)"  # the expression's position


# -- label_spots ------------------------------------------------------------------------------------------------
def label_boxes(spots, hw, hh, tol: float = 1e-6):
    """Label boxes around the returned centres, shrunk by the rounding of those centres (6 decimals): a label is
    allowed to touch its own dot."""
    hw, hh = hw - tol, hh - tol
    return [(s["x"] - hw, s["y"] - hh, s["x"] + hw, s["y"] + hh) for s in spots]


@pytest.mark.parametrize("seed", range(4))
def test_label_spots_avoid_dots_labels_and_segments(seed):
    rng = Rng(seed)
    # Anchors on a jittered grid, with the polygon through them as segments to avoid.
    pts = [{"x": 0.2 + 0.3 * (k % 3) + rng.uniform(-0.03, 0.03), "y": 0.2 + 0.3 * (k // 3) + rng.uniform(-0.03, 0.03)}
           for k in range(9)]
    segs = [{"x": a["x"], "y": a["y"], "x2": b["x"], "y2": b["y"]} for a, b in zip(pts, pts[1:])]
    r, hw, hh = 0.015, 0.05, 0.025
    typ, spots = ev("label_spots(pts, 0.015, 0.05, 0.025, segs)", {"pts": pts, "segs": segs})
    assert typ == "list[{x: number, y: number}]" and len(spots) == len(pts)
    boxes = label_boxes(spots, hw, hh)
    dots = [(p["x"] - r, p["y"] - r, p["x"] + r, p["y"] + r) for p in pts]
    for i, b in enumerate(boxes):
        assert 0 <= b[0] and b[2] <= 1 and 0 <= b[1] and b[3] <= 1
        assert not any(boxes_overlap(b, d) for d in dots)  # its own dot included
        assert not any(boxes_overlap(b, o) for j, o in enumerate(boxes) if j != i)
        assert not any(segment_meets_box((s["x"], s["y"], s["x2"], s["y2"]), b) for s in segs)
        centre = pts[i]
        assert math.hypot(spots[i]["x"] - centre["x"], spots[i]["y"] - centre["y"]) < r + 3 * (hw + hh)  # beside it


def test_label_spots_prefers_the_first_diagonal_and_moves_off_a_segment():
    assert value("label_spots([{x: 0.5, y: 0.5}], 0.02, 0.05, 0.03)") == [{"x": 0.57, "y": 0.45}]  # up and right
    # A segment running up-right from the point blocks that spot: the next direction (up and left) is free.
    assert value("label_spots([{x: 0.5, y: 0.5}], 0.02, 0.05, 0.03, [{x: 0.5, y: 0.5, x2: 0.8, y2: 0.2}])") == [
        {"x": 0.43, "y": 0.45}]
    # Against the frame's right edge, a label goes left.
    assert value("label_spots([{x: 0.97, y: 0.5}], 0.02, 0.05, 0.03)") == [{"x": 0.9, "y": 0.45}]
    assert choose_label_spots([], 0.1, 0.1, 0.1, []) == []


# -- nice_ticks -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("src,expected", [
    ("nice_ticks(0, 37)", {"lo": 0.0, "hi": 40.0, "step": 10.0, "ticks": [0.0, 10.0, 20.0, 30.0, 40.0]}),
    ("nice_ticks(0, 100)", {"lo": 0.0, "hi": 100.0, "step": 20.0, "ticks": [0.0, 20.0, 40.0, 60.0, 80.0, 100.0]}),
    ("nice_ticks(-3, 12.5)", {"lo": -5.0, "hi": 15.0, "step": 5.0, "ticks": [-5.0, 0.0, 5.0, 10.0, 15.0]}),
    ("nice_ticks(0.1, 0.73, 5)", {"lo": 0.0, "hi": 0.8, "step": 0.2, "ticks": [0.0, 0.2, 0.4, 0.6, 0.8]}),
    ("nice_ticks(0, 0.3, 3)", {"lo": 0.0, "hi": 0.3, "step": 0.1, "ticks": [0.0, 0.1, 0.2, 0.3]}),
    ("nice_ticks(0, 9, 4)", {"lo": 0.0, "hi": 10.0, "step": 2.5, "ticks": [0.0, 2.5, 5.0, 7.5, 10.0]}),
    ("nice_ticks(5, 5)", {"lo": 5.0, "hi": 6.0, "step": 0.2, "ticks": [5.0, 5.2, 5.4, 5.6, 5.8, 6.0]}),
])
def test_nice_ticks_on_known_ranges(src, expected):
    typ, got = ev(src)
    assert typ == "{lo: number, hi: number, step: number, ticks: list[number]}"
    assert got == expected


def test_nice_ticks_and_the_chart_axes_share_one_rule():
    assert frames.nice_ticks(0, 37) == nice_axis(0, 37)  # scales in frames read the same rule
    assert nice_axis(0, 37) == (0, 40, 10)
    with pytest.raises(EvalError, match=r"nice_ticks\(\): 0 ticks \(allowed 1..2000\)"):
        value("nice_ticks(0, 1, 0)")


# -- compile-time errors ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("src,message", [
    ("spring_layout('x', edges, 0.1)", "e.yaml:1:15: error: the node count of spring_layout() must be integer, got string  [type-mismatch]"),
    ("spring_layout(3, [1, 2], 0.1)", "e.yaml:1:18: error: spring_layout() needs a list of edge records "
                                      "{a: integer, b: integer}, got list[integer]  [type-mismatch]"),
    ("spring_layout(3, edges, 'x')", "e.yaml:1:25: error: the gap of spring_layout() must be number, got string  [type-mismatch]"),
    ("tree_layout(ids, 3)", "e.yaml:1:18: error: the parents of tree_layout() must be list[integer], got integer  [type-mismatch]"),
    ("tree_layout(['a'], parents)", "e.yaml:1:13: error: the node ids of tree_layout() must be list[integer], "
                                    "got list[string]  [type-mismatch]"),
    ("scatter_layout(3.5, 0.1, 0.1)", "e.yaml:1:16: error: the point count of scatter_layout() must be integer, "
                                      "got number  [type-mismatch]"),
    ("grid_layout(4, 'x')", "e.yaml:1:16: error: the columns of grid_layout() must be integer, got string  [type-mismatch]"),
    ("ring_layout(4, [0])", "e.yaml:1:16: error: the start angle of ring_layout() must be number, got list[integer]  [type-mismatch]"),
    ("maze_walls(2, 2, ids)", "e.yaml:1:18: error: maze_walls() needs a list of edge records {a: integer, b: integer}, "
                              "got list[integer]  [type-mismatch]"),
    ("label_spots(ids, 0.1, 0.1, 0.1)", "e.yaml:1:13: error: the points of label_spots() must be records with "
                                        "numeric x and y fields, got integer  [type-mismatch]"),
    ("label_spots([{x: 0, y: 0}], 0.1, 0.1, 0.1, [{x: 0, y: 0}])",
     "e.yaml:1:44: error: the segments of label_spots() must be records with numeric x, y, x2, y2 fields, "
     "got {x: integer, y: integer}  [type-mismatch]"),
    ("label_spots([{x: 0, y: 0}], 'r', 0.1, 0.1)", "e.yaml:1:29: error: the radius of label_spots() must be number, "
                                                   "got string  [type-mismatch]"),
    ("nice_ticks(0, 'x')", "e.yaml:1:15: error: the high end of nice_ticks() must be number, got string  [type-mismatch]"),
    ("nice_ticks(0)", "e.yaml:1:1: error: nice_ticks() takes 2 to 3 arguments (nice_ticks(lo, hi[, max_ticks])), "
                      "got 1  [arg-count]"),
])
def test_typer_errors_name_the_position(src, message):
    assert errors(src) == [message]


def test_random_placement_needs_a_random_scope():
    plain = Scope({"n": INT})
    assert errors("spring_layout(n, [], 0.1)", plain) == [
        "e.yaml:1:1: error: random function 'spring_layout' is not allowed in expression  [not-allowed]"]
    assert errors("scatter_layout(n, 0.1, 0.1)", plain) == [
        "e.yaml:1:1: error: random function 'scatter_layout' is not allowed in expression  [not-allowed]"]
    d = Diagnostics()  # the structural ones are not random
    assert compile_expr("tree_layout([0], [-1])", plain, Site(None, (), "e.yaml"), d) is not None
