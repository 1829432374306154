"""Map shapes for the `geo` frame and the `map_region` mark: the vendored TopoJSON sets of compiler/assets/geo/
decoded into regions (skia-free: the builtin `map_regions()` and the renderer both read it), and the projections.

TopoJSON (https://github.com/topojson/topojson-specification) stores shared borders once, as arcs; a quantized
topology's arcs are delta-encoded integers that `transform` (scale, translate) turns into longitude/latitude. A
polygon lists rings of arc indices, a negative index ~i meaning arc i reversed; consecutive arcs share their joining
point, which is kept once. A set is decoded once per process (`region_set`, cached).

A region record is {id, name, continent, lon, lat, area}: `lon`/`lat` is the centroid of its largest polygon (where
a label goes: France's lies in France, not between it and French Guiana), `area` its area in km² over all its
polygons, measured in the Lambert cylindrical equal-area projection (exact for the polygon as drawn there).
"""
from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..errors import EvalError

ASSETS = Path(__file__).resolve().parent.parent / "assets" / "geo"
EARTH_RADIUS_KM = 6371.0088  # the mean radius (IUGG)
# Mercator runs off to infinity at the poles: latitudes are clamped here (the web map's limit)
MERCATOR_MAX_LAT = 85.05112878

Ring = list[tuple[float, float]]  # (lon, lat) points, closed implicitly
Polygon = list[Ring]  # the outer ring, then holes


# -- projections ------------------------------------------------------------------------------------------------
def _equirectangular(lon: float, lat: float) -> tuple[float, float]:
    return math.radians(lon), math.radians(lat)


def _mercator(lon: float, lat: float) -> tuple[float, float]:
    phi = math.radians(max(-MERCATOR_MAX_LAT, min(MERCATOR_MAX_LAT, lat)))
    return math.radians(lon), math.log(math.tan(math.pi / 4 + phi / 2))


def _equal_area(lon: float, lat: float) -> tuple[float, float]:
    """Lambert cylindrical equal-area: equal areas on the sphere are equal areas on the map."""
    return math.radians(lon), math.sin(math.radians(lat))


# name → (lon°, lat°) → (x, y) on a unit sphere, y up; every one is cylindrical (x depends on lon only, y on lat only)
PROJECTIONS = {"equirectangular": _equirectangular, "mercator": _mercator, "equal_area": _equal_area}
PROJECTION_WORDS = tuple(PROJECTIONS)  # the words of a geo frame's `projection` (the first is the default)
WORLD = (-180.0, -90.0, 180.0, 90.0)  # a geo frame's bounds when none are given


def project(projection: str, lon: float, lat: float) -> tuple[float, float]:
    fn = PROJECTIONS.get(projection)
    if fn is None:
        raise EvalError(f"unknown projection '{projection}' (known: {', '.join(PROJECTIONS)})")
    return fn(lon, lat)


# -- TopoJSON ---------------------------------------------------------------------------------------------------
def decode_arcs(topo: dict) -> list[Ring]:
    """Every arc of a topology as absolute (lon, lat) points (quantized arcs are delta-encoded, then transformed)."""
    tr = topo.get("transform")
    arcs: list[Ring] = []
    for arc in topo["arcs"]:
        if tr is None:
            arcs.append([(float(p[0]), float(p[1])) for p in arc])
            continue
        (sx, sy), (tx, ty) = tr["scale"], tr["translate"]
        x = y = 0
        pts = []
        for p in arc:
            x += p[0]
            y += p[1]
            pts.append((x * sx + tx, y * sy + ty))
        arcs.append(pts)
    return arcs


def _ring(arcs: list[Ring], indices: list[int]) -> Ring:
    out: Ring = []
    for k in indices:
        pts = arcs[k] if k >= 0 else arcs[~k][::-1]
        out.extend(pts if not out else pts[1:])  # an arc starts where the previous one ended
    if len(out) > 1 and out[0] == out[-1]:
        out.pop()
    return unwrap(out)


def unwrap(ring: Ring) -> Ring:
    """A ring drawn on a plane: Natural Earth's rings that cross the antimeridian (Fiji, Russia's Chukotka) step
    from lon 180 to -180 between neighbours, a seam a planar drawing shows as a band across the map. Each step over
    180° is undone (the ring continues past 180), and the ring is shifted to start within [-180, 180). A ring
    around a pole (Antarctica) still ends 360° from where it began: it is closed through the pole."""
    out: Ring = []
    shift = 0.0
    for i, (lon, lat) in enumerate(ring):
        if i:
            step = lon + shift - out[-1][0]
            if step > 180:
                shift -= 360
            elif step < -180:
                shift += 360
        out.append((lon + shift, lat))
    gap = out[0][0] - out[-1][0]
    if abs(gap) > 180:  # around a pole: down the last meridian to the pole, along it, and back up
        pole = -90.0 if sum(p[1] for p in out) < 0 else 90.0
        out += [(out[-1][0], pole), (out[0][0], pole)]
    first = min(p[0] for p in out)
    k = -360 * math.floor((first + 180) / 360)
    return [(lon + k, lat) for lon, lat in out] if k else out


def geometry_polygons(arcs: list[Ring], geometry: dict) -> list[Polygon]:
    """A Polygon or MultiPolygon geometry as polygons of rings (other kinds carry no area: none)."""
    kind = geometry.get("type")
    if kind == "Polygon":
        return [[_ring(arcs, r) for r in geometry["arcs"]]]
    if kind == "MultiPolygon":
        return [[_ring(arcs, r) for r in poly] for poly in geometry["arcs"]]
    return []


# -- measures ---------------------------------------------------------------------------------------------------
def _signed_area(ring: list[tuple[float, float]]) -> float:
    return sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(ring, ring[1:] + ring[:1])) / 2


def polygon_area_km2(poly: Polygon) -> float:
    """The polygon's area (outer ring less its holes) in the equal-area projection, in km²."""
    rings = [[_equal_area(lon, lat) for lon, lat in r] for r in poly]
    a = abs(_signed_area(rings[0])) - sum(abs(_signed_area(h)) for h in rings[1:])
    return a * EARTH_RADIUS_KM ** 2


def ring_centroid(ring: Ring) -> tuple[float, float]:
    """The centroid (lon, lat) of a ring as a plane figure in degrees."""
    a = cx = cy = 0.0
    for (x0, y0), (x1, y1) in zip(ring, ring[1:] + ring[:1]):
        c = x0 * y1 - x1 * y0
        a += c
        cx += (x0 + x1) * c
        cy += (y0 + y1) * c
    if abs(a) < 1e-12:
        return sum(p[0] for p in ring) / len(ring), sum(p[1] for p in ring) / len(ring)
    return cx / (3 * a), cy / (3 * a)


def point_in_ring(lon: float, lat: float, ring: Ring) -> bool:
    inside = False
    for (x0, y0), (x1, y1) in zip(ring, ring[1:] + ring[:1]):
        if (y0 > lat) != (y1 > lat) and lon < x0 + (lat - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    return inside


# -- the vendored sets ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RegionSet:
    name: str
    records: tuple[dict, ...]  # sorted by id
    shapes: dict[str, list[Polygon]]

    def shape(self, region_id: str) -> list[Polygon]:
        polys = self.shapes.get(region_id)
        if polys is None:
            near = ", ".join(r["id"] for r in self.records[:6])
            raise EvalError(f"unknown region '{region_id}' in the set '{self.name}' (ids such as {near}, …; "
                            f"map_regions('{self.name}', '') lists them)")
        return polys


def manifest() -> list[dict[str, str]]:
    with open(ASSETS / "manifest.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


# The sets, in the manifest's order (the words of the map_region mark's `set` option): a set is added by a file and
# a manifest line, no code
SETS: tuple[str, ...] = tuple(m["set"] for m in manifest())


def _table(file: str) -> dict[int, dict[str, str]]:
    path = ASSETS / file
    if not path.exists():
        return {}
    with open(path, newline="", encoding="utf-8") as f:
        return {int(row["index"]): row for row in csv.DictReader(f)}


def build_set(name: str, topo: dict, obj: str, table: dict[int, dict[str, str]], continent: str = "") -> RegionSet:
    """The regions of one object of a topology; `table` (by geometry index) names their ids and continents."""
    arcs = decode_arcs(topo)
    records, shapes = [], {}
    for i, g in enumerate(topo["objects"][obj]["geometries"]):
        polys = [p for p in geometry_polygons(arcs, g) if p and len(p[0]) >= 3]
        if not polys:
            continue
        row = table.get(i, {})
        rid = row.get("id") or str(g.get("id", i))
        areas = [polygon_area_km2(p) for p in polys]
        lon, lat = ring_centroid(polys[max(range(len(polys)), key=areas.__getitem__)][0])
        records.append({"id": rid, "name": row.get("name") or (g.get("properties") or {}).get("name", rid),
                        "continent": row.get("continent", continent), "lon": round(lon, 4), "lat": round(lat, 4),
                        "area": float(round(sum(areas)))})
        shapes[rid] = polys
    records.sort(key=lambda r: r["id"])
    return RegionSet(name, tuple(records), shapes)


@cache
def region_set(name: str) -> RegionSet:
    """A vendored set, decoded once per process."""
    rows = {m["set"]: m for m in manifest()}
    if name not in rows:
        raise EvalError(f"unknown region set '{name}' (known: {', '.join(rows)})")
    m = rows[name]
    topo = json.loads((ASSETS / m["file"]).read_text(encoding="utf-8"))
    table = _table(Path(m["file"]).stem + ".csv")
    return build_set(name, topo, m["object"], table, "" if table else "North America")
