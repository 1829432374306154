"""Oracles of the grammar symbolic.balance_equation (grammars/symbolic/balance_equation.yaml,
programs/symbolic/balance_equation/): each task's answer recomputed by plain Python from the recorded trace, never
the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


def _solve_balances(tr) -> dict[str, int]:
    """Substitution, scale by scale: each scale has exactly one kind of shape not weighed before."""
    known: dict[str, int] = {}
    for scale in tr["state"]["scales"]:
        right = sum(int(t) for t in scale["right"])
        left_known = sum(int(t) if t.isdigit() else known.get(t, 0) for t in scale["left"])
        new = [t for t in scale["left"] if not t.isdigit() and t not in known]
        assert new and len(set(new)) == 1
        known[new[0]] = (right - left_known) // len(new)
        assert left_known + known[new[0]] * len(new) == right
    return known


@oracle("symbolic.balance_equation.shape_weight")
def _shape_weight(tr):
    return _solve_balances(tr)[step(tr, "target")]


@oracle("symbolic.balance_equation.total_weight")
def _total_weight(tr):
    return sum(_solve_balances(tr).values())
