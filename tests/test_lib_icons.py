"""Pictogram marks (compiler/render/pictograms.py), pattern operators (compiler/expr/lib_pattern.py), icon components
(components/icon_field.yaml, icon_grid.yaml, panel_row.yaml), and the icons domain's option and render-map guarantees."""
from __future__ import annotations

import math

import numpy as np
import pytest

from tessera.errors import Diagnostics, EvalError
from tessera.expr.compile import Scope, Site, compile_expr, new_env, run
from tessera.expr.types import INT, STR, ListT
from tessera.render.painter import Painter
from tessera.render.pictograms import PICTOGRAMS, pictogram
from tessera.render.theme import Theme
from tessera.sample.rng import Rng
from tessera.trace.instance import generate
from tests.tasks import OPTION_FITS as ALL_FITS  # noqa: E402
from tests.tasks.icons.sequence import expected_next  # noqa: E402

OPTION_FITS = {t: f for t, f in ALL_FITS.items() if t.startswith("icons.")}  # the icons domain's option tasks
from tests.test_lib_boards import render_map_is_clean  # noqa: E402

THEME = Theme((255, 255, 255), (30, 30, 35), (215, 215, 220), 0, "blue", 1.0, 0.0)
SCOPE = Scope({"xs": ListT(INT), "words": ListT(STR), "m": INT})


def ev(src: str, values: dict):
    d = Diagnostics()
    c = compile_expr(src, SCOPE, Site(None, (), "t.yaml"), d)
    assert c is not None, [str(x) for x in d.items]
    return str(c.type), run(c, new_env(values, Rng(1)))


# -- pictograms -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", PICTOGRAMS)
def test_pictograms_stay_inside_their_circle_at_every_angle(kind):
    """Overlap checks use the bounding circle, so no turn of a pictogram may reach outside it."""
    size, r = 120, 40.0
    for angle in range(0, 360, 45):
        p = Painter(size, size, THEME, {})
        box = pictogram(p, kind, 60, 60, r, THEME.color("red"), angle)
        ink = np.argwhere((p.pixels()[:, :, :3] < 250).any(axis=2))
        dist = np.hypot(ink[:, 0] + 0.5 - 60, ink[:, 1] + 0.5 - 60)
        assert dist.max() <= r + 2.5, (kind, angle, dist.max())
        assert len(ink) > 0.2 * r * r  # a visible shape, not a speck
        x0, y0, x1, y1 = box
        assert 60 - r - 3 <= x0 < x1 <= 60 + r + 3 and 60 - r - 3 <= y0 < y1 <= 60 + r + 3


def test_pictograms_bind_their_box_and_circle_and_refuse_unknown_names():
    obj = {"icon": "car"}
    p = Painter(100, 100, THEME, {id(obj): "icons[0]"})
    box = pictogram(p, "car", 50, 50, 30, THEME.color("blue"), obj=obj, group="icons")
    assert p.render_map["icons[0]"]["bbox"] == [round(v, 2) for v in box]
    assert p.no_overlap_groups["icons"][0][2][:2] == (50, 50)
    with pytest.raises(EvalError, match="unknown pictogram 'robot'"):
        pictogram(p, "robot", 50, 50, 30, THEME.color("blue"))


def test_turned_pictograms_differ_from_the_upright_ones():
    def mask(kind, angle):
        p = Painter(80, 80, THEME, {})
        pictogram(p, kind, 40, 40, 30, THEME.color("red"), angle)
        return (p.pixels()[:, :, :3] < 250).any(axis=2)

    for kind in ("arrow", "car", "cup", "key", "flag", "fish", "house", "bell", "umbrella"):
        for angle in (90, 180, 270):
            assert (mask(kind, 0) != mask(kind, angle)).mean() > 0.03, (kind, angle)


# -- pattern operators ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("src,values,expected", [
    ("period(words)", {"words": ["a", "b", "a", "b", "a"]}, 2),
    ("period(words)", {"words": ["a", "b", "c", "a"]}, 3),
    ("period(words)", {"words": ["a", "a", "a"]}, 1),
    ("period(words)", {"words": ["a", "b", "c"]}, 3),
    ("period(xs)", {"xs": [4]}, 1),
    ("steps(xs)", {"xs": [5, 4, 3, 2]}, [-1, -1, -1]),
    ("steps(xs, m)", {"xs": [270, 0, 90], "m": 360}, [90, 90]),
    ("steps(xs)", {"xs": [7]}, []),
])
def test_pattern_operators(src, values, expected):
    t, v = ev(src, {"xs": [], "words": [], "m": 1, **values})
    assert v == expected
    assert t == ("integer" if src.startswith("period") else "list[integer]")


def test_pattern_operator_errors():
    with pytest.raises(EvalError, match="period\\(\\) of an empty list"):
        ev("period(xs)", {"xs": [], "words": [], "m": 1})
    with pytest.raises(EvalError, match="modulus 0 must be positive"):
        ev("steps(xs, m)", {"xs": [1, 2], "words": [], "m": 0})
    d = Diagnostics()
    assert compile_expr("steps(words)", SCOPE, Site(None, (), "t.yaml"), d) is None
    assert "steps() needs a list of numbers" in str(d.items[0])


# -- the icon components (components/icon_field.yaml, icon_grid.yaml, panel_row.yaml) ------------------------------
FIELD_SIZES = {"small": 0.038, "medium": 0.05, "large": 0.064}  # icon_field's radii, fractions of the width


def render_grammar(root, rel: str, text: str, seed: int = 3):
    """Compile one grammar written into a library copy and render its (literal) state: (render result, state)."""
    from tessera.render.scene import render_scene
    from tessera.sample.state import sample_state
    from tessera.taxonomy import compile_taxonomy
    from tessera.trace.instance import object_paths
    from tests.test_errors import write

    write(root, rel, text)
    tax = compile_taxonomy(root)
    g = tax.grammars[text.split("grammar:")[1].split()[0]]
    state = sample_state(g, 0, tax.vocab, Rng(seed))
    return render_scene(g, state, 0, tax.vocab, Rng(seed + 1), object_paths(state)), state


def test_icon_field_and_grid_bind_every_pictogram(library_copy):
    # icon_field and icon_grid draw game-icons by name (issue 26)
    res, _ = render_grammar(library_copy, "grammars/icons/t_field.yaml", """
        grammar: icons.t_field
        summary: two pictograms
        state:
          field: "[{k: 'sun', c: 'yellow', s: 'large', x: 0.2, y: 0.3, a: 0}, {k: 'city-car', c: 'red', s: 'small', x: 0.7, y: 0.6, a: 90}]"
        render:
          canvas: {width: 480, height: 480}
          scene: {use: icon_field, with: {items: field, x: "i -> i.x", y: "i -> i.y", icon: "i -> i.k",
                                          color: "i -> i.c", size: "i -> i.s", angle: "i -> i.a"}}
        """)
    big, small = (res.render_map[f"field[{i}]"]["bbox"] for i in range(2))
    assert big[2] - big[0] > small[2] - small[0]
    assert abs((big[0] + big[2]) / 2 - 0.2 * 480) < 3
    res, _ = render_grammar(library_copy, "grammars/icons/t_grid.yaml", """
        grammar: icons.t_grid
        summary: two pictograms on a grid
        state:
          grid: "[{r: 0, c: 1, k: 'pine-tree', col: 'green'}, {r: 2, c: 2, k: 'coffee-cup', col: 'blue'}]"
        render:
          canvas: {width: 448, height: 448}
          scene: {use: icon_grid, with: {items: grid, rows: 3, cols: 3, row: "i -> i.r", col: "i -> i.c",
                                         icon: "i -> i.k", color: "i -> i.col"}}
        """)
    assert set(res.render_map) == {"grid[0]", "grid[1]"}
    a, b = res.render_map["grid[0]"]["bbox"], res.render_map["grid[1]"]["bbox"]
    assert a[2] < b[0] and a[3] < b[1]  # cell (0, 1) is up and left of cell (2, 2)


def test_asset_vocabularies_name_real_assets(fixture_lib):
    # A vocabulary named *icon_kinds holds mono icon names (plain, or a record's `name`): an unknown one is an error
    # at its place in vocab.yaml when the library compiles, not when some task first draws it.
    from tests.test_errors import diagnostics

    path = fixture_lib / "taxonomy" / "vocab.yaml"
    path.write_text(path.read_text() + "  icon_kinds:\n    - {name: cat, label: cat}\n    - {name: catt, label: cat}\n"
                    "  turning_icon_kinds: [cat, teapott]\n  my_object_kinds: [no-such-object]\n")
    line = len(path.read_text().splitlines()) - 2  # the line of `{name: catt ...}`
    errs = [e.split("/taxonomy/", 1)[1] for e in diagnostics(fixture_lib)]
    assert errs[0] == (f"vocab.yaml:{line}:14: error: vocabulary 'icon_kinds' (asset names): unknown icon 'catt' "
                       "(near: cat, chart, catch, catapult, cigarette)  [unknown-asset]")
    assert errs[1].startswith(f"vocab.yaml:{line + 1}:29: error: vocabulary 'turning_icon_kinds' (asset names): "
                              "unknown icon 'teapott'")
    assert errs[2].startswith(f"vocab.yaml:{line + 2}:21: error: vocabulary 'my_object_kinds' (asset names): "
                              "unknown object 'no-such-object'")
    assert len(errs) == 3


PANEL_GRAMMAR = """
    grammar: icons.t_panels
    summary: panels
    state:
      items: "{items}"
    render:
      canvas: {{width: {w}, height: {h}}}
      scene:
        use: panel_row
        with: {{items: items, options: {options}, blank: "{blank}", wrap: {wrap}, icon: "p -> p.k", color: "p -> p.c",
               count: "p -> p.n", size: "p -> p.s", angle: "p -> p.a"}}
    """


def panels(root, items: list[dict], w=800, h=440, options=4, blank=True, wrap=0):
    text = "[" + ", ".join("{k: '%s', c: '%s', n: %d, s: '%s', a: %d}" % (it["k"], it["c"], it["n"], it["s"], it["a"])
                           for it in items) + "]"
    res, _ = render_grammar(root, "grammars/icons/t_panels.yaml", PANEL_GRAMMAR.format(
        items=text, w=w, h=h, options=options, blank=str(blank).lower(), wrap=wrap))
    return res


PANELS = [{"k": "hearts", "c": "red", "n": n, "s": "large", "a": 0} for n in (1, 2, 3)]
OPTIONS = [{"k": "hearts", "c": c, "n": 4, "s": "large", "a": 0} for c in ("red", "blue", "green", "gray")]


def test_panel_row_binds_sequence_and_lettered_options_in_two_rows(library_copy):
    res = panels(library_copy, PANELS + OPTIONS)
    boxes = [res.render_map[f"items[{i}]"]["bbox"] for i in range(7)]
    assert all(b[1] == boxes[0][1] for b in boxes[:3]) and all(b[1] == boxes[3][1] for b in boxes[3:])
    assert boxes[3][1] > boxes[0][3]  # options sit below the sequence
    assert len({round(b[2] - b[0], 1) for b in boxes}) == 1  # every panel is the same square
    wrapped = panels(library_copy, OPTIONS, 500, 500, blank=False, wrap=2)
    rows = sorted({round(wrapped.render_map[f"items[{i}]"]["bbox"][1]) for i in range(4)})
    assert len(rows) == 2


def test_icon_size_does_not_depend_on_the_count(library_copy):
    """Size is a property a sequence can change, so a panel of 4 holds four copies as big as a panel of 1's."""
    res = panels(library_copy, [{**PANELS[0], "n": 1}, {**PANELS[0], "n": 4}], 400, 220, options=0, blank=False)
    px = res.rgb[:, :, :3]

    def ink(path):
        x0, y0, x1, y1 = (int(v) for v in res.render_map[path]["bbox"])
        inside = px[y0 + 4:y1 - 4, x0 + 4:x1 - 4]
        return int((inside.astype(int).sum(axis=2) < 600).sum())

    assert 3.6 < ink("items[1]") / ink("items[0]") < 4.4


# -- the domain's tasks -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("task_id", sorted(OPTION_FITS))
def test_option_tasks_have_exactly_one_correct_option(taxonomy, task_id):
    task = taxonomy.tasks[task_id]
    for level in range(0, 10, 3):
        for seed in range(8):
            tr = generate(task, 100 + seed, level, vocab=taxonomy.vocab).trace
            fits = OPTION_FITS[task_id](tr)
            assert len(fits) == 1, (level, seed, fits)
            assert tr["answer"] == "ABCDEFGH"[fits[0]]


def test_sequences_show_enough_to_infer_the_panel_the_sampler_intended(taxonomy):
    """The rule read off the visible panels gives back the sampler's own next panel: no sequence is ambiguous."""
    task = taxonomy.tasks["icons.sequence.next_count"]
    for level in range(10):
        for seed in range(4):
            st = generate(task, seed, level, vocab=taxonomy.vocab).trace["state"]
            assert expected_next(st["panels"]) == st["right"], (level, seed)
            assert st["options"].count(st["right"]) == 1 and len(st["options"]) == 4


def test_icons_render_maps_are_inside_and_apart(taxonomy):
    for task_id in ("icons.icon_grid.line_kinds", "icons.sequence.next_panel", "icons.odd_one_out.odd_panel"):
        for level in (0, 9):
            for seed in range(3):
                render_map_is_clean(generate(taxonomy.tasks[task_id], seed, level, vocab=taxonomy.vocab).trace)
    # In a field the pictograms' bounding circles (centre from the state, radius from the size word) keep apart,
    # and each drawn box lies inside its circle's square.
    task = taxonomy.tasks["icons.icon_field.count_either"]
    for level in (0, 9):
        for seed in range(3):
            tr = generate(task, seed, level, vocab=taxonomy.vocab).trace
            w = tr["render"]["width"]
            jitter = 2.0  # the most the component jitters a pictogram by
            circles = []
            for i, icon in enumerate(tr["state"]["icons"]):
                cx, cy, r = icon["x"] * w, icon["y"] * w, FIELD_SIZES[icon["size"]] * w + 1.5
                x0, y0, x1, y1 = tr["render"]["render_map"][f"icons[{i}]"]["bbox"]
                assert cx - r - jitter <= x0 and x1 <= cx + r + jitter and cy - r - jitter <= y0
                assert y1 <= cy + r + jitter and 0 <= x0 and x1 <= w
                circles.append((cx, cy, r))
            for i, (ax, ay, ar) in enumerate(circles):
                for bx, by, br in circles[i + 1:]:
                    assert math.hypot(ax - bx, ay - by) > ar + br + 2 * jitter
