"""Oracles for the second batch of composed chart scenes (stacked bars, histograms, box plots, candlesticks,
waterfalls, heatmaps, treemaps): independent Python over the recorded state."""
from __future__ import annotations

from tests.oracles import step


def _stacked_total(tr):
    fruit = step(tr, "fruit")
    return sum(s["value"] for s in tr["state"]["segs"] if s["fruit"] == fruit)


def _stacked_top(tr):
    fruit = step(tr, "fruit")
    mine = [s for s in tr["state"]["segs"] if s["fruit"] == fruit]
    return "Store " + max(mine, key=lambda s: s["value"])["store"]


def _hist_range(tr):
    first, span = step(tr, "first"), step(tr, "span")
    return sum(tr["state"]["counts"][first:first + span])


def _hist_fullest(tr):
    counts = tr["state"]["counts"]
    pick = max if tr["query"]["extreme"] == "most" else min
    i = counts.index(pick(counts))
    return tr["state"]["edges"][i]


def _box_median(tr):
    boxes = tr["state"]["boxes"]
    pick = max if tr["query"]["extreme"] == "highest" else min
    return pick(boxes, key=lambda b: b["med"])["name"]


def _box_iqr(tr):
    boxes = tr["state"]["boxes"]
    pick = max if tr["query"]["extreme"] == "largest" else min
    return pick(boxes, key=lambda b: b["q3"] - b["q1"])["name"]


def _candle_count(tr):
    higher = tr["query"]["direction"] == "higher"
    return sum((d["close"] > d["open"]) == higher for d in tr["state"]["days"])


def _candle_range(tr):
    return max(tr["state"]["days"], key=lambda d: d["high"] - d["low"])["day"]


def _water_final(tr):
    st = tr["state"]
    total = st["start"]
    for c in st["changes"]:
        total += c
    return total


def _water_move(tr):
    st = tr["state"]
    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    want_up = tr["query"]["direction"] == "increase"
    cands = [(abs(c), months[i]) for i, c in enumerate(st["changes"]) if (c > 0) == want_up]
    return max(cands)[1]


def _heat_row(tr):
    totals: dict = {}
    for c in tr["state"]["cells"]:
        totals[c["fruit"]] = totals.get(c["fruit"], 0) + c["v"]
    pick = max if tr["query"]["extreme"] == "most" else min
    return pick(totals, key=totals.get)


def _heat_count(tr):
    month = step(tr, "month")
    threshold = int(tr["query"]["fraction"] * tr["state"]["top"])
    return sum(c["month"] == month and c["v"] > threshold for c in tr["state"]["cells"])


def _tree_stall(tr):
    stall = step(tr, "stall")["name"]
    return sum(t["value"] for t in tr["state"]["items"] if t["stall"] == stall)


def _tree_kth(tr):
    items = sorted(tr["state"]["items"], key=lambda t: t["value"], reverse=True)
    return items[tr["query"]["k"] - 1]["fruit"]


# -- multi-line charts: read from the plotted points, club by club ------------------------------------------------
def _series(tr, name):
    pts = sorted((p for p in tr["state"]["points"] if p["club"] == name), key=lambda p: p["mi"])
    return [p["value"] for p in pts]


def _cross_count(tr):
    a, b = (_series(tr, c["name"]) for c in step(tr, "pair"))
    above = [x > y for x, y in zip(a, b)]
    return sum(u != v for u, v in zip(above, above[1:]))


def _lead_months(tr):
    me = step(tr, "club")["name"]
    names = {p["club"] for p in tr["state"]["points"]}
    mine = _series(tr, me)
    rest = [_series(tr, n) for n in names if n != me]
    return sum(all(v > r[j] for r in rest) for j, v in enumerate(mine))


def _first_overtake(tr):
    a, b = (_series(tr, c["name"]) for c in step(tr, "pair"))
    if a[0] > b[0]:
        a, b = b, a
    months = sorted({(p["mi"], p["month"]) for p in tr["state"]["points"]})
    return next(months[j][1] for j in range(len(a)) if a[j] > b[j])


def _widest_gap(tr):
    a, b = (_series(tr, c["name"]) for c in step(tr, "pair"))
    months = [m for _, m in sorted({(p["mi"], p["month"]) for p in tr["state"]["points"]})]
    gaps = [abs(x - y) for x, y in zip(a, b)]
    return months[gaps.index(max(gaps))]


def _trend_sign(tr):
    import statistics
    pts = tr["state"]["points"]
    r = statistics.correlation([p["x"] for p in pts], [p["y"] for p in pts])
    return "positive" if r > 0.2 else ("negative" if r < -0.2 else "none")


ORACLES = {
    "charts.stacked_bars.fruit_total": _stacked_total,
    "charts.stacked_bars.top_store": _stacked_top,
    "charts.histogram.count_in_range": _hist_range,
    "charts.histogram.fullest_bin": _hist_fullest,
    "charts.box_plot.largest_median": _box_median,
    "charts.box_plot.widest_box": _box_iqr,
    "charts.candlestick.count_up_days": _candle_count,
    "charts.candlestick.widest_range": _candle_range,
    "charts.waterfall.final_total": _water_final,
    "charts.waterfall.largest_move": _water_move,
    "charts.heatmap.top_row_total": _heat_row,
    "charts.heatmap.count_above": _heat_count,
    "charts.treemap.stall_total": _tree_stall,
    "charts.treemap.kth_largest": _tree_kth,
    "charts.crossing_lines.crossing_count": _cross_count,
    "charts.crossing_lines.lead_months": _lead_months,
    "charts.crossing_lines.first_overtake": _first_overtake,
    "charts.crossing_lines.widest_gap": _widest_gap,
    "charts.trend_scatter.trend_sign": _trend_sign,
}
