"""Oracles of the grammar graphs.maze (grammars/graphs/maze.yaml, programs/graphs/maze/): each task's answer recomputed
by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


# -- mazes ------------------------------------------------------------------------------------------------------
def _maze_moves(st) -> dict[int, int]:
    """Moves from the start to every cell it can reach, stepping only through open passages."""
    rows, cols = st["rows"], st["cols"]
    open_pairs = {frozenset((p["a"], p["b"])) for p in st["passages"]}
    moves = {st["start"]: 0}
    frontier = [st["start"]]
    while frontier:
        nxt = []
        for cell in frontier:
            r, c = divmod(cell, cols)
            for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                other = rr * cols + cc
                if 0 <= rr < rows and 0 <= cc < cols and other not in moves and \
                        frozenset((cell, other)) in open_pairs:
                    moves[other] = moves[cell] + 1
                    nxt.append(other)
        frontier = nxt
    return moves


@oracle("graphs.maze.route_length")
def _maze_route(tr):
    return _maze_moves(tr["state"])[tr["state"]["goal"]]


@oracle("graphs.maze.goal_reachable")
def _maze_reachable(tr):
    return tr["state"]["goal"] in _maze_moves(tr["state"])


@oracle("graphs.maze.dead_ends")
def _maze_dead_ends(tr):
    st = tr["state"]
    openings = [0] * (st["rows"] * st["cols"])
    for p in st["passages"]:
        openings[p["a"]] += 1
        openings[p["b"]] += 1
    by_row = tr["query"]["scope"] == "row"
    line, width = step(tr, "line"), step(tr, "width")
    assert width == min(1 + tr["level"] // 3, st["rows"] if by_row else st["cols"])
    return sum(k == 1 and line <= divmod(cell, st["cols"])[0 if by_row else 1] < line + width
               for cell, k in enumerate(openings))
