"""Independent oracles for the symbolic domain: clock readings from hand angles, balances solved by substitution
in order, spinner probabilities as exact fractions."""
from __future__ import annotations

from collections import Counter
from fractions import Fraction

from tests.oracles import step


def _minutes(clock) -> int:
    """Minutes after 12 o'clock, recovered from where the hour hand points (0.5° per minute)."""
    hour_hand = ((clock["hour"] % 12) * 30 + clock["minute"] / 2) % 360
    return round(hour_hand * 2)


def _text(total: int) -> str:
    total %= 720
    h, m = divmod(total, 60)
    return f"{h if h else 12}:{m:02d}"


def _read_time(tr):
    return _text(_minutes(step(tr, "pick")))


def _elapsed(tr):
    start, stop = step(tr, "start"), step(tr, "stop")
    return (_minutes(stop) - _minutes(start)) % 720


def _extreme_clock(tr):
    clocks = tr["state"]["clocks"]
    pick = min if tr["query"]["extreme"] == "earliest" else max
    return pick(clocks, key=_minutes)["label"]


def _hand_angle(tr):
    c = step(tr, "pick")
    hour_hand = (c["hour"] % 12) * 30 + c["minute"] * 0.5
    minute_hand = c["minute"] * 6
    gap = abs(hour_hand - minute_hand)
    return min(gap, 360 - gap)


def _time_after(tr):
    c = step(tr, "pick")
    right = _text(_minutes(c) + step(tr, "delta"))
    options = step(tr, "options")
    assert options.count(right) == 1
    return "ABCDEFGH"[options.index(right)]


def _solve_balances(tr) -> dict[str, int]:
    """Substitution, scale by scale: each scale has exactly one kind of shape not weighed before."""
    known: dict[str, int] = {}
    for scale in tr["state"]["scales"]:
        right = sum(int(t) for t in scale["right"])
        left_known = sum(int(t) if t.isdigit() else known.get(t, 0) for t in scale["left"])
        new = [t for t in scale["left"] if not t.isdigit() and t not in known]
        assert new and len(set(new)) == 1
        known[new[0]] = (right - left_known) // len(new)
        assert left_known + known[new[0]] * len(new) == right
    return known


def _shape_weight(tr):
    return _solve_balances(tr)[step(tr, "target")]


def _total_weight(tr):
    return sum(_solve_balances(tr).values())


def _color_chance(tr):
    sectors = tr["state"]["sectors"]
    color = step(tr, "color")
    hits = sum(s["color"] == color for s in sectors)
    p = Fraction(hits, len(sectors))
    return float(p if tr["query"]["event"] == "lands on" else 1 - p)


def _likely_color(tr):
    counts = Counter(s["color"] for s in tr["state"]["sectors"])
    pick = max if tr["query"]["extreme"] == "most" else min
    return pick(counts, key=counts.get)


def _probability_option(tr):
    sectors = tr["state"]["sectors"]
    color = step(tr, "color")
    p = Fraction(sum(s["color"] == color for s in sectors), len(sectors))
    values = [Fraction(o) for o in step(tr, "options")]
    assert values.count(p) == 1
    return "ABCDEFGH"[values.index(p)]


ORACLES = {
    "symbolic.clock_row.read_time": _read_time,
    "symbolic.clock_row.elapsed_minutes": _elapsed,
    "symbolic.clock_row.extreme_clock": _extreme_clock,
    "symbolic.clock_row.hand_angle": _hand_angle,
    "symbolic.clock_row.time_after_option": _time_after,
    "symbolic.balance_equation.shape_weight": _shape_weight,
    "symbolic.balance_equation.total_weight": _total_weight,
    "symbolic.spinner.color_probability": _color_chance,
    "symbolic.spinner.likely_color": _likely_color,
    "symbolic.spinner.probability_option": _probability_option,
}
