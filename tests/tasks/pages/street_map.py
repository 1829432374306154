"""Oracles of the grammar pages.street_map (grammars/pages/street_map.yaml, programs/pages/street_map/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


# -- street map: blocks as (row, col), rows growing southwards ------------------------------------------------------
@oracle("pages.street_map.direction_of")
def _map_direction(tr):
    a, b = step(tr, "a"), step(tr, "b")
    ns = "north" if b["row"] < a["row"] else "south" if b["row"] > a["row"] else ""
    ew = "east" if b["col"] > a["col"] else "west" if b["col"] < a["col"] else ""
    return f"{ns}-{ew}" if ns and ew else ns + ew


@oracle("pages.street_map.landmark_toward")
def _map_toward(tr):
    d, ref = tr["query"]["direction"], step(tr, "ref")
    want = ((-1 if "north" in d else 1 if "south" in d else 0), (1 if "east" in d else -1 if "west" in d else 0))

    def sgn(v):
        return (v > 0) - (v < 0)

    (hit,) = [p["name"] for p in tr["state"]["places"] if p["i"] != ref["i"]
              and (sgn(p["row"] - ref["row"]), sgn(p["col"] - ref["col"])) == want]
    return hit


@oracle("pages.street_map.blocks_between")
def _map_blocks(tr):
    a, b = step(tr, "a"), step(tr, "b")
    return abs(a["row"] - b["row"]) + abs(a["col"] - b["col"])


@oracle("pages.street_map.count_beyond")
def _map_count(tr):
    s, side = tr["state"], tr["query"]["side"]
    road = step(tr, "road")
    if side in ("east", "west"):
        k = s["avenue_names"].index(road)  # avenue k runs along the west edge of block column k
        return sum(1 for p in s["places"] if (p["col"] >= k if side == "east" else p["col"] < k))
    k = s["street_names"].index(road)  # street k runs along the north edge of block row k
    return sum(1 for p in s["places"] if (p["row"] < k if side == "north" else p["row"] >= k))


@oracle("pages.street_map.nearest_landmark")
def _map_nearest(tr):
    ref = step(tr, "ref")
    dist = {p["name"]: abs(p["row"] - ref["row"]) + abs(p["col"] - ref["col"])
            for p in tr["state"]["places"] if p["i"] != ref["i"]}
    best = (min if tr["query"]["extreme"] == "nearest" else max)(dist.values())
    (name,) = [n for n, d in dist.items() if d == best]
    return name
