"""Oracles of the grammar pages.month_calendar (grammars/pages/month_calendar.yaml, programs/pages/month_calendar/):
each task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


@oracle("pages.month_calendar.weekday_of_day")
def _calendar_weekday(tr):
    import datetime

    s = tr["state"]
    start = step(tr, "start")["day"]
    d = datetime.date(s["year"], s["month"], start) + datetime.timedelta(days=step(tr, "offset"))
    return _WEEKDAYS[d.weekday()]


@oracle("pages.month_calendar.weekend_events")
def _calendar_weekend(tr):
    import datetime

    s = tr["state"]
    kinds = {k["name"] for k in step(tr, "asked")}
    assert len(kinds) == min(len(s["kinds"]), 1 + tr["level"] // 6)
    return sum(1 for e in s["events"] if e["kind"] in kinds
               and datetime.date(s["year"], s["month"], e["day"]).weekday() >= 5)
