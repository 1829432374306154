"""Oracles for the games and physics domains (independent Python over the recorded state)."""
from __future__ import annotations

from tests.oracles import step


def _ttt_board(state):
    side = state["side"]
    board = [""] * (side * side)
    for p in state["pieces"]:
        board[p["row"] * side + p["col"]] = p["player"]
    return board, side


def _ttt_lines(side):
    """Every line of three cells on a side × side board (8 on 3×3, 24 on 4×4), enumerated independently."""
    out = []
    for r in range(side):
        for c in range(side):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + k * dr, c + k * dc) for k in range(3)]
                if all(0 <= y < side and 0 <= x < side for y, x in cells):
                    out.append(tuple(y * side + x for y, x in cells))
    return out


def _ttt_wins(state, other: bool = False):
    board, side = _ttt_board(state)
    me = "X" if sum(1 for b in board if b) % 2 == 0 else "O"
    if other:
        me = "O" if me == "X" else "X"
    out = []
    for k in range(side * side):
        if board[k]:
            continue
        trial = board[:]
        trial[k] = me
        if any(trial[a] == trial[b] == trial[c] == me for a, b, c in _ttt_lines(side)):
            out.append(k + 1)
    return out


def _ttt_winning_cell(tr):
    assert tr["state"]["side"] == (3 if tr["level"] < 6 else 4)
    assert len(_ttt_lines(tr["state"]["side"])) == (8 if tr["level"] < 6 else 24)
    wins = _ttt_wins(tr["state"])
    assert len(wins) == 1
    if tr["level"] >= 5:  # the other player threatens elsewhere: a decoy
        theirs = _ttt_wins(tr["state"], other=True)
        assert theirs and wins[0] not in theirs
    return wins[0]


def _ttt_winning_count(tr):
    cells = set(_ttt_wins(tr["state"]))
    if tr["level"] >= 5:  # either player's winning cells, each once
        cells |= set(_ttt_wins(tr["state"], other=True))
    return len(cells)


ORACLES = {
    "games.tic_tac_toe.winning_cell": _ttt_winning_cell,
    "games.tic_tac_toe.winning_count": _ttt_winning_count,
}


def _c4_grid(state):
    grid = [[""] * 7 for _ in range(6)]
    for d in state["discs"]:
        grid[d["row"]][d["col"]] = d["color"]
    return grid


def _c4_four(grid, color):
    for r in range(6):
        for c in range(7):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + k * dr, c + k * dc) for k in range(4)]
                if all(0 <= a < 6 and 0 <= b < 7 and grid[a][b] == color for a, b in cells):
                    return True
    return False


def _c4_winning_column(tr):
    grid = _c4_grid(tr["state"])
    n = sum(1 for row in grid for x in row if x)
    me = "red" if n % 2 == 0 else "yellow"
    assert not _c4_four(grid, "red") and not _c4_four(grid, "yellow")
    wins = []
    for c in range(7):
        empty = [r for r in range(6) if not grid[r][c]]
        if not empty:
            continue
        r = max(empty)  # the lowest empty hole
        assert all(grid[k][c] for k in range(r + 1, 6))  # gravity
        trial = [row[:] for row in grid]
        trial[r][c] = me
        if _c4_four(trial, me):
            wins.append(c + 1)
    assert len(wins) == 1
    return wins[0]


def _c4_disc_count(tr):
    return sum(1 for d in tr["state"]["discs"] if d["color"] == tr["query"]["color"])


ORACLES.update({
    "games.connect_four.winning_column": _c4_winning_column,
    "games.connect_four.disc_count": _c4_disc_count,
})


def _circuit_lit(state, flipped=None):
    """Search the circuit as a graph: junctions are nodes, each part joins two of them (closed switches and bulbs
    conduct); a bulb is lit when both its ends connect to opposite battery terminals through other parts."""
    parts = state["parts"]
    b = state["b"]
    # nodes: 'P' (battery +, the top-left corner), 'N' (battery −, bottom rail), series chain nodes s0..s_ns (s_ns
    # is the top rail junction of the branches), branch j chain nodes from the top rail down to the bottom rail
    series = [p for p in parts if p["branch"] < 0]
    edges = []  # (u, v, part)
    prev = "P"
    for i, p in enumerate(series):
        nxt = f"s{i + 1}"
        edges.append((prev, nxt, p))
        prev = nxt
    rail = prev
    for j in range(b):
        chain = [p for p in parts if p["branch"] == j]
        chain.sort(key=lambda p: -p["y"])
        node = rail
        for k, p in enumerate(chain):
            nxt = "N" if k == len(chain) - 1 else f"b{j}_{k}"
            edges.append((node, nxt, p))
            node = nxt
        if not chain:
            edges.append((node, "N", None))

    def conducts(p):
        if p is None or p["kind"] == "bulb":
            return True
        closed = p["closed"]
        return (not closed) if flipped is not None and p["label"] == flipped else closed

    def reach(start, skip):
        seen, todo = {start}, [start]
        while todo:
            u = todo.pop()
            for a, c, p in edges:
                if p is skip or not conducts(p):
                    continue
                for x, y in ((a, c), (c, a)):
                    if x == u and y not in seen:
                        seen.add(y)
                        todo.append(y)
        return seen

    lit = []
    for a, c, p in edges:
        if p is None or p["kind"] != "bulb":
            continue
        ra, rc = reach(a, p), reach(c, p)
        if ("P" in ra and "N" in rc) or ("N" in ra and "P" in rc):
            lit.append(p["label"])
    return lit


def _circuit_lit_bulbs(tr):
    return _circuit_lit(tr["state"])


def _circuit_flip(tr):
    return len(_circuit_lit(tr["state"], step(tr, "flip")["label"]))


ORACLES.update({
    "physics.circuit.lit_bulbs": _circuit_lit_bulbs,
    "physics.circuit.flip_switch": _circuit_flip,
})


def _lens_image(state):
    """The image position from the thin-lens equation 1/v = 1/f - 1/u (v < 0: a virtual image on the object's side)."""
    from fractions import Fraction

    u, f = state["u"], state["f"]
    inv = Fraction(1, f) - Fraction(1, u)
    assert inv != 0
    v = 1 / inv
    assert v.denominator == 1
    return int(v)


def _lens_point(tr):
    v = _lens_image(tr["state"])
    names = [p["name"] for p in tr["state"]["points"] if p["x"] == v]
    assert len(names) == 1
    return names[0]


def _lens_nature(tr):
    s = tr["state"]
    v = _lens_image(s)
    prop = tr["query"]["property"]
    if prop in ("real", "inverted"):  # a converging lens: a real image is always inverted, a virtual one upright
        return v > 0
    return abs(v) > s["u"]  # magnification |v| / u


ORACLES.update({
    "physics.ray_optics.image_point": _lens_point,
    "physics.ray_optics.image_nature": _lens_nature,
})
