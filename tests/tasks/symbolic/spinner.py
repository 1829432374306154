"""Oracles of the grammar symbolic.spinner (grammars/symbolic/spinner.yaml, programs/symbolic/spinner/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from collections import Counter
from fractions import Fraction

from tests.tasks.common import step
from tests.tasks.registry import option_fit, oracle


@oracle("symbolic.spinner.color_probability")
def _color_chance(tr):
    sectors = tr["state"]["sectors"]
    color = step(tr, "color")
    hits = sum(s["color"] == color for s in sectors)
    p = Fraction(hits, len(sectors))
    return float(p if tr["query"]["event"] == "lands on" else 1 - p)


@oracle("symbolic.spinner.likely_color")
def _likely_color(tr):
    counts = Counter(s["color"] for s in tr["state"]["sectors"])
    pick = max if tr["query"]["extreme"] == "most" else min
    return pick(counts, key=counts.get)


@oracle("symbolic.spinner.probability_option")
def _probability_option(tr):
    sectors = tr["state"]["sectors"]
    color = step(tr, "color")
    p = Fraction(sum(s["color"] == color for s in sectors), len(sectors))
    values = [Fraction(o) for o in step(tr, "options")]
    assert values.count(p) == 1
    return "ABCDEFGH"[values.index(p)]


@option_fit("symbolic.spinner.probability_option")
def _spinner_fits(tr):
    sectors, color = tr["state"]["sectors"], step(tr, "color")
    p = Fraction(sum(s["color"] == color for s in sectors), len(sectors))
    return [i for i, o in enumerate(step(tr, "options")) if Fraction(o) == p]
