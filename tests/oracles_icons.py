"""Independent recomputation of the icons tasks from the recorded state (and the program's recorded random picks).

Plain Python, written the way a solver reads the picture: sequence rules are inferred from the visible panels
(a colour or size cycle, a steady step in count or angle), never read from the sampler's hidden parameters.
"""
from __future__ import annotations

import math
from collections import Counter

from tests.oracles import step
from tests.oracles_boards import only

PANEL_KEYS = ("icon", "color", "size", "count", "angle")


def _count_either(tr):
    kind, color = step(tr, "kind"), step(tr, "color")
    return sum(i["icon"] == kind or i["color"] == color for i in tr["state"]["icons"])


def _tally(tr):
    # Counted from the drawn pictograms, not read off the query variable the scene was built towards.
    st = tr["state"]
    return sum(i["icon"] == st["featured"] for i in st["icons"])


def _nearest(tr):
    ref = step(tr, "ref")
    others = [i for i in tr["state"]["icons"] if i is not ref]
    dist = lambda i: math.hypot(i["x"] - ref["x"], i["y"] - ref["y"])  # noqa: E731
    pick = min if tr["query"]["extreme"] == "closest" else max
    return pick(others, key=dist)["icon"]


def common_kind_fits(tr) -> list[int]:
    counts = Counter(i["icon"] for i in tr["state"]["icons"])
    best = max(counts.values())
    return [k for k, o in enumerate(step(tr, "options")) if counts.get(o, 0) == best]


def _same_neighbors(tr):
    at = {(i["row"], i["col"]): i["icon"] for i in tr["state"]["icons"]}
    return sum(at.get((r + 1, c)) == kind for (r, c), kind in at.items()) + \
        sum(at.get((r, c + 1)) == kind for (r, c), kind in at.items())


def _line_kinds(tr):
    key = "row" if tr["query"]["line"] == "row" else "col"
    return sorted({i["icon"] for i in tr["state"]["icons"] if i[key] == step(tr, "place")})


def _every_line(tr):
    st, kind = tr["state"], step(tr, "kind")
    key, n = ("row", st["rows"]) if tr["query"]["line"] == "row" else ("col", st["cols"])
    return all(any(i["icon"] == kind and i[key] == k for i in st["icons"]) for k in range(n))


# -- sequences --------------------------------------------------------------------------------------------------
def _next_in_cycle(values: list):
    """The value after a list that repeats with the shortest period it shows."""
    for p in range(1, len(values) + 1):
        if all(values[i] == values[i % p] for i in range(len(values))):
            return values[len(values) - p]
    raise AssertionError("unreachable")


def _next_by_step(values: list[int], modulus: int | None = None) -> int:
    gaps = {(b - a) % modulus if modulus else b - a for a, b in zip(values, values[1:])}
    gap = only(sorted(gaps))
    nxt = values[-1] + gap
    return nxt % modulus if modulus else nxt


def expected_next(panels: list[dict]) -> dict:
    return {
        "icon": only(sorted({p["icon"] for p in panels})),
        "color": _next_in_cycle([p["color"] for p in panels]),
        "size": _next_in_cycle([p["size"] for p in panels]),
        "count": _next_by_step([p["count"] for p in panels]),
        "angle": _next_by_step([p["angle"] for p in panels], 360),
    }


def next_panel_fits(tr) -> list[int]:
    want = expected_next(tr["state"]["panels"])
    return [k for k, o in enumerate(tr["state"]["options"]) if all(o[f] == want[f] for f in PANEL_KEYS)]


def _next_count(tr):
    return _next_by_step([p["count"] for p in tr["state"]["panels"]])


def _changing(tr):
    panels = tr["state"]["panels"]
    names = {"color": "colour", "size": "size", "count": "number", "angle": "rotation"}
    return sorted(name for key, name in names.items() if len({p[key] for p in panels}) > 1)


def _panel_key(p: dict) -> tuple:
    return tuple(p[f] for f in PANEL_KEYS)


def odd_panel_fits(tr) -> list[int]:
    panels = tr["state"]["panels"]
    counts = Counter(_panel_key(p) for p in panels)
    usual = only([k for k, n in counts.items() if n > 1])
    return [i for i, p in enumerate(panels) if _panel_key(p) != usual]


def _odd_property(tr):
    panels = tr["state"]["panels"]
    odd = panels[only(odd_panel_fits(tr))]
    usual = next(p for p in panels if p is not odd)
    names = {"icon": "pictogram", "color": "colour", "size": "size", "count": "number", "angle": "rotation"}
    return only([name for key, name in names.items() if odd[key] != usual[key]])


def _letter_of(fits):
    return lambda tr: "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[only(fits(tr))]


# -- issue 13 (wave 2): grid neighbours and directions, extremes and half-planes in a field -------------------------
_SIDE = {"above": (-1, 0), "below": (1, 0), "to the left of": (0, -1), "to the right of": (0, 1)}


def _cell_beside(tr):
    ref = step(tr, "ref")
    dr, dc = _SIDE[tr["query"]["side"]]
    return only([i["icon"] for i in tr["state"]["icons"] if (i["row"], i["col"]) == (ref["row"] + dr, ref["col"] + dc)])


def _relative_direction(tr):
    a, b = step(tr, "a"), step(tr, "b")
    words = []
    if a["row"] != b["row"]:
        words.append("above" if a["row"] < b["row"] else "below")
    if a["col"] != b["col"]:
        words.append("left" if a["col"] < b["col"] else "right")
    return " ".join(words)


def _extreme_position(tr):
    axis, sign = {"highest": ("y", 1), "lowest": ("y", -1), "leftmost": ("x", 1), "rightmost": ("x", -1)}[
        tr["query"]["extreme"]]
    return min(tr["state"]["icons"], key=lambda i: sign * i[axis])["icon"]


def _count_beyond(tr):
    ref = step(tr, "ref")
    side = tr["query"]["side"]
    test = {"left of": lambda i: i["x"] < ref["x"], "right of": lambda i: i["x"] > ref["x"],
            "above": lambda i: i["y"] < ref["y"], "below": lambda i: i["y"] > ref["y"]}[side]
    return sum(test(i) for i in tr["state"]["icons"] if i is not ref)


# -- matrices of panels: each candidate is tried in the gap, and kept when every property then obeys one rule ------
def _matrix_ok(grid: dict, n: int, key: str) -> bool:
    rows = [[grid[r, c][key] for c in range(n)] for r in range(n)]
    cols = [[grid[r, c][key] for r in range(n)] for c in range(n)]
    per_row = all(len(set(line)) == 1 for line in rows)
    per_col = all(len(set(line)) == 1 for line in cols)
    latin = all(len(set(line)) == n for line in rows + cols)
    return per_row or per_col or latin


def matrix_fits(tr) -> list[int]:
    st = tr["state"]
    n = st["n"]
    seen = {(g["row"], g["col"]): g for g in st["cells"]}
    gap = next((r, c) for r in range(n) for c in range(n) if (r, c) not in seen)
    good = []
    for i, o in enumerate(st["options"]):
        grid = dict(seen)
        grid[gap] = o
        if all(_matrix_ok(grid, n, key) for key in ("icon", "color", "count")):
            good.append(i)
    return good


def _matrix_changing(tr):
    st = tr["state"]
    axis = "row" if tr["query"]["line"] == "row" else "col"
    out = []
    for word, key in (("pictogram", "icon"), ("colour", "color"), ("number", "count")):
        values = {}
        for g in st["cells"]:
            values.setdefault(g[axis], set()).add(g[key])
        if any(len(v) > 1 for v in values.values()):
            out.append(word)
    return out


# -- wallpaper patterns: the smallest block the visible cells agree with, read at the '?' --------------------------
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


ORACLES = {
    "icons.icon_field.count_either": _count_either,
    "icons.icon_field.nearest_icon": _nearest,
    "icons.icon_field.common_kind_option": _letter_of(common_kind_fits),
    "icons.icon_tally.count_kind": _tally,
    "icons.icon_grid.same_neighbors": _same_neighbors,
    "icons.icon_grid.line_kinds": _line_kinds,
    "icons.icon_grid.every_line": _every_line,
    "icons.sequence.next_panel": _letter_of(next_panel_fits),
    "icons.sequence.next_count": _next_count,
    "icons.sequence.changing_properties": _changing,
    "icons.odd_one_out.odd_panel": _letter_of(odd_panel_fits),
    "icons.odd_one_out.odd_property": _odd_property,
    "icons.icon_grid.cell_beside": _cell_beside,
    "icons.icon_grid.relative_direction": _relative_direction,
    "icons.icon_field.extreme_position": _extreme_position,
    "icons.icon_field.count_beyond": _count_beyond,
    "icons.icon_matrix.missing_panel": _letter_of(matrix_fits),
    "icons.icon_matrix.changing_properties": _matrix_changing,
    "icons.tile_pattern.period_length": _tile_period,
    "icons.tile_pattern.missing_tile": _tile_missing,
}

OPTION_FITS = {
    "icons.icon_matrix.missing_panel": matrix_fits,
    "icons.icon_field.common_kind_option": common_kind_fits,
    "icons.sequence.next_panel": next_panel_fits,
    "icons.odd_one_out.odd_panel": odd_panel_fits,
}
