"""Oracles of the grammar graphs.weighted_graph (grammars/graphs/weighted_graph.yaml, programs/graphs/weighted_graph/):
each task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import options_matching, step
from tests.tasks.graphs._shared import INF, _letter, _matrix
from tests.tasks.registry import option_fit, oracle


# -- weighted, undirected graphs --------------------------------------------------------------------------------
@oracle("graphs.weighted_graph.fewest_edges")
def _wg_fewest_edges(tr):
    st = tr["state"]
    a, b = step(tr, "ends")
    return _matrix(st["n"], st["edges"], False, False)[a["id"]][b["id"]]


@oracle("graphs.weighted_graph.cheapest_route")
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


@oracle("graphs.weighted_graph.degree_extreme")
def _wg_degree_extreme(tr):
    deg = _degrees(tr["state"])
    target = max(deg) if tr["query"]["extreme"] == "most" else min(deg)
    return tr["state"]["nodes"][deg.index(target)]["label"]


@oracle("graphs.weighted_graph.component_count")
def _wg_components(tr):
    st = tr["state"]
    d = _matrix(st["n"], st["edges"], False, False)
    # Each component is counted at its smallest node: the one no smaller node can reach.
    return sum(all(d[j][i] == INF for j in range(i)) for i in range(st["n"]))


@oracle("graphs.weighted_graph.heavy_edges")
def _wg_heavy(tr):
    t, side = step(tr, "threshold"), tr["query"]["side"]
    return sum((e["w"] > t) if side == "greater than" else (e["w"] < t) for e in tr["state"]["edges"])


@oracle("graphs.weighted_graph.connected_pair")
def _wg_connected(tr):
    st = tr["state"]
    s, t = step(tr, "source"), step(tr, "target")
    return _matrix(st["n"], st["edges"], False, False)[s["id"]][t["id"]] < INF


def _joined(st, v: int) -> set[int]:
    return {e["b"] for e in st["edges"] if e["a"] == v} | {e["a"] for e in st["edges"] if e["b"] == v}


@oracle("graphs.weighted_graph.neighbor_letters")
def _wg_neighbor_letters(tr):
    st = tr["state"]
    c = step(tr, "center")
    same = tr["query"]["which"] == "same colour"
    return [st["nodes"][v]["label"] for v in _joined(st, c["id"]) if not same or st["nodes"][v]["color"] == c["color"]]


@oracle("graphs.weighted_graph.neighbor_option")
def _wg_neighbor_option(tr):
    st = tr["state"]
    near = [st["nodes"][v]["label"] for v in _joined(st, step(tr, "center")["id"])]
    return _letter(step(tr, "options"), near)


@option_fit("graphs.weighted_graph.neighbor_option")
def _neighbor_fits(tr):
    st = tr["state"]
    return options_matching(tr, [st["nodes"][v]["label"] for v in _joined(st, step(tr, "center")["id"])])
