"""Oracles of the grammar symbolic.box_equations (grammars/symbolic/box_equations.yaml,
programs/symbolic/box_equations/): each task's answer recomputed by plain Python from the recorded trace, never the
expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


def _arith(tokens: list[str], box: int) -> int:
    pos = 0

    def atom():
        nonlocal pos
        tok = tokens[pos]
        pos += 1
        if tok == "(":
            v = total()
            assert tokens[pos] == ")"
            pos += 1
            return v
        return box if tok == "box" else int(tok)

    def product():
        nonlocal pos
        v = atom()
        while pos < len(tokens) and tokens[pos] == "×":
            pos += 1
            v *= atom()
        return v

    def total():
        nonlocal pos
        v = product()
        while pos < len(tokens) and tokens[pos] in ("+", "−"):
            sign = 1 if tokens[pos] == "+" else -1
            pos += 1
            v += sign * product()
        return v

    out = total()
    assert pos == len(tokens)
    return out


def _solve_box(eq) -> int:
    tokens = eq["tokens"]
    k = tokens.index("=")
    left, right = tokens[:k], int(tokens[k + 1])
    (x,) = [x for x in range(0, 200) if _arith(left, x) == right]
    return x


@oracle("symbolic.box_equations.box_value")
def _box_value(tr):
    return _solve_box(step(tr, "pick"))


@oracle("symbolic.box_equations.largest_box")
def _largest_box(tr):
    boxes = {e["label"]: _solve_box(e) for e in tr["state"]["eqs"]}
    pick = max if tr["query"]["extreme"] == "largest" else min
    return pick(boxes, key=boxes.get)


@oracle("symbolic.box_equations.box_sum")
def _box_sum(tr):
    return sum(_solve_box(e) for e in tr["state"]["eqs"])
