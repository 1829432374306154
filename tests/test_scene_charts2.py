"""The treemap() builtin (compiler/expr/lib_treemap.py): squarified rectangles tiling the unit square."""
from __future__ import annotations

import itertools
import random

import pytest

from tessera.errors import Diagnostics, EvalError
from tessera.expr.compile import Budget, Scope, Site, compile_expr, new_env, run
from tessera.expr.lib_treemap import squarify
from tessera.expr.types import FLOAT, INT, ListT


def _check_tiling(values, rects):
    total = sum(values)
    assert len(rects) == len(values)
    for v, r in zip(values, rects):
        assert 0 <= r["x"] < r["x2"] <= 1 + 1e-12 and 0 <= r["y"] < r["y2"] <= 1 + 1e-12
        area = (r["x2"] - r["x"]) * (r["y2"] - r["y"])
        assert abs(area - v / total) < 1e-9
    for a, b in itertools.combinations(rects, 2):
        overlap_x = min(a["x2"], b["x2"]) - max(a["x"], b["x"])
        overlap_y = min(a["y2"], b["y2"]) - max(a["y"], b["y"])
        assert overlap_x <= 1e-9 or overlap_y <= 1e-9, (a, b)
    assert abs(sum((r["x2"] - r["x"]) * (r["y2"] - r["y"]) for r in rects) - 1) < 1e-9


@pytest.mark.parametrize("seed", range(25))
def test_areas_proportional_and_tiling(seed):
    rng = random.Random(seed)
    values = [rng.randint(1, 60) for _ in range(rng.randint(1, 14))]
    aspect = rng.choice([0.5, 1.0, 1.6, 3.0])
    _check_tiling(values, squarify(values, aspect))


def test_squares_come_out_square():
    # eight equal values in a 2:1 box: a 4 × 2 grid of cells that are square on screen
    for r in squarify([1] * 8, 2.0):
        w_px, h_px = (r["x2"] - r["x"]) * 2.0, r["y2"] - r["y"]
        assert abs(w_px - 0.5) < 1e-9 and abs(h_px - 0.5) < 1e-9
    worst = max(max((r["x2"] - r["x"]) * 2 / (r["y2"] - r["y"]), (r["y2"] - r["y"]) / ((r["x2"] - r["x"]) * 2))
                for r in squarify([6, 6, 4, 3, 2, 2, 1], 1.5))
    assert worst < 3.0
    one = squarify([5], 1.0)[0]
    assert (one["x"], one["y"], one["x2"], one["y2"]) == (0.0, 0.0, 1.0, 1.0)


def test_deterministic_and_in_input_order():
    a = squarify([3, 9, 1, 9], 1.4)
    assert a == squarify([3, 9, 1, 9], 1.4)
    areas = [(r["x2"] - r["x"]) * (r["y2"] - r["y"]) for r in a]
    assert areas[1] == pytest.approx(areas[3]) and areas[1] > areas[0] > areas[2]


def test_rejects_bad_values():
    with pytest.raises(EvalError):
        squarify([3, 0], 1.0)
    with pytest.raises(EvalError):
        squarify([3, -1], 1.0)
    with pytest.raises(EvalError):
        squarify([3], 0.0)


def _compile(src, scope):
    d = Diagnostics()
    c = compile_expr(src, Scope(scope), Site(None, (), "e.yaml"), d)
    return c, d


def test_builtin_types_and_budget():
    c, d = _compile("treemap(vs, 1.5)", {"vs": ListT(INT)})
    assert c is not None, [str(x) for x in d.items]
    assert str(c.type) == str(ListT(__import__("tessera.expr.lib_treemap", fromlist=["RECT"]).RECT))
    vs = [5, 3, 2, 2, 1]
    out = run(c, new_env({"vs": vs}))
    _check_tiling(vs, out)
    c2, _ = _compile("map(treemap(vs, 1.0), r -> r.x2 - r.x)", {"vs": ListT(FLOAT)})
    assert len(run(c2, new_env({"vs": [1.5, 2.5]}))) == 2
    budget = Budget()
    before = budget.left
    run(c, new_env({"vs": vs}, budget=budget))
    assert budget.left < before
    c3, d3 = _compile("treemap(ws, 1.0)", {"ws": ListT(ListT(INT))})
    assert c3 is None and any("list of numbers" in str(x) for x in d3.items)
