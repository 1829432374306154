"""Oracles of the grammar three_d.object_scene (grammars/three_d/object_scene.yaml, programs/three_d/object_scene/):
each task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

import math

from tests.tasks.common import step
from tests.tasks.registry import oracle
from tests.tasks.three_d._shared import _view


@oracle("three_d.object_scene.count_kind")
def _obj_count_kind(tr):
    t, by = step(tr, "target"), tr["query"]["by"]
    return sum(o[by] == t[by] for o in tr["state"]["objects"])


@oracle("three_d.object_scene.nearest")
def _obj_nearest(tr):
    objs = tr["state"]["objects"]
    key = (lambda o: _view(tr, o)[1]) if tr["query"]["extreme"] == "nearest to" else (lambda o: -_view(tr, o)[1])
    return min(objs, key=key)["color"] + " " + min(objs, key=key)["shape"]


@oracle("three_d.object_scene.left_right")
def _obj_left_right(tr):
    a, b = step(tr, "a"), step(tr, "b")
    left = a if _view(tr, a)[0] < _view(tr, b)[0] else b
    right = b if left is a else a
    win = left if tr["query"]["side"] == "left" else right
    return f"{win['color']} {win['shape']}"


@oracle("three_d.object_scene.tallest")
def _obj_tallest(tr):
    shape = step(tr, "shape")
    pool = [o for o in tr["state"]["objects"] if shape == "any" or o["shape"] == shape]
    best = (max if tr["query"]["extreme"] == "tallest" else min)(pool, key=lambda o: o["h"])
    return f"{best['color']} {best['shape']}"


@oracle("three_d.object_scene.left_to_right")
def _obj_left_to_right(tr):
    shape = step(tr, "shape")
    pool = [o for o in tr["state"]["objects"] if o["shape"] == shape]
    return [o["color"] for o in sorted(pool, key=lambda o: _view(tr, o)[0])]


@oracle("three_d.object_scene.count_behind")
def _obj_count_behind(tr):
    ref = step(tr, "ref")
    d0 = _view(tr, ref)[1]
    farther = tr["query"]["relation"] == "farther from"
    return sum((_view(tr, o)[1] > d0) if farther else (_view(tr, o)[1] < d0)
               for o in tr["state"]["objects"] if o is not ref and o != ref)


@oracle("three_d.object_scene.closest_to")
def _obj_closest_to(tr):
    ref = step(tr, "ref")
    others = [o for o in tr["state"]["objects"] if o["name"] != ref["name"]]
    best = min(others, key=lambda o: math.dist((o["x"], o["y"]), (ref["x"], ref["y"])))
    return best["name"]
