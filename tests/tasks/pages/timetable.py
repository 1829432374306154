"""Oracles of the grammar pages.timetable (grammars/pages/timetable.yaml, programs/pages/timetable/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


# -- timetable: rebuilt as {(station row, train col): minutes or None} from the printed cells ------------------------
def _grid(tr):
    return {(c["row"], c["col"]): (c["t"] if c["stops"] else None) for c in tr["state"]["times"]}


def _hm(m):
    return f"{m // 60}:{m % 60:02d}"


@oracle("pages.timetable.next_departure")
def _tt_next(tr):
    g, row, now = _grid(tr), step(tr, "station"), step(tr, "now")
    return _hm(min(t for (r, _), t in g.items() if r == row and t is not None and t > now))


@oracle("pages.timetable.count_before")
def _tt_count(tr):
    g, row, now = _grid(tr), step(tr, "station"), step(tr, "now")
    before = tr["query"]["side"] == "before"
    return sum(1 for (r, _), t in g.items() if r == row and t is not None and ((t < now) if before else (t > now)))


@oracle("pages.timetable.arrival_time")
def _tt_arrival(tr):
    g, a, b, now = _grid(tr), step(tr, "from_row"), step(tr, "to_row"), step(tr, "now")
    cols = {c for (_, c) in g}
    ok = [(g[(a, k)], g[(b, k)]) for k in cols if g[(a, k)] is not None and g[(b, k)] is not None and g[(a, k)] > now]
    return _hm(min(ok)[1])


@oracle("pages.timetable.fastest_train")
def _tt_fastest(tr):
    g, a, b = _grid(tr), step(tr, "from_row"), step(tr, "to_row")
    names = {t["k"]: t["name"] for t in tr["state"]["trains"]}
    mins = {k: g[(b, k)] - g[(a, k)] for k in names if g[(a, k)] is not None and g[(b, k)] is not None}
    best = (min if tr["query"]["extreme"] == "fastest" else max)(mins.values())
    (k,) = [k for k, m in mins.items() if m == best]
    return names[k]


@oracle("pages.timetable.journey_minutes")
def _tt_journey(tr):
    g, a, b = _grid(tr), step(tr, "a"), step(tr, "b")
    assert a["col"] == b["col"] and g[(a["row"], a["col"])] is not None
    return g[(b["row"], b["col"])] - g[(a["row"], a["col"])]
