"""The value rule of the scene language (docs/AUTHORING.md, "The language rules in one table"): every value is an
expression; a YAML number or boolean is that constant, a bare word listed for the key (an option's allowed word, a
colour word in a colour channel, a palette name) is that word, anything else is an expression over the names in
scope. And one type vocabulary: old type words are errors that name the new word.

Each probe is a one-grammar library compiled from YAML and drawn through the real pipeline (tests/test_scene.py's
helpers); options written as expressions must draw the very bytes their literals draw."""
from __future__ import annotations

import textwrap

import pytest

from tessera.errors import CompileFailed, TesseraError
from tessera.taxonomy import compile_taxonomy
from tests.test_scene import build, sample

STATE = """\
    lvl: 0  # what the expressions below read (a state field: `level` itself is read only in `levels:`)
    bars: "[{label: 'a', value: 3}, {label: 'b', value: 7}]"
    rows: "[{name: 'apple', price: 3}, {name: 'kiwi', price: 12}]"
    cells: "[{c: i, v: i * 10} for i in range(3)]"
    """

# {anchor} ... are filled with the literal or the expression of each option (over the state field lvl = 0).
SCENE = """\
layers:
  - region: [0, 0, 1, 0.5]
    frame:
      cartesian:
        x: {{band: "map(bars, .label)"}}
        y: {{linear: "[1, 9]", nice: {nice}, zero: {zero}, ticks: {ticks}}}
        y_down: {y_down}
    guides:
      - axis: {{scale: y, side: {side}, grid: {grid}}}
      - ramp: {{domain: "[0, 20]", palette: {palette}, side: {ramp_side}}}
    marks:
      - rect: {{each: bars, as: b, x: b.label, y: 0, y2: b.value, fill: blue}}
      - text: {{x: "'a'", y: 5, text: "'label'", anchor: {anchor}, weight: {weight}, halo: {halo}}}
      - line: {{x: "'a'", y: 1, x2: "'b'", y2: 8, arrow: {arrow}, cap: {cap}, stroke: ink, stroke_width: 3}}
  - region: [0, 0.5, 0.5, 1]
    panels:
      each: cells
      as: k
      cols: 3
      gap: {gap}
      panel:
        marks:
          - rect: {{x: 0, y: 0, x2: 10, y2: 10, bind: k, fill: gray}}
  - region: [0.5, 0.5, 1, 1]
    guides:
      - table:
          each: rows
          as: r
          header: {header}
          lines: {lines}
          columns:
            - {{header: Fruit, text: r.name, weight: {col_weight}, width: {col_width}}}
            - {{header: Price, text: r.price}}
"""

LITERALS = dict(nice="false", zero="true", ticks="4", y_down="true", side="right", grid="true", palette="viridis",
                ramp_side="bottom", anchor="start", weight="bold", halo="true", arrow="end", cap="round", gap="12",
                header="false", lines="grid", col_weight="bold", col_width="2")
EXPRESSIONS = dict(nice='"lvl > 5"', zero='"lvl < 5"', ticks='"4 + lvl"', y_down='"lvl == 0"',
                   side="\"'right' if lvl < 3 else 'left'\"", grid='"not (lvl > 0)"',
                   palette="\"'viri' + 'dis'\"", ramp_side="\"case(lvl == 0, 'bottom', 'right')\"",
                   anchor="\"'start' if lvl < 3 else 'middle'\"", weight="\"'bold' if lvl == 0 else 'normal'\"",
                   halo='"lvl < 1"', arrow="\"'end'\"", cap="\"'ro' + 'und'\"", gap='"12 + lvl"',
                   header='"lvl > 0"', lines="\"'grid' if lvl == 0 else 'rows'\"",
                   col_weight="\"'bold' if len(rows) == 2 else 'normal'\"", col_width='"1 + len(rows) / 2"')


def _draw(tmp_path, name: str, options: dict) -> bytes:
    root = build(tmp_path / name, STATE, SCENE.format(**options), width=400, height=400)
    _, inst = sample(root)
    return inst.png


def test_options_written_as_expressions_draw_the_bytes_of_their_literals(tmp_path):
    """Before the value rule, every option below took a literal only ('nice' must be one of true, false, got
    'level > 5'); now each, written as an expression in the node's scope, draws exactly what its literal draws."""
    literal = _draw(tmp_path, "literal", LITERALS)
    assert _draw(tmp_path, "expression", EXPRESSIONS) == literal
    # and the options matter: the defaults draw something else
    defaults = dict(LITERALS, nice="true", zero="false", ticks="6", y_down="false", anchor="middle", gap="0")
    assert _draw(tmp_path, "defaults", defaults) != literal


def test_a_palette_name_is_a_listed_word(tmp_path):
    """`palette: viridis` was an unknown name (only `palette: "'viridis'"` compiled); a palette name is now a word
    listed for the key, like `side: bottom`."""
    bare = _draw(tmp_path, "bare", LITERALS)
    quoted = _draw(tmp_path, "quoted", dict(LITERALS, palette="\"'viridis'\""))
    other = _draw(tmp_path, "other", dict(LITERALS, palette="reds"))
    assert bare == quoted != other


def _diagnostics(root) -> list[tuple[str, str, str]]:
    with pytest.raises(CompileFailed) as exc:
        compile_taxonomy(root)
    return [(f"{d.pos.path.rsplit('/', 1)[-1]}:{d.pos.line}:{d.pos.col}", d.message, d.code)
            for d in exc.value.diagnostics.sorted() if d.severity == "error"]


def test_an_option_expression_of_the_wrong_type_is_a_positioned_compile_error(tmp_path):
    root = build(tmp_path, "n: randint(2, 4)\n", """\
        frame: {cartesian: {x: {linear: "[0, 10]", nice: "n + 1"}, y: {linear: "[0, 1]"}}}
        marks:
          - text: {x: 1, y: 0.5, text: "'hi'", anchor: "n * 2"}
        panels: {items: [{marks: []}], gap: "'wide'"}
        """)
    assert _diagnostics(root) == [
        ("g.yaml:8:54", "scale 'nice' must be boolean (one of true, false), got integer", "type-mismatch"),
        ("g.yaml:10:52", "text 'anchor' must be string (one of middle, start, end), got integer", "type-mismatch"),
        ("g.yaml:11:41", "panels 'gap' must be number (a number in [0, 400]), got string", "type-mismatch"),
    ]


def test_options_see_the_nodes_scope_not_the_each_item(tmp_path):
    """An option is evaluated once per mark, so the name `each` binds is not in its scope."""
    root = build(tmp_path, "bars: \"[{a: 'start'}]\"\n", """\
        marks:
          - text: {each: bars, as: b, x: 1, y: 1, text: "'hi'", anchor: b.a}
        """)
    (where, message, code), = _diagnostics(root)
    assert (where, code) == ("g.yaml:9:69", "unknown-name") and message.startswith("unknown name 'b'")


def test_a_bare_word_the_option_does_not_list_is_named_as_such(tmp_path):
    root = build(tmp_path, "n: 1\n", """\
        marks:
          - text: {x: 1, y: 1, text: "'hi'", anchor: strat}
        """)
    assert _diagnostics(root) == [("g.yaml:9:50", "text 'anchor' must be one of middle, start, end, got 'strat'",
                                   "scene-shape")]


@pytest.mark.parametrize("key, src, message", [
    ("anchor", "\"'left' if n > 0 else 'start'\"", "option 'anchor' must be one of middle, start, end, got 'left'"),
    ("gap", "\"n * 1000\"", "option 'gap' must be a number in [0, 400], got 2000"),
])
def test_a_run_time_value_outside_the_rule_is_a_positioned_error(tmp_path, key, src, message):
    mark = f"anchor: {src}" if key == "anchor" else ""
    gap = f"gap: {src}" if key == "gap" else ""
    root = build(tmp_path, "n: 2\n", textwrap.dedent(f"""\
        marks:
          - text: {{x: 1, y: 1, text: "'hi'", {mark or 'size: 12'}}}
        panels: {{items: [{{marks: []}}], {gap or 'cols: 1'}}}
        """))
    tax = compile_taxonomy(root)
    from tessera.trace.instance import generate

    with pytest.raises(TesseraError) as exc:
        generate(tax.tasks["demo.g.t"], 0, 0, vocab=tax.vocab)
    col = 51 if key == "anchor" else 42
    line = 9 if key == "anchor" else 10
    assert f"grammars/demo/g.yaml:{line}:{col}: {message} (from `{src.strip(chr(34))}`)" in str(exc.value)


def test_an_old_type_word_names_the_new_one(tmp_path):
    component = """\
        component: dots
        summary: dots
        params:
          n: {kind: int}
          title: {kind: text, default: ""}
          shown: {kind: bool, default: "true"}
        scene:
          marks: []
        """
    root = build(tmp_path, "n: 1\n", "use: dots\nwith: {n: 2}\n", components={"dots": component})
    found = [d for d in _diagnostics(root) if d[0].startswith("dots.yaml")]
    expected = ("(the type words are 'list', 'number', 'integer', 'template', 'string', 'boolean', 'color', 'fn' "
                "or 'any')")
    assert found == [
        ("dots.yaml:4:13", f"'int' is an old type word: write 'integer' {expected}", "old-type-word"),
        ("dots.yaml:5:17", f"'text' is an old type word: write 'template' {expected}", "old-type-word"),
        ("dots.yaml:6:17", f"'bool' is an old type word: write 'boolean' {expected}", "old-type-word"),
    ]


def test_a_colour_component_parameter_takes_a_bare_colour_word(tmp_path):
    """A colour word is listed for colour parameters as for colour channels (it was an unknown name there)."""
    component = """\
        component: swatch
        summary: one swatch
        params:
          tint: {kind: color}
        scene:
          marks:
            - rect: {x: 0, y: 0, x2: 400, y2: 300, fill: tint}
        """
    bare = build(tmp_path / "bare", "n: 1\n", "use: swatch\nwith: {tint: red}\n", components={"swatch": component})
    quoted = build(tmp_path / "quoted", "n: 1\n", "use: swatch\nwith: {tint: \"'red'\"}\n",
                   components={"swatch": component})
    assert sample(bare)[1].png == sample(quoted)[1].png


def test_the_rewrite_tool_is_idempotent_and_the_library_is_rewritten(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    (tmp_path / "components").mkdir()
    (tmp_path / "components/c.yaml").write_text(
        "component: c\nsummary: s\nparams:\n  a: {kind: int, summary: \"kind: int\"}\n  b:\n    kind: 'text'\n"
        "  c: {kind: fn}\nscene: {marks: []}  # kind: str\n")
    tool = [sys.executable, str(repo / "bench/rewrite_values.py")]
    assert subprocess.run(tool + [str(tmp_path), "--check"], capture_output=True).returncode == 1
    assert subprocess.run(tool + [str(tmp_path)], capture_output=True).returncode == 0
    assert (tmp_path / "components/c.yaml").read_text() == (
        "component: c\nsummary: s\nparams:\n  a: {kind: integer, summary: \"kind: int\"}\n  b:\n    kind: 'template'\n"
        "  c: {kind: fn}\nscene: {marks: []}  # kind: str\n")
    assert subprocess.run(tool + [str(tmp_path), "--check"], capture_output=True).returncode == 0
    assert subprocess.run(tool + [str(repo), "--check"], capture_output=True).returncode == 0
