"""Independent answers for the graphs domain, recomputed from the recorded state with plain Python: Floyd–Warshall
and transitive closures instead of the library's BFS and Dijkstra, parent walks instead of its tree index."""
from __future__ import annotations

from tests.oracles import step
from tests.oracles_boards import only

INF = float("inf")


def _matrix(n: int, edges: list[dict], directed: bool, weighted: bool) -> list[list[float]]:
    """All-pairs least cost (Floyd–Warshall); every edge costs 1 unless weighted."""
    d = [[0 if i == j else INF for j in range(n)] for i in range(n)]
    for e in edges:
        w = e["w"] if weighted else 1
        d[e["a"]][e["b"]] = min(d[e["a"]][e["b"]], w)
        if not directed:
            d[e["b"]][e["a"]] = min(d[e["b"]][e["a"]], w)
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if d[i][k] + d[k][j] < d[i][j]:
                    d[i][j] = d[i][k] + d[k][j]
    return d


def _letter(options: list, correct: list) -> str:
    """The option letter of the single correct option (option tasks must have exactly one)."""
    hits = [i for i, o in enumerate(options) if o in correct]
    assert len(hits) == 1, (options, correct)
    return "ABCDEFGH"[hits[0]]


# -- weighted, undirected graphs --------------------------------------------------------------------------------
def _wg_fewest_edges(tr):
    st = tr["state"]
    a, b = step(tr, "ends")
    return _matrix(st["n"], st["edges"], False, False)[a["id"]][b["id"]]


def _wg_cheapest(tr):
    st = tr["state"]
    a, b = step(tr, "ends")
    return _matrix(st["n"], st["edges"], False, True)[a["id"]][b["id"]]


def _degrees(st) -> list[int]:
    deg = [0] * st["n"]
    for e in st["edges"]:
        deg[e["a"]] += 1
        deg[e["b"]] += 1
    return deg


def _wg_degree_extreme(tr):
    deg = _degrees(tr["state"])
    target = max(deg) if tr["query"]["extreme"] == "most" else min(deg)
    return tr["state"]["nodes"][deg.index(target)]["label"]


def _wg_components(tr):
    st = tr["state"]
    d = _matrix(st["n"], st["edges"], False, False)
    # Each component is counted at its smallest node: the one no smaller node can reach.
    return sum(all(d[j][i] == INF for j in range(i)) for i in range(st["n"]))


def _wg_heavy(tr):
    t, side = step(tr, "threshold"), tr["query"]["side"]
    return sum((e["w"] > t) if side == "greater than" else (e["w"] < t) for e in tr["state"]["edges"])


def _wg_connected(tr):
    st = tr["state"]
    s, t = step(tr, "source"), step(tr, "target")
    return _matrix(st["n"], st["edges"], False, False)[s["id"]][t["id"]] < INF


def _joined(st, v: int) -> set[int]:
    return {e["b"] for e in st["edges"] if e["a"] == v} | {e["a"] for e in st["edges"] if e["b"] == v}


def _wg_neighbor_letters(tr):
    st = tr["state"]
    c = step(tr, "center")
    same = tr["query"]["which"] == "same colour"
    return [st["nodes"][v]["label"] for v in _joined(st, c["id"]) if not same or st["nodes"][v]["color"] == c["color"]]


def _wg_neighbor_option(tr):
    st = tr["state"]
    near = [st["nodes"][v]["label"] for v in _joined(st, step(tr, "center")["id"])]
    return _letter(step(tr, "options"), near)


# -- directed graphs --------------------------------------------------------------------------------------------
def _dg_arrow_count(tr):
    end = "b" if tr["query"]["direction"] == "into" else "a"
    picked = {v["id"] for v in step(tr, "picked")}
    assert len(picked) == 1 + tr["level"] // 4
    return sum(e[end] in picked for e in tr["state"]["edges"])


def _dg_reach(tr):
    st = tr["state"]
    s, t = step(tr, "source"), step(tr, "target")
    return _matrix(st["n"], st["edges"], True, False)[s["id"]][t["id"]] < INF


def _dg_cycle(tr):
    st = tr["state"]
    d = _matrix(st["n"], st["edges"], True, False)
    # A cycle passes through some arc a → b whose head leads back to its tail.
    return any(d[e["b"]][e["a"]] < INF for e in st["edges"])


def _dg_sources(tr):
    st = tr["state"]
    end = "b" if tr["query"]["end"] == "no arrow points into" else "a"
    used = {e[end] for e in st["edges"]}
    return [v["label"] for v in st["nodes"] if v["id"] not in used]


# -- rooted trees -----------------------------------------------------------------------------------------------
def _up(nodes: list[dict], v: int) -> list[int]:
    """v, its parent, …, the root (ids)."""
    parent = {n["id"]: n["parent"] for n in nodes}
    chain = [v]
    while parent[chain[-1]] >= 0:
        chain.append(parent[chain[-1]])
    return chain


def _tree_height(tr):
    nodes = tr["state"]["nodes"]
    tall = max(len(_up(nodes, n["id"])) - 1 for n in nodes)
    return tall + 1 if tr["query"]["measure"] == "levels" else tall


def _tree_leaf_count(tr):
    nodes = tr["state"]["nodes"]
    parents = {n["parent"] for n in nodes}
    color = step(tr, "color")
    return sum(n["id"] not in parents and n["color"] == color for n in nodes)


def _tree_parent(tr):
    nodes = tr["state"]["nodes"]
    k = 1 if tr["query"]["relative"] == "parent" else 2
    return nodes[_up(nodes, step(tr, "node")["id"])[k]]["label"]


def _tree_common_ancestor(tr):
    nodes = tr["state"]["nodes"]
    a, b = step(tr, "pair")
    shared = set(_up(nodes, a["id"])) & set(_up(nodes, b["id"]))
    lowest = max(shared, key=lambda v: len(_up(nodes, v)))
    return _letter(step(tr, "options"), [nodes[lowest]["label"]])


# -- mazes ------------------------------------------------------------------------------------------------------
def _maze_moves(st) -> dict[int, int]:
    """Moves from the start to every cell it can reach, stepping only through open passages."""
    rows, cols = st["rows"], st["cols"]
    open_pairs = {frozenset((p["a"], p["b"])) for p in st["passages"]}
    moves = {st["start"]: 0}
    frontier = [st["start"]]
    while frontier:
        nxt = []
        for cell in frontier:
            r, c = divmod(cell, cols)
            for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                other = rr * cols + cc
                if 0 <= rr < rows and 0 <= cc < cols and other not in moves and \
                        frozenset((cell, other)) in open_pairs:
                    moves[other] = moves[cell] + 1
                    nxt.append(other)
        frontier = nxt
    return moves


def _maze_route(tr):
    return _maze_moves(tr["state"])[tr["state"]["goal"]]


def _maze_reachable(tr):
    return tr["state"]["goal"] in _maze_moves(tr["state"])


def _maze_dead_ends(tr):
    st = tr["state"]
    openings = [0] * (st["rows"] * st["cols"])
    for p in st["passages"]:
        openings[p["a"]] += 1
        openings[p["b"]] += 1
    by_row = tr["query"]["scope"] == "row"
    line, width = step(tr, "line"), step(tr, "width")
    assert width == min(1 + tr["level"] // 3, st["rows"] if by_row else st["cols"])
    return sum(k == 1 and line <= divmod(cell, st["cols"])[0 if by_row else 1] < line + width
               for cell, k in enumerate(openings))


# -- issue 13 (wave 2): depths, subtrees, tree distances, siblings; upstream sets and single arrows -------------------
def _tree_node_depth(tr):
    return len(_up(tr["state"]["nodes"], step(tr, "node")["id"])) - 1


def _tree_subtree_size(tr):
    nodes = tr["state"]["nodes"]
    v = step(tr, "node")["id"]
    return sum(v in _up(nodes, n["id"])[1:] for n in nodes)


def _tree_distance(tr):
    nodes = tr["state"]["nodes"]
    a, b = step(tr, "pair")
    up_a, up_b = _up(nodes, a["id"]), _up(nodes, b["id"])
    # steps up from a to the first node on b's chain, plus the steps up from b to it
    meet = next(v for v in up_a if v in up_b)
    return up_a.index(meet) + up_b.index(meet)


def _tree_siblings(tr):
    nodes = tr["state"]["nodes"]
    me = step(tr, "node")
    return [n["label"] for n in nodes if n["parent"] == me["parent"] and n["id"] != me["id"]]


def _dg_upstream(tr):
    st = tr["state"]
    v = step(tr, "node")["id"]
    d = _matrix(st["n"], st["edges"], True, False)
    return sum(d[u][v] < INF for u in range(st["n"]) if u != v)


def _dg_direct(tr):
    st = tr["state"]
    v = step(tr, "node")["id"]
    near, far = ("a", "b") if tr["query"]["way"] == "out of" else ("b", "a")
    ids = {e[far] for e in st["edges"] if e[near] == v}
    return [n["label"] for n in st["nodes"] if n["id"] in ids]


# -- metro maps: recomputed from the line paths (grid points), not from the stop lists --------------------------
def _metro(st):
    """Per line, the stations on its path in order, and each station's set of lines."""
    at = {(s["row"], s["col"]): s for s in st["stations"]}
    seq = [[at[tuple(p)] for p in path if tuple(p) in at] for path in st["paths"]]
    on = {s["id"]: {i for i, line in enumerate(seq) if s in line} for s in st["stations"]}
    return seq, on


def _metro_changes(tr):
    st = tr["state"]
    seq, on = _metro(st)
    k = len(seq)
    # breadth-first over lines: two lines are one change apart when they share a station
    a, b = step(tr, "trip")
    dist = {i: 0 for i in on[a["id"]]}
    frontier = list(dist)
    while frontier:
        nxt = []
        for i in frontier:
            for j in range(k):
                if j not in dist and any(s in seq[j] for s in seq[i]):
                    dist[j] = dist[i] + 1
                    nxt.append(j)
        frontier = nxt
    return min(dist[j] for j in on[b["id"]])


def _metro_between(tr):
    st = tr["state"]
    seq, _ = _metro(st)
    a, b = step(tr, "a"), step(tr, "b")
    line = next(s for s in seq if a in s and b in s)
    return abs(line.index(a) - line.index(b)) - 1


def _metro_direct(tr):
    st = tr["state"]
    seq, _ = _metro(st)
    a, b = step(tr, "a"), step(tr, "b")
    return only([st["lines"][i]["color"] for i, s in enumerate(seq) if a in s and b in s])


def _tree_widest_level(tr):
    nodes = tr["state"]["nodes"]
    per = {}
    for n in nodes:
        d = len(_up(nodes, n["id"]))  # 1 for the top node
        per[d] = per.get(d, 0) + 1
    return max(per, key=per.get)


def _metro_reach(tr):
    st = tr["state"]
    seq, on = _metro(st)
    home = step(tr, "home")
    lines = set(on[home["id"]])
    if tr["query"]["changes"] == 1:
        lines |= {j for j in range(len(seq)) for i in on[home["id"]] if any(s in seq[j] for s in seq[i])}
    return len({s["id"] for j in lines for s in seq[j]} - {home["id"]})


ORACLES = {
    "graphs.weighted_graph.fewest_edges": _wg_fewest_edges,
    "graphs.weighted_graph.cheapest_route": _wg_cheapest,
    "graphs.weighted_graph.degree_extreme": _wg_degree_extreme,
    "graphs.weighted_graph.component_count": _wg_components,
    "graphs.weighted_graph.heavy_edges": _wg_heavy,
    "graphs.weighted_graph.connected_pair": _wg_connected,
    "graphs.weighted_graph.neighbor_letters": _wg_neighbor_letters,
    "graphs.weighted_graph.neighbor_option": _wg_neighbor_option,
    "graphs.digraph.arrow_count": _dg_arrow_count,
    "graphs.digraph.one_way_reach": _dg_reach,
    "graphs.digraph.has_cycle": _dg_cycle,
    "graphs.digraph.source_nodes": _dg_sources,
    "graphs.rooted_tree.height": _tree_height,
    "graphs.rooted_tree.leaf_count": _tree_leaf_count,
    "graphs.rooted_tree.parent_of": _tree_parent,
    "graphs.rooted_tree.common_ancestor": _tree_common_ancestor,
    "graphs.maze.route_length": _maze_route,
    "graphs.maze.goal_reachable": _maze_reachable,
    "graphs.maze.dead_ends": _maze_dead_ends,
    "graphs.rooted_tree.node_depth": _tree_node_depth,
    "graphs.rooted_tree.subtree_size": _tree_subtree_size,
    "graphs.rooted_tree.tree_distance": _tree_distance,
    "graphs.rooted_tree.siblings": _tree_siblings,
    "graphs.digraph.upstream_count": _dg_upstream,
    "graphs.digraph.direct_targets": _dg_direct,
    "graphs.subway_map.fewest_changes": _metro_changes,
    "graphs.subway_map.stops_between": _metro_between,
    "graphs.subway_map.direct_line": _metro_direct,
    "graphs.rooted_tree.widest_level": _tree_widest_level,
    "graphs.subway_map.one_change_reach": _metro_reach,
}
