"""Oracles of the grammar games.chess (grammars/games/chess.yaml, programs/games/chess/): each task's answer recomputed
by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import _letter_of, step
from tests.tasks.registry import option_fit, oracle


STEPS = {
    "rook": ([(-1, 0), (1, 0), (0, -1), (0, 1)], True),
    "bishop": ([(-1, -1), (-1, 1), (1, -1), (1, 1)], True),
    "queen": ([(-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1)], True),
    "king": ([(-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1)], False),
    "knight": ([(-2, -1), (-2, 1), (-1, -2), (-1, 2), (1, -2), (1, 2), (2, -1), (2, 1)], False),
}


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
    return "abcdefgh"[c] + str(state["rows"] - r)


@oracle("games.chess.move_count")
def _move_count(tr):
    # levels 0-3: the named piece; 4-6: every piece of its kind and side; 7-9: every piece of its side
    mover, level = step(tr, "mover"), tr["level"]
    assert mover["kind"] == tr["query"]["kind"]
    pieces = tr["state"]["pieces"]
    movers = [mover] if level < 4 else [p for p in pieces if p["side"] == mover["side"]
                                         and (level >= 7 or p["kind"] == mover["kind"])]
    return sum(len(reachable(tr["state"], p, captures=True)) for p in movers)


@oracle("games.chess.attacked_pieces")
def _attacked(tr):
    st, side = tr["state"], tr["query"]["side"]
    hit = set()
    for p in st["pieces"]:
        if p["side"] != side:
            hit |= reachable(st, p, captures=True)
    return sum((p["row"], p["col"]) in hit for p in st["pieces"] if p["side"] == side)


@oracle("games.chess.count_on_shade")
def _on_shade(tr):
    q = tr["query"]
    dark = q["shade"] == "dark"
    return sum(p["side"] == q["side"] and ((p["row"] + p["col"]) % 2 == 1) == dark for p in tr["state"]["pieces"])


@option_fit("games.chess.move_option")
def move_option_fits(tr) -> list[int]:
    st, mover = tr["state"], step(tr, "mover")
    names = {square(st, r, c) for r, c in reachable(st, mover, captures=False)}
    return [i for i, o in enumerate(step(tr, "options")) if o in names]


oracle("games.chess.move_option")(_letter_of(move_option_fits))
