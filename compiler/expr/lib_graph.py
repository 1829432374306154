"""Graph, tree and maze operators of the expression language.

Graphs are lists of edge records with integer endpoint fields `a` and `b` (and a numeric weight `w` for the
weighted operators), over nodes named by integer ids; an undirected operator reads each edge both ways, a directed
one (`directed_*`, `in_degree`, `out_degree`, `successors`, `predecessors`) follows it from `a` to `b`. Trees are
lists of node records with integer fields `id` and `parent` (a negative parent marks the root). Mazes are grids of
cells with ids `row * cols + col` whose open passages are edges, so every graph operator applies to them.

Every operator charges the step budget for the edges and nodes it touches, and results that depend on an order
(paths, components) break ties by the smallest node id, so the same state always gives the same answer.
"""
from __future__ import annotations

import heapq

from ..errors import EvalError
from .builtins import _charge, _charge_bytes, _fail, _rng, _sort_cost, builtin
from .compile import Compiled
from .types import ANY, BOOL, INT, ListT, RecordT, Type, is_numeric, record

IDS = ListT(INT)
PASSAGE = record(a=INT, b=INT)
MAX_GRID_SIDE = 40  # 40 × 40 cells have 3,120 inner walls: a passage list stays far below MAX_LIST


# -- argument typing --------------------------------------------------------------------------------------------
def edge_type_problem(t: Type, weighted: bool = False) -> str | None:
    """Why `t` is not a list of edge records ({a: int, b: int} plus a numeric w when weighted), or None."""
    if t == ANY or (isinstance(t, ListT) and t.elem == ANY):
        return None
    if not (isinstance(t, ListT) and isinstance(t.elem, RecordT)):
        return f"a list of edge records {{a: integer, b: integer{', w: number' if weighted else ''}}}, got {t}"
    elem = t.elem
    for name in ("a", "b"):
        if elem.field(name) not in (INT, ANY):
            return f"edge records with integer node ids in fields a and b, got {elem}"
    if weighted and not is_numeric(elem.field("w") or BOOL):
        return f"edge records with a numeric weight field w, got {elem}"
    return None


def tree_type_problem(t: Type) -> str | None:
    """Why `t` is not a list of tree node records ({id: int, parent: int, ...}), or None."""
    if t == ANY or (isinstance(t, ListT) and t.elem == ANY):
        return None
    if not (isinstance(t, ListT) and isinstance(t.elem, RecordT)):
        return f"a list of tree node records {{id: integer, parent: integer}}, got {t}"
    if t.elem.field("id") not in (INT, ANY) or t.elem.field("parent") not in (INT, ANY):
        return f"tree node records with integer fields id and parent, got {t.elem}"
    return None


def _edges_arg(ck, node, fname: str, weighted: bool = False):
    c = ck.compile(node)
    problem = edge_type_problem(c.type, weighted)
    if problem:
        ck.error(node, f"{fname}() needs {problem}", code="type-mismatch")
        return None
    return c


def _tree_arg(ck, node, fname: str):
    c = ck.compile(node)
    problem = tree_type_problem(c.type)
    if problem:
        ck.error(node, f"{fname}() needs {problem}", code="type-mismatch")
        return None
    return c, (c.type.elem if isinstance(c.type, ListT) else ANY)


def _ids(ck, args, fname: str):
    return [ck.expect(a, INT, f"the node ids of {fname}()").fn for a in args]


def _edges_and_ids(ck, args, fname: str):
    """The common prologue: an edge list, then node ids. Returns (edges fn, [id fns]) or None after an error."""
    c = _edges_arg(ck, args[0], fname)
    ids = _ids(ck, args[1:], fname)
    if c is None:
        return None
    return c.fn, ids


# -- graph helpers ----------------------------------------------------------------------------------------------
def _adjacency(env, edges: list[dict], directed: bool, reverse: bool = False) -> dict[int, list[int]]:
    """node → neighbour ids in ascending order (a neighbour reached by two edges appears twice)."""
    _charge(env, len(edges))
    adj: dict[int, list[int]] = {}
    for e in edges:
        a, b = (e["b"], e["a"]) if reverse else (e["a"], e["b"])
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, [])
        if not directed:
            adj[b].append(a)
    for ns in adj.values():
        _charge(env, _sort_cost(len(ns)))
        ns.sort()
    return adj


def _bfs_parents(env, adj: dict[int, list[int]], start: int) -> dict[int, int | None]:
    """Breadth-first search from start: node → the node it was first reached from (None for start)."""
    parent: dict[int, int | None] = {start: None}
    frontier = [start]
    while frontier:
        nxt = []
        for u in frontier:
            ns = adj.get(u, ())
            _charge(env, len(ns) + 1)
            for v in ns:
                if v not in parent:
                    parent[v] = u
                    nxt.append(v)
        frontier = nxt
    return parent


def _walk_back(parent: dict, goal: int) -> list[int]:
    path = [goal]
    while parent[path[-1]] is not None:
        path.append(parent[path[-1]])
    return path[::-1]


def _dijkstra(env, edges: list[dict], start: int, directed: bool) -> tuple[dict, dict]:
    """Least total weight from start to every reachable node, with the predecessor on one best path."""
    adj: dict[int, list[tuple[int, float]]] = {}
    _charge(env, len(edges))
    for e in edges:
        w = e["w"]
        if isinstance(w, bool) or not isinstance(w, (int, float)) or w < 0:
            raise EvalError(f"edge weights must be non-negative numbers, got {w!r}")
        adj.setdefault(e["a"], []).append((e["b"], w))
        if not directed:
            adj.setdefault(e["b"], []).append((e["a"], w))
    dist: dict[int, float] = {start: 0}
    parent: dict[int, int | None] = {start: None}
    heap: list[tuple[float, int]] = [(0, start)]
    done: set[int] = set()
    while heap:
        d, u = heapq.heappop(heap)
        if u in done:
            continue
        done.add(u)
        ns = adj.get(u, ())
        _charge(env, _sort_cost(len(ns)) + 1)  # the sort, and one heap push per neighbour
        ns = sorted(ns)
        for v, w in ns:
            nd = d + w
            if v not in dist or nd < dist[v]:
                dist[v], parent[v] = nd, u
                heapq.heappush(heap, (nd, v))
    return dist, parent


# -- neighbourhoods and degrees ---------------------------------------------------------------------------------
def _neighbour_builtin(name: str, directed: bool, reverse: bool, doc: str):
    @builtin(name, f"{name}(edges, node)", 2, doc=doc)
    def typer(ck, node, args):
        parts = _edges_and_ids(ck, args, name)
        if parts is None:
            return _fail(ck)
        ef, (vf,) = parts

        def impl(env):
            adj = _adjacency(env, ef(env), directed, reverse)
            return sorted(set(adj.get(vf(env), ())))

        return Compiled(IDS, impl)


_neighbour_builtin("neighbors", False, False, "ids of the nodes joined to node by an edge, ascending")
_neighbour_builtin("successors", True, False, "ids of the nodes an edge leads to from node (a → b), ascending")
_neighbour_builtin("predecessors", True, True, "ids of the nodes with an edge leading into node, ascending")


def _degree_builtin(name: str, ends: tuple[str, ...], doc: str):
    @builtin(name, f"{name}(edges, node)", 2, doc=doc)
    def typer(ck, node, args):
        parts = _edges_and_ids(ck, args, name)
        if parts is None:
            return _fail(ck)
        ef, (vf,) = parts

        def impl(env):
            edges, v = ef(env), vf(env)
            _charge(env, len(edges))
            return sum(1 for e in edges for end in ends if e[end] == v)

        return Compiled(INT, impl)


_degree_builtin("degree", ("a", "b"), "number of edge ends at node (a loop counts twice)")
_degree_builtin("in_degree", ("b",), "number of edges leading into node (field b)")
_degree_builtin("out_degree", ("a",), "number of edges leaving node (field a)")


# -- paths and reachability -------------------------------------------------------------------------------------
def _path_builtin(name: str, directed: bool, result: str, doc: str):
    @builtin(name, f"{name}(edges, from, to)", 3, doc=doc)
    def typer(ck, node, args):
        parts = _edges_and_ids(ck, args, name)
        if parts is None:
            return _fail(ck)
        ef, (sf, tf) = parts

        def impl(env):
            s, t = sf(env), tf(env)
            parent = _bfs_parents(env, _adjacency(env, ef(env), directed), s)
            if result == "reachable":
                return t in parent
            if result == "length":
                return len(_walk_back(parent, t)) - 1 if t in parent else -1
            return _walk_back(parent, t) if t in parent else []

        return Compiled({"reachable": BOOL, "length": INT, "path": IDS}[result], impl)


def _reach_builtin(name: str, directed: bool, doc: str):
    @builtin(name, f"{name}(edges, node)", 2, doc=doc)
    def typer(ck, node, args):
        parts = _edges_and_ids(ck, args, name)
        if parts is None:
            return _fail(ck)
        ef, (vf,) = parts
        return Compiled(IDS, lambda env: sorted(_bfs_parents(env, _adjacency(env, ef(env), directed), vf(env))))


_reach_builtin("component_of", False, "ids of the nodes joined to node by a chain of edges, node included, ascending")
_reach_builtin("reachable_from", True, "ids of the nodes reached from node by following edges a → b, node included, "
                                       "ascending")
_path_builtin("reachable", False, "reachable", "true when a chain of edges joins from and to")
_path_builtin("directed_reachable", True, "reachable", "true when edges followed a → b lead from `from` to `to`")
_path_builtin("shortest_path_length", False, "length", "fewest edges between from and to; -1 when not joined")
_path_builtin("directed_path_length", True, "length", "fewest edges followed a → b from `from` to `to`; -1 if none")
_path_builtin("shortest_path", False, "path",
              "node ids of one path with fewest edges, from and to included ([] when not joined; ties: smallest ids)")


def _weighted_builtin(name: str, result: str, doc: str):
    @builtin(name, f"{name}(edges, from, to)", 3, doc=doc)
    def typer(ck, node, args):
        c = _edges_arg(ck, args[0], name, weighted=True)
        sf, tf = _ids(ck, args[1:], name)
        if c is None:
            return _fail(ck)
        ef = c.fn
        w = c.type.elem.field("w") if isinstance(c.type, ListT) and isinstance(c.type.elem, RecordT) else None
        wt = w if w is not None else INT  # _edges_arg saw a numeric w in a record; a list of any: int

        def impl(env):
            s, t = sf(env), tf(env)
            dist, parent = _dijkstra(env, ef(env), s, directed=False)
            if result == "length":
                return dist.get(t, -1)
            return _walk_back(parent, t) if t in parent else []

        return Compiled(wt if result == "length" else IDS, impl)


_weighted_builtin("weighted_path_length", "length", "least total weight w of a path between from and to; -1 if none")
_weighted_builtin("weighted_path", "path", "node ids of one least-weight path, from and to included ([] if none)")


@builtin("path_edges", "path_edges(edges, path)", 2,
         doc="the edge records joining consecutive nodes of a path (either direction), in path order")
def _path_edges(ck, node, args):
    c = _edges_arg(ck, args[0], "path_edges")
    p = ck.expect(args[1], IDS, "the path of path_edges()")
    if c is None:
        return _fail(ck)
    ef, pf = c.fn, p.fn

    def impl(env):
        edges, path = ef(env), pf(env)
        _charge(env, len(path))
        out = []
        for u, v in zip(path, path[1:]):
            _charge(env, len(edges))  # each step of the path searches the edge list
            hit = next((e for e in edges if (e["a"], e["b"]) in ((u, v), (v, u))), None)
            if hit is None:
                raise EvalError(f"path_edges(): no edge joins nodes {u} and {v}")
            out.append(hit)
        return out

    return Compiled(c.type if c.type != ANY else ListT(ANY), impl)


# -- components and cycles --------------------------------------------------------------------------------------
@builtin("components", "components(node ids, edges)", 2,
         doc="connected components: lists of node ids (each ascending), ordered by their smallest id")
def _components(ck, node, args):
    ids = ck.expect(args[0], IDS, "the node ids of components()")
    c = _edges_arg(ck, args[1], "components")
    if c is None:
        return _fail(ck)
    idf, ef = ids.fn, c.fn

    def impl(env):
        nodes, edges = idf(env), ef(env)
        _charge(env, len(nodes) + len(edges))
        known = set(nodes)
        for e in edges:
            if e["a"] not in known or e["b"] not in known:
                raise EvalError(f"components(): edge {e['a']}–{e['b']} names a node that is not in the node list")
        adj = _adjacency(env, edges, directed=False)
        seen: set[int] = set()
        out = []
        for v in sorted(known):
            if v not in seen:
                comp = sorted(_bfs_parents(env, adj, v))
                seen.update(comp)
                out.append(comp)
        return out

    return Compiled(ListT(IDS), impl)


@builtin("has_cycle", "has_cycle(edges)", 1,
         doc="true when the edges, read both ways, close a cycle (a loop or a repeated pair counts)")
def _has_cycle(ck, node, args):
    c = _edges_arg(ck, args[0], "has_cycle")
    if c is None:
        return _fail(ck)
    ef = c.fn

    def impl(env):
        edges = ef(env)
        _charge(env, len(edges))
        root: dict[int, int] = {}

        def find(v):
            root.setdefault(v, v)
            while root[v] != v:
                root[v] = root[root[v]]
                v = root[v]
            return v

        for e in edges:
            ra, rb = find(e["a"]), find(e["b"])
            if ra == rb:
                return True
            root[ra] = rb
        return False

    return Compiled(BOOL, impl)


@builtin("has_directed_cycle", "has_directed_cycle(edges)", 1,
         doc="true when following edges a → b can return to where it started")
def _has_directed_cycle(ck, node, args):
    c = _edges_arg(ck, args[0], "has_directed_cycle")
    if c is None:
        return _fail(ck)
    ef = c.fn

    def impl(env):
        adj = _adjacency(env, ef(env), directed=True)
        # Kahn's algorithm: whatever cannot be peeled off in topological order lies on or behind a cycle.
        indeg = {v: 0 for v in adj}
        for ns in adj.values():
            for v in ns:
                indeg[v] += 1
        ready = [v for v, d in indeg.items() if d == 0]
        peeled = 0
        while ready:
            u = ready.pop()
            peeled += 1
            _charge(env, len(adj[u]) + 1)
            for v in adj[u]:
                indeg[v] -= 1
                if indeg[v] == 0:
                    ready.append(v)
        return peeled < len(adj)

    return Compiled(BOOL, impl)


# -- trees ------------------------------------------------------------------------------------------------------
def _tree_index(env, nodes: list[dict]) -> dict[int, dict]:
    """id → node record, after checking ids are distinct and parent links end at a root without looping."""
    _charge(env, len(nodes))
    by_id: dict[int, dict] = {}
    for n in nodes:
        if n["id"] in by_id:
            raise EvalError(f"tree node id {n['id']} appears twice")
        by_id[n["id"]] = n
    for n in nodes:
        if n["parent"] >= 0 and n["parent"] not in by_id:
            raise EvalError(f"tree node {n['id']} names parent {n['parent']}, which is not in the tree")
    return by_id


def _chain(env, by_id: dict[int, dict], v: int) -> list[dict]:
    """The node with id v, then its parent, grandparent, … up to the root."""
    if v not in by_id:
        raise EvalError(f"node {v} is not in the tree")
    budget = env["$budget"]
    out = [by_id[v]]
    budget.charge(1)
    while out[-1]["parent"] >= 0:
        if len(out) > len(by_id):
            raise EvalError(f"the parent links above node {v} form a cycle")
        budget.charge(1)  # charged per link as the chain is walked
        out.append(by_id[out[-1]["parent"]])
    return out


def _tree_node_builtin(name: str, result: str, doc: str):
    @builtin(name, f"{name}(nodes, id)", 2, doc=doc)
    def typer(ck, node, args):
        res = _tree_arg(ck, args[0], name)
        (vf,) = _ids(ck, args[1:], name)
        if res is None:
            return _fail(ck)
        c, elem = res
        nf = c.fn

        def impl(env):
            nodes, v = nf(env), vf(env)
            by_id = _tree_index(env, nodes)
            chain = _chain(env, by_id, v)
            if result == "depth":
                return len(chain) - 1
            if result == "ancestors":
                return chain[1:]
            if result == "children":
                return [n for n in nodes if n["parent"] == v]
            below = {v}
            for n in nodes:  # a node is below v when v is on its chain to the root
                if n["id"] != v and any(a["id"] == v for a in _chain(env, by_id, n["id"])):
                    below.add(n["id"])
            return [n for n in nodes if n["id"] in below and n["id"] != v]

        return Compiled(INT if result == "depth" else ListT(elem), impl)


_tree_node_builtin("children", "children", "the nodes whose parent is id, in list order")
_tree_node_builtin("depth", "depth", "number of parent links from node id up to the root (the root has depth 0)")
_tree_node_builtin("ancestors", "ancestors", "parent, grandparent, … of node id, up to the root")
_tree_node_builtin("descendants", "descendants", "every node below node id (children, their children, …), list order")


@builtin("leaves", "leaves(nodes)", 1, doc="the nodes that are no node's parent, in list order")
def _leaves(ck, node, args):
    res = _tree_arg(ck, args[0], "leaves")
    if res is None:
        return _fail(ck)
    c, elem = res
    nf = c.fn

    def impl(env):
        nodes = nf(env)
        _tree_index(env, nodes)
        parents = {n["parent"] for n in nodes}
        return [n for n in nodes if n["id"] not in parents]

    return Compiled(ListT(elem), impl)


@builtin("tree_height", "tree_height(nodes)", 1, doc="the largest depth of any node (0 for a lone root)")
def _tree_height(ck, node, args):
    res = _tree_arg(ck, args[0], "tree_height")
    if res is None:
        return _fail(ck)
    nf = res[0].fn

    def impl(env):
        nodes = nf(env)
        by_id = _tree_index(env, nodes)
        return max((len(_chain(env, by_id, n["id"])) - 1 for n in nodes), default=0)

    return Compiled(INT, impl)


@builtin("common_ancestor", "common_ancestor(nodes, id, id)", 3,
         doc="the deepest node that is id1 or above it and also id2 or above it")
def _common_ancestor(ck, node, args):
    res = _tree_arg(ck, args[0], "common_ancestor")
    af, bf = _ids(ck, args[1:], "common_ancestor")
    if res is None:
        return _fail(ck)
    c, elem = res
    nf = c.fn

    def impl(env):
        by_id = _tree_index(env, nf(env))
        above_b = {n["id"] for n in _chain(env, by_id, bf(env))}
        for n in _chain(env, by_id, af(env)):
            if n["id"] in above_b:
                return n
        raise EvalError("common_ancestor(): the two nodes are in different trees")

    return Compiled(elem, impl)


# -- mazes ------------------------------------------------------------------------------------------------------
@builtin("maze_passages", "maze_passages(rows, cols, extra)", 3, random=True,
         doc="open passages {a, b} (a < b) of a random maze on a rows × cols grid of cells numbered row * cols + col: "
             "a spanning tree dug by a randomised depth-first search, plus `extra` further walls knocked down")
def _maze_passages(ck, node, args):
    rf, cf, xf = (ck.expect(a, INT, "the arguments of maze_passages()").fn for a in args)

    def impl(env):
        rows, cols, extra = rf(env), cf(env), xf(env)
        if not (1 <= rows <= MAX_GRID_SIDE and 1 <= cols <= MAX_GRID_SIDE):
            raise EvalError(f"maze_passages(): a {rows} × {cols} grid (allowed 1..{MAX_GRID_SIDE} each)")
        rng = _rng(env)
        _charge(env, 4 * rows * cols)

        def around(cell):
            r, c = divmod(cell, cols)
            return [(r + dr) * cols + c + dc for dr, dc in ((-1, 0), (0, 1), (1, 0), (0, -1))
                    if 0 <= r + dr < rows and 0 <= c + dc < cols]

        start = rng.below(rows * cols)
        seen, stack, opened = {start}, [start], set()
        while stack:
            fresh = [n for n in around(stack[-1]) if n not in seen]
            if not fresh:
                stack.pop()
                continue
            nxt = rng.choice(fresh)
            opened.add((min(stack[-1], nxt), max(stack[-1], nxt)))
            seen.add(nxt)
            stack.append(nxt)
        walls = sorted((min(a, b), max(a, b)) for a in range(rows * cols) for b in around(a)
                       if a < b and (a, b) not in opened)
        if not 0 <= extra <= len(walls):
            raise EvalError(f"maze_passages(): cannot knock down {extra} of the {len(walls)} inner walls left")
        opened.update(rng.sample(walls, extra))
        _charge_bytes(env, 3 * len(opened))
        return [{"a": a, "b": b} for a, b in sorted(opened)]

    return Compiled(ListT(PASSAGE), impl)

