"""Oracles of the grammar symbolic.clock_row (grammars/symbolic/clock_row.yaml, programs/symbolic/clock_row/): each
task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import options_matching, step
from tests.tasks.registry import option_fit, oracle


def _minutes(clock) -> int:
    """Minutes after 12 o'clock, recovered from where the hour hand points (0.5° per minute)."""
    hour_hand = ((clock["hour"] % 12) * 30 + clock["minute"] / 2) % 360
    return round(hour_hand * 2)


def _text(total: int) -> str:
    total %= 720
    h, m = divmod(total, 60)
    return f"{h if h else 12}:{m:02d}"


@oracle("symbolic.clock_row.read_time")
def _read_time(tr):
    return _text(_minutes(step(tr, "pick")))


@oracle("symbolic.clock_row.elapsed_minutes")
def _elapsed(tr):
    start, stop = step(tr, "start"), step(tr, "stop")
    return (_minutes(stop) - _minutes(start)) % 720


@oracle("symbolic.clock_row.extreme_clock")
def _extreme_clock(tr):
    clocks = tr["state"]["clocks"]
    pick = min if tr["query"]["extreme"] == "earliest" else max
    return pick(clocks, key=_minutes)["label"]


@oracle("symbolic.clock_row.hand_angle")
def _hand_angle(tr):
    c = step(tr, "pick")
    hour_hand = (c["hour"] % 12) * 30 + c["minute"] * 0.5
    minute_hand = c["minute"] * 6
    gap = abs(hour_hand - minute_hand)
    return min(gap, 360 - gap)


@oracle("symbolic.clock_row.time_after_option")
def _time_after(tr):
    c = step(tr, "pick")
    right = _text(_minutes(c) + step(tr, "delta"))
    options = step(tr, "options")
    assert options.count(right) == 1
    return "ABCDEFGH"[options.index(right)]


@option_fit("symbolic.clock_row.time_after_option")
def _clock_fits(tr):
    return options_matching(tr, [_text(_minutes(step(tr, "pick")) + step(tr, "delta"))])
