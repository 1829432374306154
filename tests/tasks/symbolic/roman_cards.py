"""Oracles of the grammar symbolic.roman_cards (grammars/symbolic/roman_cards.yaml, programs/symbolic/roman_cards/):
each task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def _parse_roman(text: str) -> int:
    total = 0
    for i, ch in enumerate(text):
        v = _ROMAN[ch]
        total += -v if i + 1 < len(text) and _ROMAN[text[i + 1]] > v else v
    return total


def _card_values(tr):
    out = {}
    for c in tr["state"]["cards"]:
        out[c["label"]] = _parse_roman(c["numeral"])
        assert out[c["label"]] == c["value"]
    return out


@oracle("symbolic.roman_cards.card_value")
def _roman_value(tr):
    return _card_values(tr)[step(tr, "pick")["label"]]


@oracle("symbolic.roman_cards.card_sum")
def _roman_sum(tr):
    values = _card_values(tr)
    return sum(values[c["label"]] for c in step(tr, "pair"))


@oracle("symbolic.roman_cards.extreme_card")
def _roman_extreme(tr):
    values = _card_values(tr)
    pick = max if tr["query"]["extreme"] == "largest" else min
    return pick(values, key=values.get)
