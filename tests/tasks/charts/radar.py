"""Oracles of the grammar charts.radar (grammars/charts/radar.yaml, programs/charts/radar/): each task's answer
recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


@oracle("charts.radar.top_skill")
def _radar_top_skill(tr):
    name = step(tr, "player")["name"]
    mine = [r for r in tr["state"]["ratings"] if r["player"] == name]
    pick = max if tr["query"]["extreme"] == "highest" else min
    return pick(mine, key=lambda r: r["value"])["skill"]


@oracle("charts.radar.skills_won")
def _radar_skills_won(tr):
    name = step(tr, "player")["name"]
    vals = {}
    for r in tr["state"]["ratings"]:
        vals.setdefault(r["skill"], {})[r["player"]] = r["value"]
    return sum(1 for v in vals.values() if all(v[name] > w for k, w in v.items() if k != name))
