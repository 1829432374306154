"""Oracles of the grammar games.go (grammars/games/go.yaml, programs/games/go/): each task's answer recomputed by plain
Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


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


@oracle("games.go.largest_chain")
def _go_largest(tr):
    sizes = sorted(len(chain) for color, chain, _ in _go_chains(tr["state"]) if color == tr["query"]["color"])
    assert sizes[-1] > sizes[-2]
    return sizes[-1]
