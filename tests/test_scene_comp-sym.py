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


# -- spinner ----------------------------------------------------------------------------------------------------
def test_spinner_binds_every_sector_as_a_wedge_of_its_share(taxonomy):
    sectors = [{"color": c} for c in ("red", "blue", "green", "red")]
    rmap, img, _ = render(taxonomy, "symbolic.spinner", {"sectors": sectors, "n": 4,
                                                         "palette": ["red", "blue", "green"]})
    geo = [rmap[f"sectors[{i}]"]["geometry"] for i in range(4)]
    assert [g["sweep"] for g in geo] == pytest.approx([90.0] * 4)
    assert geo[0]["start"] in (-90.0, -67.5, -60.0, -45.0)  # clockwise from a render-chosen start, in order
    assert [g["start"] for g in geo] == pytest.approx([geo[0]["start"] + 90 * i for i in range(4)])
    for g, expect in zip(geo, ((0, 1), (2, 0), (1, 0), (0, 1))):  # (channel that dominates, channel it beats)
        x, y = g["label_point"]
        px = img[round(y), round(x)]
        assert px[expect[0]] > px[expect[1]] + 40, (g, px)


def _grammar(library_copy, name: str, body: str):
    """Compile the library with one extra grammar (grammars/test/NAME.yaml) and return the taxonomy."""
    from compiler.taxonomy import compile_taxonomy

    (library_copy / "grammars" / "test").mkdir(exist_ok=True)
    (library_copy / "grammars" / "test" / f"{name}.yaml").write_text(f"grammar: test.{name}\n" + body)
    return compile_taxonomy(library_copy)


def test_spinner_weights_groups_and_names(library_copy):
    tx = _grammar(library_copy, "spinners", """summary: Two weighted spinners.
state:
  sectors: "[{color: p.c, w: p.w, k: k, label: str(p.w)} for k in [0, 1] for p in [{c: 'red', w: 2}, {c: 'blue', w: 1}, {c: 'yellow', w: 1}]]"
render:
  canvas: {width: 640, height: 360}
  scene:
    use: spinner
    with: {items: sectors, color: "s -> s.color", weight: "s -> s.w", spinner: "s -> s.k", label: "s -> s.label",
           names: "['A', 'B']"}
""")
    state = {"sectors": [{"color": c, "w": w, "k": k, "label": str(w)} for k in (0, 1)
                         for c, w in (("red", 2), ("blue", 1), ("yellow", 1))]}
    rmap, _, _ = render(tx, "test.spinners", state)
    geo = [rmap[f"sectors[{i}]"]["geometry"] for i in range(6)]
    assert [g["sweep"] for g in geo] == pytest.approx([180, 90, 90] * 2)
    boxes = [rmap[f"sectors[{i}]"]["bbox"] for i in range(6)]
    assert max(b[2] for b in boxes[:3]) < min(b[0] for b in boxes[3:])  # two spinners side by side
