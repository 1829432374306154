"""Oracles of the grammar puzzles.tiles (grammars/puzzles/tiles.yaml, programs/puzzles/tiles/): each task's answer
recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from collections import deque

from tests.tasks.common import _letter_of, only, step
from tests.tasks.registry import option_fit, oracle


# -- tiles ------------------------------------------------------------------------------------------------------
def colour_areas(tiles: list[dict]) -> list[list[dict]]:
    """Side-connected same-colour areas by breadth-first search."""
    at = {(t["row"], t["col"]): t for t in tiles}
    seen, areas = set(), []
    for t in tiles:
        start = (t["row"], t["col"])
        if start in seen:
            continue
        seen.add(start)
        area, queue = [], deque([start])
        while queue:
            r, c = queue.popleft()
            area.append(at[(r, c)])
            for nxt in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if nxt in at and nxt not in seen and at[nxt]["color"] == t["color"]:
                    seen.add(nxt)
                    queue.append(nxt)
        areas.append(area)
    return areas


def longest_same(colors: list[str]) -> int:
    best = run = 0
    for i, c in enumerate(colors):
        run = run + 1 if i and colors[i - 1] == c else 1
        best = max(best, run)
    return best


def _line_colors(st, axis: str, k: int) -> list[str]:
    key, other = ("row", "col") if axis == "row" else ("col", "row")
    return [t["color"] for t in sorted((t for t in st["tiles"] if t[key] == k), key=lambda t: t[other])]


@oracle("puzzles.tiles.longest_run")
def _longest_run(tr):
    return longest_same(_line_colors(tr["state"], tr["query"]["line"], step(tr, "pick")))


@oracle("puzzles.tiles.region_size")
def _region_size(tr):
    tiles = tr["state"]["tiles"]
    m = only([t for t in tiles if t["marked"]])
    return len(only([a for a in colour_areas(tiles) if any(t is m for t in a)]))


@oracle("puzzles.tiles.region_count")
def _region_count(tr):
    color = step(tr, "color")
    return sum(a[0]["color"] == color for a in colour_areas(tr["state"]["tiles"]))


@oracle("puzzles.tiles.has_line")
def _has_line(tr):
    st = tr["state"]
    lines = [_line_colors(st, "row", r) for r in range(st["rows"])] + \
            [_line_colors(st, "column", c) for c in range(st["cols"])]
    return any(longest_same(line) >= tr["query"]["length"] for line in lines)


@option_fit("puzzles.tiles.largest_area_option")
def largest_area_fits(tr) -> list[int]:
    areas = colour_areas(tr["state"]["tiles"])
    biggest = max(len(a) for a in areas)
    colors = {a[0]["color"] for a in areas if len(a) == biggest}
    return [i for i, o in enumerate(step(tr, "options")) if o in colors]


oracle("puzzles.tiles.largest_area_option")(_letter_of(largest_area_fits))
