"""The asset library (compiler/assets/, spec/assets.py) and the marks that draw it (`icon`, `object`): every vendored
asset draws, the same bytes every time, recoloured icons are exactly their fill, names and tags are checked when
compiling with the near names, and `icons()` / `objects()` list names by tag in a fixed order."""
from __future__ import annotations

import gzip
import json
import math
import time

import numpy as np
import pytest
import skia

from tessera.errors import CompileFailed
from tessera.render import marks as render_marks
from tessera.spec.assets import ICON_FILE, LICENCE_FILE, asset_names, asset_sets, find_asset
from tests.test_scene import build, sample


def _sheet(kind: str, names: list[str], cell: int) -> np.ndarray:
    """Every named asset drawn in its own cell of one canvas at half-side cell/2 - 1 px (the draw code of the marks:
    the cached path or picture under the same matrix)."""
    cols = math.ceil(math.sqrt(len(names)))
    surf = skia.Surface(cols * cell, math.ceil(len(names) / cols) * cell)
    canvas = surf.getCanvas()
    canvas.clear(skia.ColorWHITE)
    paint = skia.Paint(AntiAlias=True, Color=skia.ColorBLACK)
    for i, name in enumerate(names):
        if kind == "mono":
            src, side = render_marks.icon_path(name)
        else:
            pic, side, _ = render_marks.object_picture(name)
        k = (cell - 2) / side
        m = skia.Matrix.Scale(k, k)
        m.postTranslate((i % cols) * cell + 1, (i // cols) * cell + 1)
        if kind == "mono":
            canvas.save()
            canvas.concat(m)
            canvas.drawPath(src, paint)
            canvas.restore()
        else:
            canvas.drawPicture(pic, m, None)
    return surf.makeImageSnapshot().toarray()[:, :, :3]


def _cells_without_ink(img: np.ndarray, n: int, cell: int) -> list[int]:
    cols = math.ceil(math.sqrt(n))
    ink = (img < 250).any(axis=2)
    return [i for i in range(n)
            if not ink[(i // cols) * cell:(i // cols + 1) * cell, (i % cols) * cell:(i % cols + 1) * cell].any()]


def test_manifest_matches_the_vendored_files_and_licences():
    sets = asset_sets()
    assert [(s.set, s.kind) for s in sets] == [("game-icons", "mono"), ("twemoji", "colour")]
    for s in sets:
        data = json.loads(gzip.decompress((s.folder / ICON_FILE).read_bytes()))
        assert len(data["icons"]) == s.count, s.set
        licence = (s.folder / LICENCE_FILE).read_text()
        assert s.licence in licence and s.licence_url in licence
    # the bar: >= 2,000 monochrome icons and >= 500 coloured objects drawable by name
    assert len(asset_names("mono")) == 4133 and len(asset_names("colour")) == 1943


@pytest.mark.parametrize("kind, cell", [("mono", 14), ("colour", 14)])
def test_every_asset_draws_at_a_small_size_and_the_same_bytes_twice(kind, cell):
    """All 4,133 icons and 1,943 objects, each in a 14 px cell: every one leaves ink, and parsing again from the
    file (caches cleared) gives the same picture byte for byte."""
    names = asset_names(kind)
    start = time.process_time()
    first = _sheet(kind, names, cell)
    assert _cells_without_ink(first, len(names), cell) == []
    render_marks.icon_path.cache_clear()
    render_marks.object_picture.cache_clear()
    assert np.array_equal(first, _sheet(kind, names, cell))
    assert time.process_time() - start < 20  # CPU seconds: parsing stays a once-per-asset cost


def test_a_sample_draws_at_a_large_size_through_the_marks(tmp_path):
    """A spread of 12 icons and 12 objects at half-side 60 px through the real scene pipeline, bound to their items:
    each leaves its own box in the render map, inside the square its size gives, and the render replays."""
    icons, objects = asset_names("mono")[::345][:12], asset_names("colour")[::162][:12]
    items = ", ".join(f"{{n: '{n}'}}" for n in icons)
    things = ", ".join(f"{{n: '{n}'}}" for n in objects)
    root = build(tmp_path, f'icons: "[{items}]"\nthings: "[{things}]"\n', """\
        frame: {canvas: {}}
        marks:
          - icon: {each: icons, as: t, index: i, bind: t, name: t.n, x: 65 + (i % 6) * 130, y: 65 + (i // 6) * 130, size: 60, fill: "'#1f77b4'"}
          - object: {each: things, as: t, index: i, bind: t, name: t.n, x: 65 + (i % 6) * 130, y: 325 + (i // 6) * 130, size: 60}
        """, width=780, height=520)
    _, inst = sample(root)
    _, again = sample(root)
    assert np.array_equal(inst.rgb, again.rgb)
    rm = inst.trace["render"]["render_map"]
    for path, (i, y0) in [*((f"icons[{i}]", (i, 65)) for i in range(12)), *((f"things[{i}]", (i, 325)) for i in range(12))]:
        cx, cy = 65 + (i % 6) * 130, y0 + (i // 6) * 130
        x0, y0b, x1, y1 = rm[path]["bbox"]
        assert cx - 61 <= x0 < x1 <= cx + 61 and cy - 61 <= y0b < y1 <= cy + 61, (path, rm[path])
        assert x1 - x0 > 20 or y1 - y0b > 20, (path, rm[path])


def test_a_recoloured_icon_is_exactly_its_fill_and_rotate_flip_move_its_pixels(tmp_path):
    root = build(tmp_path, "k: 1\n", """\
        frame: {canvas: {}}
        marks:
          - icon: {name: "'cat'", x: 100, y: 100, size: 80, fill: "'#d62728'"}
          - icon: {name: "'cat'", x: 300, y: 100, size: 80, fill: "'#d62728'", flip: true}
          - icon: {name: "'cat'", x: 500, y: 100, size: 80, fill: "'#d62728'", rotate: 90}
        """, width=600, height=200)
    _, inst = sample(root)
    rgb = inst.rgb[:, :, :3].astype(int)
    left, mid, right = rgb[:, :200], rgb[:, 200:400], rgb[:, 400:]
    red = (left == (214, 39, 40)).all(axis=2)
    assert red.sum() > 2000  # the body is the fill colour itself, not a tint of it
    background = left[0, 0]
    inked = (left != background).any(axis=2)
    # every inked pixel is the fill or an anti-aliased edge between fill and background (on the line between them)
    edge = inked & ~red
    assert edge.sum() < red.sum() / 2
    # flip: the mirror image; rotate 90: turned clockwise (equal up to anti-aliasing at the edges), and neither
    # is the unturned icon (the cat is not symmetric)
    flipped, turned = (mid == (214, 39, 40)).all(axis=2), (right == (214, 39, 40)).all(axis=2)
    assert _iou(flipped, red[:, ::-1]) > 0.97 and _iou(flipped, red) < 0.9
    assert _iou(turned, np.rot90(red, -1)) > 0.97 and _iou(turned, red) < 0.9


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    return float((a & b).sum() / (a | b).sum())


def _diagnostics(root):
    with pytest.raises(CompileFailed) as exc:
        from tessera.taxonomy import compile_taxonomy
        compile_taxonomy(root)
    return [(f"g.yaml:{d.pos.line}:{d.pos.col}", d.code, d.message) for d in exc.value.diagnostics.sorted()]


def test_unknown_names_and_tags_are_errors_at_their_position_with_near_names(tmp_path):
    """Old code: 'icon' and 'object' were unknown marks and icons()/objects() unknown functions."""
    root = build(tmp_path, "names: \"objects('fruti')\"\n", """\
        frame: {canvas: {}}
        marks:
          - icon: {name: "'zeus-swrod'", x: 10, y: 10}
          - object: {name: "'red-aple'", x: 10, y: 10}
        """)
    assert _diagnostics(root) == [
        ("g.yaml:4:19", "unknown-asset", "no object has the tag 'fruti' (near: fruit, fuji, fountain, front, fries)"),
        ("g.yaml:10:22", "unknown-asset",
         "unknown icon 'zeus-swrod' (near: zeus-sword, rusty-sword, axe-sword, rune-sword)"),
        ("g.yaml:11:24", "unknown-asset",
         "unknown object 'red-aple' (near: red-apple, green-apple, tired-face, ringed-planet, red-square)"),
    ]


def test_a_computed_unknown_name_fails_when_drawn_with_the_near_names():
    with pytest.raises(Exception) as exc:
        find_asset("colour", "red-aple")
    assert str(exc.value) == "unknown object 'red-aple' (near: red-apple, green-apple, tired-face, ringed-planet, red-square)"


def test_icons_and_objects_list_names_by_tag_sorted_and_sample_draws_from_them(tmp_path):
    apples = asset_names("colour", "apple")
    assert apples == ["green-apple", "red-apple"]
    animals = asset_names("colour", "animals-nature")
    assert animals == sorted(animals) and "dog" in animals and len(animals) > 100
    swords = asset_names("mono", "sword")
    assert swords == sorted(swords) and all("sword" in n.split("-") for n in swords) and len(swords) > 20
    root = build(tmp_path, "pets: \"sample(objects('animals-nature'), 3)\"\nall: \"len(icons())\"\n", """\
        frame: {canvas: {}}
        marks:
          - object: {each: pets, as: p, index: i, bind: p, name: p, x: 60 + i * 120, y: 100, size: 40}
        """)
    _, inst = sample(root, seed=3)
    _, again = sample(root, seed=3)
    assert inst.trace["state"]["pets"] == again.trace["state"]["pets"] and len(set(inst.trace["state"]["pets"])) == 3
    assert set(inst.trace["state"]["pets"]) <= set(animals)
    assert inst.trace["state"]["all"] == 4133
