"""Oracles of the grammar puzzles.nonogram (grammars/puzzles/nonogram.yaml, programs/puzzles/nonogram/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


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
