"""Issue 12 parts 1–3: the font pool, themes and styles, backgrounds and textures (variety mild and strong).

Every claim is measured: glyph coverage with skia, colour words on drawn pixels, contrast on drawn pixels.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import skia

from tessera.errors import SamplingFailed
from tessera.render import typefaces
from tessera.render.backgrounds import (MIN_MARK_CONTRAST, TEXTURES, color_distance, mark_is_hidden,
                                         splitmix_uniform, texture)
from tessera.render.painter import Painter, face_font
from tessera.render.theme import (COLORS, HUE_WINDOWS, SHADE_FAMILIES, THEME_KINDS, Theme, color_word_of,
                                   pick_theme)
from tessera.sample.rng import Rng, derive_seed
from tessera.trace.instance import generate
from tests.test_scene import build, errors_of, sample

FONT_DIR = typefaces.FONT_DIR


# -- the pool ---------------------------------------------------------------------------------------------------
def test_the_pool_spans_the_classes_with_a_licence_beside_every_face():
    pool = typefaces.pool()
    assert len(pool) >= 30
    for cls in typefaces.FONT_CLASSES:
        assert len(typefaces.families((cls,))) >= 3, cls
    total = 0
    for fam in pool.values():
        for rel in filter(None, (fam.regular, fam.bold)):
            path = FONT_DIR / rel
            assert path.suffix in (".ttf", ".otf") and path.is_file(), rel
            licence = path.parent / ("LICENSE" if path.parent != FONT_DIR else "LICENSE-DejaVu.txt")
            assert licence.is_file() and licence.stat().st_size > 500, licence
            total += path.stat().st_size
        assert fam.licence.split("/")[0] in ("OFL-1.1", "OFL-1.0", "Apache-2.0", "Bitstream-Vera", "MIT",
                                              "GUST-Font-License", "GPL-2+-with-font-exception"), fam.licence
    assert total < 25 * 2 ** 20, total  # the repository grows modestly


def _glyph_ids(tf: skia.Typeface, chars: str) -> list[int]:
    return tf.unicharsToGlyphs([ord(c) for c in chars])


@pytest.mark.parametrize("family", typefaces.families())
def test_every_face_renders_the_glyphs_it_claims(family):
    fam = typefaces.pool()[family]
    # The claim is exact: measured again, the regular face covers these classes and no others.
    assert typefaces.measure_coverage(FONT_DIR / fam.regular) == list(fam.covers)
    assert {"digits", "latin"} <= set(fam.covers)
    for bold in (False, True):
        tf = typefaces.typeface(family, bold)
        font = face_font(family, 20.0, bold)
        claimed = "".join(typefaces.GLYPH_CLASSES[c] for c in fam.covers)
        if bold and fam.bold:  # a separate bold file must cover what the family claims
            assert 0 not in _glyph_ids(tf, claimed), family
        # Each claimed character draws ink: its own cell on a small surface has dark pixels.
        surface = skia.Surface(40 * 16, 40 * (len(claimed) // 16 + 1))
        canvas = surface.getCanvas()
        canvas.clear(skia.ColorWHITE)
        paint = skia.Paint(AntiAlias=True, Color=skia.ColorBLACK)
        for i, ch in enumerate(claimed):
            canvas.drawString(ch, 40 * (i % 16) + 8, 40 * (i // 16) + 28, font, paint)
        px = surface.makeImageSnapshot().toarray()[..., :3]
        for i, ch in enumerate(claimed):
            cell = px[40 * (i // 16):40 * (i // 16) + 40, 40 * (i % 16):40 * (i % 16) + 40]
            assert (cell < 235).any(), f"{family} {'bold' if bold else 'regular'} draws nothing for {ch!r}"


def test_a_text_is_drawn_only_with_a_face_that_has_all_its_characters():
    hand = typefaces.families(("handwriting",))
    no_chess = [f for f in typefaces.families() if "chess" not in typefaces.pool()[f].covers]
    assert no_chess
    for face in no_chess[:6]:
        for text in ("♔ e4", "12 × 3 − ½", "→ 5 °C", "plain 42"):
            for classes in (None, ("mono",), ("handwriting",), ("serif",)):
                got = typefaces.face_for(face, 12345, classes, False, text)
                assert typefaces.covers_text(got, False, text), (face, text, classes, got)
    # Inside a pool: the instance's face when it covers the text, else a covering face of that pool.
    assert typefaces.face_for("Hack", 0, ("mono",), False, "x = 12") == "Hack"
    chess_mono = typefaces.face_for("Hack", 0, ("mono",), False, "♞")
    assert "mono" in typefaces.pool()[chess_mono].classes and typefaces.covers_text(chess_mono, False, "♞")
    # No handwriting face has the figurines: the default face draws them rather than a face without them.
    assert all(not typefaces.covers_text(f, False, "♞") for f in hand)
    assert typefaces.face_for(hand[0], 7, ("handwriting",), False, "♞") == typefaces.DEFAULT_FAMILY
    assert typefaces.face_for(None, 7, ("handwriting",), False, "abc") == typefaces.DEFAULT_FAMILY  # variety none


# -- themes -----------------------------------------------------------------------------------------------------
def test_variety_none_draws_exactly_what_it_always_drew():
    for seed in range(50):
        a, b = Rng(seed), Rng(seed)
        old = Theme(background=a.choice([(255, 255, 255), (250, 250, 246), (247, 249, 252), (252, 250, 245),
                                          (246, 248, 246)]), ink=(30, 30, 35), grid=(215, 215, 220),
                    shade=a.below(3), series=a.choice(["blue", "green", "orange", "purple", "red", "cyan"]),
                    font_scale=a.choice([0.95, 1.0, 1.05]), jitter=a.choice([0.0, 1.0, 2.0]))
        new = pick_theme(b, "none")
        assert new == old and a.draws == b.draws and a.state == b.state
        assert set(new.to_trace()) == {"background", "shade", "series", "font_scale", "jitter"}
    assert pick_theme(Rng(3)) == pick_theme(Rng(3), "none")


def test_an_unknown_variety_is_named():
    from tessera.errors import TesseraError

    with pytest.raises(TesseraError, match=r"unknown variety 'wild' \(known: none, mild, strong\)"):
        pick_theme(Rng(1), "wild")


def test_mild_keeps_to_light_themes_and_text_faces_strong_reaches_everything():
    mild = [pick_theme(Rng(s), "mild") for s in range(300)]
    strong = [pick_theme(Rng(s), "strong") for s in range(300)]
    assert {t.name for t in mild} == {"light", "paper", "pastel"}
    assert {t.name for t in strong} == set(THEME_KINDS)
    display = set(typefaces.families(("handwriting", "rounded")))
    assert not {t.face for t in mild} & display and {t.face for t in strong} & display
    assert {t.texture for t in mild} <= {"plain", "gradient", "grain"}
    assert {t.texture for t in strong} == set(TEXTURES)


def test_every_shade_of_every_family_keeps_its_colour_word():
    for family, shades in SHADE_FAMILIES.items():
        assert set(shades) == set(COLORS), family
        for name, rgbs in shades.items():
            for rgb in rgbs:
                assert color_word_of(rgb) == [name], (family, name, rgb, color_word_of(rgb))
    assert set(HUE_WINDOWS) == set(COLORS)


def _force_theme(monkeypatch, chosen: dict):
    """Make render_scene's pick_theme return a theme of one kind (the rest drawn as usual)."""
    import tessera.render.scene as scene_mod
    from tessera.render import theme as theme_mod

    def pick(rng, variety="none"):
        t = theme_mod.pick_theme(rng, variety)
        if variety == "none" or not chosen:
            return t
        kind = THEME_KINDS[chosen["name"]]
        from dataclasses import replace

        return replace(t, name=chosen["name"], background=kind.backgrounds[0], ink=kind.ink, grid=kind.grid,
                       paper=kind.paper, muted=kind.muted, light=kind.light, line=kind.line,
                       shades=chosen.get("shades", kind.shades[0]), texture=chosen.get("texture", t.texture))

    monkeypatch.setattr(scene_mod, "pick_theme", pick)


@pytest.mark.parametrize("kind", sorted(THEME_KINDS))
def test_colour_words_stay_true_on_the_drawn_pixels_under_every_theme(taxonomy, monkeypatch, kind):
    chosen: dict = {"name": kind}
    _force_theme(monkeypatch, chosen)
    task = taxonomy.tasks["icons.shape_grid.column_color_count"]
    checked = 0
    for k, shades in enumerate(THEME_KINDS[kind].shades):
        chosen["shades"] = shades
        for seed in range(3):
            try:
                inst = generate(task, seed, 3, vocab=taxonomy.vocab, variety="strong",
                                stream_seeds={"render": derive_seed(seed + 17 * k, kind, "render")})
            except SamplingFailed as exc:  # a dark theme may find every render too low in contrast: it says so
                assert "contrast" in str(exc), exc
                continue
            rmap = inst.trace["render"]["render_map"]
            from tessera.trace.instance import object_paths  # noqa: F401  (paths name the state's objects)

            state = inst.trace["state"]
            for i, piece in enumerate(state["pieces"]):
                entry = rmap.get(f"pieces[{i}]")
                if entry is None:
                    continue
                # the mean of the glyph's central part: Gaussian noise (σ up to 9) on a small window can tint a dark
                # gray past gray's 8 % saturation bound, although the colour drawn is neutral
                x, y = entry["point"]
                x0, y0, x1, y1 = entry["bbox"]
                rx, ry = max(2, round((x1 - x0) / 8)), max(2, round((y1 - y0) / 8))
                window = inst.rgb[round(y) - ry:round(y) + ry + 1, round(x) - rx:round(x) + rx + 1, :3].reshape(-1, 3)
                rgb = tuple(int(v) for v in np.round(window.mean(axis=0)))
                assert piece["color"] in color_word_of(rgb), (kind, shades, piece, rgb)
                checked += 1
    assert checked >= 15, checked


# -- determinism ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("variety", ["mild", "strong"])
def test_same_seed_same_bytes_other_render_seed_other_picture_same_answer(taxonomy, variety):
    for tid in ("charts.bar_chart.value_difference", "icons.shape_grid.column_color_count"):
        task = taxonomy.tasks[tid]
        a = generate(task, 4, 2, vocab=taxonomy.vocab, variety=variety)
        b = generate(task, 4, 2, vocab=taxonomy.vocab, variety=variety)
        assert a.png == b.png and a.trace["render"]["decisions"] == b.trace["render"]["decisions"]
        plain = generate(task, 4, 2, vocab=taxonomy.vocab)
        pictures = {a.png, plain.png}
        for k in range(3):
            c = generate(task, 4, 2, vocab=taxonomy.vocab, variety=variety,
                         stream_seeds={"render": derive_seed(99 + k, tid, "render")})
            assert (c.answer, c.label, c.prompt) == (plain.answer, plain.label, plain.prompt)
            pictures.add(c.png)
        assert len(pictures) == 5, tid
        theme = a.trace["render"]["decisions"]["theme"]
        assert theme["name"] in THEME_KINDS and theme["face"] in typefaces.pool()


# -- backgrounds and contrast -----------------------------------------------------------------------------------
def test_textures_are_deterministic_light_and_from_our_own_generator():
    ref = splitmix_uniform(12345, 3)
    rng = Rng(12345)
    assert [float(v) for v in ref] == [rng.random() for _ in range(3)]  # the same SplitMix64 as Rng
    for kind in TEXTURES:
        for bg in ((250, 248, 245), (30, 33, 40)):
            a = texture(kind, bg, 77, 96, 64, True)
            assert a.shape == (64, 96, 4) and a.dtype == np.uint8 and (a[..., 3] == 255).all()
            a = a[..., :3]
            assert np.array_equal(a, texture(kind, bg, 77, 96, 64, True)[..., :3])
            drift = color_distance(a.reshape(-1, 3), bg).max()
            assert drift < MIN_MARK_CONTRAST / 2, (kind, bg, drift)  # never near the contrast floor by itself
            if kind in ("gradient", "grain", "mottle", "fibres"):  # another seed, another texture
                assert not np.array_equal(a, texture(kind, bg, 78, 96, 64, True)[..., :3]), kind


def test_a_mark_the_theme_hides_is_found_on_the_pixels():
    dark = np.full((40, 40, 3), (30, 33, 40), np.uint8)
    white = np.full((40, 40, 3), 255, np.uint8)
    black_on_dark = dark.copy()
    black_on_dark[10:30, 10:30] = (25, 25, 25)
    assert mark_is_hidden(black_on_dark, dark, (10, 10, 30, 30))
    red_on_dark = dark.copy()
    red_on_dark[10:30, 10:30] = (220, 40, 40)
    assert not mark_is_hidden(red_on_dark, dark, (10, 10, 30, 30))
    # A near-white cell on white is faint by design (a heatmap's lowest value): not the theme's doing.
    faint = white.copy()
    faint[10:30, 10:30] = (239, 245, 252)
    assert not mark_is_hidden(faint, white, (10, 10, 30, 30))
    # A thin dark stroke across a box is enough to see the mark.
    stroke = dark.copy()
    stroke[20, 0:40] = (230, 230, 230)
    assert not mark_is_hidden(stroke, dark, (0, 0, 40, 40))


def test_text_in_the_theme_ink_takes_the_dark_ink_where_the_light_one_would_not_read():
    theme = pick_theme(Rng(5), "strong")
    from dataclasses import replace

    kind = THEME_KINDS["dark"]
    theme = replace(theme, name="dark", background=kind.backgrounds[0], ink=kind.ink, texture="plain")
    p = Painter(120, 60, theme, {})
    p.rect(0, 0, 60, 60, (246, 218, 80))  # a pale yellow fill
    p.text(30, 30, "42", 14)  # in the theme's (light) ink, over the yellow
    p.text(90, 30, "42", 14)  # over the dark background
    px = p.pixels()[..., :3].astype(int)
    assert px[22:38, 20:40].sum(axis=2).min() < 200  # dark glyph pixels on the yellow
    assert px[22:38, 80:100].sum(axis=2).max() > 600  # light glyph pixels on the dark page
    assert [r >= 3.0 for _, r in p.text_contrast] == [True, True]


def test_a_theme_that_hides_an_answer_mark_is_rejected_and_redrawn(tmp_path, monkeypatch):
    from tessera.render.scene import RenderRejected, render_scene

    root = build(tmp_path, 'dots: "[{c: \'black\'}, {c: \'black\'}]"\n', """\
        frame: {cartesian: {x: {linear: "[0, 2]", nice: false}, y: {linear: "[0, 1]", nice: false}}}
        marks:
          - circle: {each: dots, as: d, index: i, x: "i + 0.5", y: 0.5, r: 20, fill: d.c, stroke: none}
        """)
    tax, inst = sample(root)
    grammar = tax.tasks["demo.g.t"].grammar
    state = inst.trace["state"]
    from tessera.trace.instance import object_paths

    chosen = {"name": "dark", "texture": "plain"}
    _force_theme(monkeypatch, chosen)
    with pytest.raises(RenderRejected, match=r"dots\[0\] does not stand 18 clear of the background .*: contrast"):
        render_scene(grammar, state, 0, tax.vocab, Rng(3), object_paths(state), variety="strong")
    chosen["name"] = "light"
    out = render_scene(grammar, state, 0, tax.vocab, Rng(3), object_paths(state), variety="strong")
    assert out.decisions["theme"]["name"] == "light"


# -- restricting the pool ---------------------------------------------------------------------------------------
SCENE_WITH_TEXT = """\
    frame: {cartesian: {x: {linear: "[0, 2]", nice: false}, y: {linear: "[0, 1]", nice: false}}}
    marks:
      - text: {x: 0.5, y: 0.5, text: "'Code 42'", size: 16}
      - text: {x: 1.5, y: 0.5, text: "'x = 7'", size: 16, fit: 60}
    """


def _faces_drawn(monkeypatch) -> list[str]:
    import tessera.render.marks as marks_mod
    import tessera.render.painter as painter_mod

    seen: list[str] = []
    real = painter_mod.face_font

    def spy(family, size, bold):
        seen.append(family)
        return real(family, size, bold)

    monkeypatch.setattr(painter_mod, "face_font", spy)
    monkeypatch.setattr(marks_mod, "face_font", spy)
    return seen


def test_a_grammar_restricts_the_pool_to_its_font_classes(tmp_path, monkeypatch):
    root = build(tmp_path, "k: 1\n", SCENE_WITH_TEXT)
    g = root / "grammars/demo/g.yaml"
    g.write_text(g.read_text().replace("  scene:\n", "  fonts: [mono]\n  scene:\n"))
    from tessera.taxonomy import compile_taxonomy

    tax = compile_taxonomy(root)
    assert tax.tasks["demo.g.t"].grammar.fonts == ("mono",)
    seen = _faces_drawn(monkeypatch)
    for seed in range(6):
        generate(tax.tasks["demo.g.t"], seed, 0, vocab=tax.vocab, variety="strong")
    mono = set(typefaces.families(("mono",)))
    assert seen and set(seen) <= mono, set(seen) - mono
    assert len(set(seen)) >= 2  # still varied, inside the class


def test_a_component_restricts_the_pool_for_its_own_text(tmp_path, monkeypatch):
    note = """\
        component: note
        summary: a sticky note
        fonts: [handwriting]
        params:
          label: {kind: template}
        scene:
          marks:
            - text: {x: 50, y: 20, text: "'{{ label }}'", size: 14}
        """
    root = build(tmp_path, "k: 1\n", """\
        layers:
          - use: note
            with: {label: "hello"}
          - marks:
              - text: {x: 200, y: 200, text: "'Axis 12'", size: 14}
        """, components={"note": note})
    tax, _ = sample(root)
    seen = _faces_drawn(monkeypatch)
    hand = set(typefaces.families(("handwriting",)))
    for seed in range(4):
        seen.clear()
        inst = generate(tax.tasks["demo.g.t"], seed, 0, vocab=tax.vocab, variety="strong")
        face = inst.trace["render"]["decisions"]["theme"]["face"]
        assert seen[0] in hand, seen  # the note's text (drawn first)
        if face not in hand:
            assert face in seen[1:], (face, seen)  # the rest of the scene keeps the instance's face


def test_unknown_font_classes_are_positioned_errors(tmp_path):
    root = build(tmp_path, "k: 1\n", SCENE_WITH_TEXT)
    g = root / "grammars/demo/g.yaml"
    g.write_text(g.read_text().replace("  scene:\n", "  fonts: [mono, gothic]\n  scene:\n"))
    errs = errors_of(root)
    line = next(i for i, s in enumerate(g.read_text().splitlines(), 1) if "fonts:" in s)
    col = g.read_text().splitlines()[line - 1].index("gothic") + 1
    assert (f"g.yaml:{line}:{col}: unknown font class 'gothic' in render.fonts (known: sans, serif, slab, mono, "
            f"condensed, rounded, handwriting)") in errs, errs

    note = "component: note\nsummary: n\nfonts: [scribble]\nscene:\n  marks: []\n"
    root2 = build(tmp_path / "two", "k: 1\n", "use: note\n", components={"note": note})
    errs = errors_of(root2)
    assert ("note.yaml:3:9: unknown font class 'scribble' in component 'note' fonts (known: sans, serif, slab, "
            "mono, condensed, rounded, handwriting)") in errs, errs

    g.write_text(g.read_text().replace("fonts: [mono, gothic]", "fonts: []"))
    errs = errors_of(root)
    assert any(e.startswith(f"g.yaml:{line}:") and "render.fonts must name at least one font class" in e
               for e in errs), errs


def test_no_system_font_is_ever_loaded():
    # The empty manager knows no family: a name lookup finds nothing, so only the vendored files can draw.
    mgr = typefaces.font_manager()
    assert mgr.countFamilies() <= 1 and mgr.getFamilyName(0) == ""  # skia's one empty placeholder family
    assert mgr.matchFamily("DejaVu Sans").count() == 0 and mgr.matchFamily("Arial").count() == 0
    assert all(Path(FONT_DIR / typefaces.pool()[f].regular).is_relative_to(FONT_DIR) for f in typefaces.families())


def test_text_below_the_contrast_ratio_is_rejected_with_variety_only(tmp_path, monkeypatch):
    from tessera.render.scene import RenderRejected, render_scene
    from tessera.trace.instance import object_paths

    root = build(tmp_path, "k: 1\n", """\
        marks:
          - rect: {x: 20, y: 20, x2: 200, y2: 100, fill: yellow}
          - text: {x: 110, y: 60, text: "'Total 42'", size: 16, color: white}
        """)
    tax, _ = sample(root)  # variety none: drawn as it always was, nothing measured
    grammar = tax.tasks["demo.g.t"].grammar
    _force_theme(monkeypatch, {"name": "light", "texture": "plain"})
    with pytest.raises(RenderRejected, match=r"text 'Total 42' has contrast ratio 1\.\d\d < 2 against what is "
                                             r"behind it: contrast"):
        render_scene(grammar, {"k": 1}, 0, tax.vocab, Rng(3), object_paths({"k": 1}), variety="strong")


# -- page tints that follow the theme (issue 12: no hard-coded colours under themes) ----------------------------
def test_a_tint_is_its_colour_on_the_classic_page_and_a_tint_of_the_paper_under_a_theme():
    from dataclasses import replace

    from tessera.errors import EvalError
    from tessera.expr.lib_color import ink_on_color, tint_color
    from tessera.render.theme import TINT, pick_theme, tint_rgb

    classic = pick_theme(Rng(1), "none")
    assert classic.resolve(tint_color("#dfe6ee")) == (223, 230, 238)  # variety none: exactly the colour
    for name, kind in THEME_KINDS.items():
        t = replace(pick_theme(Rng(2), "strong"), name=name, paper=kind.paper, background=kind.backgrounds[0])
        pale, stripe = t.resolve(tint_color("#dfe6ee")), t.resolve(tint_color("#f1f4f8"))
        assert pale == tint_rgb((223, 230, 238), kind.paper)
        if sum(kind.paper) < 384:  # dark papers: a lighter panel than the paper, still far darker than the tint
            assert sum(kind.paper) < sum(pale) < sum(kind.paper) + 0.4 * (sum((223, 230, 238)) - sum(kind.paper))
            assert sum(pale) < sum(stripe)  # the lighter tint stays the lighter panel
        else:
            assert pale == tuple(round(c * p / 255) for c, p in zip((223, 230, 238), kind.paper))
    # colour words stay true, roles and 'none' pass through; text on a pale tint takes the theme's ink
    assert [tint_color(c) for c in ("red", "ink", "paper", "none")] == ["red", "ink", "paper", "none"]
    assert tint_color("#abcdef") == TINT + "#abcdef" and ink_on_color(tint_color("#dfe6ee")) == "ink"
    assert ink_on_color(tint_color("#28325a")) == "white"
    with pytest.raises(EvalError, match="tint"):
        tint_color("#zzzzzz")


def test_tinted_fills_keep_todays_pixels_without_variety_and_follow_a_dark_theme(tmp_path, monkeypatch):
    import tessera.render.scene as scene_mod
    from tessera.render.scene import render_scene
    from tessera.render.theme import tint_rgb
    from tessera.trace.instance import object_paths

    root = build(tmp_path, 'cells: "[{v: 1}, {v: 2}]"\n', """\
        frame: {cartesian: {x: {linear: "[0, 2]", nice: false}, y: {linear: "[0, 1]", nice: false}}}
        marks:
          - rect: {each: cells, as: c, index: i, x: i + 0.1, x2: i + 0.9, y: 0.1, y2: 0.9, stroke: ink,
                   fill: "tint('#dfe6ee') if i == 0 else tint('#f3f1ea')"}
        """)
    tax, inst = sample(root)
    grammar = tax.tasks["demo.g.t"].grammar
    state = inst.trace["state"]
    rmap = inst.trace["render"]["render_map"]

    def centre(rgb, i):
        x, y = (round(v) for v in rmap[f"cells[{i}]"]["point"])
        return tuple(int(v) for v in rgb[y, x, :3])

    assert centre(inst.rgb, 0) == (223, 230, 238) and centre(inst.rgb, 1) == (243, 241, 234)
    monkeypatch.setattr(scene_mod, "draw_edits", lambda *a, **k: [])  # the fills' own colours, no raster edits
    _force_theme(monkeypatch, {"name": "dark", "texture": "plain"})
    out = render_scene(grammar, state, 0, tax.vocab, Rng(3), object_paths(state), variety="strong")
    paper = THEME_KINDS["dark"].paper
    rmap = out.render_map
    assert centre(out.rgb, 0) == tint_rgb((223, 230, 238), paper)
    assert centre(out.rgb, 1) == tint_rgb((243, 241, 234), paper)


def test_an_empty_box_on_a_dark_theme_is_empty_not_hidden():
    """A bound cell with no fill shows only the backdrop: on the white page it would be white, so the theme hid
    nothing (sudoku's blank cells were redrawn on every dark theme)."""
    dark = np.full((40, 40, 3), (30, 33, 40), np.uint8)
    assert not mark_is_hidden(dark.copy(), dark, (10, 10, 30, 30))
    faint = dark.copy()
    faint[10:30, 10:30] = (36, 38, 46)  # drawn, but nearly the backdrop: hidden (it would show on white)
    assert mark_is_hidden(faint, dark, (10, 10, 30, 30))


def test_labels_of_one_or_two_characters_skip_thin_faces():
    """Thin script faces garble a lone "A" or "7" (nothing around it to read it by): short labels take a face
    whose measured stroke weight clears MIN_SHORT_WEIGHT; longer text keeps the theme's face."""
    weights = {f: typefaces.stroke_weight(f) for f in typefaces.families()}
    thin = sorted(f for f, w in weights.items() if w < typefaces.MIN_SHORT_WEIGHT)
    assert "Kristi" in thin and "Dancing Script" in thin and typefaces.DEFAULT_FAMILY not in thin
    assert len(thin) <= len(weights) // 4  # most of the pool stays available to short labels
    for face in thin:
        for text in ("A", "7", "e4", " Q "):
            got = typefaces.face_for(face, 3, None, False, text)
            assert got != face and weights[got] >= typefaces.MIN_SHORT_WEIGHT, (face, text, got)
        assert typefaces.face_for(face, 3, None, False, "Apples") == face
    # a pool restricted to handwriting still finds a sturdy hand for short labels
    short = typefaces.face_for("Kristi", 0, ("handwriting",), False, "B")
    assert "handwriting" in typefaces.pool()[short].classes and weights[short] >= typefaces.MIN_SHORT_WEIGHT
    assert typefaces.face_for(None, 3, None, False, "A") == typefaces.DEFAULT_FAMILY  # variety none: unchanged


def test_a_theme_swaps_sequential_ramps_for_cells_and_their_guide_alike(tmp_path, monkeypatch):
    import tessera.render.scene as scene_mod
    from dataclasses import replace

    from tessera.render.scene import render_scene
    from tessera.render.theme import RAMP_FAMILIES, SEQUENTIAL, ramp_rgb
    from tessera.trace.instance import object_paths

    assert set(f for f in RAMP_FAMILIES if f) <= set(SEQUENTIAL) and None in RAMP_FAMILIES
    root = build(tmp_path, 'cells: "[{v: 2}, {v: 8}]"\n', """\
        frame: {cartesian: {x: {linear: "[0, 2]", nice: false}, y: {linear: "[0, 1]", nice: false}}}
        guides:
          - ramp: {domain: "[0, 10]", palette: "'blues'", side: right}
        marks:
          - rect: {each: cells, as: c, index: i, x: i + 0.1, x2: i + 0.9, y: 0.1, y2: 0.9,
                   fill: "ramp(c.v, 0, 10, 'blues')"}
        """)
    tax, inst = sample(root)
    grammar = tax.tasks["demo.g.t"].grammar
    state = inst.trace["state"]

    def centre(out, i):
        x, y = (round(v) for v in out.render_map[f"cells[{i}]"]["point"])
        return tuple(int(v) for v in out.rgb[y, x, :3])

    plain = render_scene(grammar, state, 0, tax.vocab, Rng(3), object_paths(state))
    assert centre(plain, 1) == ramp_rgb("blues", 0.8)  # variety none: the palette as named
    monkeypatch.setattr(scene_mod, "draw_edits", lambda *a, **k: [])
    drawn: list[str] = []
    real = scene_mod.pick_theme

    def pick(rng, variety="none"):
        return replace(real(rng, variety), ramp="greens", texture="plain")

    monkeypatch.setattr(scene_mod, "pick_theme", pick)
    import tessera.render.guides as guides_mod

    real_rgb = guides_mod.ramp_rgb
    monkeypatch.setattr(guides_mod, "ramp_rgb", lambda name, t: drawn.append(name) or real_rgb(name, t))
    out = render_scene(grammar, state, 0, tax.vocab, Rng(3), object_paths(state), variety="strong")
    assert out.decisions["theme"]["ramp"] == "greens"
    assert centre(out, 0) == ramp_rgb("greens", 0.2) and centre(out, 1) == ramp_rgb("greens", 0.8)
    assert drawn and set(drawn) == {"greens"}  # the guide explains the cells with the same palette
    t = pick(Rng(1), "strong")
    assert t.ramp_for("diverging") == "diverging" and t.ramp_for("viridis") == "viridis"
    assert t.ramp_for("blues") == "greens" and replace(t, ramp=None).ramp_for("blues") == "blues"


def test_noise_textures_are_rows_of_one_strip_recomputed_pixel_by_pixel():
    """Grain and fibres: row y is the strip from offset floor(TEX_STRIP · u_y) on, wrapping (u_y the texture
    seed's SplitMix64 uniforms, salt 5), the strip SplitMix64 noise (fibres: the sum of the nine values after the
    pixel on, along the strip, wrapping), computed here pixel by pixel in float64."""
    from tessera.render import backgrounds as bg_mod

    n = bg_mod.TEX_STRIP
    for kind, salt, scale in (("grain", 2, 7.0 * 1.6), ("fibres", 4, 7.0 * 2.5 / 9)):
        noise = [float(v) for v in splitmix_uniform(0x7E55E7A, n, salt)]
        if kind == "grain":
            strip = [(noise[i] - 0.5) * scale for i in range(n)]
        else:
            strip = [sum(noise[(i + k) % n] - 0.5 for k in range(1, 10)) * scale for i in range(n)]
        for background in ((255, 255, 255), (30, 33, 40)):
            width, height = 1500, 40  # wider than the strip: rows wrap
            offsets = [int(v * n) for v in splitmix_uniform(123, height, 5)]
            delta = np.array([[strip[(o + x) % n] for x in range(width)] for o in offsets])
            steps = np.clip(np.rint(delta), -127, 127).astype(int)
            want = np.clip(np.asarray(background)[None, None, :] + steps[..., None], 0, 255)
            got = texture(kind, background, 123, width, height, True)
            assert got.flags.c_contiguous and (got[..., 3] == 255).all()
            # float32 against float64: a value a hair from .5 may round the other way
            assert np.abs(got[..., :3].astype(int) - want).max() <= 1, (kind, background)
            assert (got[..., :3] != want).mean() < 0.001, (kind, background)
            # each row is a cut of the same strip: the PNG copies it (rows never equal their neighbours)
            assert len({tuple(r) for r in got[:, :8, 0].tolist()}) > height // 2


def test_noise_textures_cost_the_png_little():
    """A grain or fibre backdrop as rows of one strip is copied by LZ77 (before 0.9, a 2-D tile of noise cost
    122 kB for 800 × 600 grain): bounded here so a change that breaks the copies shows."""
    from tessera.render.png import encode_png

    for kind, background, strong, limit in (("grain", (30, 33, 40), True, 20_000),
                                            ("grain", (250, 245, 232), False, 30_000),
                                            ("fibres", (250, 245, 232), False, 60_000)):
        rgba = texture(kind, background, 4242, 800, 600, strong)
        assert len(encode_png(rgba)) < limit, kind


def test_a_mark_whose_clear_pixels_miss_the_sampled_rows_is_still_seen():
    """The contrast check's first look takes every fourth row of a tall box; clear pixels only on other rows must
    still be found by the look at the whole box."""
    dark = np.full((64, 40, 3), (30, 33, 40), np.uint8)
    marked = dark.copy()
    marked[1::4, 5:35] = (25, 25, 25)  # rows the first look skips: below the floor there
    marked[2::4, 5:35] = (220, 40, 40)  # clear of the floor
    assert not mark_is_hidden(marked, dark, (0, 0, 40, 64))
    only_faint = dark.copy()
    only_faint[1::4, 5:35] = (25, 25, 25)
    assert mark_is_hidden(only_faint, dark, (0, 0, 40, 64))
