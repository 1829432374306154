"""Oracles of the grammar icons.icon_field (grammars/icons/icon_field.yaml, programs/icons/icon_field/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

import math
from collections import Counter

from tests.tasks.common import _letter_of, step
from tests.tasks.registry import option_fit, oracle


@oracle("icons.icon_field.count_either")
def _count_either(tr):
    kind, color = step(tr, "kind"), step(tr, "color")
    return sum(i["icon"] == kind or i["color"] == color for i in tr["state"]["icons"])


@oracle("icons.icon_field.nearest_icon")
def _nearest(tr):
    ref = step(tr, "ref")
    others = [i for i in tr["state"]["icons"] if i is not ref]
    dist = lambda i: math.hypot(i["x"] - ref["x"], i["y"] - ref["y"])  # noqa: E731
    pick = min if tr["query"]["extreme"] == "closest" else max
    return pick(others, key=dist)["icon"]


@option_fit("icons.icon_field.common_kind_option")
def common_kind_fits(tr) -> list[int]:
    counts = Counter(i["icon"] for i in tr["state"]["icons"])
    best = max(counts.values())
    return [k for k, o in enumerate(step(tr, "options")) if counts.get(o, 0) == best]


@oracle("icons.icon_field.extreme_position")
def _extreme_position(tr):
    axis, sign = {"highest": ("y", 1), "lowest": ("y", -1), "leftmost": ("x", 1), "rightmost": ("x", -1)}[
        tr["query"]["extreme"]]
    return min(tr["state"]["icons"], key=lambda i: sign * i[axis])["icon"]


@oracle("icons.icon_field.count_beyond")
def _count_beyond(tr):
    ref = step(tr, "ref")
    side = tr["query"]["side"]
    test = {"left of": lambda i: i["x"] < ref["x"], "right of": lambda i: i["x"] > ref["x"],
            "above": lambda i: i["y"] < ref["y"], "below": lambda i: i["y"] > ref["y"]}[side]
    return sum(test(i) for i in tr["state"]["icons"] if i is not ref)


oracle("icons.icon_field.common_kind_option")(_letter_of(common_kind_fits))
