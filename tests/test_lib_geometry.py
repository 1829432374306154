"""Plane-geometry operators (compiler/expr/lib_geometry.py) and the geometry layouts (coordinate_plane, figure):
typed results, edge cases, errors, render-map bindings and the label-placement guarantees."""
from __future__ import annotations

import math

import pytest

from compiler.errors import Diagnostics, EvalError
from compiler.expr.compile import Scope, Site, compile_expr, new_env, run
from compiler.expr.types import FLOAT, INT, STR, ListT, record
from compiler.render.layouts import LAYOUTS
from compiler.render.painter import Painter
from compiler.render.requirements import Records
from compiler.render.scene import _check_legibility
from compiler.render.theme import pick_theme
from compiler.sample.rng import Rng
from tests.test_errors import diagnostics, write

VERTEX = record(x=INT, y=INT, name=STR)
SCOPE = Scope({"square": ListT(VERTEX), "tri": ListT(VERTEX), "bow": ListT(VERTEX), "p": VERTEX,
               "fp": record(x=FLOAT, y=FLOAT), "angles": ListT(INT)}, allow_random=True)


def _v(x, y, name=""):
    return {"x": x, "y": y, "name": name}


VALUES = {
    "square": [_v(0, 0, "A"), _v(4, 0, "B"), _v(4, 4, "C"), _v(0, 4, "D")],
    "tri": [_v(0, 0, "A"), _v(6, 0, "B"), _v(0, 3, "C")],
    "bow": [_v(0, 0), _v(2, 2), _v(2, 0), _v(0, 2)],
    "p": _v(3, 1, "P"),
    "fp": {"x": 1.0, "y": 0.0},
    "angles": [90, 90, 90, 90],
}


def ev(src: str, **extra):
    d = Diagnostics()
    c = compile_expr(src, SCOPE, Site(None, (), "t.yaml"), d)
    assert c is not None, [str(x) for x in d.items]
    return str(c.type), run(c, new_env({**VALUES, **extra}, Rng(3)))


def compile_errors(src: str) -> list[str]:
    d = Diagnostics()
    assert compile_expr(src, SCOPE, Site(None, (), "t.yaml"), d) is None
    return [str(x) for x in d.sorted()]


@pytest.mark.parametrize("src,typ,value", [
    ("polygon_area(square)", "float", 16.0),
    ("polygon_area(reverse(square))", "float", 16.0),
    ("polygon_area(tri)", "float", 9.0),
    ("perimeter(square)", "float", 16.0),
    ("perimeter(tri)", "float", 9 + math.sqrt(45)),
    ("point_in_polygon(p, square)", "bool", True),
    ("point_in_polygon({x: 4, y: 2}, square)", "bool", False),  # on a side: not inside
    ("on_boundary({x: 4, y: 2}, square)", "bool", True),
    ("on_boundary({x: 0, y: 0}, square)", "bool", True),
    ("point_in_polygon({x: 5, y: 2}, square)", "bool", False),
    ("lattice_points_inside(square)", "int", 9),
    ("lattice_points_inside(tri)", "int", 4),  # Pick: 9 = I + 12/2 - 1
    ("is_simple(square)", "bool", True),
    ("is_simple(bow)", "bool", False),
    ("is_simple([square[0], square[1], {x: 8, y: 0, name: ''}])", "bool", False),  # straight angle
    ("is_simple([square[0], square[0], square[1], square[2]])", "bool", False),
    ("is_simple([square[0], square[1]])", "bool", False),
    ("interior_angles(square)", "list[float]", [90.0, 90.0, 90.0, 90.0]),
    ("map(order_around(reverse(square)), v -> v.name)", "list[str]", ["C", "D", "A", "B"]),
    ("same_points(square, reverse(square))", "bool", True),
    ("same_points(square, tri)", "bool", False),
    ("reflect(p, 'x')", "{x: int, y: int, name: str}", _v(3, -1, "P")),
    ("reflect(p, 'y')", "{x: int, y: int, name: str}", _v(-3, 1, "P")),
    ("reflect(p, 'y=x')", "{x: int, y: int, name: str}", _v(1, 3, "P")),
    ("reflect(p, 'y=-x')", "{x: int, y: int, name: str}", _v(-1, -3, "P")),
    ("reflect(p, 'origin')", "{x: int, y: int, name: str}", _v(-3, -1, "P")),
    ("rotate(p, {x: 0, y: 0}, 90)", "{x: int, y: int, name: str}", _v(-1, 3, "P")),
    ("rotate(p, {x: 1, y: 1}, -90)", "{x: int, y: int, name: str}", _v(1, -1, "P")),
    ("rotate(p, {x: 0, y: 0}, 360)", "{x: int, y: int, name: str}", _v(3, 1, "P")),
    ("translate(p, -3, 2)", "{x: int, y: int, name: str}", _v(0, 3, "P")),
    ("transform(p, 'rotation of 90° clockwise about the origin')", "{x: int, y: int, name: str}", _v(1, -3, "P")),
    ("transform(p, 'rotation of 180° about the origin')", "{x: int, y: int, name: str}", _v(-3, -1, "P")),
])
def test_operators_type_and_evaluate(src, typ, value):
    t, v = ev(src)
    assert t == typ
    if isinstance(value, float):
        assert v == pytest.approx(value)
    else:
        assert v == value


def test_float_rotation_and_ints_staying_ints():
    t, v = ev("rotate(fp, {x: 0.0, y: 0.0}, 45)")
    assert t == "{x: float, y: float}" and v == pytest.approx({"x": math.sqrt(0.5), "y": math.sqrt(0.5)})
    assert all(isinstance(ev(f"reflect(p, '{a}')")[1]["x"], int) for a in ("x", "y", "y=x", "origin"))
    with pytest.raises(EvalError, match="off the lattice"):
        ev("rotate(p, {x: 0, y: 0}, 45)")


@pytest.mark.parametrize("src,needle", [
    ("polygon_area(5)", "must be a list"),
    ("polygon_area([1, 2, 3])", "list of points"),
    ("point_in_polygon(3, square)", "must be a point"),
    ("reflect(angles, 'x')", "must be a point"),
    ("translate(p, 0.5, 1)", "integer coordinates"),
    ("rotate(p, fp, 90)", "center with integer ones"),
    ("polygon_with_angles(square)", "list of numbers"),
])
def test_operator_type_errors(src, needle):
    errs = compile_errors(src)
    assert errs and needle in errs[0] and errs[0].startswith("t.yaml:1:")


@pytest.mark.parametrize("src,needle", [
    ("reflect(p, 'z')", "unknown axis"),
    ("transform(p, 'a shear')", "unknown transformation"),
    ("polygon_area([p, p])", "at least 3 points"),
    ("interior_angles(bow)", "simple polygon"),
    ("polygon_with_angles([90, 90, 90])", "sum to 180"),
    ("polygon_with_angles([180, 0, 0])", "strictly between"),
    ("polygon_with_angles([10, 80, 90])", "very unequal"),
])
def test_operator_runtime_errors(src, needle):
    with pytest.raises(EvalError, match=needle):
        ev(src)


def test_lattice_count_is_bounded():
    big = [_v(0, 0), _v(1000, 0), _v(1000, 1000)]
    with pytest.raises(EvalError, match="limit"):
        ev("lattice_points_inside(square)", square=big)


@pytest.mark.parametrize("angles", [[60, 60, 60], [50, 60, 70], [100, 80, 100, 80], [120, 100, 110, 105, 105],
                                    [120] * 6, [130, 150, 110, 130, 120, 150, 110]])
def test_polygon_with_angles_reproduces_the_angles(angles):
    t, pts = ev("polygon_with_angles(angles)", angles=angles)
    assert t == "list[{x: float, y: float}]" and len(pts) == len(angles)
    xy = [(q["x"], q["y"]) for q in pts]
    from compiler.expr.lib_geometry import interior_angles, is_simple

    assert is_simple(xy)
    assert interior_angles(xy) == pytest.approx(angles, abs=0.05)  # coordinates are rounded to 4 decimals
    assert min(min(q) for q in xy) == 0 and max(max(q) for q in xy) == pytest.approx(1.0)


# -- layouts ----------------------------------------------------------------------------------------------------
def draw(name: str, params: dict, items: list, width=480, height=480, seed=1, paths_of=None, scale=1.0, **extra):
    """Run one layout on hand-made items; returns the painter (render map and overlap groups filled)."""
    ldef = LAYOUTS[name]
    objs = paths_of if paths_of is not None else {"items": items}
    paths = {}
    for key, value in objs.items():
        for i, obj in enumerate(value):
            paths[id(obj)] = f"{key}[{i}]"
    rng = Rng(seed)
    p = Painter(width, height, pick_theme(rng), paths, scale)
    p.decisions = ldef.draw(p, ldef.params.model_validate({"items": "items", **params}), items, {}, rng, **extra)
    return p


def test_coordinate_plane_binds_points_and_circles_inside_the_canvas():
    square, probes = VALUES["square"], [_v(-3, 2, "P"), _v(1, 1, "Q")]
    circles = [{"x": -2, "y": -2, "r": 2, "name": "k"}]
    items = square + probes
    p = draw("coordinate_plane", {"x": "x", "y": "y", "label": "name", "extent": "5"}, items,
             paths_of={"items": items, "circles": circles}, extent=5, polygons=[square], circles=circles,
             paths=[[_v(-4, 4), _v(-1, 4)]])
    _check_legibility(p)
    assert {f"items[{i}]" for i in range(6)} | {"circles[0]"} <= set(p.render_map)
    # Unit = (480 - 46) / 10 px; the origin is the centre of the grid: the circle's box is 4 units wide.
    x0, y0, x1, y1 = p.render_map["circles[0]"]["bbox"]
    assert x1 - x0 == pytest.approx(4 * 43.4, abs=20)  # its name widens the box a little
    # A vertex's box covers its dot, which sits on its grid position.
    unit = 434 / 10
    cx, cy = 34 + 217, 16 + 217
    bx = p.render_map["items[2]"]["bbox"]  # C = (4, 4)
    assert bx[0] <= cx + 4 * unit <= bx[2] and bx[1] <= cy - 4 * unit <= bx[3]


def test_coordinate_plane_labels_stay_clear_of_neighbours():
    # A 3 × 3 block of labelled lattice points, the densest cluster a grammar can make.
    items = [_v(x, y, f"{chr(65 + 3 * (x + 1) + (y + 1))}'") for x in (-1, 0, 1) for y in (-1, 0, 1)]
    for seed in range(5):
        p = draw("coordinate_plane", {"x": "x", "y": "y", "label": "name", "extent": "7"}, items, seed=seed,
                 extent=7, polygons=[], circles=[], paths=[])
        assert _check_legibility(p) is None  # raises RenderRejected on any touching dot or label
        assert len(p.render_map) == len(items)


def test_coordinate_plane_keeps_its_overlap_marks_in_image_pixels():
    items = [_v(x, y, "AB") for x in (-1, 0, 1) for y in (-1, 0, 1)]
    circles = [{"x": 3, "y": 3, "r": 1, "name": "K"}]
    common = dict(extent=5, polygons=[], circles=circles, paths=[], paths_of={"items": items, "circles": circles})
    one = draw("coordinate_plane", {"x": "x", "y": "y", "label": "name", "extent": "5"}, items, **common)
    two = draw("coordinate_plane", {"x": "x", "y": "y", "label": "name", "extent": "5"}, items, scale=2.0, **common)
    _check_legibility(two)
    for (pa, a, ca), (pb, b, cb) in zip(one.no_overlap_groups["points"], two.no_overlap_groups["points"]):
        assert pa == pb and b == pytest.approx([2 * v for v in a])
        assert (ca is None) == (cb is None)
    assert two.render_map["circles[0]"]["bbox"] == pytest.approx([2 * v for v in one.render_map["circles[0]"]["bbox"]],
                                                                  abs=0.02)


def test_coordinate_plane_errors():
    with pytest.raises(EvalError, match="extent"):
        draw("coordinate_plane", {"x": "x", "y": "y", "extent": "40"}, [_v(0, 0)], extent=40, polygons=[],
             circles=[], paths=[])
    with pytest.raises(EvalError, match="radius"):
        draw("coordinate_plane", {"x": "x", "y": "y", "extent": "4"}, [_v(0, 0)], extent=4, polygons=[],
             circles=[{"x": 0, "y": 0, "r": 0}], paths=[])


def test_figure_marks_every_labelled_angle_inside_its_corner():
    corners = [{"x": x, "y": y, "name": n, "text": t} for (x, y), n, t in
               zip([(0, 0), (1, 0), (1, 1), (0, 1)], "ABCD", ["90°", "?", "", "90°"])]
    for seed in range(6):  # each seed turns the figure differently; no turn may break legibility
        p = draw("figure", {"x": "x", "y": "y", "label": "name", "angle": "text"}, corners, 448, 448, seed)
        _check_legibility(p)
        texts = p.no_overlap_groups["angles"]
        assert [path for path, _, _ in texts] == ["items[0]", "items[1]", "items[3]"]  # '' draws no mark
        # The unit square is centred on the canvas, turned by the recorded angle and fitted into 448 - 2 · 62 px.
        turn = math.radians(p.decisions["turn"])
        side = (448 - 124) / (abs(math.cos(turn)) + abs(math.sin(turn)))
        for _, (x0, y0, x1, y1), _ in texts:
            dx, dy = (x0 + x1) / 2 - 224, 224 - (y0 + y1) / 2
            u = dx * math.cos(turn) + dy * math.sin(turn)
            v = -dx * math.sin(turn) + dy * math.cos(turn)
            assert abs(u) < side / 2 - 8 and abs(v) < side / 2 - 8  # inside the square, clear of its sides
            assert max(abs(u), abs(v)) > side / 2 - 80  # and near its own corner


def test_figure_needs_three_corners():
    with pytest.raises(EvalError, match="at least 3"):
        draw("figure", {"x": "x", "y": "y"}, [{"x": 0, "y": 0}, {"x": 1, "y": 0}])


def test_records_requirement_admits_wider_records_and_nothing_else():
    polys = Records((("x", "number"), ("y", "number")), depth=2)
    assert polys.admits(ListT(ListT(VERTEX)))
    assert polys.admits(ListT(ListT(record(x=FLOAT, y=INT))))
    assert not polys.admits(ListT(VERTEX))
    assert not polys.admits(ListT(ListT(record(x=STR, y=INT))))
    circles = Records((("x", "number"), ("y", "number"), ("r", "number")), may=(("name", "text"),))
    assert circles.admits(ListT(record(x=INT, y=INT, r=INT)))
    assert not circles.admits(ListT(record(x=INT, y=INT, r=INT, name=ListT(INT))))
    assert "x (number)" in str(polys)


def test_a_wrongly_shaped_polygons_parameter_is_a_compile_error(library_copy):
    write(library_copy, "grammars/geometry/bad_plane.yaml", """
        grammar: geometry.bad_plane
        summary: polygons given as a flat list of points
        state:
          pts: "[{x: 0, y: 0}, {x: 2, y: 0}, {x: 0, y: 2}]"
        render:
          layout:
            coordinate_plane: {items: pts, x: x, y: y, extent: 3, polygons: pts}
        """)
    errs = diagnostics(library_copy)
    assert any("geometry/bad_plane.yaml:7:" in e and "'polygons' must be a list of lists of records"
               in e for e in errs), errs
