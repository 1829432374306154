"""Oracles of the grammar charts.crossing_lines (grammars/charts/crossing_lines.yaml, programs/charts/crossing_lines/):
each task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


# -- multi-line charts: read from the plotted points, club by club ------------------------------------------------
def _series(tr, name):
    pts = sorted((p for p in tr["state"]["points"] if p["club"] == name), key=lambda p: p["mi"])
    return [p["value"] for p in pts]


@oracle("charts.crossing_lines.crossing_count")
def _cross_count(tr):
    a, b = (_series(tr, c["name"]) for c in step(tr, "pair"))
    above = [x > y for x, y in zip(a, b)]
    return sum(u != v for u, v in zip(above, above[1:]))


@oracle("charts.crossing_lines.lead_months")
def _lead_months(tr):
    me = step(tr, "club")["name"]
    names = {p["club"] for p in tr["state"]["points"]}
    mine = _series(tr, me)
    rest = [_series(tr, n) for n in names if n != me]
    return sum(all(v > r[j] for r in rest) for j, v in enumerate(mine))


@oracle("charts.crossing_lines.first_overtake")
def _first_overtake(tr):
    a, b = (_series(tr, c["name"]) for c in step(tr, "pair"))
    if a[0] > b[0]:
        a, b = b, a
    months = sorted({(p["mi"], p["month"]) for p in tr["state"]["points"]})
    return next(months[j][1] for j in range(len(a)) if a[j] > b[j])


@oracle("charts.crossing_lines.widest_gap")
def _widest_gap(tr):
    a, b = (_series(tr, c["name"]) for c in step(tr, "pair"))
    months = [m for _, m in sorted({(p["mi"], p["month"]) for p in tr["state"]["points"]})]
    gaps = [abs(x - y) for x, y in zip(a, b)]
    return months[gaps.index(max(gaps))]
