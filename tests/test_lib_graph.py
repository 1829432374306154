"""Graph, tree and maze operators (compiler/expr/lib_graph.py): typed results, hand-checked values, edge cases and
errors. The node_link, tree and maze components are tested in tests/test_components_graph.py."""
from __future__ import annotations


import pytest

from tessera.errors import Diagnostics, EvalError
from tessera.expr.compile import Budget, Scope, Site, compile_expr, new_env, run
from tessera.expr.types import INT, STR, ListT, record
from tessera.expr.lib_place import segment_point_distance
from tessera.sample.rng import Rng

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
    ("neighbors(edges, 0)", "list[integer]", [1, 2]),
    ("neighbors(edges, 5)", "list[integer]", []),
    ("successors(edges, 0)", "list[integer]", [1, 2]),
    ("predecessors(edges, 2)", "list[integer]", [0, 1]),
    ("degree(edges, 2)", "integer", 2),
    ("in_degree(edges, 2)", "integer", 2),
    ("out_degree(edges, 2)", "integer", 0),
    ("shortest_path_length(edges, 0, 2)", "integer", 1),
    ("shortest_path_length(edges, 2, 2)", "integer", 0),
    ("shortest_path_length(edges, 0, 3)", "integer", -1),
    ("shortest_path(edges, 0, 2)", "list[integer]", [0, 2]),
    ("shortest_path(edges, 0, 4)", "list[integer]", []),
    ("weighted_path_length(edges, 0, 2)", "integer", 5),
    ("weighted_path_length(edges, 0, 5)", "integer", -1),
    ("weighted_path(edges, 2, 0)", "list[integer]", [2, 1, 0]),
    ("map(path_edges(edges, weighted_path(edges, 0, 2)), e -> e.w)", "list[integer]", [4, 1]),
    ("reachable(edges, 2, 0)", "boolean", True),
    ("reachable(edges, 0, 4)", "boolean", False),
    ("directed_reachable(edges, 0, 2)", "boolean", True),
    ("directed_reachable(edges, 2, 0)", "boolean", False),
    ("directed_path_length(edges, 0, 2)", "integer", 1),
    ("directed_path_length(edges, 2, 1)", "integer", -1),
    ("component_of(edges, 2)", "list[integer]", [0, 1, 2]),
    ("component_of(edges, 5)", "list[integer]", [5]),
    ("reachable_from(edges, 1)", "list[integer]", [1, 2]),
    ("components(range(6), edges)", "list[list[integer]]", [[0, 1, 2], [3, 4], [5]]),
    ("len(components(range(6), []))", "integer", 6),
    ("has_cycle(edges)", "boolean", True),
    ("has_cycle(filter(edges, e -> e.w != 7))", "boolean", False),
    ("has_cycle(edges + [{a: 3, b: 4, w: 9}])", "boolean", True),
    ("has_directed_cycle(edges)", "boolean", False),
    ("has_directed_cycle(edges + [{a: 2, b: 0, w: 1}])", "boolean", True),
    ("has_directed_cycle([{a: 3, b: 3, w: 1}])", "boolean", True),
    ("map(children(tree, 1), v -> v.label)", "list[string]", ["T", "U"]),
    ("children(tree, 7)", "list[{id: integer, parent: integer, label: string}]", []),
    ("map(leaves(tree), v -> v.label)", "list[string]", ["Q", "T", "U", "W"]),
    ("depth(tree, 7)", "integer", 3),
    ("depth(tree, 0)", "integer", 0),
    ("tree_height(tree)", "integer", 3),
    ("map(ancestors(tree, 7), v -> v.label)", "list[string]", ["V", "S", "R"]),
    ("map(descendants(tree, 3), v -> v.label)", "list[string]", ["V", "W"]),
    ("len(descendants(tree, 0))", "integer", 7),
    ("common_ancestor(tree, 4, 5).label", "string", "P"),
    ("common_ancestor(tree, 4, 7).label", "string", "R"),
    ("common_ancestor(tree, 6, 7).label", "string", "V"),
])
def test_graph_operators_type_and_evaluate(src, typ, value):
    assert ev(src) == (typ, value)


def test_path_weight_has_the_type_of_the_weights():
    d = Diagnostics()
    c = compile_expr("weighted_path_length([{a: 0, b: 1, w: 0.5}, {a: 1, b: 2, w: 0.25}], 0, 2)", SCOPE,
                     Site(None, (), "e.yaml"), d)
    assert str(c.type) == "number" and run(c, new_env(VALUES)) == 0.75
    assert ev("weighted_path_length(edges, 0, 1)")[0] == "integer"


def test_ties_break_towards_small_ids():
    # A square 0-1-3, 0-2-3: both routes have two edges; the one through 1 is reported, every time.
    square = [{"a": 0, "b": 2, "w": 1}, {"a": 2, "b": 3, "w": 1}, {"a": 0, "b": 1, "w": 1}, {"a": 1, "b": 3, "w": 1}]
    for _ in range(3):
        assert ev("shortest_path(edges, 0, 3)", {**VALUES, "edges": square})[1] == [0, 1, 3]
        assert ev("weighted_path(edges, 0, 3)", {**VALUES, "edges": square})[1] == [0, 1, 3]


# -- operators: mistakes caught at compile time and at run time --------------------------------------------------
@pytest.mark.parametrize("src,message", [
    ("degree(tree, 0)", "e.yaml:1:8: error: degree() needs edge records with integer node ids in fields a and b, "
                        "got {id: integer, parent: integer, label: string}  [type-mismatch]"),
    ("neighbors(words, 0)", "e.yaml:1:11: error: neighbors() needs edge records with integer node ids in fields a "
                            "and b, got {a: string, b: string}  [type-mismatch]"),
    ("shortest_path_length(level, 0, 1)", "e.yaml:1:22: error: shortest_path_length() needs a list of edge records "
                                          "{a: integer, b: integer}, got integer  [type-mismatch]"),
    ("weighted_path_length(map(edges, e -> {a: e.a, b: e.b}), 0, 1)",
     "e.yaml:1:22: error: weighted_path_length() needs edge records with a numeric weight field w, "
     "got {a: integer, b: integer}  [type-mismatch]"),
    ("reachable(edges, 0, 'x')", "e.yaml:1:21: error: the node ids of reachable() must be integer, got string  [type-mismatch]"),
    ("leaves(edges)", "e.yaml:1:8: error: leaves() needs tree node records with integer fields id and parent, "
                      "got {a: integer, b: integer, w: integer}  [type-mismatch]"),
    ("components(edges, edges)", "e.yaml:1:12: error: the node ids of components() must be list[integer], "
                                 "got list[{a: integer, b: integer, w: integer}]  [type-mismatch]"),
    ("maze_passages(3, 'x', 0)", "e.yaml:1:18: error: the arguments of maze_passages() must be integer, got string  [type-mismatch]"),
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
    assert typ == "list[{a: integer, b: integer}]"
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


# -- geometry helper shared with placement --------------------------------------------------------------------------
def test_segment_point_distance():
    assert segment_point_distance(0, 0, 10, 0, 5, 3) == 3
    assert segment_point_distance(0, 0, 10, 0, -4, 3) == 5  # beyond an end: distance to that end
    assert segment_point_distance(2, 2, 2, 2, 5, 6) == 5  # a degenerate segment is a point
