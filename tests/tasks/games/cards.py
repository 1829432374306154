"""Oracles of the grammar games.cards (grammars/games/cards.yaml, programs/games/cards/): each task's answer recomputed
by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from collections import Counter

from tests.tasks.registry import oracle


# ---- playing cards -------------------------------------------------------------------------------------------
_FACE = {"A": 1, "J": 11, "Q": 12, "K": 13}


def _card_value(card):
    return _FACE.get(card["rank"]) or int(card["rank"])


@oracle("games.cards.blackjack_total")
def _bj_total(tr):
    cards = tr["state"]["cards"]
    total = sum(min(_card_value(c), 10) for c in cards)
    aces = sum(c["rank"] == "A" for c in cards)
    while aces and total + 10 <= 21:  # at most one ace can ever be promoted
        total, aces = total + 10, 0
    return total


@oracle("games.cards.suit_majority")
def _suit_major(tr):
    counts = Counter(c["suit"] for c in tr["state"]["cards"])
    (best,) = [s for s, v in counts.items() if v == max(counts.values())]
    return best


@oracle("games.cards.suit_sum")
def _suit_sum(tr):
    return sum(_card_value(c) for c in tr["state"]["cards"] if c["suit"] == tr["query"]["suit"])


@oracle("games.cards.rank_pairs")
def _rank_pairs(tr):
    counts = Counter(c["rank"] for c in tr["state"]["cards"])
    return sum(1 for v in counts.values() if v >= 2)
