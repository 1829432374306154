"""Oracles for the polar-frame scenes (radar, donut, gauge, protractor) and Venn icons: plain Python over the
recorded state and the program's recorded picks."""
from __future__ import annotations

from tests.oracles import step


def _radar_top_skill(tr):
    name = step(tr, "player")["name"]
    mine = [r for r in tr["state"]["ratings"] if r["player"] == name]
    pick = max if tr["query"]["extreme"] == "highest" else min
    return pick(mine, key=lambda r: r["value"])["skill"]


def _radar_skills_won(tr):
    name = step(tr, "player")["name"]
    vals = {}
    for r in tr["state"]["ratings"]:
        vals.setdefault(r["skill"], {})[r["player"]] = r["value"]
    return sum(1 for v in vals.values() if all(v[name] > w for k, w in v.items() if k != name))


def _donut_largest(tr):
    slices = tr["state"]["slices"]
    assert sum(s["share"] for s in slices) == 100
    pick = max if tr["query"]["extreme"] == "largest" else min
    return pick(slices, key=lambda s: s["share"])["name"]


def _donut_sum(tr):
    pair = step(tr, "pair")
    assert len(pair) == min(len(tr["state"]["slices"]) - 1, 2 + tr["level"] // 4)
    return sum(s["share"] for s in pair)


def _gauge_value(tr):
    return tr["state"]["needle"]["value"]


def _gauge_zone(tr):
    v = tr["state"]["value"]
    return next(z["color"] for z in tr["state"]["zones"] if z["lo"] < v < z["hi"])


def _protractor_angle(tr):
    degs = [r["deg"] for r in tr["state"]["rays"]]
    return abs(degs[1] - degs[0])


def _venn_members(tr, icon):
    """The circles an icon lies in, from its drawn position (not from the recorded region key)."""
    inside = {c["name"] for c in tr["state"]["circles"]
              if (icon["x"] - c["x"]) ** 2 + (icon["y"] - c["y"]) ** 2 < tr["state"]["r"] ** 2}
    assert "".join(sorted(inside)) == icon["key"]
    return inside


def _venn_only_in_one(tr):
    a, b = step(tr, "inner")["name"], step(tr, "outer")["name"]
    return sum(1 for i in tr["state"]["icons"] if a in (s := _venn_members(tr, i)) and b not in s)


def _venn_in_all(tr):
    names = {c["name"] for c in tr["state"]["circles"]}
    return sum(1 for i in tr["state"]["icons"] if _venn_members(tr, i) == names)


ORACLES = {
    "icons.venn.only_in_one": _venn_only_in_one,
    "icons.venn.in_all": _venn_in_all,
    "geometry.protractor.ray_angle": _protractor_angle,
    "symbolic.gauge.read_value": _gauge_value,
    "symbolic.gauge.zone_color": _gauge_zone,
    "charts.donut.largest_share": _donut_largest,
    "charts.donut.share_sum": _donut_sum,
    "charts.radar.top_skill": _radar_top_skill,
    "charts.radar.skills_won": _radar_skills_won,
}
