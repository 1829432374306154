"""Plane-geometry operators (compiler/expr/lib_geometry.py) and the geometry components (coordinate_plane, figure):
typed results, edge cases, errors, render-map bindings and the label-placement guarantees."""
from __future__ import annotations

import math

import pytest

from tessera.errors import Diagnostics, EvalError
from tessera.expr.compile import Scope, Site, compile_expr, new_env, run
from tessera.expr.types import FLOAT, INT, STR, ListT, record
from tessera.sample.rng import Rng
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
    ("polygon_area(square)", "number", 16.0),
    ("polygon_area(reverse(square))", "number", 16.0),
    ("polygon_area(tri)", "number", 9.0),
    ("perimeter(square)", "number", 16.0),
    ("perimeter(tri)", "number", 9 + math.sqrt(45)),
    ("point_in_polygon(p, square)", "boolean", True),
    ("point_in_polygon({x: 4, y: 2}, square)", "boolean", False),  # on a side: not inside
    ("on_boundary({x: 4, y: 2}, square)", "boolean", True),
    ("on_boundary({x: 0, y: 0}, square)", "boolean", True),
    ("point_in_polygon({x: 5, y: 2}, square)", "boolean", False),
    ("lattice_points_inside(square)", "integer", 9),
    ("lattice_points_inside(tri)", "integer", 4),  # Pick: 9 = I + 12/2 - 1
    ("is_simple(square)", "boolean", True),
    ("is_simple(bow)", "boolean", False),
    ("is_simple([square[0], square[1], {x: 8, y: 0, name: ''}])", "boolean", False),  # straight angle
    ("is_simple([square[0], square[0], square[1], square[2]])", "boolean", False),
    ("is_simple([square[0], square[1]])", "boolean", False),
    ("interior_angles(square)", "list[number]", [90.0, 90.0, 90.0, 90.0]),
    ("map(order_around(reverse(square)), v -> v.name)", "list[string]", ["C", "D", "A", "B"]),
    ("same_points(square, reverse(square))", "boolean", True),
    ("same_points(square, tri)", "boolean", False),
    ("reflect(p, 'x')", "{x: integer, y: integer, name: string}", _v(3, -1, "P")),
    ("reflect(p, 'y')", "{x: integer, y: integer, name: string}", _v(-3, 1, "P")),
    ("reflect(p, 'y=x')", "{x: integer, y: integer, name: string}", _v(1, 3, "P")),
    ("reflect(p, 'y=-x')", "{x: integer, y: integer, name: string}", _v(-1, -3, "P")),
    ("reflect(p, 'origin')", "{x: integer, y: integer, name: string}", _v(-3, -1, "P")),
    ("rotate(p, {x: 0, y: 0}, 90)", "{x: integer, y: integer, name: string}", _v(-1, 3, "P")),
    ("rotate(p, {x: 1, y: 1}, -90)", "{x: integer, y: integer, name: string}", _v(1, -1, "P")),
    ("rotate(p, {x: 0, y: 0}, 360)", "{x: integer, y: integer, name: string}", _v(3, 1, "P")),
    ("translate(p, -3, 2)", "{x: integer, y: integer, name: string}", _v(0, 3, "P")),
    ("transform(p, 'rotation of 90° clockwise about the origin')", "{x: integer, y: integer, name: string}", _v(1, -3, "P")),
    ("transform(p, 'rotation of 180° about the origin')", "{x: integer, y: integer, name: string}", _v(-3, -1, "P")),
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
    assert t == "{x: number, y: number}" and v == pytest.approx({"x": math.sqrt(0.5), "y": math.sqrt(0.5)})
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
    assert t == "list[{x: number, y: number}]" and len(pts) == len(angles)
    xy = [(q["x"], q["y"]) for q in pts]
    from tessera.expr.lib_geometry import interior_angles, is_simple

    assert is_simple(xy)
    assert interior_angles(xy) == pytest.approx(angles, abs=0.05)  # coordinates are rounded to 4 decimals
    assert min(min(q) for q in xy) == 0 and max(max(q) for q in xy) == pytest.approx(1.0)


# -- a helper for the closed layouts still in Python (tests/test_lib_symbolic.py imports it) -----------------------
def draw(name: str, params: dict, items: list, width=480, height=480, seed=1, paths_of=None, scale=1.0, **extra):
    """Run one layout on hand-made items; returns the painter (render map and overlap groups filled)."""
    from tessera.render.layouts import LAYOUTS
    from tessera.render.painter import Painter
    from tessera.render.theme import pick_theme

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


# -- the geometry components (components/coordinate_plane.yaml, figure.yaml) --------------------------------------
_LAST_COMPILED: dict = {}


def _compiled(root, rel: str, text: str):
    """The library copy compiled with `text` written at `rel`; the same text again (the next seed of a loop) reuses
    the last compile rather than compiling the whole library once per seed."""
    from tessera.taxonomy import compile_taxonomy

    key = (str(root), rel, text)
    if key not in _LAST_COMPILED:
        write(root, rel, text)
        _LAST_COMPILED.clear()
        _LAST_COMPILED[key] = compile_taxonomy(root)
    return _LAST_COMPILED[key]


def _plane(root, state: str, use: str, seed: int = 3, scale: float = 1.0):
    """Render a grammar with a literal state through the coordinate_plane component: (render result, painter-free
    no-overlap groups are checked by render_scene itself)."""
    from tessera.render.scene import render_scene
    from tessera.sample.state import sample_state
    from tessera.trace.instance import object_paths

    tax = _compiled(root, "grammars/geometry/t_plane.yaml", f"""
        grammar: geometry.t_plane
        summary: a hand-made plane
        state:
{state}
        render:
          canvas: {{width: 480, height: 480}}
          scene:
            use: coordinate_plane
            with: {use}
        """)
    g = tax.grammars["geometry.t_plane"]
    st = sample_state(g, 0, tax.vocab, Rng(1))
    return render_scene(g, st, 0, tax.vocab, Rng(seed), object_paths(st), scale), st


def test_coordinate_plane_binds_points_and_circles_inside_the_canvas(library_copy):
    res, _ = _plane(library_copy, """
          square: "[{x: 0, y: 0, name: 'A'}, {x: 4, y: 0, name: 'B'}, {x: 4, y: 4, name: 'C'}, {x: 0, y: 4, name: 'D'}]"
          probes: "[{x: -3, y: 2, name: 'P'}, {x: 1, y: 1, name: 'Q'}]"
          circles: "[{x: -2, y: -2, r: 2, name: 'k'}]"
          track: "[[{x: -4, y: 4}, {x: -1, y: 4}]]"
""", '{items: square + probes, x: "p -> p.x", y: "p -> p.y", label: "p -> p.name", extent: 5, '
     'polygons: "[square]", circles: circles, circle_label: "c -> c.name", paths: track}')
    paths = {f"square[{i}]" for i in range(4)} | {"probes[0]", "probes[1]", "circles[0]"}
    assert paths <= set(res.render_map)
    # Unit = (480 - 46) / 10 px; the origin is the centre of the grid: the circle's box is 4 units wide.
    x0, y0, x1, y1 = res.render_map["circles[0]"]["bbox"]
    assert x1 - x0 == pytest.approx(4 * 43.4, abs=20)  # its name widens the box a little
    # A vertex's box covers its dot, which sits on its grid position.
    unit = 434 / 10
    cx, cy = 34 + 217, 16 + 217
    bx = res.render_map["square[2]"]["bbox"]  # C = (4, 4)
    assert bx[0] <= cx + 4 * unit <= bx[2] and bx[1] <= cy - 4 * unit <= bx[3]
    assert len(res.decisions["colors"]) == 6


def test_coordinate_plane_labels_stay_clear_of_neighbours(library_copy):
    # A 3 × 3 block of labelled lattice points, the densest cluster a grammar can make: every render is legible
    # (render_scene raises RenderRejected on any touching dot or label), and each label sits beside its own dot.
    for seed in range(4):
        res, st = _plane(library_copy, """
          pts: "[{x: x, y: y, name: letter(3 * (x + 1) + (y + 1)) + 'W'} for x in range(-1, 2) for y in range(-1, 2)]"
""", '{items: pts, x: "p -> p.x", y: "p -> p.y", label: "p -> p.name", extent: 7}', seed=seed)
        assert len(res.render_map) == 9
        unit = 434 / 14
        for i, q in enumerate(st["pts"]):
            x0, y0, x1, y1 = res.render_map[f"pts[{i}]"]["bbox"]
            dot = (251 + q["x"] * unit, 233 - q["y"] * unit)
            assert x0 <= dot[0] <= x1 and y0 <= dot[1] <= y1
            assert x1 - x0 < 40 and y1 - y0 < 40  # the label is next to the dot, not across the grid


def test_coordinate_plane_keeps_its_render_map_in_image_pixels(library_copy):
    state = """
          pts: "[{x: x, y: y, name: 'AB'} for x in range(-1, 2) for y in range(-1, 2)]"
          circles: "[{x: 3, y: 3, r: 1, name: 'K'}]"
"""
    use = '{items: pts, x: "p -> p.x", y: "p -> p.y", label: "p -> p.name", extent: 5, circles: circles, ' \
          'circle_label: "c -> c.name"}'
    one, _ = _plane(library_copy, state, use)
    two, _ = _plane(library_copy, state, use, scale=2.0)
    for path, entry in one.render_map.items():
        assert two.render_map[path]["bbox"] == pytest.approx([2 * v for v in entry["bbox"]], abs=0.05)


def test_a_polygon_vertex_label_points_away_from_its_polygon(library_copy):
    res, _ = _plane(library_copy, """
          tri: "[{x: -3, y: -3, name: 'A'}, {x: 3, y: -3, name: 'B'}, {x: 0, y: 3, name: 'C'}]"
""", '{items: tri, x: "p -> p.x", y: "p -> p.y", label: "p -> p.name", extent: 5, polygons: "[tri]"}')
    unit = 434 / 10
    for i, (sx, sy) in enumerate([(-1, 1), (1, 1), (0, -1)]):  # screen directions away from the centroid
        x0, y0, x1, y1 = res.render_map[f"tri[{i}]"]["bbox"]
        dot = (251 + [-3, 3, 0][i] * unit, 233 - [-3, -3, 3][i] * unit)
        mx, my = (x0 + x1) / 2 - dot[0], (y0 + y1) / 2 - dot[1]
        assert mx * sx >= 0 and my * sy > 0, (i, mx, my)


def test_a_wrongly_shaped_polygons_parameter_is_a_compile_error(library_copy):
    write(library_copy, "grammars/geometry/bad_plane.yaml", """
        grammar: geometry.bad_plane
        summary: polygons given as a flat list of points
        state:
          pts: "[{x: 0, y: 0}, {x: 2, y: 0}, {x: 0, y: 2}]"
        render:
          scene:
            use: coordinate_plane
            with: {items: pts, x: "p -> p.x", y: "p -> p.y", extent: 3, polygons: pts}
        """)
    errs = diagnostics(library_copy)
    assert any("components/coordinate_plane.yaml" in e for e in errs), errs
    assert any("geometry/bad_plane.yaml:7:" in e and "come from this use" in e for e in errs), errs


def _figure(root, seed: int):
    from tessera.render.scene import render_scene
    from tessera.sample.state import sample_state
    from tessera.trace.instance import object_paths

    tax = _compiled(root, "grammars/geometry/t_figure.yaml", """
        grammar: geometry.t_figure
        summary: a unit square with two angles shown and one hidden
        state:
          corners: "[{x: 0, y: 0, name: 'A', text: '90°'}, {x: 1, y: 0, name: 'B', text: '?'}, {x: 1, y: 1, name: 'C', text: ''}, {x: 0, y: 1, name: 'D', text: '90°'}]"
        render:
          canvas: {width: 448, height: 448}
          scene:
            use: figure
            with: {items: corners, x: "c -> c.x", y: "c -> c.y", label: "c -> c.name", angle: "c -> c.text"}
        """)
    g = tax.grammars["geometry.t_figure"]
    st = sample_state(g, 0, tax.vocab, Rng(1))
    return render_scene(g, st, 0, tax.vocab, Rng(seed), object_paths(st))


def test_figure_marks_every_labelled_angle_inside_its_corner(library_copy):
    for seed in range(6):  # each seed turns the figure differently; no turn may break legibility
        res = _figure(library_copy, seed)
        assert set(res.render_map) == {f"corners[{i}]" for i in range(4)}
        # The unit square is centred on the canvas, turned by the recorded angle and fitted into 448 - 2 · 62 px.
        turn = math.radians(res.decisions["turn"])
        side = (448 - 124) / (abs(math.cos(turn)) + abs(math.sin(turn)))
        for i in (0, 1, 3):  # the corners with an angle text ('' draws no mark)
            x0, y0, x1, y1 = res.render_map[f"corners[{i}]"]["bbox"]
            assert x1 - x0 > 20 and y1 - y0 > 20  # text, name and vertex
        corner_c = res.render_map["corners[2]"]["bbox"]
        assert corner_c[2] - corner_c[0] < 30  # the name and the vertex only
        # Each corner's box holds its vertex: the square's corner on the canvas.
        for i, (u, v) in enumerate([(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)]):
            px = 224 + side * (u * math.cos(turn) - v * math.sin(turn))
            py = 224 - side * (u * math.sin(turn) + v * math.cos(turn))
            x0, y0, x1, y1 = res.render_map[f"corners[{i}]"]["bbox"]
            assert x0 - 0.5 <= px <= x1 + 0.5 and y0 - 0.5 <= py <= y1 + 0.5
