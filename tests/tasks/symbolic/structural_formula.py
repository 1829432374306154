"""Oracles of the grammar symbolic.structural_formula (grammars/symbolic/structural_formula.yaml,
programs/symbolic/structural_formula/): each task's answer recomputed by plain Python from the recorded trace, never
the expression language."""
from __future__ import annotations

from collections import Counter

from tests.tasks.common import step
from tests.tasks.registry import oracle


_VALENCE = {"C": 4, "H": 1, "O": 2, "F": 1, "Cl": 1, "Br": 1}


_MASS = {"C": 12.0, "H": 1.0, "O": 16.0, "F": 19.0, "Cl": 35.5, "Br": 80.0}


def _molecule(tr) -> Counter:
    atoms, bonds = tr["state"]["atoms"], tr["state"]["bonds"]
    used = Counter()
    for b in bonds:
        used[b["a"]] += b["order"]
        used[b["b"]] += b["order"]
    for i, t in enumerate(atoms):
        assert used[i] == _VALENCE[t["el"]], (i, t, used[i])  # a real molecule: every bond of every atom drawn
    assert len(bonds) == len(atoms) - 1  # one connected, acyclic structure
    return Counter(t["el"] for t in atoms)


@oracle("symbolic.structural_formula.atom_count")
def _chem_atom_count(tr):
    return _molecule(tr)[step(tr, "element")]


@oracle("symbolic.structural_formula.molecular_formula")
def _chem_formula(tr):
    counts = _molecule(tr)
    order = ["C", "H"] + sorted(e for e in counts if e not in ("C", "H"))
    return "".join(e + (str(counts[e]) if counts[e] > 1 else "") for e in order if counts[e])


@oracle("symbolic.structural_formula.bond_count")
def _chem_bonds(tr):
    _molecule(tr)
    want = 1 if tr["query"]["kind"] == "single" else 2
    return sum(b["order"] == want for b in tr["state"]["bonds"])


@oracle("symbolic.structural_formula.molar_mass")
def _chem_mass(tr):
    return sum(_MASS[e] * k for e, k in _molecule(tr).items())
