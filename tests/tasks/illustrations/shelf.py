"""Oracles of the grammar illustrations.shelf (grammars/illustrations/shelf.yaml, programs/illustrations/shelf/): each
task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


# -- shelf --------------------------------------------------------------------------------------------------------
SHELVES = ("top", "middle", "bottom")


def _on(tr, shelf):
    # what stands on a shelf: its base at that board, read from the things' heights rather than their labels
    things = tr["state"]["things"]
    levels = sorted({round(t["y"], 6) for t in things}, reverse=True)
    st = tr["state"]
    boards = [round(st["case"]["y"] + a["v0"] * st["sh"], 6) for a in st["anchors"]]
    assert set(levels) <= set(boards)
    return [t for t in things if round(t["y"], 6) == boards[SHELVES.index(shelf)]]


@oracle("illustrations.shelf.count_on_shelf")
def _shelf_count(tr):
    return sum(t["kind"] == tr["query"]["kind"] for t in _on(tr, tr["query"]["shelf"]))


@oracle("illustrations.shelf.which_shelf")
def _shelf_which(tr):
    it = step(tr, "it")
    return next(s for s in SHELVES if any(t is it or t == it for t in _on(tr, s)))


@oracle("illustrations.shelf.fullest_shelf")
def _shelf_fullest(tr):
    sizes = [len(_on(tr, s)) for s in SHELVES]
    assert sizes.count(max(sizes)) == 1
    return SHELVES[sizes.index(max(sizes))]


@oracle("illustrations.shelf.left_neighbour")
def _shelf_neighbour(tr):
    things, at = tr["state"]["things"], step(tr, "at")
    me = things[at]
    row = sorted((t for t in things if t["y"] == me["y"]), key=lambda t: t["x"])
    k = row.index(me)
    return row[k - 1 if tr["query"]["side"] == "left" else k + 1]["kind"]


@oracle("illustrations.shelf.shelf_without")
def _shelf_without(tr):
    kind = tr["query"]["kind"]
    empty = [s for s in SHELVES if not any(t["kind"] == kind for t in _on(tr, s))]
    assert len(empty) == 1
    return empty[0]
