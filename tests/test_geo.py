"""Maps: the vendored TopoJSON sets and their decoder (compiler/spec/geo.py), the geo frame's projections
(compiler/render/frames.py GeoFrame), the map_region mark (compiler/render/maps.py) and map_regions()
(compiler/expr/lib_geo.py). Projections are checked against the formulas written out here, shapes against known
places, and the decoder against a topology written by hand."""
from __future__ import annotations

import csv
import math

import pytest

from tessera.errors import EvalError, SamplingFailed
from tessera.expr.lib_geo import map_regions
from tessera.render.frames import GeoFrame
from tessera.spec import geo
from tessera.spec.marks import MARKS
from tessera.taxonomy import compile_taxonomy
from tessera.trace.instance import generate
from tests.test_scene import build, errors_of, pixel, sample

W, H = 720, 360


def inside(x: float, y: float, ring: list[tuple[float, float]]) -> bool:
    """Even-odd ray casting (written here, not the module's)."""
    hit = False
    n = len(ring)
    for i in range(n):
        (x0, y0), (x1, y1) = ring[i], ring[(i + 1) % n]
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            hit = not hit
    return hit


# -- projections ------------------------------------------------------------------------------------------------
def test_mercator_places_latitude_45_at_the_log_tan_formula():
    f = GeoFrame((0.0, 0.0, W, H), "mercator", [-180, -80, 180, 80])
    top = math.log(math.tan(math.pi / 4 + math.radians(80) / 2))
    unit = min(W / (2 * math.pi), H / (2 * top))  # px per radian, the tighter of the two fits
    cy = H / 2
    assert f.point(0, 0) == pytest.approx((W / 2, cy))
    y45 = math.log(math.tan(math.pi / 4 + math.radians(45) / 2))  # 0.8814
    assert y45 == pytest.approx(0.881373587)
    assert f.point(0, 45)[1] == pytest.approx(cy - y45 * unit)
    assert f.point(90, -45) == pytest.approx((W / 2 + math.pi / 2 * unit, cy + y45 * unit))
    # a length in frame units is degrees of longitude: 90° is a quarter of the 2π-wide world
    assert f.length(90) == pytest.approx(math.pi / 2 * unit)


def test_equirectangular_is_linear_in_degrees():
    f = GeoFrame((10.0, 20.0, 10 + W, 20 + H), "equirectangular", [-180, -90, 180, 90])
    assert f.point(-180, 90) == pytest.approx((10, 20))
    assert f.point(180, -90) == pytest.approx((10 + W, 20 + H))
    assert f.point(45, 30) == pytest.approx((10 + W * 225 / 360, 20 + H * 60 / 180))


def test_equal_area_bands_of_equal_area_on_the_sphere_are_equally_tall():
    """A zone between latitudes a and b has area 2πR²(sin b − sin a) on the sphere; in an equal-area cylindrical
    map every zone spans the full width, so equal zones must have equal heights. Equirectangular fails it."""
    cuts = [math.degrees(math.asin(k / 4)) for k in range(-4, 5)]  # 8 zones of equal spherical area
    for projection, equal in (("equal_area", True), ("equirectangular", False)):
        f = GeoFrame((0.0, 0.0, W, H), projection, [-180, -90, 180, 90])
        heights = [f.point(0, a)[1] - f.point(0, b)[1] for a, b in zip(cuts, cuts[1:])]
        assert (max(heights) - min(heights) < 1e-9) is equal, projection


def test_capitals_land_inside_their_countries_projected_shapes():
    world = geo.region_set("countries")
    capitals = {"FRA": (2.35, 48.86), "BRA": (-47.93, -15.78), "AUS": (149.13, -35.28), "KEN": (36.82, -1.29),
                "CAN": (-75.70, 45.42), "RUS": (37.62, 55.76), "IND": (77.21, 28.61), "FJI": (178.44, -18.14)}
    for projection in geo.PROJECTIONS:
        f = GeoFrame((0.0, 0.0, W, H), projection, [-180, -80, 190, 80])
        for rid, (lon, lat) in capitals.items():
            px, py = f.point(lon, lat)
            rings = [[f.point(*p) for p in poly[0]] for poly in world.shape(rid)]
            assert any(inside(px, py, r) for r in rings), (projection, rid)
            others = [o for o in ("FRA", "BRA", "AUS", "KEN") if o != rid]
            assert not any(inside(px, py, [f.point(*p) for p in poly[0]])
                           for o in others for poly in world.shape(o)), (projection, rid)


# -- the decoder ------------------------------------------------------------------------------------------------
TINY = {
    "type": "Topology",
    "transform": {"scale": [0.5, 0.25], "translate": [10, 20]},
    # two unit squares side by side, quantized and delta-encoded: arc 0 is their shared edge (4,0) → (4,4); arc 1
    # the rest of the east square (4,4) → (8,4) → (8,0) → (4,0); arc 2 the rest of the west one (4,0) → (0,0) →
    # (0,4) → (4,4), closed by arc 0 reversed (~0); arc 3 a hole (1,1) → (1,2) → (2,2) → (2,1) → (1,1)
    "arcs": [[[4, 0], [0, 4]], [[4, 4], [4, 0], [0, -4], [-4, 0]], [[4, 0], [-4, 0], [0, 4], [4, 0]],
             [[1, 1], [0, 1], [1, 0], [0, -1], [-1, 0]]],
    "objects": {"shapes": {"type": "GeometryCollection", "geometries": [
        {"type": "Polygon", "arcs": [[2, ~0], [3]], "id": "W", "properties": {"name": "West"}},
        {"type": "MultiPolygon", "arcs": [[[1, 0]], [[~3]]], "id": "E", "properties": {"name": "East"}},
        {"type": "LineString", "arcs": [0], "id": "L"},
    ]}},
}


def test_tiny_topology_decodes_to_the_rings_written_by_hand():
    arcs = geo.decode_arcs(TINY)
    assert arcs[1] == [(12.0, 21.0), (14.0, 21.0), (14.0, 20.0), (12.0, 20.0)]  # (x * 0.5 + 10, y * 0.25 + 20)
    # each joint is kept once, and the ring's closing point (the first again) is dropped
    west = geo.geometry_polygons(arcs, TINY["objects"]["shapes"]["geometries"][0])
    assert west == [[[(12.0, 20.0), (10.0, 20.0), (10.0, 21.0), (12.0, 21.0)],
                     [(10.5, 20.25), (10.5, 20.5), (11.0, 20.5), (11.0, 20.25)]]]
    east = geo.geometry_polygons(arcs, TINY["objects"]["shapes"]["geometries"][1])
    assert east == [[[(12.0, 21.0), (14.0, 21.0), (14.0, 20.0), (12.0, 20.0)]],
                    [[(10.5, 20.25), (11.0, 20.25), (11.0, 20.5), (10.5, 20.5)]]]  # ~3: the hole's arc reversed
    assert geo.geometry_polygons(arcs, TINY["objects"]["shapes"]["geometries"][2]) == []  # a line has no area
    s = geo.build_set("tiny", TINY, "shapes", {})
    assert [r["id"] for r in s.records] == ["E", "W"] and s.records[1]["name"] == "West"
    r = geo.EARTH_RADIUS_KM
    full = math.radians(2) * (math.sin(math.radians(21)) - math.sin(math.radians(20))) * r * r
    hole = math.radians(0.5) * (math.sin(math.radians(20.5)) - math.sin(math.radians(20.25))) * r * r
    assert s.records[1]["area"] == round(full - hole)  # 2° × 1° less the 0.5° × 0.25° hole, equal-area
    assert (s.records[1]["lon"], s.records[1]["lat"]) == (11.0, 20.5)  # the outer ring's centroid


def test_rings_across_the_antimeridian_are_unwrapped():
    world = geo.region_set("countries")
    for rid in ("FJI", "RUS"):
        for poly in world.shape(rid):
            lons = [p[0] for p in poly[0]]
            assert max(b - a for a, b in zip(lons, lons[1:])) < 180, rid
    fiji = max(world.shape("FJI"), key=geo.polygon_area_km2)[0]
    assert max(p[0] for p in fiji) - min(p[0] for p in fiji) < 5  # one island, not a band around the world
    russia = next(r for r in world.records if r["id"] == "RUS")
    assert 16.5e6 < russia["area"] < 17.3e6  # Natural Earth 110m; the true area is 17.1 million km²


def test_region_records_and_the_manifest():
    world = geo.region_set("countries")
    ids = [r["id"] for r in world.records]
    assert len(ids) == 177 and ids == sorted(ids) and len(set(ids)) == len(ids)
    fra = next(r for r in world.records if r["id"] == "FRA")
    assert fra["name"] == "France" and fra["continent"] == "Europe"
    assert inside(fra["lon"], fra["lat"], max(world.shape("FRA"), key=geo.polygon_area_km2)[0])
    assert 5.0e5 < fra["area"] < 6.6e5  # metropolitan France 551,695 km², plus French Guiana 83,534
    assert {r["continent"] for r in world.records} == {"Africa", "Antarctica", "Asia", "Europe", "North America",
                                                      "Oceania", "South America"}
    rows = geo.manifest()
    assert tuple(m["set"] for m in rows) == geo.SETS == MARKS["map_region"].options["set"]
    for m in rows:
        assert (geo.ASSETS / m["file"]).is_file() and m["licence"] and m["attribution"]
    licences = {p.name for p in geo.ASSETS.glob("LICENSE-*")}
    assert licences == {"LICENSE-world-atlas", "LICENSE-us-atlas", "LICENSE-countries-list",
                        "LICENSE-i18n-iso-countries"}
    with open(geo.ASSETS / "countries-110m.csv", newline="") as f:
        assert len(list(csv.DictReader(f))) == 177
    assert len(geo.region_set("us-states").records) == 56


def test_map_regions_filters_by_continent_and_names_the_known_ones():
    south = map_regions("countries", "South America")
    assert [r["id"] for r in south] == ["ARG", "BOL", "BRA", "CHL", "COL", "ECU", "FLK", "GUY", "PER", "PRY",
                                        "SUR", "URY", "VEN"]
    assert len(map_regions("countries", "")) == 177
    with pytest.raises(EvalError, match=r"no region of that continent \(known: Africa, Antarctica, Asia, Europe"):
        map_regions("countries", "Atlantis")
    with pytest.raises(EvalError, match="unknown region set 'moon'"):
        map_regions("moon", "")


# -- the frame and the mark in a scene --------------------------------------------------------------------------
SCENE = """\
frame:
  geo: {projection: mercator, bounds: "[-10, 35, 30, 60]"}
marks:
  - map_region: {each: "filter(map_regions('countries', 'Europe'), r -> r.id != 'FRA')", as: r, id: r.id, fill: "'#cccccc'"}
  - map_region: {id: "'FRA'", fill: "'#ff0000'", stroke: white, bind: target}
"""


def test_a_bound_region_is_drawn_in_its_colour_with_its_box_in_the_render_map(tmp_path):
    root = build(tmp_path, "target: \"{id: 'FRA'}\"\n", SCENE, width=400, height=300)
    _, inst = sample(root)
    entry = inst.trace["render"]["render_map"]["target"]
    assert entry["mark"] == "map_region" and entry["geometry"] == {"region": "FRA"}
    f = GeoFrame((0.0, 0.0, 400.0, 300.0), "mercator", [-10, 35, 30, 60])
    paris = f.point(2.35, 48.86)
    x0, y0, x1, y1 = entry["bbox"]
    assert x0 < paris[0] < x1 and y0 < paris[1] < y1
    # French Guiana lies outside the bounds: the box is metropolitan France's with Corsica (14.3° of longitude)
    assert f.length(14) < x1 - x0 < f.length(15)
    r, g, b = pixel(inst, *paris)
    assert r > 200 and g < 60 and b < 60
    assert pixel(inst, *f.point(10.45, 51.17))[0] < 230  # Germany: grey, not red
    again = sample(root)[1]
    assert again.png == inst.png  # deterministic bytes


def test_unknown_projection_words_are_compile_errors_with_positions(tmp_path):
    root = build(tmp_path, "target: 1\n", """\
        frame:
          geo: {projection: robinson}
        marks:
          - map_region: {id: "'FRA'"}
        """)
    errs = errors_of(root)
    assert errs == ["g.yaml:9:25: geo 'projection' must be one of equirectangular, mercator, equal_area, "
                    "got 'robinson'"]


def test_unknown_region_ids_are_refused_at_the_mark(tmp_path):
    root = build(tmp_path, "target: 1\n", """\
        frame: {geo: {bounds: "[-10, 35, 30, 60]"}}
        marks:
          - map_region: {id: "'XYZ'"}
        """)
    tax = compile_taxonomy(root)
    with pytest.raises(SamplingFailed, match=r"map_region mark at .*g\.yaml:10:21: unknown region 'XYZ' in the set "
                                             r"'countries'"):
        generate(tax.tasks["demo.g.t"], 0, 0, vocab=tax.vocab)


def test_bounds_are_checked(tmp_path):
    with pytest.raises(EvalError, match="need lon0 < lon1"):
        GeoFrame((0.0, 0.0, W, H), "mercator", [30, 0, 10, 20])
    with pytest.raises(EvalError, match="bounds are \\[lon0, lat0, lon1, lat1\\]"):
        GeoFrame((0.0, 0.0, W, H), "mercator", [30, 0, 10])
