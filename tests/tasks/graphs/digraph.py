"""Oracles of the grammar graphs.digraph (grammars/graphs/digraph.yaml, programs/graphs/digraph/): each task's answer
recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.graphs._shared import INF, _matrix
from tests.tasks.registry import oracle


# -- directed graphs --------------------------------------------------------------------------------------------
@oracle("graphs.digraph.arrow_count")
def _dg_arrow_count(tr):
    end = "b" if tr["query"]["direction"] == "into" else "a"
    picked = {v["id"] for v in step(tr, "picked")}
    assert len(picked) == 1 + tr["level"] // 4
    return sum(e[end] in picked for e in tr["state"]["edges"])


@oracle("graphs.digraph.one_way_reach")
def _dg_reach(tr):
    st = tr["state"]
    s, t = step(tr, "source"), step(tr, "target")
    return _matrix(st["n"], st["edges"], True, False)[s["id"]][t["id"]] < INF


@oracle("graphs.digraph.has_cycle")
def _dg_cycle(tr):
    st = tr["state"]
    d = _matrix(st["n"], st["edges"], True, False)
    # A cycle passes through some arc a → b whose head leads back to its tail.
    return any(d[e["b"]][e["a"]] < INF for e in st["edges"])


@oracle("graphs.digraph.source_nodes")
def _dg_sources(tr):
    st = tr["state"]
    end = "b" if tr["query"]["end"] == "no arrow points into" else "a"
    used = {e[end] for e in st["edges"]}
    return [v["label"] for v in st["nodes"] if v["id"] not in used]


@oracle("graphs.digraph.upstream_count")
def _dg_upstream(tr):
    st = tr["state"]
    v = step(tr, "node")["id"]
    d = _matrix(st["n"], st["edges"], True, False)
    return sum(d[u][v] < INF for u in range(st["n"]) if u != v)


@oracle("graphs.digraph.direct_targets")
def _dg_direct(tr):
    st = tr["state"]
    v = step(tr, "node")["id"]
    near, far = ("a", "b") if tr["query"]["way"] == "out of" else ("b", "a")
    ids = {e[far] for e in st["edges"] if e[near] == v}
    return [n["label"] for n in st["nodes"] if n["id"] in ids]
