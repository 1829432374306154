"""Oracles of the grammar symbolic.shape_equations (grammars/symbolic/shape_equations.yaml,
programs/symbolic/shape_equations/): each task's answer recomputed by plain Python from the recorded trace, never
the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


def _solve_picture(tr) -> dict[str, int]:
    known: dict[str, int] = {}
    for line in tr["state"]["lines"][:-1]:
        k = line.index("=")
        left, total = [t for t in line[:k] if t != "+"], int(line[k + 1])
        new = [t for t in left if t not in known]
        assert new and len(set(new)) == 1 and "×" not in line
        rest = total - sum(known[t] for t in left if t in known)
        assert rest % len(new) == 0
        known[new[0]] = rest // len(new)
    return known


@oracle("symbolic.shape_equations.shape_value")
def _picture_value(tr):
    return _solve_picture(tr)[step(tr, "pick")["kind"]]


@oracle("symbolic.shape_equations.question_line")
def _picture_question(tr):
    known = _solve_picture(tr)
    last = tr["state"]["lines"][-1]
    assert last[-2:] == ["=", "?"]
    terms, product = [], None
    for tok in last[:-2]:
        if tok == "×":
            product = terms.pop()
        elif tok != "+":
            terms.append(known[tok] * product if product is not None else known[tok])
            product = None
    return sum(terms)
