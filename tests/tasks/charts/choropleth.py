"""Oracles of the grammar charts.choropleth (grammars/charts/choropleth.yaml, programs/charts/choropleth/): each
task's answer recomputed by plain Python from the recorded trace, never the expression language. The largest-area
oracle measures the countries itself, from the vendored shapes by the shoelace formula on the sphere's
equal-area projection (not from the records the state copied)."""
from __future__ import annotations

import json
import math
from pathlib import Path

from tests.tasks.common import step
from tests.tasks.registry import oracle

SHAPES = Path(__file__).resolve().parents[3] / "compiler" / "assets" / "geo"


def _area_by_name() -> dict[str, float]:
    """Each country's area (any consistent unit), straight from the TopoJSON: arcs undeltaed, rings joined, the
    shoelace formula over (lon radians, sin lat) with longitudes unwrapped across the antimeridian."""
    topo = json.loads((SHAPES / "countries-110m.json").read_text())
    (sx, sy), (tx, ty) = topo["transform"]["scale"], topo["transform"]["translate"]
    arcs = []
    for arc in topo["arcs"]:
        x = y = 0
        pts = []
        for dx, dy in arc:
            x, y = x + dx, y + dy
            pts.append((x * sx + tx, y * sy + ty))
        arcs.append(pts)

    def ring_area(ring):
        pts = []
        for k in ring:
            seg = arcs[k] if k >= 0 else arcs[~k][::-1]
            pts += seg if not pts else seg[1:]
        lons = [pts[0][0]]
        for (a, _), (b, _) in zip(pts, pts[1:]):
            step_ = b - a
            step_ -= 360 * round(step_ / 360)
            lons.append(lons[-1] + step_)
        xy = [(math.radians(lo), math.sin(math.radians(p[1]))) for lo, p in zip(lons, pts)]
        return abs(sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(xy, xy[1:] + xy[:1]))) / 2

    out = {}
    for g in topo["objects"]["countries"]["geometries"]:
        polys = g["arcs"] if g["type"] == "MultiPolygon" else [g["arcs"]]
        out[g["properties"]["name"]] = sum(ring_area(p[0]) - sum(ring_area(h) for h in p[1:]) for p in polys)
    return out


@oracle("charts.choropleth.count_answer")
def _count_answer(tr):
    key = step(tr, "key")["answer"]
    return sum(1 for c in tr["state"]["countries"] if c["answer"] == key)


@oracle("charts.choropleth.marked_answer")
def _marked_answer(tr):
    return step(tr, "target")["country"]["answer"]


@oracle("charts.choropleth.largest_marked")
def _largest_marked(tr):
    areas = _area_by_name()
    marked = tr["state"]["marked"]
    return max(marked, key=lambda m: areas[m["country"]["name"]])["letter"]
