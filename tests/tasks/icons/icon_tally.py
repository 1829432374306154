"""Oracles of the grammar icons.icon_tally (grammars/icons/icon_tally.yaml, programs/icons/icon_tally/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


@oracle("icons.icon_tally.count_kind")
def _tally(tr):
    # Counted from the drawn pictograms, not read off the query variable the scene was built towards.
    st = tr["state"]
    return sum(i["icon"] == st["featured"] for i in st["icons"])
