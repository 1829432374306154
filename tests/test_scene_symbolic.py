"""The symbolic and board components (components/analog_clock, spinner, balance, tile_grid, digit_grid,
checker_board) rendered through their grammars on hand-made states, and the shared-layer additions they needed
(text sizes in frame units)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from tessera.render.scene import render_scene
from tessera.sample.rng import Rng
from tessera.trace.instance import object_paths


def render(taxonomy, grammar: str, state: dict, seed: int = 1, level: int = 0):
    """Render a hand-made state through a bundled grammar's scene: (render map, pixels (h × w × 3), decisions)."""
    g = taxonomy.grammars[grammar]
    out = render_scene(g, state, level, taxonomy.vocab, Rng(seed), object_paths(state))
    return out.render_map, np.asarray(out.rgb)[:, :, :3].astype(int), out.decisions


# -- analog_clock -----------------------------------------------------------------------------------------------
def _dark(img, x, y) -> bool:
    # a pixel within 1 px: a centre on a half pixel (x.5) rounds to either neighbour of a 1-2 px wide hand tip
    iy, ix = int(math.floor(y)), int(math.floor(x))
    return bool((img[iy - 1:iy + 2, ix - 1:ix + 2].max(axis=2) < 140).any())


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
    from tessera.taxonomy import compile_taxonomy

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


# -- boards -----------------------------------------------------------------------------------------------------
def test_checker_board_binds_pieces_on_a_light_top_left_square(taxonomy):
    # checkers draws lettered discs (style disc): a king is a disc lettered K
    pieces = [{"row": 0, "col": 0, "king": True, "side": "white"}, {"row": 3, "col": 2, "king": False, "side": "red"}]
    rmap, img, _ = render(taxonomy, "games.checkers", {"pieces": pieces, "n": 4}, seed=3)
    assert set(rmap) == {"pieces[0]", "pieces[1]"}
    x0, y0, x1, y1 = rmap["pieces[1]"]["bbox"]
    assert x1 - x0 > 20 and 0 <= x0 and x1 <= 448
    # A piece's disc sits in the middle of its cell, 0.36 cells in radius; the board's top-left corner follows.
    (cx, cy), cell = rmap["pieces[1]"]["geometry"]["center"], rmap["pieces[1]"]["geometry"]["r"] / 0.36
    bx, by = cx - 2.5 * cell, cy - 3.5 * cell
    corner = lambda r, c: int(img[int(by + r * cell + 4), int(bx + c * cell + 4)].sum())  # noqa: E731
    light, dark = corner(1, 1), corner(1, 0)
    assert corner(2, 0) == light and corner(0, 3) == dark and light > dark
    (qx, qy), qr = rmap["pieces[0]"]["geometry"]["center"], rmap["pieces[0]"]["geometry"]["r"]
    disc = img[round(qy - qr / 2):round(qy + qr / 2), round(qx - qr / 2):round(qx + qr / 2)]
    assert (disc.max(axis=2) < 140).sum() > 50  # the letter, in ink on a white disc
    with pytest.raises(Exception, match=r"requires pieces_on_the_board: .* is false for the arguments given at"):
        render(taxonomy, "games.chess", {"pieces": [{"row": 8, "col": 0, "kind": "rook", "side": "white"}],
                                          "rows": 8, "cols": 8})




def test_chess_draws_figurines_on_an_8_by_8_diagram(taxonomy):
    """games.chess uses checker_board's style figurine: a white piece is the outline figurine in ink (its inside
    shows the square), a black one the solid figurine; files a-h and ranks 1-8 label the edges. The old board drew
    every piece as a disc 0.72 squares wide, lettered K/Q/R/B/N, so a white piece's middle was the disc's white."""
    pieces = [{"row": 7, "col": 0, "kind": "king", "side": "white"}, {"row": 0, "col": 7, "kind": "king", "side": "black"},
              {"row": 4, "col": 4, "kind": "rook", "side": "white"}, {"row": 2, "col": 2, "kind": "rook", "side": "black"}]
    rmap, img, decisions = render(taxonomy, "games.chess", {"pieces": pieces, "rows": 8, "cols": 8}, seed=3)
    assert set(rmap) == {f"pieces[{i}]" for i in range(4)}
    ink = lambda i: int((crop(rmap, img, i).max(axis=2) < 100).sum())  # noqa: E731
    # the solid black rook has far more ink than the outline white one, on squares of the same shade (both light)
    assert ink(3) > 2 * ink(2) > 0
    # no disc: nothing in the white piece's box is the old disc's fill '#fafaf4' (the square shows through)
    assert not (crop(rmap, img, 2) == (250, 250, 244)).all(axis=2).any()
    # a figurine fills most of its square: its box is at least 0.6 squares tall (a square is 1/8 of the board)
    x0, y0, x1, y1 = rmap["pieces[2]"]["bbox"]
    assert (y1 - y0) > 0.6 * (448 - 12 - 30) / 8


def crop(rmap, img, i):
    x0, y0, x1, y1 = (round(v) for v in rmap[f"pieces[{i}]"]["bbox"])
    return img[y0:y1, x0:x1]


def test_digit_grid_binds_every_cell(taxonomy):
    cells = [{"row": r, "col": c, "value": r * 4 + c, "shown": c != 1, "marked": (r, c) == (2, 1)}
             for r in range(4) for c in range(4)]
    rmap, img, _ = render(taxonomy, "puzzles.sudoku", {"cells": cells, "n": 4, "box_rows": 2, "box_cols": 2})
    assert len(rmap) == 16  # blank cells are bound too: a witness can point at an empty cell
    boxes = [rmap[f"cells[{i}]"]["bbox"] for i in range(16)]
    assert all(a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
               for i, a in enumerate(boxes) for b in boxes[i + 1:])
    x, y = rmap["cells[9]"]["point"]  # the marked cell is shaded, not white
    assert tuple(img[round(y), round(x)]) != (255, 255, 255) and img[round(y), round(x)].min() > 140


def test_tile_grid_marks_and_separates_tiles(taxonomy):
    tiles = [{"row": r, "col": c, "color": ["red", "green", "blue"][(r + c) % 3], "marked": (r, c) == (1, 1)}
             for r in range(3) for c in range(3)]
    rmap, img, _ = render(taxonomy, "puzzles.tiles", {"tiles": tiles, "rows": 3, "cols": 3})
    assert len(rmap) == 9 and all(rmap[f"tiles[{i}]"]["mark"] == "cell" for i in range(9))
    a, b = rmap["tiles[0]"]["bbox"], rmap["tiles[1]"]["bbox"]
    assert b[0] - a[2] >= 2  # gaps between tiles
    cx, cy = rmap["tiles[4]"]["point"]
    assert tuple(img[int(cy), int(cx)]) == (255, 255, 255)  # the marked tile's white ring centre


def test_ink_on_picks_a_readable_text_colour():
    from tessera.expr.lib_color import ink_on_color as ink_on_name

    assert [ink_on_name(c) for c in ("white", "yellow", "black", "blue", "#fafaf4", "#202020")] == \
        ["ink", "ink", "white", "white", "ink", "white"]


# -- balance ----------------------------------------------------------------------------------------------------
def _pan_tops(taxonomy, tilt: int):
    """Top edge of the ink drawn left and right of the post, for one balance with one weight a pan."""
    scales = [{"left": ["4"], "right": ["4"], "tilt": tilt}]
    rmap, img, _ = render(taxonomy, "symbolic.balance_compare", {"scales": scales})
    x0, _, x1, _ = rmap["scales[0]"]["bbox"]
    mid = round((x0 + x1) / 2)
    ink = img.min(axis=2) < 200
    rows = [i for i in range(img.shape[0]) if ink[i, :mid - 20].any()], \
        [i for i in range(img.shape[0]) if ink[i, mid + 20:].any()]
    return rows[0][0], rows[1][0]


def test_balance_tilt_lowers_the_heavier_pan(taxonomy):
    left, right = _pan_tops(taxonomy, 0)
    assert abs(left - right) <= 1
    left, right = _pan_tops(taxonomy, -1)
    assert left > right + 20  # y grows downward: the left pan hangs lower
    left, right = _pan_tops(taxonomy, 1)
    assert right > left + 20


def test_balance_binds_each_scale_inside_the_canvas(taxonomy):
    scales = [{"left": ["circle", "circle", "3"], "right": ["9"], "tilt": 0},
              {"left": ["square"], "right": ["red circle", "1"], "tilt": -1},
              {"left": ["x"] * 7, "right": ["5", "5"], "tilt": 1}]
    rmap, img, _ = render(taxonomy, "symbolic.balance_compare", {"scales": scales})
    boxes = [rmap[f"scales[{i}]"]["bbox"] for i in range(3)]
    assert all(0 <= b[0] < b[2] <= 640 and 0 <= b[1] < b[3] <= 480 for b in boxes)
    # the 'red circle' is red whatever colour plain circles got; the 'x' tokens are yellow boxes
    red = (img[:, :, 0] > 150) & (img[:, :, 1] < 90) & (img[:, :, 2] < 90)
    x0, y0, x1, y1 = (round(v) for v in boxes[1])
    assert red[y0:y1, (x0 + x1) // 2:x1].sum() > 50
    x0, y0, x1, y1 = (round(v) for v in boxes[2])
    box = img[y0:y1, x0:(x0 + x1) // 2]
    assert ((box[:, :, 0] > 230) & (box[:, :, 1] > 200) & (box[:, :, 2] < 150)).sum() > 200


# -- games.cards --------------------------------------------------------------------------------------------------
def _blobs(mask) -> int:
    """Connected groups (8-neighbour) of True pixels: one per drawn pip."""
    seen = np.zeros_like(mask, dtype=bool)
    count = 0
    for y0, x0 in zip(*np.nonzero(mask)):
        if seen[y0, x0]:
            continue
        count += 1
        stack = [(y0, x0)]
        seen[y0, x0] = True
        while stack:
            y, x = stack.pop()
            for ny in (y - 1, y, y + 1):
                for nx in (x - 1, x, x + 1):
                    if 0 <= ny < mask.shape[0] and 0 <= nx < mask.shape[1] and mask[ny, nx] and not seen[ny, nx]:
                        seen[ny, nx] = True
                        stack.append((ny, nx))
    return count


@pytest.mark.parametrize("suit", ["hearts", "spades"])
def test_cards_show_their_ranks_pips_and_court_panels(taxonomy, suit):
    """games.cards draws a real card: between the corner indices a number card shows as many suit pips as its
    rank (the ace one), a court card a framed panel (its fill '#f6efd9') instead. The old card drew one big suit
    symbol whatever the rank, so every card counted 1 pip and no card had a panel."""
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    cards = [{"rank": r, "suit": suit, "value": i + 1} for i, r in enumerate(ranks)]
    rmap, img, _ = render(taxonomy, "games.cards", {"cards": cards, "n": len(cards)}, seed=2)
    assert set(rmap) == {f"cards[{i}]" for i in range(13)}
    for i, c in enumerate(cards):
        x0, y0, x1, y1 = rmap[f"cards[{i}]"]["bbox"]
        w, h = x1 - x0, y1 - y0
        # the pip field: clear of the corner indices, which sit in the outer fifth of the width
        field = img[round(y0 + 0.12 * h):round(y1 - 0.12 * h), round(x0 + 0.21 * w):round(x1 - 0.21 * w)]
        if suit == "hearts":
            ink = (field[:, :, 0] > 150) & (field[:, :, 1] < 110) & (field[:, :, 2] < 110)
        else:
            ink = field.max(axis=2) < 200  # a spade's thin stem is grey where it meets the blade
        panel = (field == (246, 239, 217)).all(axis=2).any()
        if c["value"] <= 10:
            assert _blobs(ink) == c["value"], c
            assert not panel, c
        else:
            assert panel, c
