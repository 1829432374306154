"""Helpers shared by the oracles of several graphs grammars (moved from the old tests/oracles_*.py modules)."""
from __future__ import annotations


INF = float("inf")


def _matrix(n: int, edges: list[dict], directed: bool, weighted: bool) -> list[list[float]]:
    """All-pairs least cost (Floyd–Warshall); every edge costs 1 unless weighted."""
    d = [[0 if i == j else INF for j in range(n)] for i in range(n)]
    for e in edges:
        w = e["w"] if weighted else 1
        d[e["a"]][e["b"]] = min(d[e["a"]][e["b"]], w)
        if not directed:
            d[e["b"]][e["a"]] = min(d[e["b"]][e["a"]], w)
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if d[i][k] + d[k][j] < d[i][j]:
                    d[i][j] = d[i][k] + d[k][j]
    return d


def _letter(options: list, correct: list) -> str:
    """The option letter of the single correct option (option tasks must have exactly one)."""
    hits = [i for i, o in enumerate(options) if o in correct]
    assert len(hits) == 1, (options, correct)
    return "ABCDEFGH"[hits[0]]
