"""Oracles for the pages domain (tables, calendars, timelines) and the composed chart/function scenes added with it:
independent Python over the recorded state and the program's recorded picks."""
from __future__ import annotations

from tests.oracles import step


def _cell(p, column):
    return p["price"] if column == "price" else p["stock"]


def _table_lookup(tr):
    row = step(tr, "row")
    return _cell(row, tr["query"]["column"])


def _table_count(tr):
    q = tr["query"]
    cat, t = step(tr, "cat"), step(tr, "threshold")
    more = q["relation"] == "more than"
    assert (cat == "") == (tr["level"] >= 5)  # from level 5 every row counts
    return sum(1 for p in tr["state"]["products"] if (cat == "" or p["category"] == cat)
               and ((_cell(p, q["column"]) > t) if more else (_cell(p, q["column"]) < t)))


ORACLES = {
    "pages.data_table.cell_lookup": _table_lookup,
    "pages.data_table.count_rows": _table_count,
}


_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def _calendar_weekday(tr):
    import datetime

    s = tr["state"]
    start = step(tr, "start")["day"]
    d = datetime.date(s["year"], s["month"], start) + datetime.timedelta(days=step(tr, "offset"))
    return _WEEKDAYS[d.weekday()]


def _calendar_weekend(tr):
    import datetime

    s = tr["state"]
    kinds = {k["name"] for k in step(tr, "asked")}
    assert len(kinds) == min(len(s["kinds"]), 1 + tr["level"] // 6)
    return sum(1 for e in s["events"] if e["kind"] in kinds
               and datetime.date(s["year"], s["month"], e["day"]).weekday() >= 5)


ORACLES.update({
    "pages.month_calendar.weekday_of_day": _calendar_weekday,
    "pages.month_calendar.weekend_events": _calendar_weekend,
})


def _timeline_extreme(tr):
    among = step(tr, "among")
    pick = min if tr["query"]["extreme"] == "first" else max
    return pick(among, key=lambda e: e["year"])["name"]


def _timeline_between(tr):
    return abs(step(tr, "a")["year"] - step(tr, "b")["year"])


ORACLES.update({
    "pages.timeline.first_or_last": _timeline_extreme,
    "pages.timeline.years_between": _timeline_between,
})


def _multiples_month(tr):
    month = step(tr, "month")
    row = [p for p in tr["state"]["points"] if p["month"] == month]
    pick = max if tr["query"]["extreme"] == "most" else min
    return pick(row, key=lambda p: p["value"])["city"]


def _multiples_rise(tr):
    series: dict[str, list] = {}
    for p in tr["state"]["points"]:
        series.setdefault(p["city"], []).append((p["mi"], p["value"]))
    rise = {c: max(v)[1] - min(v)[1] for c, v in series.items()}  # last month minus first month
    return max(rise, key=rise.get)


ORACLES.update({
    "charts.small_multiples.highest_in_month": _multiples_month,
    "charts.small_multiples.largest_rise": _multiples_rise,
})


def _poly(c, x):
    return c["a"] * x * x + c["b"] * x + c["c"]  # expanded form, independent of the vertex form


def _function_value(tr):
    return _poly(step(tr, "curve"), step(tr, "k"))


def _function_crossings(tr):
    c = step(tr, "curve")
    disc = c["b"] * c["b"] - 4 * c["a"] * c["c"]
    return 0 if disc < 0 else (1 if disc == 0 else 2)


ORACLES.update({
    "charts.function_graph.value_at": _function_value,
    "charts.function_graph.x_crossings": _function_crossings,
})


# -- receipt: line cost = quantity × unit price, from the printed lines --------------------------------------------
def _line_cost(line):
    return line["qty"] * line["price"]


def _receipt_line(tr):
    return _line_cost(step(tr, "row"))


def _receipt_total(tr):
    lines = tr["state"]["lines"]
    chosen = lines if tr["query"]["scope"] == "all" else step(tr, "chosen")
    assert all(c in lines for c in chosen)
    return sum(_line_cost(x) for x in chosen)


def _receipt_count(tr):
    lines = tr["state"]["lines"]
    if tr["query"]["test"] == "several":
        return sum(1 for x in lines if x["qty"] >= 2)
    bar = step(tr, "bar")
    return sum(1 for x in lines if _line_cost(x) > bar)


def _receipt_extreme(tr):
    lines = tr["state"]["lines"]
    pick = max if tr["query"]["extreme"] == "most" else min
    best = pick(_line_cost(x) for x in lines)
    winners = [x["name"] for x in lines if _line_cost(x) == best]
    assert len(winners) == 1
    return winners[0]


ORACLES.update({
    "pages.receipt.line_cost": _receipt_line,
    "pages.receipt.total": _receipt_total,
    "pages.receipt.count_lines": _receipt_count,
    "pages.receipt.priciest_line": _receipt_extreme,
})


# -- timetable: rebuilt as {(station row, train col): minutes or None} from the printed cells ------------------------
def _grid(tr):
    return {(c["row"], c["col"]): (c["t"] if c["stops"] else None) for c in tr["state"]["times"]}


def _hm(m):
    return f"{m // 60}:{m % 60:02d}"


def _tt_next(tr):
    g, row, now = _grid(tr), step(tr, "station"), step(tr, "now")
    return _hm(min(t for (r, _), t in g.items() if r == row and t is not None and t > now))


def _tt_count(tr):
    g, row, now = _grid(tr), step(tr, "station"), step(tr, "now")
    before = tr["query"]["side"] == "before"
    return sum(1 for (r, _), t in g.items() if r == row and t is not None and ((t < now) if before else (t > now)))


def _tt_arrival(tr):
    g, a, b, now = _grid(tr), step(tr, "from_row"), step(tr, "to_row"), step(tr, "now")
    cols = {c for (_, c) in g}
    ok = [(g[(a, k)], g[(b, k)]) for k in cols if g[(a, k)] is not None and g[(b, k)] is not None and g[(a, k)] > now]
    return _hm(min(ok)[1])


def _tt_fastest(tr):
    g, a, b = _grid(tr), step(tr, "from_row"), step(tr, "to_row")
    names = {t["k"]: t["name"] for t in tr["state"]["trains"]}
    mins = {k: g[(b, k)] - g[(a, k)] for k in names if g[(a, k)] is not None and g[(b, k)] is not None}
    best = (min if tr["query"]["extreme"] == "fastest" else max)(mins.values())
    (k,) = [k for k, m in mins.items() if m == best]
    return names[k]


def _tt_journey(tr):
    g, a, b = _grid(tr), step(tr, "a"), step(tr, "b")
    assert a["col"] == b["col"] and g[(a["row"], a["col"])] is not None
    return g[(b["row"], b["col"])] - g[(a["row"], a["col"])]


ORACLES.update({
    "pages.timetable.next_departure": _tt_next,
    "pages.timetable.count_before": _tt_count,
    "pages.timetable.arrival_time": _tt_arrival,
    "pages.timetable.fastest_train": _tt_fastest,
    "pages.timetable.journey_minutes": _tt_journey,
})


# -- settings panel: switches and check boxes carry `on`; sliders a value -----------------------------------------
def _settings_count(tr):
    q, s = tr["query"], tr["state"]
    if tr["level"] >= 3:  # switches and boxes together
        controls = s["switches"] + s["boxes"]
    else:
        controls = s["switches"] if q["control"] == "switches" else s["boxes"]
    return sum(1 for c in controls if c["on"] == (q["state"] == "on"))


def _settings_switch(tr):
    q, s = tr["query"], tr["state"]
    names = [p["name"] for p in step(tr, "picked")]
    assert len(set(names)) == (1 if tr["level"] < 6 else 2)
    state = {c["name"]: c["on"] for c in s["switches"]}
    return all(state[n] == (q["asked"] == "on") for n in names)


def _settings_ticked(tr):
    want = tr["query"]["state"] == "ticked"
    return [b["name"] for b in tr["state"]["boxes"] if b["on"] == want]


def _settings_slider(tr):
    s = tr["state"]
    (slider,) = [x for x in s["sliders"] if x["name"] == step(tr, "slider")["name"]]
    assert slider["value"] % s["notch"] == 0 and 0 <= slider["value"] <= 100
    return slider["value"]


ORACLES.update({
    "pages.settings_panel.count_on": _settings_count,
    "pages.settings_panel.switch_state": _settings_switch,
    "pages.settings_panel.ticked_boxes": _settings_ticked,
    "pages.settings_panel.slider_value": _settings_slider,
})


# -- street map: blocks as (row, col), rows growing southwards ------------------------------------------------------
def _map_direction(tr):
    a, b = step(tr, "a"), step(tr, "b")
    ns = "north" if b["row"] < a["row"] else "south" if b["row"] > a["row"] else ""
    ew = "east" if b["col"] > a["col"] else "west" if b["col"] < a["col"] else ""
    return f"{ns}-{ew}" if ns and ew else ns + ew


def _map_toward(tr):
    d, ref = tr["query"]["direction"], step(tr, "ref")
    want = ((-1 if "north" in d else 1 if "south" in d else 0), (1 if "east" in d else -1 if "west" in d else 0))

    def sgn(v):
        return (v > 0) - (v < 0)

    (hit,) = [p["name"] for p in tr["state"]["places"] if p["i"] != ref["i"]
              and (sgn(p["row"] - ref["row"]), sgn(p["col"] - ref["col"])) == want]
    return hit


def _map_blocks(tr):
    a, b = step(tr, "a"), step(tr, "b")
    return abs(a["row"] - b["row"]) + abs(a["col"] - b["col"])


def _map_count(tr):
    s, side = tr["state"], tr["query"]["side"]
    road = step(tr, "road")
    if side in ("east", "west"):
        k = s["avenue_names"].index(road)  # avenue k runs along the west edge of block column k
        return sum(1 for p in s["places"] if (p["col"] >= k if side == "east" else p["col"] < k))
    k = s["street_names"].index(road)  # street k runs along the north edge of block row k
    return sum(1 for p in s["places"] if (p["row"] < k if side == "north" else p["row"] >= k))


ORACLES.update({
    "pages.street_map.direction_of": _map_direction,
    "pages.street_map.landmark_toward": _map_toward,
    "pages.street_map.blocks_between": _map_blocks,
    "pages.street_map.count_beyond": _map_count,
})


# -- flowchart: an independent walk over the recorded boxes (heap ids: node i's children are 2i and 2i + 1) ----------
def _flow_walk(tr):
    s = tr["state"]

    def run(op, x):
        return {"add": x + op["k"], "sub": x - op["k"], "mul": x * op["k"]}.get(op["kind"], x)

    x = s["x0"]
    for op in sorted(s["steps"], key=lambda o: o["i"]):
        x = run(op, x)
    decisions = {d["id"]: d for d in s["decisions"]}
    ops = {b["id"]: b for b in s["branch_ops"]}
    ends = {e["id"]: e["name"] for e in s["ends"]}
    node, yeses = 1, 0
    while node not in ends:
        d = decisions[node]
        yes = x > d["t"] if d["kind"] == "gt" else (x < d["t"] if d["kind"] == "lt" else x % 2 == 0)
        yeses += yes
        node = 2 * node + (0 if yes == d["yes_left"] else 1)  # the yes arrow goes to the left child when yes_left
        if node in ops:
            x = run(ops[node], x)
    return ends[node], x, yeses


ORACLES.update({
    "pages.flowchart.end_box": lambda tr: _flow_walk(tr)[0],
    "pages.flowchart.final_value": lambda tr: _flow_walk(tr)[1],
    "pages.flowchart.yes_count": lambda tr: _flow_walk(tr)[2],
})


def _map_nearest(tr):
    ref = step(tr, "ref")
    dist = {p["name"]: abs(p["row"] - ref["row"]) + abs(p["col"] - ref["col"])
            for p in tr["state"]["places"] if p["i"] != ref["i"]}
    best = (min if tr["query"]["extreme"] == "nearest" else max)(dist.values())
    (name,) = [n for n, d in dist.items() if d == best]
    return name


ORACLES["pages.street_map.nearest_landmark"] = _map_nearest


# -- paper form: fields hold their written text; dates are day/month/year -------------------------------------------
def _form_field(tr):
    (f,) = [f for f in tr["state"]["fields"] if f["label"] == step(tr, "field")["label"]]
    return f["value"]


def _form_count(tr):
    group = step(tr, "group")
    assert (group == "") == (tr["level"] >= 8)
    want = tr["query"]["state"] == "ticked"
    return sum(1 for b in tr["state"]["boxes"] if (not group or b["group"] == group) and b["on"] == want)


def _form_age(tr):
    import datetime

    s = tr["state"]
    (dob,) = [f["value"] for f in s["fields"] if f["label"] == "Date of birth"]
    bd, bm, by = (int(v) for v in dob.split("/"))
    fd, fm, fy = (int(v) for v in s["today"].split("/"))
    born, on = datetime.date(by, bm, bd), datetime.date(fy, fm, fd)
    return on.year - born.year - ((on.month, on.day) < (born.month, born.day))


ORACLES.update({
    "pages.paper_form.field_value": _form_field,
    "pages.paper_form.count_ticked": _form_count,
    "pages.paper_form.age_on_form": _form_age,
})
