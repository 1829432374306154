"""Clock arithmetic on a 12-hour dial.

A time is any record with integer `hour` and `minute` fields (the clocks of a scene are such records). Hours 0 and
12 are the same position on the dial; results are given with hours 1..12, as a clock face shows them. Times are
compared and subtracted on the dial: `minutes_between(a, b)` counts forward from a to b, so it is the elapsed time
when b is less than 12 hours after a.
"""
from __future__ import annotations

from ..errors import EvalError
from .builtins import _fail, builtin
from .compile import Compiled
from .types import ANY, FLOAT, INT, STR, RecordT, record

DIAL = 12 * 60  # minutes around the dial
TIME = record(hour=INT, minute=INT)


def _time_arg(ck, node, what: str):
    c = ck.compile(node)
    t = c.type
    if t != ANY and not (isinstance(t, RecordT) and t.field("hour") in (INT, ANY) and t.field("minute") in (INT, ANY)):
        ck.error(node, f"{what} must be a time (a record with integer hour and minute), got {t}", code="type-mismatch")
        return None
    return c


def dial_minutes(t: dict) -> int:
    h, m = t["hour"], t["minute"]
    if not (0 <= h <= 24 and 0 <= m < 60):
        raise EvalError(f"not a time of day: hour {h}, minute {m}")
    return (h % 12) * 60 + m


def from_dial(minutes: int) -> dict:
    minutes %= DIAL
    h = minutes // 60
    return {"hour": 12 if h == 0 else h, "minute": minutes % 60}


def hand_angle(t: dict) -> float:
    """The smaller angle between the hour and minute hands, in degrees (0..180)."""
    total = dial_minutes(t)
    hour_hand = total * 0.5  # 360° per 720 minutes
    minute_hand = (total % 60) * 6.0
    a = abs(hour_hand - minute_hand) % 360.0
    return min(a, 360.0 - a)


def format_time(t: dict) -> str:
    d = from_dial(dial_minutes(t))
    return f"{d['hour']}:{d['minute']:02d}"


def _time1(name: str, fn, result, doc: str):
    @builtin(name, f"{name}(time)", 1, doc=doc)
    def typer(ck, node, args):
        c = _time_arg(ck, args[0], f"the argument of {name}()")
        if c is None:
            return _fail(ck)
        f = c.fn
        return Compiled(result, lambda env: fn(f(env)))


_time1("clock_angle", hand_angle, FLOAT, "the smaller angle between the hour and minute hands, in degrees (0..180)")
_time1("format_time", format_time, STR, "the time as h:mm on a 12-hour clock, e.g. '3:05' or '12:30'")
_time1("dial_minutes", dial_minutes, INT, "minutes past 12 o'clock on the dial (0..719): orders times after noon")


@builtin("add_minutes", "add_minutes(time, minutes)", 2,
         doc="the time n minutes later (earlier when negative), as {hour: 1..12, minute}")
def _add_minutes(ck, node, args):
    c = _time_arg(ck, args[0], "the first argument of add_minutes()")
    n = ck.expect(args[1], INT, "the minutes of add_minutes()")
    if c is None:
        return _fail(ck)
    f, nf = c.fn, n.fn
    return Compiled(TIME, lambda env: from_dial(dial_minutes(f(env)) + nf(env)))


@builtin("minutes_between", "minutes_between(start, end)", 2,
         doc="minutes counted forward on the dial from start to end (0..719)")
def _minutes_between(ck, node, args):
    a = _time_arg(ck, args[0], "the start of minutes_between()")
    b = _time_arg(ck, args[1], "the end of minutes_between()")
    if a is None or b is None:
        return _fail(ck)
    af, bf = a.fn, b.fn
    return Compiled(INT, lambda env: (dial_minutes(bf(env)) - dial_minutes(af(env))) % DIAL)
