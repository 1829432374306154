"""Oracles of the grammar symbolic.abacus (grammars/symbolic/abacus.yaml, programs/symbolic/abacus/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from collections import Counter

from tests.tasks.common import step
from tests.tasks.registry import oracle


_PLACES = {"TTh": 10000, "Th": 1000, "H": 100, "T": 10, "O": 1}


@oracle("symbolic.abacus.read_number")
def _abacus_number(tr) -> int:
    st = tr["state"]
    per_rod = Counter(b["rod"] for b in st["beads"])
    return sum(per_rod[r["i"]] * _PLACES[r["name"]] for r in st["rods"])


@oracle("symbolic.abacus.bead_total")
def _abacus_beads(tr):
    return len(tr["state"]["beads"])


@oracle("symbolic.abacus.add_beads")
def _abacus_add(tr):
    return _abacus_number(tr) + tr["query"]["extra"] * _PLACES[step(tr, "rod")["name"]]
