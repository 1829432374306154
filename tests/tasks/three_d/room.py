"""Oracles of the grammar three_d.room (grammars/three_d/room.yaml, programs/three_d/room/): each task's answer
recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle
from tests.tasks.three_d._shared import _view


# -- rooms: the footprint's middle, seen along the camera's axes -------------------------------------------------
def _room_mid(tr, f):
    return _view(tr, {"x": f["x"] + f["w"] / 2, "y": f["y"] + f["d"] / 2})


@oracle("three_d.room.against_wall")
def _room_against(tr):
    st, wall = tr["state"], tr["query"]["wall"]
    back = 2.4 * st["rows"]
    touching = [f for f in st["furniture"] if (abs(f["y"] + f["d"] - back) < 1e-6 if wall == "back"
                                               else abs(f["x"]) < 1e-6)]
    # and every other piece stands clear of that wall
    assert all(back - f["y"] - f["d"] >= 0.3 if wall == "back" else f["x"] >= 0.5
               for f in st["furniture"] if f not in touching)
    return len(touching)


@oracle("three_d.room.nearest")
def _room_nearest(tr):
    fs = tr["state"]["furniture"]
    sign = 1 if tr["query"]["extreme"] == "nearest to" else -1
    return min(fs, key=lambda f: sign * _room_mid(tr, f)[1])["name"]


@oracle("three_d.room.count_left")
def _room_count_left(tr):
    ref = step(tr, "ref")
    s0 = _room_mid(tr, ref)[0]
    left = tr["query"]["side"] == "left"
    return sum((_room_mid(tr, f)[0] < s0) if left else (_room_mid(tr, f)[0] > s0)
               for f in tr["state"]["furniture"] if f["name"] != ref["name"])
