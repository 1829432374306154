"""Oracles of the grammar symbolic.balance_compare (grammars/symbolic/balance_compare.yaml,
programs/symbolic/balance_compare/): each task's answer recomputed by plain Python from the recorded trace, never
the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


def _heavier_than(tr) -> dict[str, set[str]]:
    """Every kind → the kinds it is shown (directly or through a chain of balances) to outweigh."""
    beats: dict[str, set[str]] = {}
    for scale in tr["state"]["scales"]:
        (left,), (right,) = scale["left"], scale["right"]
        heavy, light = (left, right) if scale["tilt"] == -1 else (right, left)
        assert scale["tilt"] in (-1, 1)
        beats.setdefault(heavy, set()).add(light)
        beats.setdefault(light, set())
    changed = True
    while changed:  # transitive closure
        changed = False
        for k in beats:
            more = set().union(*(beats[j] for j in beats[k])) - beats[k]
            if more:
                beats[k] |= more
                changed = True
    return beats


def _weight_ranking(tr) -> list[str]:
    beats = _heavier_than(tr)
    ranking = sorted(beats, key=lambda k: -len(beats[k]))
    assert [len(beats[k]) for k in ranking] == list(range(len(beats) - 1, -1, -1))  # a total order
    return ranking


@oracle("symbolic.balance_compare.extreme_shape")
def _extreme_shape(tr):
    ranking = _weight_ranking(tr)
    return ranking[0] if tr["query"]["extreme"] == "heaviest" else ranking[-1]


@oracle("symbolic.balance_compare.heavier_pair")
def _heavier_pair(tr):
    a, b = step(tr, "pair")
    return b in _heavier_than(tr)[a]


@oracle("symbolic.balance_compare.weight_order")
def _weight_order(tr):
    ranking = _weight_ranking(tr)
    return ranking if tr["query"]["order"] == "heaviest to lightest" else ranking[::-1]
