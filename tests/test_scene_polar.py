"""Shared-layer additions made for the polar scenes: partial polar frames fit their own extent, rim labels sit
outside the rim, and polygon points may take band categories."""
from __future__ import annotations

import math

import pytest

from tessera.codegen.scene import accepts_kind
from tessera.expr.types import INT, STR, ListT, RecordT
from tessera.render.frames import BandScale, LinearScale, PolarFrame, sector_extent


def test_sector_extent():
    assert sector_extent(-90, 360) == pytest.approx((-1, -1, 1, 1))
    assert sector_extent(180, 180) == pytest.approx((-1, -1, 1, 0))   # upper half, clockwise from west
    assert sector_extent(0, -180) == pytest.approx((-1, -1, 1, 0))    # upper half, anticlockwise from east
    assert sector_extent(-90, 90) == pytest.approx((0, -1, 1, 0))     # top-right quarter


@pytest.mark.parametrize("start, clockwise", [(180.0, True), (0.0, False)])
def test_half_dial_fills_its_box(start, clockwise):
    f = PolarFrame((0, 0, 400, 300), LinearScale(0, 100, nice=False), LinearScale(0, 1, nice=False),
                   start=start, clockwise=clockwise, sweep=180)
    assert f.radius == pytest.approx(200)  # width-limited: the diameter spans the box
    assert f.cy == pytest.approx(150 + 100)  # the half disc (height 200) is centred vertically
    x0, y0 = f.point(0, 1)
    x1, y1 = f.point(100, 1)
    top = f.point(50, 1)
    assert sorted((x0, x1)) == pytest.approx([0, 400]) and y0 == pytest.approx(f.cy)
    assert top == pytest.approx((200, 50))


def test_full_circle_unchanged():
    f = PolarFrame((0, 0, 400, 300), LinearScale(0, 360, nice=False), LinearScale(0, 1, nice=False))
    assert (f.cx, f.cy, f.radius) == (200, 150, 150)


def test_points_take_categories():
    assert accepts_kind("points", ListT(RecordT((("x", STR), ("y", INT)))))
    assert not accepts_kind("points", ListT(RecordT((("x", ListT(INT)), ("y", INT)))))
    f = PolarFrame((0, 0, 200, 200), BandScale(["a", "b", "c", "d"], 0.0), LinearScale(0, 10, nice=False))
    x, y = f.point("b", 10)  # band b's centre: 3/8 of the turn from 12 o'clock, clockwise
    a = math.radians(-90 + 360 * 3 / 8)
    assert (x, y) == pytest.approx((100 + 100 * math.cos(a), 100 + 100 * math.sin(a)))
