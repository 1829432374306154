"""Oracles of the grammar illustrations.pets (grammars/illustrations/pets.yaml, programs/illustrations/pets/): each
task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


# -- pets ---------------------------------------------------------------------------------------------------------
def _inside(tr, host):
    """The guests drawn within a host's anchor box (a bowl's inside, a tree's crown), read from positions."""
    h = tr["state"]["hosts"][host]
    out = []
    for g in tr["state"]["guests"]:
        if h["x"] - h["w"] / 2 < g["x"] < h["x"] + h["w"] / 2 and h["y"] < g["y"] < h["y"] + h["h"]:
            out.append(g)
    return out


@oracle("illustrations.pets.fish_in_bowl")
def _pets_fish(tr):
    return sum(g["kind"] == "fish" for g in _inside(tr, step(tr, "bowl")))


@oracle("illustrations.pets.birds_in_trees")
def _pets_birds(tr):
    hosts = tr["state"]["hosts"]
    return sum(g["kind"] == "bird" for i, h in enumerate(hosts) if h["kind"] == "tree" for g in _inside(tr, i))


@oracle("illustrations.pets.fullest_bowl")
def _pets_fullest(tr):
    hosts = tr["state"]["hosts"]
    counts = {i: len(_inside(tr, i)) for i, h in enumerate(hosts) if h["kind"] == "bowl"}
    best = max(counts.values())
    (top,) = [i for i, n in counts.items() if n == best]
    return hosts[top]["color"]
