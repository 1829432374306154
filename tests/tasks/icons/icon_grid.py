"""Oracles of the grammar icons.icon_grid (grammars/icons/icon_grid.yaml, programs/icons/icon_grid/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import only, step
from tests.tasks.registry import oracle


@oracle("icons.icon_grid.same_neighbors")
def _same_neighbors(tr):
    at = {(i["row"], i["col"]): i["icon"] for i in tr["state"]["icons"]}
    return sum(at.get((r + 1, c)) == kind for (r, c), kind in at.items()) + \
        sum(at.get((r, c + 1)) == kind for (r, c), kind in at.items())


@oracle("icons.icon_grid.line_kinds")
def _line_kinds(tr):
    key = "row" if tr["query"]["line"] == "row" else "col"
    return sorted({i["icon"] for i in tr["state"]["icons"] if i[key] == step(tr, "place")})


@oracle("icons.icon_grid.every_line")
def _every_line(tr):
    st, kind = tr["state"], step(tr, "kind")
    key, n = ("row", st["rows"]) if tr["query"]["line"] == "row" else ("col", st["cols"])
    return all(any(i["icon"] == kind and i[key] == k for i in st["icons"]) for k in range(n))


# -- issue 13 (wave 2): grid neighbours and directions, extremes and half-planes in a field -------------------------
_SIDE = {"above": (-1, 0), "below": (1, 0), "to the left of": (0, -1), "to the right of": (0, 1)}


@oracle("icons.icon_grid.cell_beside")
def _cell_beside(tr):
    ref = step(tr, "ref")
    dr, dc = _SIDE[tr["query"]["side"]]
    return only([i["icon"] for i in tr["state"]["icons"] if (i["row"], i["col"]) == (ref["row"] + dr, ref["col"] + dc)])


@oracle("icons.icon_grid.relative_direction")
def _relative_direction(tr):
    a, b = step(tr, "a"), step(tr, "b")
    words = []
    if a["row"] != b["row"]:
        words.append("above" if a["row"] < b["row"] else "below")
    if a["col"] != b["col"]:
        words.append("left" if a["col"] < b["col"] else "right")
    return " ".join(words)
