"""The graph components (components/node_link.yaml, tree.yaml, maze.yaml) through compiled grammars: what they bind,
the legibility of node-link pictures recomputed here, layered trees, and walls exactly where no passage runs."""
from __future__ import annotations

import math
import shutil

import pytest

from tessera.expr.lib_place import segment_point_distance
from tests.conftest import ROOT
from tests.test_scene import build, errors_of, sample


def _with_components(root, *names):
    for name in names:
        shutil.copy(ROOT / "components" / f"{name}.yaml", root / "components" / f"{name}.yaml")
    return root


WEIGHTED = """\
nodes: "[{id: i, label: 'ABCDEFG'[i], color: 'blue'} for i in range(7)]"
edges: "[{a: 0, b: 1, w: 3}, {a: 1, b: 2, w: 12}, {a: 2, b: 0, w: 5}, {a: 3, b: 4, w: 8}, {a: 4, b: 5, w: 1}, {a: 5, b: 6, w: 7}, {a: 2, b: 5, w: 9}]"
"""


@pytest.mark.parametrize("seed", range(4))
def test_node_link_binds_nodes_and_edges_legibly(tmp_path, seed):
    root = _with_components(build(tmp_path, WEIGHTED, """\
        use: node_link
        with: {nodes: nodes, edges: edges, label: "v -> v.label", color: "v -> v.color", weight: "e -> e.w"}
        """, 512, 448), "node_link")
    _, inst = sample(root, seed=seed)
    tr = inst.trace
    rm = tr["render"]["render_map"]
    assert {f"nodes[{i}]" for i in range(7)} | {f"edges[{i}]" for i in range(7)} == set(rm)
    centres = {i: rm[f"nodes[{i}]"]["geometry"]["center"] for i in range(7)}
    r = rm["nodes[0]"]["geometry"]["r"]
    for i in range(7):
        for j in range(i + 1, 7):
            assert math.dist(centres[i], centres[j]) >= 2 * r, (i, j)
    for e in tr["state"]["edges"]:
        (ax, ay), (bx, by) = centres[e["a"]], centres[e["b"]]
        for v, c in centres.items():
            if v not in (e["a"], e["b"]):
                assert segment_point_distance(ax, ay, bx, by, *c) > r, (e, v)


def test_two_way_arrows_stay_apart(tmp_path):
    root = _with_components(build(tmp_path, """\
        nodes: "[{id: i} for i in range(3)]"
        edges: "[{a: 0, b: 1}, {a: 1, b: 0}, {a: 1, b: 2}]"
        """, """\
        use: node_link
        with: {nodes: nodes, edges: edges, directed: "true"}
        """, 480, 448), "node_link")
    _, inst = sample(root)
    rm = inst.trace["render"]["render_map"]
    forth, back = rm["edges[0]"]["geometry"]["points"], rm["edges[1]"]["geometry"]["points"]
    mid = lambda pts: ((pts[0][0] + pts[1][0]) / 2, (pts[0][1] + pts[1][1]) / 2)  # noqa: E731
    assert math.dist(mid(forth), mid(back)) > 8  # each 5 px to its own right-hand side


def test_node_link_edges_are_type_checked(tmp_path):
    root = _with_components(build(tmp_path, """\
        nodes: "[{id: i} for i in range(3)]"
        edges: "[{a: 0, b: 'x'}]"
        """, """\
        use: node_link
        with: {nodes: nodes, edges: edges}
        """), "node_link")
    errs = errors_of(root)
    assert any(e.startswith("node_link.yaml:18:36: spring_layout() needs edge records with integer node ids in fields a and b") for e in errs), errs


TREE = """\
tree: "[{id: 0, parent: -1}, {id: 1, parent: 0}, {id: 2, parent: 0}, {id: 3, parent: 0}, {id: 4, parent: 1}, {id: 5, parent: 1}, {id: 6, parent: 3}, {id: 7, parent: 6}]"
"""


@pytest.mark.parametrize("seed", range(4))
def test_tree_is_layered_with_parents_over_their_children(tmp_path, seed):
    root = _with_components(build(tmp_path, TREE, """\
        use: tree
        with: {nodes: tree, id: "v -> v.id", parent: "v -> v.parent"}
        """, 560, 420), "tree")
    _, inst = sample(root, seed=seed)
    rm = inst.trace["render"]["render_map"]
    at = {i: rm[f"tree[{i}]"]["geometry"]["center"] for i in range(8)}
    depth = {0: 0, 1: 1, 2: 1, 3: 1, 4: 2, 5: 2, 6: 2, 7: 3}
    for v, d in depth.items():
        assert at[v][1] == pytest.approx(at[0][1] + d * (at[7][1] - at[0][1]) / 3, abs=0.05)
    xs = sorted(at[k][0] for k in (1, 2, 3))
    assert xs[0] <= at[0][0] <= xs[-1]
    mirror = inst.trace["render"]["decisions"]["mirror"]
    assert (at[4][0] < at[5][0]) != mirror


def test_maze_draws_walls_exactly_where_no_passage_runs(tmp_path):
    root = _with_components(build(tmp_path, """\
        rows: 3
        cols: 4
        passages: "[{a: 0, b: 1}, {a: 1, b: 2}, {a: 2, b: 3}, {a: 3, b: 7}, {a: 7, b: 6}, {a: 6, b: 5}, {a: 5, b: 4}, {a: 4, b: 8}, {a: 8, b: 9}, {a: 9, b: 10}, {a: 10, b: 11}]"
        cells: "[{row: r, col: c, mark: 'S' if r + c == 0 else '', color: 'green' if r + c == 0 else ''} for r in range(3) for c in range(4)]"
        """, """\
        use: maze
        with: {cells: cells, rows: rows, cols: cols, passages: passages, row: "c -> c.row", col: "c -> c.col",
               mark: "c -> c.mark", color: "c -> c.color"}
        """, 480, 420), "maze")
    _, inst = sample(root)
    tr = inst.trace
    rm = tr["render"]["render_map"]
    cells = tr["state"]["cells"]
    box = {(c["row"], c["col"]): rm[f"cells[{i}]"]["bbox"] for i, c in enumerate(cells)}
    open_pairs = {(min(e["a"], e["b"]), max(e["a"], e["b"])) for e in tr["state"]["passages"]}

    def ink(x, y):
        r, g, b = inst.rgb[int(round(y)), int(round(x)), :3]
        return int(r) + int(g) + int(b) < 300

    for r in range(3):
        for c in range(4):
            x0, y0, x1, y1 = box[(r, c)]
            if c + 1 < 4:
                assert ink((x1 + box[(r, c + 1)][0]) / 2, (y0 + y1) / 2) == ((r * 4 + c, r * 4 + c + 1) not in open_pairs)
            if r + 1 < 3:
                assert ink((x0 + x1) / 2, (y1 + box[(r + 1, c)][1]) / 2) == ((r * 4 + c, r * 4 + c + 4) not in open_pairs)
