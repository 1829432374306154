"""Oracles of the grammar symbolic.truth_table (grammars/symbolic/truth_table.yaml, programs/symbolic/truth_table/):
each task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


def _eval_expression(text: str, bits: dict[str, int]) -> int:
    """Left-to-right binary operators (AND, OR, XOR), prefix NOT, parentheses, single-letter inputs."""
    tokens = text.replace("(", " ( ").replace(")", " ) ").split()
    pos = 0

    def operand():
        nonlocal pos
        tok = tokens[pos]
        pos += 1
        if tok == "NOT":
            return 1 - operand()
        if tok == "(":
            v = expr()
            assert tokens[pos] == ")"
            pos += 1
            return v
        return bits[tok]

    def expr():
        nonlocal pos
        v = operand()
        while pos < len(tokens) and tokens[pos] in ("AND", "OR", "XOR"):
            o = tokens[pos]
            pos += 1
            w = operand()
            v = {"AND": v & w, "OR": v | w, "XOR": v ^ w}[o]
        return v

    out = expr()
    assert pos == len(tokens)
    return out


def _table_outputs(tr):
    st = tr["state"]
    outs = []
    for r in st["rows"]:
        names = {chr(65 + j): b for j, b in enumerate(r["bits"])}
        outs.append(_eval_expression(st["expression"], names))
        assert not r["shown"] or outs[-1] == r["q"]  # the cells shown agree with the expression
    return outs


@oracle("symbolic.truth_table.fill_missing")
def _table_missing(tr):
    outs = _table_outputs(tr)
    return [str(outs[r["i"]]) for r in tr["state"]["rows"] if not r["shown"]]


@oracle("symbolic.truth_table.true_rows")
def _table_true_rows(tr):
    return sum(_table_outputs(tr))
