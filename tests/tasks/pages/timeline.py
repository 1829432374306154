"""Oracles of the grammar pages.timeline (grammars/pages/timeline.yaml, programs/pages/timeline/): each task's answer
recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


@oracle("pages.timeline.first_or_last")
def _timeline_extreme(tr):
    among = step(tr, "among")
    pick = min if tr["query"]["extreme"] == "first" else max
    return pick(among, key=lambda e: e["year"])["name"]


@oracle("pages.timeline.years_between")
def _timeline_between(tr):
    return abs(step(tr, "a")["year"] - step(tr, "b")["year"])
