"""Oracles of the grammar charts.scatter_plot (grammars/charts/scatter_plot.yaml, programs/charts/scatter_plot/): each
task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from collections import Counter

from tests.tasks.common import options_matching, step
from tests.tasks.registry import option_fit, oracle


@oracle("charts.scatter_plot.count_above")
def _scatter_above(tr):
    return sum(p["y"] > tr["query"]["threshold"] for p in tr["state"]["points"])


@oracle("charts.scatter_plot.majority_group")
def _scatter_majority(tr):
    groups = [p["group"] for p in tr["state"]["points"]]
    top = Counter(groups).most_common(1)[0][0]
    return "ABCDEFGH"[step(tr, "options").index(top)]


@option_fit("charts.scatter_plot.majority_group")
def _scatter_fits(tr):
    counts = Counter(p["group"] for p in tr["state"]["points"])
    return options_matching(tr, [g for g, n in counts.items() if n == max(counts.values())])
