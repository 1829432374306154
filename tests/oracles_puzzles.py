"""Oracles for the puzzles domain (nonogram, sliding tiles, minesweeper, magic square, pattern matrix): plain Python
over the recorded state, never the expression language."""
from __future__ import annotations

from tests.oracle_registry import registry

ORACLES, oracle = registry()


# ---- nonogram ------------------------------------------------------------------------------------------------
def _nono_lines(state):
    grid = {(c["row"], c["col"]): c["filled"] for c in state["cells"]}
    rows = [[grid[r, c] for c in range(state["cols"])] for r in range(state["rows"])]
    cols = [[grid[r, c] for r in range(state["rows"])] for c in range(state["cols"])]
    return rows, cols


def _clue(line):
    out, run = [], 0
    for v in line + [False]:
        if v:
            run += 1
        elif run:
            out.append(run)
            run = 0
    return out or [0]


@oracle("puzzles.nonogram.filled_count")
def _nono_filled(tr):
    return sum(c["filled"] for c in tr["state"]["cells"])


@oracle("puzzles.nonogram.row_for_clue")
def _nono_row_for_clue(tr):
    rows, cols = _nono_lines(tr["state"])
    lines = rows if tr["query"]["line"] == "row" else cols
    wanted = [int(v) for v in tr["steps"]["clue"].split()]
    hits = [i + 1 for i, line in enumerate(lines) if _clue(line) == wanted]
    assert len(hits) == 1
    return hits[0]


@oracle("puzzles.nonogram.column_clue")
def _nono_column_clue(tr):
    rows, cols = _nono_lines(tr["state"])
    lines = rows if tr["query"]["line"] == "row" else cols
    return [str(v) for v in _clue(lines[tr["steps"]["at"]])]


@oracle("puzzles.nonogram.clues_match")
def _nono_clues_match(tr):
    s = tr["state"]
    rows, cols = _nono_lines(s)
    ok = [_clue(x) for x in rows] == s["row_text"] and [_clue(x) for x in cols] == s["col_text"]
    assert ok == (tr["query"]["outcome"] == "yes")
    return ok


# ---- sliding tiles -------------------------------------------------------------------------------------------
def _slide_board(state):
    n = state["n"]
    board = [0] * (n * n)
    for t in state["tiles"]:
        board[t["row"] * n + t["col"]] = t["value"]
    assert sorted(board) == list(range(n * n))
    return n, tuple(board)


def _slide_solve(n, board, limit=20):
    """Fewest slides by IDA* with the Manhattan heuristic (admissible, so the first bound that succeeds is optimal)."""
    goal = tuple(list(range(1, n * n)) + [0])

    def h(b):
        return sum(abs((v - 1) // n - i // n) + abs((v - 1) % n - i % n) for i, v in enumerate(b) if v)

    def search(b, gap, g, bound, prev):
        f = g + h(b)
        if f > bound:
            return f
        if b == goal:
            return -1
        best = 10 ** 9
        r, c = divmod(gap, n)
        for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            y, x = r + dr, c + dc
            if 0 <= y < n and 0 <= x < n and y * n + x != prev:
                nb = list(b)
                nb[gap], nb[y * n + x] = nb[y * n + x], 0
                t = search(tuple(nb), y * n + x, g + 1, bound, gap)
                if t == -1:
                    return -1
                best = min(best, t)
        return best

    bound = h(board)
    while bound <= limit:
        t = search(board, board.index(0), 0, bound, -1)
        if t == -1:
            return bound
        bound = t
    raise AssertionError("no solution within the limit")


@oracle("puzzles.sliding.moves_to_solve")
def _slide_moves(tr):
    n, board = _slide_board(tr["state"])
    return _slide_solve(n, board)


def _slide_movable_fits(tr):
    n, board = _slide_board(tr["state"])
    g = board.index(0)
    near = {board[y * n + x] for y in range(n) for x in range(n) if abs(y - g // n) + abs(x - g % n) == 1}
    return [i for i, text in enumerate(tr["steps"]["options"]) if int(text.split()[1]) in near]


@oracle("puzzles.sliding.movable_tile")
def _slide_movable(tr):
    hits = _slide_movable_fits(tr)
    assert len(hits) == 1
    return "ABCD"[hits[0]]


# ---- minesweeper ---------------------------------------------------------------------------------------------
def _around(a, b):
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])) == 1


@oracle("puzzles.minesweeper.mine_count")
def _mines_around(tr):
    s = tr["state"]
    (q,) = s["quiz"]
    return sum(1 for c in s["cells"] if c["mine"] and _around((c["row"], c["col"]), (q["row"], q["col"])))


def _mines_splits(tr):
    """Every mine/safe split of the four lettered cells that agrees with all open numbers."""
    from itertools import product

    s = tr["state"]
    flags = [(f["row"], f["col"]) for f in s["flags"]]
    hidden = [(h["row"], h["col"]) for h in s["hidden"]]
    opened = [c for c in s["cells"] if not c["mine"] and (c["row"], c["col"]) not in hidden]
    every_mine = [(c["row"], c["col"]) for c in s["cells"] if c["mine"]]
    assert all(c["number"] == sum(_around(m, (c["row"], c["col"])) for m in every_mine) for c in opened)
    fits = []
    for bits in product((False, True), repeat=4):
        mines = flags + [h for h, b in zip(hidden, bits) if b]
        if all(sum(_around(m, (c["row"], c["col"])) for m in mines) == c["number"] for c in opened):
            fits.append(bits)
    return fits


def _mines_safe_fits(tr):
    """Lettered cells that are safe in every split that fits the open numbers."""
    fits = _mines_splits(tr)
    return [i for i in range(4) if all(not bits[i] for bits in fits)]


@oracle("puzzles.minesweeper.safe_cell")
def _mines_safe(tr):
    fits = _mines_splits(tr)
    assert len(fits) == 1 and sum(fits[0]) == 3
    return "ABCD"[fits[0].index(False)]


# ---- magic square --------------------------------------------------------------------------------------------
def _magic(state):
    """The grid (None where blank) and the common sum, read off a complete line; the full square is checked magic."""
    n = state["n"]
    full = [[0] * n for _ in range(n)]
    seen = [[None] * n for _ in range(n)]
    for c in state["grid"]:
        full[c["row"]][c["col"]] = c["value"]
        if c["shown"]:
            seen[c["row"]][c["col"]] = c["value"]
    lines = [[(r, c) for c in range(n)] for r in range(n)] + [[(r, c) for r in range(n)] for c in range(n)]
    lines += [[(i, i) for i in range(n)], [(i, n - 1 - i) for i in range(n)]]
    assert len({sum(full[r][c] for r, c in line) for line in lines}) == 1
    assert len({v for row in full for v in row}) == n * n
    total = next(sum(seen[r][c] for r, c in line) for line in lines if all(seen[r][c] is not None for r, c in line))
    return n, seen, lines, total


@oracle("puzzles.magic_square.missing_number")
def _magic_missing(tr):
    n, seen, lines, total = _magic(tr["state"])
    (q,) = [(c["row"], c["col"]) for c in tr["state"]["grid"] if c["asked"]]
    line = next(line for line in lines if q in line and all(seen[r][c] is not None for r, c in line if (r, c) != q))
    return total - sum(seen[r][c] for r, c in line if (r, c) != q)


@oracle("puzzles.magic_square.blank_total")
def _magic_blanks(tr):
    n, seen, lines, total = _magic(tr["state"])
    return n * total - sum(v for row in seen for v in row if v is not None)


# ---- pattern matrix ------------------------------------------------------------------------------------------
def _matrix_missing(state):
    """The missing panel inferred from the visible ones: the last row's shape, its count step, the colour cycle."""
    at = {(c["row"], c["col"]): c for c in state["cells"] if not c["missing"]}
    cols = (len(at) + 1) // 3
    assert len(at) == 3 * cols - 1 and cols == state["cols"] in (3, 4)
    for i in range(3):  # one shape per row, a constant step along each row
        assert len({at[i, j]["shape"] for j in range(cols) if (i, j) in at}) == 1
    steps = {at[i, j + 1]["count"] - at[i, j]["count"] for i in range(3) for j in range(cols - 1) if (i, j + 1) in at}
    assert len(steps) == 1
    count = at[2, cols - 2]["count"] + steps.pop()
    colors = {c["color"] for c in at.values()}
    if len(colors) == 1:
        color = next(iter(colors))
    elif cols == 4:  # colours repeat every three panels along a row
        color = at[2, 0]["color"]
    else:
        color = (colors - {at[2, 0]["color"], at[2, 1]["color"]}).pop()
    return {"shape": at[2, 0]["shape"], "count": count, "color": color}


def _matrix_fits(tr):
    want = _matrix_missing(tr["state"])
    return [i for i, o in enumerate(tr["state"]["options"]) if all(o[k] == v for k, v in want.items())]


@oracle("puzzles.pattern_matrix.missing_panel")
def _matrix_option(tr):
    (hit,) = _matrix_fits(tr)
    return tr["state"]["options"][hit]["label"]


@oracle("puzzles.pattern_matrix.missing_count")
def _matrix_count(tr):
    return _matrix_missing(tr["state"])["count"]


@oracle("puzzles.magic_square.magic_sum")
def _magic_total(tr):
    return _magic(tr["state"])[3]


# which listed options satisfy each option task's question (tests/test_distractors.py: exactly one must)
OPTION_FITS = {
    "puzzles.minesweeper.safe_cell": _mines_safe_fits,
    "puzzles.pattern_matrix.missing_panel": _matrix_fits,
    "puzzles.sliding.movable_tile": _slide_movable_fits,
}


@oracle("puzzles.nonogram.largest_block")
def _nono_largest(tr):
    filled = {(c["row"], c["col"]) for c in tr["state"]["cells"] if c["filled"]}
    best, seen = [], set()
    for start in sorted(filled):
        if start in seen:
            continue
        patch, todo = set(), [start]
        while todo:
            p = todo.pop()
            if p in patch:
                continue
            patch.add(p)
            todo += [q for q in ((p[0] + 1, p[1]), (p[0] - 1, p[1]), (p[0], p[1] + 1), (p[0], p[1] - 1)) if q in filled]
        seen |= patch
        best.append(len(patch))
    best.sort()
    assert len(best) == 1 or best[-1] > best[-2]
    return best[-1]
