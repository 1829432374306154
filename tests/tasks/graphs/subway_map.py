"""Oracles of the grammar graphs.subway_map (grammars/graphs/subway_map.yaml, programs/graphs/subway_map/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import only, step
from tests.tasks.registry import oracle


# -- metro maps: recomputed from the line paths (grid points), not from the stop lists --------------------------
def _metro(st):
    """Per line, the stations on its path in order, and each station's set of lines."""
    at = {(s["row"], s["col"]): s for s in st["stations"]}
    seq = [[at[tuple(p)] for p in path if tuple(p) in at] for path in st["paths"]]
    on = {s["id"]: {i for i, line in enumerate(seq) if s in line} for s in st["stations"]}
    return seq, on


@oracle("graphs.subway_map.fewest_changes")
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


@oracle("graphs.subway_map.stops_between")
def _metro_between(tr):
    st = tr["state"]
    seq, _ = _metro(st)
    a, b = step(tr, "a"), step(tr, "b")
    line = next(s for s in seq if a in s and b in s)
    return abs(line.index(a) - line.index(b)) - 1


@oracle("graphs.subway_map.direct_line")
def _metro_direct(tr):
    st = tr["state"]
    seq, _ = _metro(st)
    a, b = step(tr, "a"), step(tr, "b")
    return only([st["lines"][i]["color"] for i, s in enumerate(seq) if a in s and b in s])


@oracle("graphs.subway_map.one_change_reach")
def _metro_reach(tr):
    st = tr["state"]
    seq, on = _metro(st)
    home = step(tr, "home")
    lines = set(on[home["id"]])
    if tr["query"]["changes"] == 1:
        lines |= {j for j in range(len(seq)) for i in on[home["id"]] if any(s in seq[j] for s in seq[i])}
    return len({s["id"] for j in lines for s in seq[j]} - {home["id"]})
