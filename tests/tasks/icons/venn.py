"""Oracles of the grammar icons.venn (grammars/icons/venn.yaml, programs/icons/venn/): each task's answer recomputed by
plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


def _venn_members(tr, icon):
    """The circles an icon lies in, from its drawn position (not from the recorded region key)."""
    inside = {c["name"] for c in tr["state"]["circles"]
              if (icon["x"] - c["x"]) ** 2 + (icon["y"] - c["y"]) ** 2 < tr["state"]["r"] ** 2}
    assert "".join(sorted(inside)) == icon["key"]
    return inside


@oracle("icons.venn.only_in_one")
def _venn_only_in_one(tr):
    a, b = step(tr, "inner")["name"], step(tr, "outer")["name"]
    return sum(1 for i in tr["state"]["icons"] if a in (s := _venn_members(tr, i)) and b not in s)


@oracle("icons.venn.in_all")
def _venn_in_all(tr):
    names = {c["name"] for c in tr["state"]["circles"]}
    return sum(1 for i in tr["state"]["icons"] if _venn_members(tr, i) == names)
