"""Oracles of the grammar icons.shape_field (grammars/icons/shape_field.yaml, programs/icons/shape_field/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

import math

from tests.tasks.common import first_mode, step
from tests.tasks.registry import oracle


@oracle("icons.shape_field.count_matching")
def _field_count_matching(tr):
    pick = step(tr, "pick")
    attr = tr["query"]["attribute"]
    return sum(s[attr] == pick[attr] for s in tr["state"]["shapes"])


@oracle("icons.shape_field.count_conjunction")
def _field_conjunction(tr):
    pick = step(tr, "pick")
    return sum(s["color"] == pick["color"] and s["size"] == pick["size"] for s in tr["state"]["shapes"])


@oracle("icons.shape_field.relation")
def _field_relation(tr):
    a, b = step(tr, "a"), step(tr, "b")
    rel = tr["query"]["relation"]
    return {"left of": a["x"] < b["x"], "right of": a["x"] > b["x"], "above": a["y"] < b["y"],
            "below": a["y"] > b["y"]}[rel]


@oracle("icons.shape_field.nearest_color")
def _field_nearest(tr):
    ref = step(tr, "ref")
    others = [s for s in tr["state"]["shapes"] if s is not ref]
    return min(others, key=lambda s: math.hypot(s["x"] - ref["x"], s["y"] - ref["y"]))["color"]


@oracle("icons.shape_field.colors_left_to_right")
def _field_left_to_right(tr):
    shapes = tr["state"]["shapes"]
    kind = first_mode([s["shape"] for s in shapes])
    return [s["color"] for s in sorted((s for s in shapes if s["shape"] == kind), key=lambda s: s["x"])]


@oracle("icons.shape_field.colors_present")
def _field_present(tr):
    kind = step(tr, "kind")
    return sorted({s["color"] for s in tr["state"]["shapes"] if s["shape"] == kind})
