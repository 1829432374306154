"""Oracles of the grammar illustrations.pantry (grammars/illustrations/pantry.yaml, programs/illustrations/pantry/):
each task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from collections import Counter

from tests.tasks.common import step
from tests.tasks.registry import oracle

SHELVES = ("top", "middle", "bottom")


def _name(asset: str) -> str:
    # the display name is the words of the asset name
    return asset.replace("-", " ")


@oracle("illustrations.pantry.count_kind")
def _pantry_count(tr):
    target = step(tr, "target")["asset"]
    return sum(t["asset"] == target for t in tr["state"]["items"])


@oracle("illustrations.pantry.most_common")
def _pantry_most_common(tr):
    (asset, _), = Counter(t["asset"] for t in tr["state"]["items"]).most_common(1)
    return _name(asset)


@oracle("illustrations.pantry.end_of_shelf")
def _pantry_end(tr):
    # a shelf is the foods resting on one board: the highest resting height is the top shelf
    items = tr["state"]["items"]
    heights = sorted({round(t["y"], 6) for t in items}, reverse=True)
    boards = sorted({round(b, 6) for b in tr["state"]["boards"]}, reverse=True)
    shelf = step(tr, "shelf")
    resting = round(boards[SHELVES.index(shelf)] + 2.0 + tr["state"]["half"], 6)
    assert resting in heights
    row = [t for t in items if round(t["y"], 6) == resting]
    end = (min if tr["query"]["side"] == "left" else max)(row, key=lambda t: t["x"])
    return _name(end["asset"])
