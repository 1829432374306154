"""The symbolic and board components (components/analog_clock, spinner, balance, tile_grid, digit_grid,
checker_board) rendered through their grammars on hand-made states, and the shared-layer additions they needed
(text sizes in frame units)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from compiler.render.scene import render_scene
from compiler.sample.rng import Rng
from compiler.trace.instance import object_paths


def render(taxonomy, grammar: str, state: dict, seed: int = 1, level: int = 0):
    """Render a hand-made state through a bundled grammar's scene: (render map, pixels (h × w × 3), decisions)."""
    g = taxonomy.grammars[grammar]
    out = render_scene(g, state, level, taxonomy.vocab, Rng(seed), object_paths(state))
    return out.render_map, np.asarray(out.rgb)[:, :, :3].astype(int), out.decisions


# -- analog_clock -----------------------------------------------------------------------------------------------
def _dark(img, x, y) -> bool:
    return img[round(y), round(x)].max() < 140


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_analog_clock_draws_hands_where_the_time_says(taxonomy, seed):
    clocks = [{"hour": 3, "minute": 0, "label": "A"}, {"hour": 7, "minute": 30, "label": "B"}]
    rmap, img, _ = render(taxonomy, "symbolic.clock_row", {"clocks": clocks, "numerals": 0}, seed)
    for i, c in enumerate(clocks):
        face = rmap[f"clocks[{i}]"]
        (cx, cy), r = face["geometry"]["center"], face["geometry"]["r"]
        minute_angle, hour_angle = c["minute"] * 6, (c["hour"] % 12) * 30 + c["minute"] / 2

        def tip(deg, reach, cx=cx, cy=cy, r=r):
            return cx + r * reach * math.sin(math.radians(deg)), cy - r * reach * math.cos(math.radians(deg))
        assert _dark(img, *tip(minute_angle, 0.6))
        assert _dark(img, *tip(hour_angle, 0.3))
        assert not _dark(img, *tip(hour_angle, 0.62))  # the hour hand is the short one
        assert face["bbox"][3] > cy + r + 10  # the label under the face belongs to the clock
    a, b = rmap["clocks[0]"]["bbox"], rmap["clocks[1]"]["bbox"]
    assert a[2] < b[0]  # side by side


def test_analog_clock_numerals(taxonomy):
    clocks = [{"hour": 3, "minute": 0, "label": "A"}]
    dark = {}
    for numerals in (0, 4, 12):
        _, img, _ = render(taxonomy, "symbolic.clock_row", {"clocks": clocks, "numerals": numerals}, 4)
        dark[numerals] = int((img.max(axis=2) < 140).sum())
    assert dark[0] < dark[4] < dark[12]
