"""The asset tables (bench/asset_tables.py → compiler/assets/<set>/tables.json.gz) and the builtins that read them:
distinct_sample, rotation_safe, mirror_safe, asset_label, asset_synonyms (expr/lib_assets.py). Old code: none of these
builtins existed (each YAML below failed with an unknown function) and no table said which assets look alike."""
from __future__ import annotations

import gzip
import importlib.util
import json
import time
from pathlib import Path

import numpy as np
import pytest

from tessera.errors import CompileFailed
from tessera.spec.assets import (ICON_FILE, TABLE_FILE, asset_names, asset_sets, asset_synonyms, near_identical,
                                 rotation_safe)
from tests.test_scene import build, sample

ROOT = Path(__file__).resolve().parent.parent


def _tool():
    spec = importlib.util.spec_from_file_location("asset_tables", ROOT / "bench" / "asset_tables.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_tables_are_fresh_for_a_sample_of_every_set():
    """--check's logic in-process on every 40th asset: the rows the tool computes now are the stored rows, and every
    near pair it finds among the sample is stored (the full check: python bench/asset_tables.py --check)."""
    tool = _tool()
    t0 = time.process_time()
    for s in asset_sets():
        data = json.loads(gzip.decompress((s.folder / ICON_FILE).read_bytes()))
        stored = json.loads(gzip.decompress((s.folder / TABLE_FILE).read_bytes()))
        assert stored["names"] == sorted(data["icons"]) and stored["side"] == tool.SIDE
        assert (stored["near_under"], stored["turn_at_least"]) == (tool.NEAR, tool.TURN)
        pick = list(range(0, len(stored["names"]), 40))
        names = [stored["names"][i] for i in pick]
        imgs = tool.render_set(s.kind, names)
        rows = tool.turn_distances(imgs)
        for key in ("turn90", "turn180", "mirror"):
            assert rows[key] == [stored[key][i] for i in pick], (s.set, key)
        sampled = set(names)
        stored_pairs = [p for p in stored["near"] if p[0] in sampled and p[1] in sampled]
        assert tool.near_pairs(names, imgs) == stored_pairs
    assert time.process_time() - t0 < 20


def _render(tool, kind: str, name: str) -> np.ndarray:
    return tool.render_set(kind, [name])[0]


def test_near_identical_pairs_look_alike_and_distinct_ones_do_not():
    tool = _tool()
    assert near_identical("card-8-clubs", "card-8-spades") and not near_identical("card-8-clubs", "broadsword")
    same = tool.rms(_render(tool, "mono", "card-8-clubs")[None], _render(tool, "mono", "card-8-spades")[None])[0]
    apart = tool.rms(_render(tool, "mono", "card-8-clubs")[None], _render(tool, "mono", "broadsword")[None])[0]
    assert same < tool.NEAR <= apart and apart > 3 * same


def test_the_rotation_safe_subset_changes_under_the_icon_marks_rotate(tmp_path):
    """Drawn through the real `icon` mark: a rotation-safe icon turned 90° differs from itself upright by far more
    pixels than one the table calls unsafe."""
    assert rotation_safe("broadsword") and not rotation_safe("crossed-bones")
    root = build(tmp_path, "k: 1\n", """\
        frame: {canvas: {}}
        marks:
          - icon: {name: "'broadsword'", x: 50, y: 50, size: 40, fill: "'#000000'"}
          - icon: {name: "'broadsword'", x: 150, y: 50, size: 40, fill: "'#000000'", rotate: 90}
          - icon: {name: "'crossed-bones'", x: 50, y: 150, size: 40, fill: "'#000000'"}
          - icon: {name: "'crossed-bones'", x: 150, y: 150, size: 40, fill: "'#000000'", rotate: 90}
        """, width=200, height=200)
    _, inst = sample(root)
    ink = 1.0 - inst.rgb[:, :, :3].astype(float).mean(axis=2) / 255.0

    def change(y0: int) -> float:
        return float(np.sqrt(((ink[y0:y0 + 100, 0:100] - ink[y0:y0 + 100, 100:200]) ** 2).mean()))

    assert change(0) >= _tool().TURN > change(100) and change(0) > 3 * change(100)


def test_filters_labels_synonyms_and_a_deterministic_distinct_sample(tmp_path):
    state = ("cards: \"distinct_sample(icons('card'), 6)\"\n"
             "again: \"distinct_sample(icons('card'), 6)\"\n"
             "turned: \"rotation_safe(['broadsword', 'crossed-bones', 'cog'])\"\n"
             "mirrored: \"mirror_safe(['broadsword', 'crossed-bones'])\"\n"
             "label: \"asset_label('twemoji:red-apple')\"\n"
             "said: \"asset_synonyms('red-apple')\"\n"
             "bear: \"asset_synonyms('bear-face')\"\n")
    root = build(tmp_path, state, "frame: {canvas: {}}\nmarks: []\n")
    _, a = sample(root, seed=5)
    _, b = sample(root, seed=5)
    st = a.trace["state"]
    assert st["cards"] == b.trace["state"]["cards"] and len(set(st["cards"])) == 6
    assert all(not near_identical(x, y) for i, x in enumerate(st["cards"]) for y in st["cards"][i + 1:])
    assert set(st["cards"]) <= set(asset_names("mono", "card"))
    seeds = {tuple(sample(root, seed=s)[1].trace["state"]["cards"]) for s in range(4)}
    assert len(seeds) > 1  # the seed draws; the same seed draws the same
    assert st["turned"] == ["broadsword"] and st["mirrored"] == ["broadsword"]
    assert st["label"] == "red apple" and st["said"] == ["apple", "red apple"] and st["bear"] == ["bear", "bear face"]
    assert asset_synonyms("beer-mug") == ["beer mug", "cup"]


def test_distinct_sample_fails_when_the_names_hold_too_few_distinct_ones(tmp_path):
    assert near_identical("card-8-clubs", "card-8-spades")
    root = build(tmp_path, "two: \"distinct_sample(['card-8-clubs', 'card-8-spades'], 2)\"\n",
                 "frame: {canvas: {}}\nmarks: []\n")
    with pytest.raises(Exception) as exc:
        sample(root)
    assert "distinct_sample(): the 2 names hold only 1 that are pairwise distinct in this draw, not 2" in str(exc.value)


def test_an_unknown_name_literal_is_an_error_at_its_position(tmp_path):
    root = build(tmp_path, "a: \"rotation_safe(['broadsword', 'brodsword'])\"\nb: \"asset_label('red-aple')\"\n",
                 "frame: {canvas: {}}\nmarks: []\n")
    with pytest.raises(CompileFailed) as exc:
        from tessera.taxonomy import compile_taxonomy
        compile_taxonomy(root)
    got = [(f"{d.pos.line}:{d.pos.col}", d.code, d.message) for d in exc.value.diagnostics.sorted()]
    assert got == [
        ("4:36", "unknown-asset", "unknown icon or object 'brodsword' (near: broadsword, bloody-sword, croc-sword, "
                                  "shard-sword, crossed-swords)"),
        ("5:19", "unknown-asset", "unknown icon or object 'red-aple' (near: red-apple, red-carpet, green-apple, "
                                  "trample, tired-face)"),
    ]
