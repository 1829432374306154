"""Oracles for the games domain's wave-2 grammars (go, reversi, cards, dominoes): plain Python over the recorded
state. Kept apart from oracles_games.py so the boards → games move on main merges without conflict."""
from __future__ import annotations

from collections import Counter

from tests.oracle_registry import registry

ORACLES, oracle = registry()


# ---- go ------------------------------------------------------------------------------------------------------
def _go_chains(state):
    """Chains by flood fill over side-neighbours of one colour, and each chain's liberties."""
    n = state["n"]
    at = {(s["row"], s["col"]): s["color"] for s in state["stones"]}
    seen, out = set(), []
    for s in state["stones"]:
        start = (s["row"], s["col"])
        if start in seen:
            continue
        chain, todo = set(), [start]
        while todo:
            p = todo.pop()
            if p in chain:
                continue
            chain.add(p)
            for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
                q = (p[0] + dr, p[1] + dc)
                if at.get(q) == s["color"]:
                    todo.append(q)
        seen |= chain
        libs = {(p[0] + dr, p[1] + dc) for p in chain for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))}
        libs = {q for q in libs if 0 <= q[0] < n and 0 <= q[1] < n and q not in at}
        out.append((s["color"], chain, libs))
    assert all(libs for _, _, libs in out)  # no chain without liberties stays on the board
    return out


@oracle("games.go.liberties")
def _go_liberties(tr):
    (m,) = [(s["row"], s["col"]) for s in tr["state"]["stones"] if s["marked"]]
    (libs,) = [libs for _, chain, libs in _go_chains(tr["state"]) if m in chain]
    return len(libs)


@oracle("games.go.chain_count")
def _go_chain_count(tr):
    return sum(1 for color, _, _ in _go_chains(tr["state"]) if color == tr["query"]["color"])


@oracle("games.go.atari")
def _go_atari(tr):
    return sum(len(chain) for color, chain, libs in _go_chains(tr["state"])
               if color == tr["query"]["color"] and len(libs) == 1)


# ---- reversi -------------------------------------------------------------------------------------------------
def _rv_flips(state, r, c):
    n = state["n"]
    grid = {(d["row"], d["col"]): d["color"] for d in state["discs"]}
    me = state["to_move"]
    if (r, c) in grid:
        return 0
    total = 0
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if dr == dc == 0:
                continue
            run, y, x = 0, r + dr, c + dc
            while 0 <= y < n and 0 <= x < n and grid.get((y, x)) not in (None, me):
                run, y, x = run + 1, y + dr, x + dc
            if run and 0 <= y < n and 0 <= x < n and grid.get((y, x)) == me:
                total += run
    return total


@oracle("games.reversi.flips")
def _rv_flips_move(tr):
    s = tr["state"]
    (m,) = s["ringed"]
    return _rv_flips(s, m["row"], m["col"])


@oracle("games.reversi.legal_moves")
def _rv_legal(tr):
    s = tr["state"]
    return sum(1 for r in range(s["n"]) for c in range(s["n"]) if _rv_flips(s, r, c) > 0)


def _rv_best_fits(tr):
    """Indices of the lettered squares that turn over the most discs (each lettered square a legal move)."""
    s = tr["state"]
    counts = [_rv_flips(s, q["row"], q["col"]) for q in s["labelled"]]
    assert min(counts) > 0
    return [i for i, v in enumerate(counts) if v == max(counts)]


@oracle("games.reversi.best_move")
def _rv_best(tr):
    (best,) = _rv_best_fits(tr)
    assert len(tr["state"]["labelled"]) == 3 + tr["level"] // 3
    return "ABCDEF"[best]


# ---- playing cards -------------------------------------------------------------------------------------------
_FACE = {"A": 1, "J": 11, "Q": 12, "K": 13}


def _card_value(card):
    return _FACE.get(card["rank"]) or int(card["rank"])


@oracle("games.cards.blackjack_total")
def _bj_total(tr):
    cards = tr["state"]["cards"]
    total = sum(min(_card_value(c), 10) for c in cards)
    aces = sum(c["rank"] == "A" for c in cards)
    while aces and total + 10 <= 21:  # at most one ace can ever be promoted
        total, aces = total + 10, 0
    return total


@oracle("games.cards.suit_majority")
def _suit_major(tr):
    counts = Counter(c["suit"] for c in tr["state"]["cards"])
    (best,) = [s for s, v in counts.items() if v == max(counts.values())]
    return best


@oracle("games.cards.suit_sum")
def _suit_sum(tr):
    return sum(_card_value(c) for c in tr["state"]["cards"] if c["suit"] == tr["query"]["suit"])


@oracle("games.cards.rank_pairs")
def _rank_pairs(tr):
    counts = Counter(c["rank"] for c in tr["state"]["cards"])
    return sum(1 for v in counts.values() if v >= 2)


# ---- dominoes ------------------------------------------------------------------------------------------------
def _dom_ends(state):
    chain = state["chain"]
    for x, y in zip(chain, chain[1:]):
        assert x["b"] == y["a"]  # touching halves match
    return chain[0]["a"], chain[-1]["b"]


@oracle("games.dominoes.total_pips")
def _dom_total(tr):
    return sum(d["a"] + d["b"] for d in tr["state"]["chain"])


def _dom_fits_end(tr):
    _, right = _dom_ends(tr["state"])
    return [i for i, d in enumerate(tr["state"]["options"]) if right in (d["a"], d["b"])]


@oracle("games.dominoes.fits_end")
def _dom_fits(tr):
    hits = _dom_fits_end(tr)
    assert len(hits) == 1 and len(tr["state"]["options"]) == 3 + tr["level"] // 3
    return "ABCDEF"[hits[0]]


@oracle("games.dominoes.playable")
def _dom_playable(tr):
    ends = set(_dom_ends(tr["state"]))
    return sum(1 for d in tr["state"]["loose"] if {d["a"], d["b"]} & ends)


# ---- checkers ------------------------------------------------------------------------------------------------
def _ck_jumps(state, side):
    """Every single jump (piece, direction) of `side`: red men go up (row - 1), white men down, kings both ways."""
    n = state["n"]
    at = {(p["row"], p["col"]): p for p in state["pieces"]}
    out = []
    for p in state["pieces"]:
        if p["side"] != side:
            continue
        forward = -1 if side == "red" else 1
        for dr in (-1, 1):
            if not p["king"] and dr != forward:
                continue
            for dc in (-1, 1):
                mid = at.get((p["row"] + dr, p["col"] + dc))
                land = (p["row"] + 2 * dr, p["col"] + 2 * dc)
                if mid and mid["side"] != side and 0 <= land[0] < n and 0 <= land[1] < n and land not in at:
                    out.append(((p["row"], p["col"]), (mid["row"], mid["col"])))
    return out


@oracle("games.checkers.captures")
def _ck_captures(tr):
    return len(_ck_jumps(tr["state"], tr["query"]["side"]))


@oracle("games.checkers.threatened")
def _ck_threatened(tr):
    other = "white" if tr["query"]["side"] == "red" else "red"
    return len({victim for _, victim in _ck_jumps(tr["state"], other)})


# ---- darts ---------------------------------------------------------------------------------------------------
_BOARD = [20, 1, 18, 4, 13, 6, 10, 15, 2, 17, 3, 19, 7, 16, 8, 11, 14, 9, 12, 5]


def _dart_score(d):
    """From where the dart sits: the sector under its angle and the band under its radius (the drawn rings)."""
    r = d["r"]
    if r < 0.06:
        return 50
    if r < 0.15:
        return 25
    number = _BOARD[int(d["a"]) % 20]
    if 0.52 <= r < 0.62:
        return 3 * number
    if 0.9 <= r < 1.0:
        return 2 * number
    assert r < 0.9
    return number


@oracle("games.darts.total_score")
def _darts_total(tr):
    return sum(_dart_score(d) for d in tr["state"]["darts"])


@oracle("games.darts.best_dart")
def _darts_best(tr):
    scores = sorted(_dart_score(d) for d in tr["state"]["darts"])
    assert len(scores) == 1 or scores[-1] > scores[-2]
    return scores[-1]


# which listed options satisfy each option task's question (tests/test_distractors.py: exactly one must)
OPTION_FITS = {
    "games.dominoes.fits_end": _dom_fits_end,
    "games.reversi.best_move": _rv_best_fits,
}


@oracle("games.go.largest_chain")
def _go_largest(tr):
    sizes = sorted(len(chain) for color, chain, _ in _go_chains(tr["state"]) if color == tr["query"]["color"])
    assert sizes[-1] > sizes[-2]
    return sizes[-1]
