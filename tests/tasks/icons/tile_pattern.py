"""Oracles of the grammar icons.tile_pattern (grammars/icons/tile_pattern.yaml, programs/icons/tile_pattern/): each
task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


# -- wallpaper patterns: the smallest block the visible cells agree with, read at the '?' --------------------------
@oracle("icons.tile_pattern.period_length")
def _tile_period(tr):
    st = tr["state"]
    grid = {(x["row"], x["col"]): x["icon"] for x in st["cells"]}
    along = tr["query"]["line"] == "row"
    span = st["cols"] if along else st["rows"]
    for b in range(1, span // 2 + 1):
        shift = (0, b) if along else (b, 0)
        if all(grid.get((r + shift[0], c + shift[1]), icon) == icon for (r, c), icon in grid.items()):
            return b
    raise AssertionError("no repeat within half the grid")


@oracle("icons.tile_pattern.missing_tile")
def _tile_missing(tr):
    st = tr["state"]
    seen = {(x["row"], x["col"]): x["icon"] for x in st["visible"]}
    q = st["asked"]
    blocks = sorted(((a, b) for a in range(1, max(1, st["rows"] // 2) + 1) for b in range(1, st["cols"] // 2 + 1)),
                    key=lambda s: (s[0] * s[1], s))
    for a, b in blocks:
        classes = {}
        if all(classes.setdefault((r % a, c % b), icon) == icon for (r, c), icon in seen.items()):
            return classes[q["row"] % a, q["col"] % b]
    raise AssertionError("no block fits")
