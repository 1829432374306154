"""Graph, tree and maze operators (compiler/expr/lib_graph.py) and the node_link, tree and maze layouts
(compiler/render/layouts_graph.py): typed results, hand-checked values, edge cases, errors and legibility."""
from __future__ import annotations

import math
import textwrap

import pytest

from compiler.codegen.grammar import compile_grammar
from compiler.errors import Diagnostics, EvalError
from compiler.expr.compile import Budget, Scope, Site, compile_expr, new_env, run
from compiler.expr.types import INT, STR, ListT, record
from compiler.load.library import Loaded
from compiler.load.models import GrammarSpec
from compiler.load.validate_model import validate
from compiler.load.yaml_source import parse_yaml
from compiler.render.layouts_graph import (MazeLayout, NodeLink, TreeLayout, draw_maze, draw_node_link, draw_tree,
                                           node_link_problem, place_nodes, segment_point_distance)
from compiler.render.painter import Painter
from compiler.render.scene import RenderRejected
from compiler.render.theme import pick_theme
from compiler.sample.rng import Rng
from compiler.trace.instance import object_paths

EDGE = record(a=INT, b=INT, w=INT)
TREE_NODE = record(id=INT, parent=INT, label=STR)
SCOPE = Scope({"edges": ListT(EDGE), "tree": ListT(TREE_NODE), "words": ListT(record(a=STR, b=STR)),
               "level": INT}, allow_random=True)
# A weighted triangle 0-1-2 (the direct edge 0–2 is dearer than going round by 1), a separate edge 3–4, and node 5
# with no edges. Read as arcs: 0 → 1 → 2 and 0 → 2, 3 → 4; no directed cycle.
EDGES = [{"a": 0, "b": 1, "w": 4}, {"a": 1, "b": 2, "w": 1}, {"a": 0, "b": 2, "w": 7}, {"a": 3, "b": 4, "w": 2}]
#        0
#      / | \
#     1  2  3
#    / \     \
#   4   5     6
#             |
#             7
TREE = [{"id": 0, "parent": -1, "label": "R"}, {"id": 1, "parent": 0, "label": "P"},
        {"id": 2, "parent": 0, "label": "Q"}, {"id": 3, "parent": 0, "label": "S"},
        {"id": 4, "parent": 1, "label": "T"}, {"id": 5, "parent": 1, "label": "U"},
        {"id": 6, "parent": 3, "label": "V"}, {"id": 7, "parent": 6, "label": "W"}]
VALUES = {"edges": EDGES, "tree": TREE, "words": [{"a": "x", "b": "y"}], "level": 0}


def ev(src: str, values: dict | None = None, seed: int = 1, budget: Budget | None = None):
    d = Diagnostics()
    c = compile_expr(src, SCOPE, Site(None, (), "e.yaml"), d)
    assert c is not None, [str(x) for x in d.items]
    return str(c.type), run(c, new_env(values or VALUES, Rng(seed), budget))


def errors(src: str) -> list[str]:
    d = Diagnostics()
    assert compile_expr(src, SCOPE, Site(None, (), "e.yaml"), d) is None
    return [str(x) for x in d.sorted()]


# -- operators: types and values --------------------------------------------------------------------------------
@pytest.mark.parametrize("src,typ,value", [
    ("neighbors(edges, 0)", "list[int]", [1, 2]),
    ("neighbors(edges, 5)", "list[int]", []),
    ("successors(edges, 0)", "list[int]", [1, 2]),
    ("predecessors(edges, 2)", "list[int]", [0, 1]),
    ("degree(edges, 2)", "int", 2),
    ("in_degree(edges, 2)", "int", 2),
    ("out_degree(edges, 2)", "int", 0),
    ("shortest_path_length(edges, 0, 2)", "int", 1),
    ("shortest_path_length(edges, 2, 2)", "int", 0),
    ("shortest_path_length(edges, 0, 3)", "int", -1),
    ("shortest_path(edges, 0, 2)", "list[int]", [0, 2]),
    ("shortest_path(edges, 0, 4)", "list[int]", []),
    ("weighted_path_length(edges, 0, 2)", "int", 5),
    ("weighted_path_length(edges, 0, 5)", "int", -1),
    ("weighted_path(edges, 2, 0)", "list[int]", [2, 1, 0]),
    ("map(path_edges(edges, weighted_path(edges, 0, 2)), e -> e.w)", "list[int]", [4, 1]),
    ("reachable(edges, 2, 0)", "bool", True),
    ("reachable(edges, 0, 4)", "bool", False),
    ("directed_reachable(edges, 0, 2)", "bool", True),
    ("directed_reachable(edges, 2, 0)", "bool", False),
    ("directed_path_length(edges, 0, 2)", "int", 1),
    ("directed_path_length(edges, 2, 1)", "int", -1),
    ("component_of(edges, 2)", "list[int]", [0, 1, 2]),
    ("component_of(edges, 5)", "list[int]", [5]),
    ("reachable_from(edges, 1)", "list[int]", [1, 2]),
    ("components(range(6), edges)", "list[list[int]]", [[0, 1, 2], [3, 4], [5]]),
    ("len(components(range(6), []))", "int", 6),
    ("has_cycle(edges)", "bool", True),
    ("has_cycle(filter(edges, e -> e.w != 7))", "bool", False),
    ("has_cycle(edges + [{a: 3, b: 4, w: 9}])", "bool", True),
    ("has_directed_cycle(edges)", "bool", False),
    ("has_directed_cycle(edges + [{a: 2, b: 0, w: 1}])", "bool", True),
    ("has_directed_cycle([{a: 3, b: 3, w: 1}])", "bool", True),
    ("map(children(tree, 1), v -> v.label)", "list[str]", ["T", "U"]),
    ("children(tree, 7)", "list[{id: int, parent: int, label: str}]", []),
    ("map(leaves(tree), v -> v.label)", "list[str]", ["Q", "T", "U", "W"]),
    ("depth(tree, 7)", "int", 3),
    ("depth(tree, 0)", "int", 0),
    ("tree_height(tree)", "int", 3),
    ("map(ancestors(tree, 7), v -> v.label)", "list[str]", ["V", "S", "R"]),
    ("map(descendants(tree, 3), v -> v.label)", "list[str]", ["V", "W"]),
    ("len(descendants(tree, 0))", "int", 7),
    ("common_ancestor(tree, 4, 5).label", "str", "P"),
    ("common_ancestor(tree, 4, 7).label", "str", "R"),
    ("common_ancestor(tree, 6, 7).label", "str", "V"),
])
def test_graph_operators_type_and_evaluate(src, typ, value):
    assert ev(src) == (typ, value)


def test_path_weight_has_the_type_of_the_weights():
    d = Diagnostics()
    c = compile_expr("weighted_path_length([{a: 0, b: 1, w: 0.5}, {a: 1, b: 2, w: 0.25}], 0, 2)", SCOPE,
                     Site(None, (), "e.yaml"), d)
    assert str(c.type) == "float" and run(c, new_env(VALUES)) == 0.75
    assert ev("weighted_path_length(edges, 0, 1)")[0] == "int"


def test_ties_break_towards_small_ids():
    # A square 0-1-3, 0-2-3: both routes have two edges; the one through 1 is reported, every time.
    square = [{"a": 0, "b": 2, "w": 1}, {"a": 2, "b": 3, "w": 1}, {"a": 0, "b": 1, "w": 1}, {"a": 1, "b": 3, "w": 1}]
    for _ in range(3):
        assert ev("shortest_path(edges, 0, 3)", {**VALUES, "edges": square})[1] == [0, 1, 3]
        assert ev("weighted_path(edges, 0, 3)", {**VALUES, "edges": square})[1] == [0, 1, 3]


# -- operators: mistakes caught at compile time and at run time --------------------------------------------------
@pytest.mark.parametrize("src,message", [
    ("degree(tree, 0)", "e.yaml:1:8: error: degree() needs edge records with integer node ids in fields a and b, "
                        "got {id: int, parent: int, label: str}"),
    ("neighbors(words, 0)", "e.yaml:1:11: error: neighbors() needs edge records with integer node ids in fields a "
                            "and b, got {a: str, b: str}"),
    ("shortest_path_length(level, 0, 1)", "e.yaml:1:22: error: shortest_path_length() needs a list of edge records "
                                          "{a: int, b: int}, got int"),
    ("weighted_path_length(map(edges, e -> {a: e.a, b: e.b}), 0, 1)",
     "e.yaml:1:22: error: weighted_path_length() needs edge records with a numeric weight field w, "
     "got {a: int, b: int}"),
    ("reachable(edges, 0, 'x')", "e.yaml:1:21: error: the node ids of reachable() must be int, got str"),
    ("leaves(edges)", "e.yaml:1:8: error: leaves() needs tree node records with integer fields id and parent, "
                      "got {a: int, b: int, w: int}"),
    ("components(edges, edges)", "e.yaml:1:12: error: the node ids of components() must be list[int], "
                                 "got list[{a: int, b: int, w: int}]"),
    ("maze_passages(3, 'x', 0)", "e.yaml:1:18: error: the arguments of maze_passages() must be int, got str"),
])
def test_operator_type_errors_name_the_position(src, message):
    assert errors(src) == [message]


def test_maze_generator_is_refused_outside_samplers():
    d = Diagnostics()
    fixed = Scope(SCOPE.names, allow_random=False, what="a task requirement")
    assert compile_expr("len(maze_passages(3, 3, 0)) > 0", fixed, Site(None, (), "e.yaml"), d) is None
    assert "random function 'maze_passages' is not allowed in a task requirement" in str(d.items[0])


@pytest.mark.parametrize("src,values,fragment", [
    ("weighted_path_length(edges, 0, 1)", {"edges": [{"a": 0, "b": 1, "w": -2}]}, "non-negative"),
    ("components([0, 1], edges)", {}, "names a node that is not in the node list"),
    ("path_edges(edges, [0, 3])", {}, "no edge joins nodes 0 and 3"),
    ("depth(tree, 42)", {}, "node 42 is not in the tree"),
    ("tree_height(tree)", {"tree": [{"id": 0, "parent": 1, "label": "a"}, {"id": 1, "parent": 0, "label": "b"}]},
     "form a cycle"),
    ("leaves(tree)", {"tree": [{"id": 0, "parent": -1, "label": "a"}, {"id": 0, "parent": 0, "label": "b"}]},
     "appears twice"),
    ("children(tree, 0)", {"tree": [{"id": 0, "parent": 5, "label": "a"}]}, "names parent 5"),
    ("common_ancestor(tree, 0, 1)", {"tree": [{"id": 0, "parent": -1, "label": "a"},
                                              {"id": 1, "parent": -1, "label": "b"}]}, "different trees"),
    ("maze_passages(50, 2, 0)", {}, "allowed 1..40"),
    ("maze_passages(2, 2, 3)", {}, "cannot knock down 3 of the 1 inner walls"),
])
def test_operator_run_time_errors(src, values, fragment):
    with pytest.raises(EvalError, match=fragment):
        ev(src, {**VALUES, **values})


def test_graph_operators_charge_the_step_budget():
    chain = [{"a": i, "b": i + 1, "w": 1} for i in range(3000)]
    for src in ("shortest_path_length(edges, 0, 3000)", "weighted_path_length(edges, 0, 3000)",
                "len(components(range(3001), edges))", "has_directed_cycle(edges)", "degree(edges, 7)"):
        budget = Budget(2_000)
        with pytest.raises(EvalError, match="exceeded"):
            ev(src, {**VALUES, "edges": chain}, budget=budget)
    budget = Budget()
    assert ev("shortest_path_length(edges, 0, 3000)", {**VALUES, "edges": chain}, budget=budget)[1] == 3000
    assert budget.left < Budget().left - 6000  # every edge and every visited node was paid for


# -- maze generator ----------------------------------------------------------------------------------------------
def _grid_connected(rows, cols, passages) -> bool:
    seen, todo = {0}, [0]
    adj = {}
    for p in passages:
        adj.setdefault(p["a"], []).append(p["b"])
        adj.setdefault(p["b"], []).append(p["a"])
    while todo:
        for v in adj.get(todo.pop(), []):
            if v not in seen:
                seen.add(v)
                todo.append(v)
    return len(seen) == rows * cols


@pytest.mark.parametrize("rows,cols,extra", [(1, 1, 0), (1, 6, 0), (5, 7, 0), (6, 4, 5), (12, 12, 20)])
def test_maze_passages_dig_a_spanning_tree_plus_extra_passages(rows, cols, extra):
    typ, passages = ev(f"maze_passages({rows}, {cols}, {extra})", seed=rows * 100 + cols)
    assert typ == "list[{a: int, b: int}]"
    assert len(passages) == rows * cols - 1 + extra
    assert len({(p["a"], p["b"]) for p in passages}) == len(passages)
    for p in passages:
        a, b = p["a"], p["b"]
        assert a < b and (b - a == cols or (b - a == 1 and b % cols != 0)), p  # neighbouring cells only
    assert _grid_connected(rows, cols, passages)
    assert ev(f"has_cycle(maze_passages({rows}, {cols}, {extra}))", seed=3)[1] == (extra > 0)


def test_maze_passages_are_deterministic_per_seed():
    assert ev("maze_passages(8, 8, 2)", seed=11) == ev("maze_passages(8, 8, 2)", seed=11)
    assert ev("maze_passages(8, 8, 2)", seed=11) != ev("maze_passages(8, 8, 2)", seed=12)


# -- legibility rule and node placement --------------------------------------------------------------------------
def test_segment_point_distance():
    assert segment_point_distance(0, 0, 10, 0, 5, 3) == 3
    assert segment_point_distance(0, 0, 10, 0, -4, 3) == 5  # beyond an end: distance to that end
    assert segment_point_distance(2, 2, 2, 2, 5, 6) == 5  # a degenerate segment is a point


def test_node_link_problem_names_what_breaks_legibility():
    pos = {0: (0.0, 0.0), 1: (200.0, 0.0), 2: (100.0, 80.0)}
    assert node_link_problem(pos, 15, [(0, 1), (1, 2)]) is None
    assert node_link_problem({**pos, 2: (100.0, 10.0)}, 15, [(0, 1)]) == "edge 0–1 passes through node 2"
    assert node_link_problem({**pos, 2: (20.0, 10.0)}, 15, []) == "nodes 0 and 2 overlap"


@pytest.mark.parametrize("seed", range(8))
def test_place_nodes_is_legible_inside_its_box_and_replayable(seed):
    rng = Rng(seed)
    n = 6 + seed
    pairs = sorted({(min(a, b), max(a, b)) for a, b in ((rng.below(n), rng.below(n)) for _ in range(n + 3)) if a != b})
    box = (25.0, 25.0, 487.0, 423.0)
    pts, method = place_nodes(n, pairs, box, 15.0, Rng(seed))
    assert method in ("spring", "ring")
    assert node_link_problem(dict(enumerate(pts)), 15.0, pairs) is None
    assert all(box[0] <= x <= box[2] and box[1] <= y <= box[3] for x, y in pts)
    assert place_nodes(n, pairs, box, 15.0, Rng(seed)) == (pts, method)


def test_place_nodes_rejects_what_cannot_fit():
    pairs = [(i, (i + 1) % 12) for i in range(12)]
    with pytest.raises(RenderRejected, match="no legible placement of 12 nodes"):
        place_nodes(12, pairs, (10.0, 10.0, 90.0, 90.0), 15.0, Rng(1))


# -- layouts drawn ------------------------------------------------------------------------------------------------
def _painter(state: dict, width=480, height=420, seed=3):
    rng = Rng(seed)
    return Painter(width, height, pick_theme(rng), object_paths(state)), rng


def test_node_link_binds_nodes_and_edges_and_keeps_labels_off_nodes():
    nodes = [{"id": i, "label": "ABCDEFG"[i], "color": "blue"} for i in range(7)]
    edges = [{"a": 0, "b": 1, "w": 3}, {"a": 1, "b": 2, "w": 12}, {"a": 2, "b": 0, "w": 5}, {"a": 3, "b": 4, "w": 8},
             {"a": 4, "b": 5, "w": 1}, {"a": 5, "b": 6, "w": 7}, {"a": 2, "b": 5, "w": 9}]
    p, rng = _painter({"nodes": nodes, "edges": edges})
    prm = NodeLink(items="nodes", edges="edges", id="id", label="label", color="color", weight="w")
    decisions = draw_node_link(p, prm, nodes, {}, rng, edges=edges)
    assert decisions["placement"] in ("spring", "ring")
    assert {f"nodes[{i}]" for i in range(7)} | {f"edges[{i}]" for i in range(7)} == set(p.render_map)
    centres = {i: p.render_map[f"nodes[{i}]"]["point"] for i in range(7)}
    assert node_link_problem(centres, decisions["radius"], [(e["a"], e["b"]) for e in edges]) is None
    labels = p.no_overlap_groups["weights"]
    assert len(labels) == 7
    for path, (x0, y0, x1, y1), _ in labels:
        for cx, cy in centres.values():
            nx, ny = max(x0, min(cx, x1)), max(y0, min(cy, y1))
            assert math.hypot(nx - cx, ny - cy) >= decisions["radius"]
        for e in edges:  # no other edge runs under the label, so it reads as its own edge's
            if path != f"edges[{edges.index(e)}]":
                (ax, ay), (bx, by) = centres[e["a"]], centres[e["b"]]
                assert not any(x0 <= ax + (bx - ax) * t / 200 <= x1 and y0 <= ay + (by - ay) * t / 200 <= y1
                               for t in range(201)), (path, e)


def test_node_link_arrows_in_both_directions_stay_apart():
    nodes = [{"id": i} for i in range(3)]
    edges = [{"a": 0, "b": 1}, {"a": 1, "b": 0}, {"a": 1, "b": 2}]
    p, rng = _painter({"nodes": nodes, "edges": edges})
    draw_node_link(p, NodeLink(items="nodes", edges="edges", directed=True), nodes, {}, rng, edges=edges)
    forth, back = p.render_map["edges[0]"]["point"], p.render_map["edges[1]"]["point"]
    assert math.dist(forth, back) > 4  # offset to either side of the line between the two nodes


@pytest.mark.parametrize("edges,fragment", [
    ([{"a": 0, "b": 9}], "names node 9"),
    ([{"a": 1, "b": 1}], "is a loop"),
    ([{"a": 0, "b": 1}, {"a": 1, "b": 0}], "appears twice"),
])
def test_node_link_refuses_edges_it_cannot_draw(edges, fragment):
    nodes = [{"id": i} for i in range(3)]
    p, rng = _painter({"nodes": nodes, "edges": edges})
    with pytest.raises(EvalError, match=fragment):
        draw_node_link(p, NodeLink(items="nodes", edges="edges"), nodes, {}, rng, edges=edges)


@pytest.mark.parametrize("seed", range(4))
def test_tree_is_layered_with_parents_over_their_children(seed):
    p, rng = _painter({"tree": TREE}, 560, 420, seed)
    decisions = draw_tree(p, TreeLayout(items="tree", label="label"), TREE, {}, rng)
    at = {n["id"]: p.render_map[f"tree[{i}]"]["point"] for i, n in enumerate(TREE)}
    depth = {0: 0, 1: 1, 2: 1, 3: 1, 4: 2, 5: 2, 6: 2, 7: 3}
    for v, d in depth.items():
        assert at[v][1] == pytest.approx(at[0][1] + d * (at[7][1] - at[0][1]) / 3, abs=0.02)
    xs = sorted(at[k][0] for k in (1, 2, 3))
    assert xs[0] <= at[0][0] <= xs[-1]  # the root sits over its children
    assert (at[4][0] < at[5][0]) != decisions["mirror"]  # children in list order unless mirrored
    assert node_link_problem(at, decisions["radius"], []) is None


def test_tree_too_wide_for_the_canvas_is_an_error():
    wide = [{"id": 0, "parent": -1}] + [{"id": i, "parent": 0} for i in range(1, 40)]
    p, rng = _painter({"tree": wide}, 200, 200)
    with pytest.raises(EvalError, match="39 leaves over 2 layers do not fit"):
        draw_tree(p, TreeLayout(items="tree"), wide, {}, rng)


def _ink_at(p: Painter, x: float, y: float) -> bool:
    r, g, b = p.pixels()[int(round(y)), int(round(x))][:3]
    return int(r) + int(g) + int(b) < 300


def test_maze_draws_walls_exactly_where_no_passage_runs():
    rows, cols = 3, 4
    passages = [{"a": 0, "b": 1}, {"a": 1, "b": 2}, {"a": 2, "b": 3}, {"a": 3, "b": 7}, {"a": 7, "b": 6},
                {"a": 6, "b": 5}, {"a": 5, "b": 4}, {"a": 4, "b": 8}, {"a": 8, "b": 9}, {"a": 9, "b": 10},
                {"a": 10, "b": 11}]
    cells = [{"row": r, "col": c, "mark": "S" if (r, c) == (0, 0) else "", "color": "green" if (r, c) == (0, 0)
              else ""} for r in range(rows) for c in range(cols)]
    p, rng = _painter({"cells": cells})
    prm = MazeLayout(items="cells", rows="3", cols="4", passages="p", mark="mark", color="color")
    decisions = draw_maze(p, prm, cells, {}, rng, rows=rows, cols=cols, passages=passages)
    box = {(c["row"], c["col"]): p.render_map[f"cells[{i}]"]["bbox"] for i, c in enumerate(cells)}
    open_pairs = {(min(e["a"], e["b"]), max(e["a"], e["b"])) for e in passages}  # either way round
    for r in range(rows):
        for c in range(cols):
            x0, y0, x1, y1 = box[(r, c)]
            if c + 1 < cols:  # the border between (r, c) and (r, c + 1), at mid-height
                assert _ink_at(p, (x1 + box[(r, c + 1)][0]) / 2, (y0 + y1) / 2) == \
                    ((r * cols + c, r * cols + c + 1) not in open_pairs)
            if r + 1 < rows:
                assert _ink_at(p, (x0 + x1) / 2, (y1 + box[(r + 1, c)][1]) / 2) == \
                    ((r * cols + c, (r + 1) * cols + c) not in open_pairs)
    assert decisions["cell"] > 50


@pytest.mark.parametrize("passage,fragment", [({"a": 3, "b": 4}, "does not join two neighbouring cells"),
                                              ({"a": 0, "b": 12}, "does not join two neighbouring cells")])
def test_maze_refuses_passages_through_solid_rock(passage, fragment):
    cells = [{"row": 0, "col": 0}]
    p, rng = _painter({"cells": cells})
    with pytest.raises(EvalError, match=fragment):
        draw_maze(p, MazeLayout(items="cells", rows="3", cols="4", passages="p"), cells, {}, rng, rows=3, cols=4,
                  passages=[passage])


# -- layout parameters checked when the grammar compiles ---------------------------------------------------------
def _compile_grammar(text: str) -> list[str]:
    d = Diagnostics()
    doc = parse_yaml(textwrap.dedent(text).lstrip("\n"), "g.yaml", d)
    spec = validate(GrammarSpec, doc, d)
    assert spec is not None
    compile_grammar(Loaded(spec, doc), {}, d)
    return [str(x) for x in d.sorted()]


GRAMMAR = """
grammar: graphs.test
summary: s
state:
  nodes: "[{{id: i, label: letter(i)}} for i in range(4)]"
  edges: "{edges}"
render:
  layout:
    node_link: {{items: nodes, edges: edges, id: id, label: label{extra}}}
"""


@pytest.mark.parametrize("edges,extra,message", [
    ("[{a: 0, b: 1, w: 2}]", ", weight: w", None),
    ("[{a: 0, b: 'x'}]", "", "g.yaml:8:38: error: 'edges' must be edge records with integer node ids in fields a and "
                             "b, got {a: int, b: str}"),
    ("[1, 2]", "", "g.yaml:8:38: error: 'edges' must be a list of edge records {a: int, b: int}, got list[int]"),
    ("[{a: 0, b: 1}]", ", weight: w", "g.yaml:8:38: error: 'edges' have no field 'w' to label them with "
                                      "(they have: a, b)"),
    ("[{a: 0, b: 1, w: [1]}]", ", weight: w",
     "g.yaml:8:38: error: 'edges' label field 'w' must be a number or a string, got list[int]"),
])
def test_node_link_edges_are_checked_at_compile_time(edges, extra, message):
    assert _compile_grammar(GRAMMAR.format(edges=edges, extra=extra)) == ([message] if message else [])
