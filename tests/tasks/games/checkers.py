"""Oracles of the grammar games.checkers (grammars/games/checkers.yaml, programs/games/checkers/): each task's answer
recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


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
