"""Shared-layer capabilities the illustrations domain added: the `svg` mark (SVG-like path data fitted into a box)
and the `tiles` node (a rendered sub-scene cut into square tiles, re-placed by a permutation and quarter turns),
checked through the real pipeline on one-grammar libraries, plus the sprite library's anchors."""
from __future__ import annotations

import numpy as np
import pytest

from tessera.errors import EvalError, SamplingFailed
from tessera.render.marks import parse_svg_path
from tests.test_scene import build, errors_of, pixel, sample


# -- svg ----------------------------------------------------------------------------------------------------------
def test_svg_path_data_parses_absolute_relative_and_curves():
    b = parse_svg_path("M 10 10 H 90 V 90 H 10 Z").computeTightBounds()
    assert (b.left(), b.top(), b.right(), b.bottom()) == (10, 10, 90, 90)
    b = parse_svg_path("m10,20 l30 0 0 30 z").computeTightBounds()  # pairs after a lineto repeat it, relative
    assert (b.left(), b.top(), b.right(), b.bottom()) == (10, 20, 40, 50)
    b = parse_svg_path("M 0 50 A 50 50 0 0 1 100 50 Z").computeTightBounds()  # the upper half disc
    assert abs(b.top()) < 0.01 and abs(b.bottom() - 50) < 0.01
    b = parse_svg_path("M 0 0 C 0 100 100 100 100 0 S 200 -100 200 0 Q 250 50 300 0 T 400 0").computeTightBounds()
    assert b.right() == 400 and 70 < b.bottom() < 80 and -80 < b.top() < -70


@pytest.mark.parametrize("bad, message", [
    ("", "empty"), ("L 1 2", "moveto"), ("M 1 2 L 3", "'L' takes 2 numbers"), ("M 1 2 X 3", "unexpected 'X'"),
    ("M 1 2 L 3 4 Z 5", "a number after 'Z'"),
])
def test_svg_path_data_mistakes_name_the_place(bad, message):
    with pytest.raises(EvalError, match=message):
        parse_svg_path(bad)


def test_svg_mark_fills_its_box_and_flips(tmp_path):
    # A right triangle in the left half of the view box, drawn into the box (100, 50)-(300, 250), then flipped.
    root = build(tmp_path, "k: 1\n", """\
        marks:
          - svg: {d: "'M 0 0 L 50 100 L 0 100 Z'", x: 100, y: 50, x2: 300, y2: 250, fill: red, bind: k}
          - svg: {d: "'M 0 0 L 50 100 L 0 100 Z'", x: 100, y: 50, x2: 300, y2: 250, fill: blue, flip: true}
        """, width=400, height=300)
    _, inst = sample(root)
    assert pixel(inst, 110, 240)[0] > 180 and pixel(inst, 110, 240)[2] < 100  # red at the bottom left
    assert pixel(inst, 290, 240)[2] > 150 and pixel(inst, 290, 240)[0] < 100  # the flipped one, bottom right
    assert pixel(inst, 200, 100) == pixel(inst, 5, 5)  # nothing at the top middle


def test_svg_literal_mistakes_are_compile_errors_with_positions(tmp_path):
    root = build(tmp_path, "k: 1\n", """\
        marks:
          - svg: {d: "'M 0 0 L 50'", x: 0, y: 0, x2: 10, y2: 10}
        """)
    errs = errors_of(root)
    assert any("g.yaml:" in e and "'L' takes 2 numbers" in e for e in errs), errs


# -- tiles --------------------------------------------------------------------------------------------------------
SCENE = """\
    tiles:
      rows: 2
      cols: 2
      each: slots
      as: t
      source: t.src
      turn: t.turn
      gap: 0
      scene:
        marks:
          - rect: {x: 0, y: 0, x2: 100, y2: 100, fill: red}
          - rect: {x: 100, y: 0, x2: 200, y2: 100, fill: blue}
          - rect: {x: 0, y: 100, x2: 100, y2: 200, fill: green}
          - rect: {x: 100, y: 100, x2: 200, y2: 200, fill: yellow}
          - rect: {x: 0, y: 0, x2: 20, y2: 20, fill: ink}
    """


def _tiles(tmp_path, slots: str):
    root = build(tmp_path, f"slots: \"{slots}\"\n", SCENE, width=200, height=200)
    return sample(root)[1]


def test_tiles_without_moves_show_the_scene(tmp_path):
    inst = _tiles(tmp_path, "[{src: 0, turn: 0}, {src: 1, turn: 0}, {src: 2, turn: 0}, {src: 3, turn: 0}]")
    assert pixel(inst, 50, 50)[0] > 180 and pixel(inst, 150, 50)[2] > 180 and pixel(inst, 50, 150)[1] > 100
    assert max(pixel(inst, 5, 5)) < 80  # the dark corner mark is in the top-left tile's top-left corner
    assert inst.trace["render"]["render_map"]["slots[3]"]["bbox"] == [100.0, 100.0, 200.0, 200.0]
    assert inst.trace["render"]["render_map"]["slots[3]"]["geometry"] == {"slot": [1, 1], "source": 3, "turn": 0}


def test_tiles_swap_turn_and_leave_a_slot_empty(tmp_path):
    inst = _tiles(tmp_path, "[{src: 3, turn: 0}, {src: 0, turn: 1}, {src: -1, turn: 0}, {src: 2, turn: 0}]")
    assert min(pixel(inst, 50, 50)[:2]) > 200  # yellow moved to the top left
    blue_or_red = pixel(inst, 150, 50)
    assert blue_or_red[0] > 180 and blue_or_red[2] < 100  # the red tile in the top-right slot ...
    assert max(pixel(inst, 195, 5)) < 80 and max(pixel(inst, 105, 5)) > 150  # ... turned clockwise: its mark is top right
    assert min(pixel(inst, 50, 150)) > 200  # the empty slot is paper
    assert pixel(inst, 150, 150)[1] > 100 and pixel(inst, 150, 150)[0] < 100  # green


def test_tiles_sub_scene_binds_nothing_and_bad_slots_fail(tmp_path):
    root = build(tmp_path, "slots: \"[{src: 0, turn: 0}]\"\nk: 1\n", """\
        tiles:
          rows: 1
          cols: 1
          each: slots
          source: it.src
          scene:
            marks:
              - rect: {x: 0, y: 0, x2: 100, y2: 100, fill: red, bind: k}
        """, width=200, height=200)
    _, inst = sample(root)
    assert "k" not in inst.trace["render"]["render_map"] and "slots[0]" in inst.trace["render"]["render_map"]
    root = build(tmp_path / "b", "slots: \"[{src: 5, turn: 0}]\"\n", """\
        tiles: {rows: 1, cols: 1, each: slots, source: it.src, scene: {marks: []}}
        """, width=200, height=200)
    with pytest.raises(SamplingFailed, match="source is a tile index"):
        sample(root)
    root = build(tmp_path / "c", "slots: \"[{src: 0}]\"\n", """\
        tiles: {rows: 1, cols: 1, each: slots, scene: {marks: []}}
        """)
    assert any("tiles need source" in e for e in errors_of(root))


def test_tiles_in_another_layout_show_chosen_tiles_with_labels(tmp_path):
    # The same 2 × 2 cut shown as a row of three candidates: tiles 3, 0 and 1, lettered in their corners.
    scene = SCENE.replace("      gap: 0\n", "      gap: 0\n      slot_cols: 3\n      label: t.name\n")
    root = build(tmp_path, "slots: \"[{src: 3, turn: 0, name: 'A'}, {src: 0, turn: 0, name: 'B'}, "
                           "{src: 1, turn: 0, name: 'C'}]\"\n", scene, width=300, height=100)
    _, inst = sample(root)
    rm = inst.trace["render"]["render_map"]
    assert rm["slots[0]"]["bbox"] == [0.0, 0.0, 100.0, 100.0] and rm["slots[2]"]["bbox"] == [200.0, 0.0, 300.0, 100.0]
    assert min(pixel(inst, 50, 60)[:2]) > 200  # yellow (tile 3) first
    assert pixel(inst, 150, 60)[0] > 180 and pixel(inst, 250, 60)[2] > 180  # then red, then blue
    badge = inst.rgb[3:20, 3:20, :3].astype(int)
    assert (badge.max(axis=2) < 100).any() and (badge.min(axis=2) > 200).any()  # dark letter on a paper badge


# -- the sprite library (components/sprite_*.yaml, vocab.sprites) --------------------------------------------------
@pytest.fixture(scope="module")
def sheet_taxonomy(tmp_path_factory):
    """A probe library whose one grammar draws `items` through the `sprites` component alone, on a blank canvas: the
    sprite sheet no longer goes through the street scene, which draws most kinds as game-icons over a sky."""
    from tests.conftest import probe_taxonomy
    from tessera.taxonomy import compile_taxonomy

    tmp = tmp_path_factory.mktemp("sheet")
    probe_taxonomy(tmp)
    (tmp / "grammars/probe").mkdir(parents=True)
    (tmp / "grammars/probe/sheet.yaml").write_text(
        "grammar: probe.sheet\nsummary: Every sprite.\nstate:\n  width: 144.0\n  height: 100.0\n  items: \"[{kind: 'cat', row: 0, x: 9.0, y: 1.0, w: 10.0, h: 9.0, z: 0, color: 'red', flip: false}]\"\n"
        "render:\n  canvas: {width: 640, height: 320}\n  scene:\n    use: sprites\n"
        "    with: {items: items, width: width, height: height, z: '.z', flip: '.flip'}\n")
    return compile_taxonomy(tmp)


def _sprite_sheet(taxonomy, sheet_taxonomy):
    """Every sprite of vocab.sprites, drawn large through the sprites component on a hand-made state."""
    from tests.test_scene_symbolic import render

    sprites = taxonomy.vocab["sprites"]
    items = []
    for i, v in enumerate(sprites):
        k = 16.0 / max(v["w"], v["h"])
        items.append({"kind": v["kind"], "row": 0, "x": 12.0 + 24.0 * (i % 6), "y": 76.0 - 23.0 * (i // 6),
                      "w": v["w"] * k, "h": v["h"] * k, "z": 0, "color": "red", "flip": False})
    state = {"width": 144.0, "height": 100.0, "items": items}
    rmap, img, _ = render(sheet_taxonomy, "probe.sheet", state)
    return sprites, items, rmap, img


def test_every_sprite_is_drawn_in_its_box(taxonomy, sheet_taxonomy):
    sprites, items, rmap, img = _sprite_sheet(taxonomy, sheet_taxonomy)
    families = {v["family"] for v in sprites}
    assert len(sprites) >= 16 and {"furniture", "plants", "people", "vehicles", "animals", "buildings"} <= families
    px = min(640 / 144.0, 320 / 100.0)
    ox, oy = (640 - 144.0 * px) / 2, (320 - 100.0 * px) / 2
    for i, s in enumerate(items):
        box = rmap[f"items[{i}]"]["bbox"]
        want = (ox + (s["x"] - s["w"] / 2) * px, oy + (100.0 - s["y"] - s["h"]) * px,
                ox + (s["x"] + s["w"] / 2) * px, oy + (100.0 - s["y"]) * px)
        inside = box[0] >= want[0] - 3 and box[1] >= want[1] - 3 and box[2] <= want[2] + 3 and box[3] <= want[3] + 3
        fills = box[2] - box[0] >= 0.8 * (want[2] - want[0]) and box[3] - box[1] >= 0.8 * (want[3] - want[1])
        assert inside and fills, (s["kind"], box, want)  # a sprite fills its box (a bird's head leaves a little)
        x0, y0, x1, y1 = (int(v) for v in box)
        inked = (np.abs(img[y0:y1, x0:x1] - img[2, 2]).sum(axis=2) > 60).mean()
        assert inked > 0.08, (s["kind"], inked)  # something of the sprite is drawn in its box


def test_sprite_anchors_are_surfaces_and_free_space(taxonomy, sheet_taxonomy):
    sprites, items, rmap, img = _sprite_sheet(taxonomy, sheet_taxonomy)
    px = min(640 / 144.0, 320 / 100.0)
    ox, oy = (640 - 144.0 * px) / 2, (320 - 100.0 * px) / 2
    bg = img[2, 2]

    def at(s, u, v):  # the pixel at fraction (u across, v up) of a sprite's box
        x = ox + (s["x"] - s["w"] / 2 + u * s["w"]) * px
        y = oy + (100.0 - s["y"] - v * s["h"]) * px
        return np.abs(img[int(y), int(x)] - bg).sum() > 60

    checked = 0
    for v, s in zip(sprites, items):
        for a in v["anchors"]:
            assert 0 <= a["u0"] < a["u1"] <= 1 and 0 <= a["v0"] < a["v1"], (v["kind"], a)
            um = (a["u0"] + a["u1"]) / 2
            if a["name"] in ("top", "shelf1", "shelf2", "shelf3"):
                assert at(s, um, a["v0"] - 0.02), (v["kind"], a["name"])  # a board or seat to stand on
                assert not at(s, um, min(a["v0"] + 0.15, 0.99)) or a["name"] != "top" or a["v0"] >= 1, v["kind"]
            elif a["name"] == "under":
                assert not at(s, um, (a["v0"] + a["v1"]) / 2), (v["kind"], "under is not free")
            else:  # inside a bowl, a box, a tree's crown: within the drawn sprite
                assert at(s, um, a["v0"] + 0.05), (v["kind"], a["name"])
            checked += 1
    assert checked >= 10


def test_missing_tile_decoys_are_the_tile_turned_and_another_busy_tile(taxonomy):
    from tessera.trace.instance import generate

    task = taxonomy.tasks["illustrations.tile_puzzle.missing_tile"]
    for level in (0, 5, 9):
        st = generate(task, 40 + level, level, vocab=taxonomy.vocab).trace["state"]
        gap = [k for k, s in enumerate(st["slots"]) if s["src"] == -1]
        opts = st["options"]
        assert len(gap) == 1 and len(opts) == 4 and [o["letter"] for o in opts] == ["A", "B", "C", "D"]
        same = sorted(o["turn"] for o in opts if o["src"] == gap[0])
        assert len(same) == 3 and same[0] == 0 and len(set(same)) == 3  # upright once, two other turns
        (other,) = [o for o in opts if o["src"] != gap[0]]
        assert other["turn"] == 0 and other["src"] in st["busy"]  # a tile that shows a sprite, shown elsewhere


def test_room_things_are_recoloured_icons_standing_on_their_base(taxonomy):
    """The room draws its things and pets as game-icons (vocab.sprites `icon`) in their colour, a square of side
    max(w, h) on the thing's base: the old sprites drew a 4.6 × 3.6 cup box, not a square, and no icon."""
    from tessera.spec.assets import asset_names
    from tests.test_scene_symbolic import render

    mono = set(asset_names("mono"))
    icons = {v["kind"]: v["icon"] for v in taxonomy.vocab["sprites"]}
    assert all(name in mono for name in icons.values() if name), icons
    assert {k for k, n in icons.items() if n} >= {"cat", "dog", "ball", "book", "cup"}
    table = {"kind": "table", "x": 40.0, "y": 5.0, "w": 32.0, "h": 16.0, "color": "brown", "z": 1, "flip": False,
             "host": -1, "rel": "furniture"}
    cup = {"kind": "cup", "x": 40.0, "y": 21.0, "w": 4.6, "h": 3.6, "color": "red", "z": 2, "flip": False,
           "host": 0, "rel": "on"}
    state = {"width": 80.0, "height": 40.0, "floor": 5.0, "hosts": [table], "objects": [cup]}
    rmap, img, _ = render(taxonomy, "illustrations.room", state)
    px = min(600 / 80.0, 300 / 40.0)
    x0, y0, x1, y1 = rmap["objects[0]"]["bbox"]
    side, top = 4.6 * px, 300 - (21.0 + 4.6) * px  # the square of side max(w, h) standing on the table top
    assert x0 >= 300 - side / 2 - 1 and x1 <= 300 + side / 2 + 1 and y0 >= top - 1, (x0, y0, x1, y1, side)
    assert x1 - x0 >= 0.8 * side and y1 - y0 >= 0.8 * side, (x0, y0, x1, y1, side)  # a glyph filling it
    assert abs(y1 - (300 - 21.0 * px)) < 3  # it stands on the table top
    box = img[int(y0):int(y1), int(x0):int(x1)].astype(int)
    red = (box[..., 0] > 150) & (box[..., 1] < 110) & (box[..., 2] < 110)
    assert red.mean() > 0.1, red.mean()  # recoloured by its colour


def test_street_draws_recoloured_icons_in_rows_that_never_overlap(taxonomy):
    """The street draws its buildings, trees, people, pets and cars as game-icons (vocab.sprites `icon`) in their
    colour, a square standing on the item's base and never taller than the gap up to the next row, over a sky, a
    pavement and a road; the bicycle, with no icon, stays a sprite. The old street drew every kind as a vector sprite
    (a bus was a box) on three flat bands: no icon, no sky."""
    from tests.test_scene_symbolic import render

    icons = {v["kind"]: v["icon"] for v in taxonomy.vocab["sprites"]}
    assert {k for k, n in icons.items() if n} >= {"car", "bus", "house", "shop", "tree", "pine", "person"}
    assert icons["bicycle"] == ""
    bases = [41.0, 22.0, 2.0]
    items = [{"kind": "house", "row": 0, "x": 30.0, "y": 41.0, "w": 25.2, "h": 25.2, "z": 0, "color": "red", "flip": False},
             {"kind": "person", "row": 1, "x": 30.0, "y": 22.0, "w": 6.8, "h": 15.3, "z": 1, "color": "blue", "flip": False},
             {"kind": "bus", "row": 2, "x": 40.0, "y": 2.0, "w": 40.0, "h": 16.0, "z": 2, "color": "red", "flip": False},
             {"kind": "bicycle", "row": 2, "x": 110.0, "y": 2.0, "w": 18.0, "h": 11.0, "z": 2, "color": "blue", "flip": False}]
    rmap, img, _ = render(taxonomy, "illustrations.street", {"width": 136.0, "height": 68.0, "bases": bases, "items": items})
    px = min(640 / 136.0, 320 / 68.0)

    def y(v):
        return 320 - v * px
    for i, side in ((0, 25.2), (1, 15.3), (2, min(40.0, bases[1] - bases[2] - 1.5))):  # the bus: capped by the row gap
        x0, y0, x1, y1 = rmap[f"items[{i}]"]["bbox"]
        s = items[i]
        assert y1 <= y(s["y"]) + 1 and y0 >= y(s["y"] + side) - 1, (s["kind"], y0, y1, side)  # in its square on the base
        assert max(y1 - y0, x1 - x0) >= 0.8 * side * px, (s["kind"], y0, y1, side)  # a glyph filling it
        assert x0 >= (s["x"] - side / 2) * px - 1 and x1 <= (s["x"] + side / 2) * px + 1, (s["kind"], x0, x1)
        box = img[int(y0):int(y1), int(x0):int(x1)]
        hue = (box[..., 0] > 150) & (box[..., 1] < 110) if s["color"] == "red" else (box[..., 2] > 150) & (box[..., 0] < 110)
        assert hue.mean() > 0.1, (s["kind"], hue.mean())  # recoloured by its colour
    assert rmap["items[0]"]["bbox"][3] < rmap["items[1]"]["bbox"][1] + 1  # the back row is wholly above the pavement
    assert rmap["items[1]"]["bbox"][3] < rmap["items[2]"]["bbox"][1] + 1
    x0, y0, x1, y1 = rmap["items[3]"]["bbox"]  # the bicycle: its sprite fills its 18 × 11 box
    assert x1 - x0 >= 0.8 * 18.0 * px and y1 - y0 >= 0.8 * 11.0 * px
    sky, road = img[5, 600], img[int(y(4.0)), 320]
    assert sky[2] > 230 and sky[0] < 230 and road.max() < 130, (sky, road)  # a blue sky band, a dark road


def test_shelf_things_are_recoloured_icons_on_their_board_within_their_gap(taxonomy):
    """The bookcase's things are game-icons in their colour, a square of side min(max(w, h), w + 1.5) standing on the
    shelf board: the old shelf drew them as vector sprites (a cup was a 6.9 × 5.4 box, not an icon)."""
    from tests.test_scene_symbolic import render

    case = {"kind": "shelf", "shelf": "", "x": 40.0, "y": 2.0, "w": 60.0, "h": 50.0, "color": "brown", "z": 0,
            "flip": False}
    board = 2.0 + 0.672 * 50.0  # the top shelf's anchor v0
    book = {"kind": "book", "shelf": "top", "x": 40.0, "y": board, "w": 4.5, "h": 7.5, "color": "red", "z": 1,
            "flip": False}
    rmap, img, _ = render(taxonomy, "illustrations.shelf", {"width": 80.0, "height": 80.0 / 1.2, "sw": 60.0, "sh": 50.0,
                                                          "case": case, "things": [book]})
    px = min(480 / 80.0, 400 / (80.0 / 1.2))
    oy = (400 - 80.0 / 1.2 * px) / 2
    x0, y0, x1, y1 = rmap["things[0]"]["bbox"]
    side = 6.0  # min(7.5, 4.5 + 1.5): narrower than max(w, h), so neighbours 1.5 apart never touch
    base = oy + (80.0 / 1.2 - board) * px
    assert x0 >= 240 - side / 2 * px - 1 and x1 <= 240 + side / 2 * px + 1, (x0, x1)
    assert y1 <= base + 1 and y0 >= base - side * px - 1 and y1 - y0 >= 0.8 * side * px, (y0, y1, base)
    box = img[int(y0):int(y1), int(x0):int(x1)]
    red = (box[..., 0] > 150) & (box[..., 1] < 110) & (box[..., 2] < 110)
    assert red.mean() > 0.1, red.mean()
