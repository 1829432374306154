"""Independent recomputation of the boards tasks from the recorded state (and the program's recorded random picks).

Plain Python: no expression language and no compiler.expr.lib_grid, so a bug there cannot hide here. Option tasks
go through `*_fits`, which lists every option that satisfies the question; the oracle insists on exactly one.
"""
from __future__ import annotations

from collections import deque

from tests.oracles import step

STEPS = {
    "rook": ([(-1, 0), (1, 0), (0, -1), (0, 1)], True),
    "bishop": ([(-1, -1), (-1, 1), (1, -1), (1, 1)], True),
    "queen": ([(-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1)], True),
    "king": ([(-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1)], False),
    "knight": ([(-2, -1), (-2, 1), (-1, -2), (-1, 2), (1, -2), (1, 2), (2, -1), (2, 1)], False),
}


def only(values: list):
    assert len(values) == 1, f"expected exactly one, got {values}"
    return values[0]


# -- chess ------------------------------------------------------------------------------------------------------
def reachable(state: dict, piece: dict, captures: bool) -> set[tuple[int, int]]:
    """Squares a piece can move to: sliding stops at the first piece; an enemy piece there may be captured."""
    size = state["rows"]
    board = {(p["row"], p["col"]): p for p in state["pieces"]}
    deltas, slides = STEPS[piece["kind"]]
    out = set()
    for dr, dc in deltas:
        r, c = piece["row"] + dr, piece["col"] + dc
        while 0 <= r < size and 0 <= c < size:
            other = board.get((r, c))
            if other is not None:
                if captures and other["side"] != piece["side"]:
                    out.add((r, c))
                break
            out.add((r, c))
            if not slides:
                break
            r, c = r + dr, c + dc
    return out


def square(state: dict, r: int, c: int) -> str:
    return "ABCDEFGHIJ"[c] + str(state["rows"] - r)


def _move_count(tr):
    # levels 0-3: the named piece; 4-6: every piece of its kind and side; 7-9: every piece of its side
    mover, level = step(tr, "mover"), tr["level"]
    assert mover["kind"] == tr["query"]["kind"]
    pieces = tr["state"]["pieces"]
    movers = [mover] if level < 4 else [p for p in pieces if p["side"] == mover["side"]
                                         and (level >= 7 or p["kind"] == mover["kind"])]
    return sum(len(reachable(tr["state"], p, captures=True)) for p in movers)


def _attacked(tr):
    st, side = tr["state"], tr["query"]["side"]
    hit = set()
    for p in st["pieces"]:
        if p["side"] != side:
            hit |= reachable(st, p, captures=True)
    return sum((p["row"], p["col"]) in hit for p in st["pieces"] if p["side"] == side)


def _on_shade(tr):
    q = tr["query"]
    dark = q["shade"] == "dark"
    return sum(p["side"] == q["side"] and ((p["row"] + p["col"]) % 2 == 1) == dark for p in tr["state"]["pieces"])


def move_option_fits(tr) -> list[int]:
    st, mover = tr["state"], step(tr, "mover")
    names = {square(st, r, c) for r, c in reachable(st, mover, captures=False)}
    return [i for i, o in enumerate(step(tr, "options")) if o in names]


# -- sudoku -----------------------------------------------------------------------------------------------------
def unit_cells(tr, unit: str, number: int) -> list[dict]:
    st = tr["state"]
    k = number - 1
    if unit == "row":
        return [c for c in st["cells"] if c["row"] == k]
    if unit == "column":
        return [c for c in st["cells"] if c["col"] == k]
    per_band = st["n"] // st["box_cols"]
    br, bc = divmod(k, per_band)
    return [c for c in st["cells"] if c["row"] // st["box_rows"] == br and c["col"] // st["box_cols"] == bc]


def _missing(tr, cells) -> list[int]:
    shown = {c["value"] for c in cells if c["shown"]}
    return sorted(set(range(1, tr["state"]["n"] + 1)) - shown)


def _missing_digit(tr):
    cells = unit_cells(tr, tr["query"]["unit"], step(tr, "place"))
    assert sum(not c["shown"] for c in cells) == 1
    return only(_missing(tr, cells))


def _marked_cell(tr):
    st = tr["state"]
    m = only([c for c in st["cells"] if c["marked"]])
    box = lambda c: (c["row"] // st["box_rows"], c["col"] // st["box_cols"])  # noqa: E731
    peers = [c for c in st["cells"] if c["row"] == m["row"] or c["col"] == m["col"] or box(c) == box(m)]
    return only(_missing(tr, peers))


def _missing_set(tr):
    cells = unit_cells(tr, tr["query"]["unit"], step(tr, "place"))
    return [str(d) for d in _missing(tr, cells)]


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


def _longest_run(tr):
    return longest_same(_line_colors(tr["state"], tr["query"]["line"], step(tr, "pick")))


def _region_size(tr):
    tiles = tr["state"]["tiles"]
    m = only([t for t in tiles if t["marked"]])
    return len(only([a for a in colour_areas(tiles) if any(t is m for t in a)]))


def _region_count(tr):
    color = step(tr, "color")
    return sum(a[0]["color"] == color for a in colour_areas(tr["state"]["tiles"]))


def _has_line(tr):
    st = tr["state"]
    lines = [_line_colors(st, "row", r) for r in range(st["rows"])] + \
            [_line_colors(st, "column", c) for c in range(st["cols"])]
    return any(longest_same(line) >= tr["query"]["length"] for line in lines)


def largest_area_fits(tr) -> list[int]:
    areas = colour_areas(tr["state"]["tiles"])
    biggest = max(len(a) for a in areas)
    colors = {a[0]["color"] for a in areas if len(a) == biggest}
    return [i for i, o in enumerate(step(tr, "options")) if o in colors]


def _letter_of(fits):
    return lambda tr: "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[only(fits(tr))]


ORACLES = {
    "games.chess.move_count": _move_count,
    "games.chess.attacked_pieces": _attacked,
    "games.chess.count_on_shade": _on_shade,
    "games.chess.move_option": _letter_of(move_option_fits),
    "puzzles.sudoku.missing_digit": _missing_digit,
    "puzzles.sudoku.marked_cell": _marked_cell,
    "puzzles.sudoku.missing_set": _missing_set,
    "puzzles.tiles.longest_run": _longest_run,
    "puzzles.tiles.region_size": _region_size,
    "puzzles.tiles.region_count": _region_count,
    "puzzles.tiles.has_line": _has_line,
    "puzzles.tiles.largest_area_option": _letter_of(largest_area_fits),
}

OPTION_FITS = {
    "games.chess.move_option": move_option_fits,
    "puzzles.tiles.largest_area_option": largest_area_fits,
}
