"""Templates (issue 9, class 5, and the template part of class 3): jinja2 only in its sandbox, only data printed, every
filter argument and the output bounded, size and nesting checked before jinja builds a tree, and what compiles
renders. Positions are exact: path:line:col of the offending token."""
from __future__ import annotations

import dataclasses
import os
import sys

import pytest
import yaml
from jinja2.sandbox import SandboxedEnvironment

from tessera.errors import Diagnostics, EvalError, Position
from tessera.expr import template as T
from tessera.expr.template import MAX_OUTPUT, Template, compile_template
from tessera.expr.types import BOOL, FLOAT, INT, STR, FnT, ListT, RecordT
from tessera.taxonomy import compile_taxonomy
from tessera.trace.instance import generate
from tests.bounds import run_bounded
from tests.conftest import ROOT
from tests.test_errors import diagnostics, write

SHAPE = RecordT((("color", STR), ("shape", STR), ("size", INT)))
NAMES = {"shapes": ListT(SHAPE), "a": SHAPE, "name": STR, "n": INT, "x": FLOAT, "flag": BOOL,
         "words": ListT(STR), "f": FnT(("v",), None, None, None), "self": INT}


def check(source: str, names=None) -> tuple[Template | None, list[str]]:
    d = Diagnostics()
    t = compile_template(source, NAMES if names is None else names, lambda line, col: Position("t", line, col), d)
    return t, [str(x) for x in d.items]


def errors(source: str, names=None) -> list[str]:
    t, msgs = check(source, names)
    assert t is None and msgs
    return msgs


def render_error(source: str, values: dict) -> str:
    """Compiled without types (every name could be anything), so the render has to catch it."""
    t, msgs = check(source, set(values))
    assert t is not None, msgs
    with pytest.raises(EvalError) as info:
        t.render(values)
    return str(info.value)


# -- the sandbox -------------------------------------------------------------------------------------------------

def test_jinja_runs_in_its_sandbox_with_data_only_helpers():
    assert isinstance(T._ENV, SandboxedEnvironment)
    assert T._ENV.globals == {}  # no range, dict, lipsum, cycler, joiner, namespace
    assert sorted(T._ENV.filters) == sorted(T.FILTERS)
    assert all(f.__module__ == T.__name__ for f in T._ENV.filters.values())  # ours, each bounded
    assert sorted(T._ENV.tests) == sorted(T.TESTS)


@pytest.mark.parametrize("filt", ["attr('__class__')", "map('upper')", "format(1)", "center(1000000000)", "indent(999999)",
                                  "truncate(99999999)", "wordwrap(1)", "batch(3)", "slice(3)", "sum", "list", "tojson",
                                  "pprint", "replace('a', 'b')", "xmlattr", "dictsort", "random", "reverse"])
def test_filters_outside_the_allow_list_are_refused(filt):
    assert errors("{{ words | " + filt + " }}") == [
        f"t:1:12: error: unknown template filter '{filt.split('(')[0]}' (allowed: capitalize, default, first, fmt, "
        f"int, join, last, length, lettered, lower, plural, round, string, title, trim, upper)  [unknown-kind]"]


@pytest.mark.parametrize("src,what,col", [
    ("{% for s in shapes %}{{ s.color }}{% endfor %}", "'for'", 4),
    ("{{ range(10**9) }}", "a call", 9),
    ("{{ 'ab' * 1000000 }}", "'*'", 4),
    ("{{ n ** 99 }}", "'**'", 4),
    ("{{ n // 2 }}", "'//'", 4),
    ("{{ name ~ name }}", "'~' (print the parts side by side)", 4),
    ("{{ words[1:] }}", "a slice", 10),
    ("{% set m = 3 %}", "'set'", 4),
    ("{% macro m() %}x{% endmacro %}", "'macro'", 4),
])
def test_statements_and_operators_outside_the_language_are_refused(src, what, col):
    msgs = errors(src)
    assert msgs[0] == f"t:1:{col}: error: templates may only print values, use if and filters; {what} is not allowed  [not-allowed]"


def test_tests_are_an_allow_list_without_arguments():
    assert errors("{% if n is callable %}x{% endif %}") == [
        "t:1:12: error: unknown template test 'callable' (allowed: defined, undefined, none, number, string)  [unknown-kind]"]
    assert errors("{% if n is divisibleby(3) %}x{% endif %}")[0].startswith(
        "t:1:12: error: unknown template test 'divisibleby'")
    assert errors("{% if n is number(1) %}x{% endif %}") == ["t:1:12: error: template test 'number' takes no arguments  [arg-count]"]


# -- only data prints --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("src,message", [
    ("{{ shapes.pop }}", "t:1:11: error: cannot take field '.pop' of a list[{color: string, shape: string, size: integer}]; "
                         "only records have fields  [type-mismatch]"),
    ("{{ name.upper }}", "t:1:9: error: cannot take field '.upper' of a string; only records have fields  [type-mismatch]"),
    ("{{ n.real }}", "t:1:6: error: cannot take field '.real' of an integer; only records have fields  [type-mismatch]"),
    ("{{ a.items }}", "t:1:6: error: unknown field 'items' (this record has: color, shape, size)  [unknown-field]"),
    ("{{ a['keys'] }}", "t:1:5: error: unknown field 'keys' (this record has: color, shape, size)  [unknown-field]"),
    ("{{ shapes[0].__class__ }}", "t:1:14: error: template attribute '__class__' is not allowed  [not-allowed]"),
    ("{{ a }}", "t:1:4: error: template prints a record ({color: string, shape: string, size: integer}); print one of its "
                "fields  [type-mismatch]"),
    ("{{ words }}", "t:1:4: error: template prints a list (list[string]); print it with join, lettered or fmt  [type-mismatch]"),
    ("{{ flag }}", "t:1:4: error: template prints a bool (it would print True or False); write "
                   "{{ 'yes' if x else 'no' }} or x | fmt  [type-mismatch]"),
    ("{{ n > 2 }}", "t:1:4: error: template prints a bool (it would print True or False); write "
                    "{{ 'yes' if x else 'no' }} or x | fmt  [type-mismatch]"),
    ("{{ f }}", "t:1:4: error: 'f' is a function; a template prints values (compute the value in a step and print "
                "the step)  [reserved-name]"),
    ("{{ none }}", "t:1:4: error: templates have no 'none' value  [not-allowed]"),
    ("{{ self }}", "t:1:4: error: 'self' cannot be read in a template (jinja reserves it); rename the value  [reserved-name]"),
    ("{{ shapes[name] }}", "t:1:11: error: a template index is an integer, got string  [type-mismatch]"),
    ("{{ n[0] }}", "t:1:5: error: cannot index an integer; only lists and text have items  [type-mismatch]"),
    ("{{ a + 1 }}", "t:1:4: error: operator '+' needs two numbers, two texts or two lists, got {color: string, shape: "
                    "string, size: integer} and integer  [type-mismatch]"),
    ("{{ -name }}", "t:1:4: error: operator '-' needs a number, got string  [type-mismatch]"),
])
def test_non_data_is_a_compile_error_where_the_type_shows_it(src, message):
    assert errors(src) == [message]


@pytest.mark.parametrize("src,values,message", [
    ("{{ shapes.pop }}", {"shapes": [1, 2]}, "it reads field 'pop' of a list; only records have fields"),
    ("{{ name.upper }}", {"name": "abc"}, "it reads field 'upper' of text; only records have fields"),
    ("{{ a.items }}", {"a": {"color": "red"}}, "it reads field 'items', which this record lacks (it has: color)"),
    ("{{ a['values'] }}", {"a": {"color": "red"}}, "it reads field 'values', which this record lacks (it has: color)"),
    ("{{ a }}", {"a": {"color": "red"}}, "it prints a record; only text and numbers print"),
    ("{{ xs }}", {"xs": [1, 2]}, "it prints a list; only text and numbers print"),
    ("{{ b }}", {"b": True}, "it prints a bool (True); only text and numbers print"),
    ("{{ v }}", {"v": float("inf")}, "it prints a non-finite number (inf); only text and numbers print"),
    ("{{ v }}", {"v": float("nan")}, "it prints a non-finite number (nan); only text and numbers print"),
    ("{{ xs[5] }}", {"xs": [1, 2]}, "the index 5 is out of range for a length of 2"),
    ("{{ xs[k] }}", {"xs": [1, 2], "k": 0.5}, "the index is a number (0.5); an index is an integer"),
    ("{{ n[0] }}", {"n": 3}, "it indexes an integer; only lists and text have items"),
    ("{{ v | string }}", {"v": [1]}, "filter 'string' prints text and numbers, got a list"),
    ("{{ xs | join(', ') }}", {"xs": [[1], [2]]}, "filter 'join' prints text and numbers, got a list in the list"),
    ("{{ xs | first }}", {"xs": []}, "filter 'first' of an empty list"),
])
def test_non_data_is_a_render_error_where_only_the_value_shows_it(src, values, message):
    got = render_error(src, values)
    assert got == f"template at t:1:1: {message}"
    assert "0x" not in got and "method" not in got  # never an address, never a repr of code


def test_data_prints_as_before():
    t, msgs = check("{{ name }} {{ n }} {{ x }} {{ shapes[0].color }} {{ shapes.0.size }} {{ words | join('/') }}"
                    " {{ 'on' if flag else 'off' }}{{ ' (big)' if n > 5 }} {{ flag | fmt }} {{ words[-1] }}")
    assert msgs == []
    values = {"name": "A", "n": 7, "x": 0.1 + 0.2, "shapes": [{"color": "red", "shape": "disc", "size": 2}],
              "words": ["p", "q"], "flag": True, "a": {}}
    assert t.render(values) == "A 7 0.30000000000000004 red 2 p/q on (big) true q"
    assert t.names == {"name", "n", "x", "shapes", "words", "flag"}


# -- filter arguments and output are bounded -----------------------------------------------------------------------

@pytest.mark.parametrize("src,message", [
    ("{{ x | round(1000000) }}", "t:1:8: error: template filter 'round' takes a precision from 0 to 10, got 1000000  [type-mismatch]"),
    ("{{ x | round(precision=2) }}", "t:1:8: error: template filter 'round' takes positional arguments only  [arg-count]"),
    ("{{ x | round(-5) }}", "t:1:8: error: template filter 'round' takes a precision from 0 to 10, got -5  [type-mismatch]"),
    ("{{ x | round(2, 'up') }}", "t:1:8: error: template filter 'round' rounds 'common', 'ceil' or 'floor'  [type-mismatch]"),
    ("{{ x | round(name) }}", "t:1:8: error: template filter 'round' takes a precision from 0 to 10, got string  [type-mismatch]"),
    ("{{ name | round }}", "t:1:11: error: template filter 'round' needs a number, got string  [type-mismatch]"),
    ("{{ words | join('" + "-" * 21 + "') }}", "t:1:12: error: template filter 'join' separator is 21 characters "
                                               "(limit 20)  [type-mismatch]"),
    ("{{ shapes | join(', ') }}", "t:1:13: error: template filter 'join' needs a list of text or numbers (or a "
                                  "text), got list[{color: string, shape: string, size: integer}]  [type-mismatch]"),
    ("{{ words | join(', ', 1) }}", "t:1:12: error: template filter 'join' takes at most 1 argument, got 2  [arg-count]"),
    ("{{ n | upper }}", "t:1:8: error: template filter 'upper' needs text, got integer  [type-mismatch]"),
    ("{{ n | plural }}", "t:1:8: error: template filter 'plural' needs a word (text), got integer  [type-mismatch]"),
    ("{{ name | plural(name) }}", "t:1:11: error: template filter 'plural' takes an integer count, got string  [type-mismatch]"),
    ("{{ a | length(2) }}", "t:1:8: error: template filter 'length' takes at most 0 arguments, got 1  [arg-count]"),
    ("{{ shapes | fmt }}", "t:1:13: error: template filter 'fmt' prints text, numbers, bools and lists of them, got "
                           "list[{color: string, shape: string, size: integer}]  [type-mismatch]"),
    ("{{ n | first }}", "t:1:8: error: template filter 'first' needs a list or text, got integer  [type-mismatch]"),
])
def test_filter_arguments_are_checked_at_compile_time(src, message):
    assert errors(src) == [message]


@pytest.mark.parametrize("src,values,message", [
    ("{{ v | round(p) }}", {"v": 1.5, "p": 10 ** 6}, "filter 'round' takes a precision from 0 to 10, got 1000000"),
    ("{{ v | round(2, m) }}", {"v": 1.5, "m": "up"}, "filter 'round' rounds 'common', 'ceil' or 'floor', got 'up'"),
    ("{{ v | round }}", {"v": float("nan")}, "filter 'round' needs a finite number, got a non-finite number (nan)"),
    ("{{ xs | join(s) }}", {"xs": ["a"], "s": "-" * 50}, "the join separator is 50 characters (limit 20)"),
    ("{{ xs | join(', ') }}", {"xs": ["x" * 1000] * 100}, f"filter 'join' would produce 100198 characters (limit "
                                                          f"{MAX_OUTPUT})"),
    ("{{ xs | lettered }}", {"xs": ["x" * 1000] * 26}, "filter 'lettered' would produce 26103 characters (limit "
                                                       f"{MAX_OUTPUT})"),
    ("{{ v | int }}", {"v": "9" * 5000}, "filter 'int' reads at most 32 characters, got 5000"),
    ("{{ v | int }}", {"v": "many"}, "filter 'int' cannot read 'many' as a number"),
    ("{{ v | plural(k) }}", {"v": "cat", "k": "two"}, "filter 'plural' needs an integer count, got text"),
    ("{{ v | upper }}", {"v": 3}, "filter 'upper' needs text as its input, got an integer"),
    ("{{ v | fmt }}", {"v": {"a": 1}}, "filter 'fmt' prints text, numbers, bools and lists of them, got a record"),
    ("{{ v }}{{ v }}", {"v": "y" * 15_000}, f"its output is over {MAX_OUTPUT} characters"),
    ("{{ v + v }}", {"v": "y" * 15_000}, f"its output is over {MAX_OUTPUT} characters"),
])
def test_filter_arguments_and_output_are_bounded_at_render_time(src, values, message):
    assert render_error(src, values) == f"template at t:1:1: {message}"


def test_allowed_filters_give_jinjas_text():
    t, msgs = check("{{ name | title }}|{{ name | capitalize }}|{{ name | upper }}|{{ name | lower }}|"
                    "{{ name | trim }}|{{ x | round(2) }}|{{ x | round(1, 'floor') }}|{{ x | int }}|"
                    "{{ words | length }}|{{ words | first }}|{{ words | last }}|{{ name | join('.') }}|"
                    "{{ n | string }}|{{ 'box' | plural }}|{{ 'city' | plural(n) }}|{{ 'day' | plural(1) }}|"
                    "{{ words | fmt }}|{{ name | default('z') }}")
    assert msgs == []
    got = t.render({"name": " hello wORLD ", "x": 2.675, "words": ["a", "b", "c"], "n": 2})
    assert got == " Hello World | hello world | HELLO WORLD | hello world |hello wORLD|2.67|2.6|2|3|a|c|" \
                  " .h.e.l.l.o. .w.O.R.L.D. |2|boxes|cities|day|a, b, c| hello wORLD "
    t, _ = check("{{ words | lettered }}")
    assert t.render({"words": ["x", 2, 0.5, True]}) == "A. x\nB. 2\nC. 0.5\nD. true"


# -- size and nesting are bounded before jinja builds anything -----------------------------------------------------

def test_template_source_length_is_bounded():
    assert errors("x" * 4001) == ["t:1:1: error: template is 4001 characters; the limit is 4000  [bound]"]
    assert check("x" * 4000)[0] is not None


@pytest.mark.parametrize("src,message", [
    # the 33rd '+' of 300: each term is 4 characters on from the last
    ("{{ " + " + ".join(["n"] * 300) + " }}", "t:1:134: error: template tag has more than 32 operators; compute the "
                                              "value in a step and print the step  [bound]"),
    ("{{ " + "not " * 40 + "flag }}", "t:1:132: error: template tag has more than 32 operators; compute the value "
                                      "in a step and print the step  [bound]"),
    ("{{ name" + " | upper" * 40 + " }}", "t:1:265: error: template tag has more than 32 operators; compute the "
                                          "value in a step and print the step  [bound]"),
    ("{{ a" + ".b" * 40 + " }}", "t:1:69: error: template tag has more than 32 operators; compute the value in a "
                                 "step and print the step  [bound]"),
    ("{% if " + " and ".join(["flag"] * 40) + " %}x{% endif %}", "t:1:300: error: template tag has more than 32 "
                                                                 "operators; compute the value in a step and print the "
                                                                 "step  [bound]"),
    ("{{ " + "(" * 9 + "n" + ")" * 9 + " }}", "t:1:12: error: template brackets nest 9 deep; the limit is 8  [bound]"),
    ("{{ " + "[" * 12 + "n" + "]" * 12 + " }}", "t:1:12: error: template brackets nest 9 deep; the limit is 8  [bound]"),
    ("{{ " + "(" * 1990 + "1" + ")" * 1990 + " }}", "t:1:12: error: template brackets nest 9 deep; the limit is 8  [bound]"),
    ("{% if n %}" * 9 + "x" + "{% endif %}" * 9, "t:1:84: error: template blocks nest 9 deep; the limit is 8  [bound]"),
    ("{% if n %}{% else %}" * 9 + "x" + "{% endif %}" * 9, "t:1:164: error: template blocks nest 9 deep; the "
                                                           "limit is 8  [bound]"),
    ("{% for i in shapes %}" * 9 + "{% endfor %}" * 9, "t:1:172: error: template blocks nest 9 deep; the limit is 8  [bound]"),
])
def test_operators_and_nesting_are_bounded_by_a_token_pass(src, message):
    assert errors(src) == [message]


def test_bounds_are_positioned_on_later_lines():
    src = "Line one.\n{{ n }} is fine.\n  {{ " + "-" * 40 + "n }}"
    assert errors(src) == ["t:3:38: error: template tag has more than 32 operators; compute the value in a step and "
                           "print the step  [bound]"]
    assert errors("A\n{% if n %}\n {{ a.colour }}\n{% endif %}") == [
        "t:3:7: error: unknown field 'colour' (this record has: color, shape, size)  [unknown-field]"]
    assert errors("A\n\n  {{ n | nope }}") == ["t:3:10: error: unknown template filter 'nope' (allowed: capitalize, "
                                               "default, first, fmt, int, join, last, length, lettered, lower, plural, "
                                               "round, string, title, trim, upper)  [unknown-kind]"]
    assert errors("ok\n{{ n + }}") == ["t:2:8: error: template syntax: unexpected 'end of print statement'  [template-syntax]"]


@pytest.mark.parametrize("src,message", [
    ("a\n{{ n $ }}", "t:2:6: error: template syntax: unexpected char '$'  [template-syntax]"),
    ("x {{ n }} {{ 'a }}", "t:1:14: error: template syntax: unexpected char \"'\"  [template-syntax]"),
    ("{{ n }", "t:1:6: error: template syntax: unexpected '}'  [template-syntax]"),
    ("ab\n  {# note", "t:2:3: error: template syntax: Missing end of comment tag  [template-syntax]"),
    ("{% raw %}abc", "t:1:1: error: template syntax: Missing end of raw directive  [template-syntax]"),
    ("x {{ n | }}", "t:1:10: error: template syntax: expected token 'name', got 'end of print statement'  [template-syntax]"),
    ("{% endif %}", "t:1:4: error: template syntax: Encountered unknown tag 'endif'.  [template-syntax]"),
])
def test_syntax_errors_are_at_the_character_jinja_stopped_at(src, message):
    assert errors(src) == [message]


def test_the_largest_templates_within_the_bounds_compile_and_render():
    """Everything the bounds allow is small for jinja (bench/bench_templates.py times it)."""
    tag = "{{ " + " + ".join(["n"] * 33) + " }}"
    t, msgs = check(tag * (4000 // len(tag)))
    assert msgs == [] and t.render({"n": 1}) == "33" * (4000 // len(tag))
    deep = "{% if n %}" * 8 + "{{ ((((((((n)))))))) }}" * 100 + "{% endif %}" * 8
    t, msgs = check(deep)
    assert msgs == [] and t.render({"n": 2}) == "2" * 100


# -- what compiles renders -----------------------------------------------------------------------------------------

def test_a_render_without_a_compiled_name_says_so():
    t, _ = check("{{ vocab.colors | join(', ') }}", {"vocab": RecordT((("colors", ListT(STR)),)), "n": INT})
    assert t.names == {"vocab"}
    with pytest.raises(EvalError) as info:
        t.render({"n": 1})
    assert str(info.value) == "template at t:1:1 reads vocab, which this render does not give"
    assert t.render({"vocab": {"colors": ["red", "blue"]}}) == "red, blue"


def test_vocab_renders_in_a_prompt(fixture_lib, monkeypatch):
    monkeypatch.chdir(fixture_lib)
    write(fixture_lib, "programs/bad/vocab_prompt.yaml", """
        task: charts.bar_chart.vocab_prompt
        grammar: charts.bar_chart
        summary: s
        operations: [count]
        bucket: counting
        answer: {value: len(bars) + len(vocab.fruits), contract: integer_exact}
        witness: {set: bars}
        prompt: How many bars, plus {{ vocab.fruits | length }} ({{ vocab.fruits[0] }} first)?
        """)
    tax = compile_taxonomy(fixture_lib)
    inst = generate(tax.tasks["charts.bar_chart.vocab_prompt"], 0, 1, vocab=tax.vocab)
    assert inst.prompt.startswith(f"How many bars, plus {len(tax.vocab['fruits'])} ({tax.vocab['fruits'][0]} first)?")


def _templates(obj, seen: set, found: dict) -> None:
    """Every Template reachable from a compiled task (prompts, scene titles and captions, guide texts, table
    headers, component text parameters)."""
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, Template):
        found[id(obj)] = obj
    elif isinstance(obj, dict):
        for v in obj.values():
            _templates(v, seen, found)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _templates(v, seen, found)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            _templates(getattr(obj, f.name), seen, found)


def test_every_bundled_template_renders(taxonomy, monkeypatch):
    found: dict[int, Template] = {}
    seen: set = set()
    for task in taxonomy.tasks.values():
        _templates(task, seen, found)
    rendered: dict[int, dict] = {}
    real = Template.render

    def spy(self, values):
        out = real(self, values)
        rendered[id(self)] = values
        return out

    monkeypatch.setattr(Template, "render", spy)
    for task_id, task in sorted(taxonomy.tasks.items()):
        before = set(rendered)
        generate(task, 0, 3, vocab=taxonomy.vocab)
        chosen = [p for p in task.prompts if id(p) in rendered and id(p) not in before] or \
                 [p for p in task.prompts if id(p) in rendered]
        values = rendered[id(chosen[0])]
        # The render gives exactly the names the prompt was checked against: the program's scope, functions aside.
        scope = {*task.grammar.base_scope, *task.grammar.schema, *task.queries, *(name for name, _ in task.levels),
                 *(name for name, _ in task.compute)}
        assert set(values) == scope, task_id
        for p in task.prompts:  # the prompt stream picked one; every other one renders from the same names
            assert p.render(values).strip(), (task_id, p.source)
    assert len(found) > 150
    assert [t.where for k, t in found.items() if k not in rendered] == []


# Prompt bodies recorded on main (87021fd) before templates were narrowed: the same bytes come out.
RECORDED = {
    ("puzzles.tiles.largest_area_option", 0, 0): "Tiles of the same colour that share a side belong to one area. "
                                                "Which colour forms the largest area?\nA. red\nB. green\nC. orange",
    ("geometry.transformed_shape.apply_to_point", 0, 2): "Figure ABC is mapped onto figure A'B'C' by a reflection "
                                                         "or a rotation about the origin.\nThe same transformation is "
                                                         "applied to point P. What are the coordinates of the image "
                                                         "of P? Answer as [x, y].",
    # re-recorded in 0.11.0: icon_field's kinds are game-icons now (issue 26)
    ("icons.icon_field.count_either", 9, 3): "How many pictograms are peppers or brown, or both?",
    ("puzzles.tiles.longest_run", 0, 0): "Rows are numbered from 1 at the top and columns from 1 at the left. What is "
                                        "the greatest number of tiles of one colour that stand next to each other "
                                        "without a break in column 2?",
    ("charts.treemap.kth_largest", 9, 5): "Which blend sold the most packs?",
    ("puzzles.sudoku.missing_digit", 0, 1): "In this puzzle every row, every column and every box (outlined by thick "
                                           "lines) holds each digit from 1 to 4 exactly once. Row 4 has exactly one "
                                           "empty cell. Which digit belongs there? Rows are numbered from the top and "
                                           "columns from the left.",
}


@pytest.mark.parametrize("key", sorted(RECORDED))
def test_bundled_prompts_keep_their_bytes(taxonomy, key):
    from tests.test_scene_equivalence import old_streams  # re-homed tasks (issue 13) drawn from their old ids' seeds

    task_id, level, seed = key
    inst = generate(taxonomy.tasks[task_id], seed, level, vocab=taxonomy.vocab, stream_seeds=old_streams(task_id, seed))
    assert inst.prompt.rsplit("\n\n", 1)[0] == RECORDED[key]


# -- through the library and the CLI -------------------------------------------------------------------------------

HOSTILE = """
    task: charts.bar_chart.hostile
    grammar: charts.bar_chart
    summary: s
    operations: [count]
    bucket: counting
    answer: {value: len(bars), contract: integer_exact}
    witness: {set: bars}
    prompt:
      - "Count {{ bars.pop }} and {{ top | round(10000000) }}."
      - |
        How many bars?
          {{ bars | join(', ') }} {{ n + PLUS }}
      - '{{ vocab.shapes | lettered }} {{ vocab.colours }}'
    """


def test_hostile_prompts_are_positioned_in_the_yaml_file(fixture_lib, monkeypatch, taxonomy):
    monkeypatch.chdir(fixture_lib)
    write(fixture_lib, "programs/bad/hostile.yaml", HOSTILE.replace("PLUS", " + ".join(["n"] * 300)))
    got = [m for m in diagnostics(fixture_lib) if m.startswith("programs/bad/")]
    # the fields of the fixture library's own vocabulary (tests/data/fixture_lib/taxonomy/vocab.yaml)
    fixture_vocab = yaml.safe_load((fixture_lib / "taxonomy" / "vocab.yaml").read_text())["vocab"]
    assert got == [
        "programs/bad/hostile.yaml:9:20: error: cannot take field '.pop' of a list[{label: string, value: integer}]; only "
        "records have fields  [type-mismatch]",
        "programs/bad/hostile.yaml:9:40: error: template filter 'round' takes a precision from 0 to 10, got 10000000  [type-mismatch]",
        "programs/bad/hostile.yaml:12:164: error: template tag has more than 32 operators; compute the value in a step "
        "and print the step  [bound]",
        f"programs/bad/hostile.yaml:13:45: error: unknown field 'colours' (this record has: "
        f"{', '.join(sorted(fixture_vocab))})  [unknown-field]",
    ]


def test_cli_refuses_a_hostile_template_with_exit_2_and_no_traceback(fixture_lib):
    write(fixture_lib, "programs/bad/hostile.yaml", HOSTILE.replace("PLUS", "(((((((((n)))))))))"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = run_bounded([sys.executable, "-m", "tessera.cli", "compile", str(fixture_lib)], 300, env=env,
                       cwd=fixture_lib)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "programs/bad/hostile.yaml:12:46: error: template brackets nest 9 deep; the limit is 8  [bound]" in proc.stderr
    assert "programs/bad/hostile.yaml:9:20: error: cannot take field '.pop'" in proc.stderr


# -- a bounded fuzz ------------------------------------------------------------------------------------------------

FRAGMENTS = ["{{", "}}", "{%", "%}", "{{-", "-}}", "{#", "#}", "if", "elif", "else", "endif", "for", "in", "endfor",
             "set", "=", "raw", "endraw", "n", "x", "name", "words", "shapes", "a", "flag", "f", "self", "none", "true",
             ".", "color", "size", "pop", "__class__", "[", "]", "(", ")", "{", "}", ":", ",", "0", "-1", "7", "1e308",
             "9" * 40, "'s'", '"t"', "|", "join", "round", "upper", "lettered", "fmt", "integer", "first", "default",
             "plural", "length", "+", "-", "*", "~", "==", "<", "and", "or", "not", "is", "number", "defined", "%",
             "!", "$", "'", " ", " ", " ", "\n"]
VALUES = {"shapes": [{"color": "red", "shape": "disc", "size": 2}], "a": {"color": "red", "shape": "disc", "size": 2},
          "name": "Ann", "n": 3, "x": 0.5, "flag": True, "words": ["p", "q"], "self": 1}


@pytest.mark.parametrize("typed", [True, False])
def test_fuzzed_templates_compile_with_positions_or_render_data(typed):
    """1,500 token soups (seeded): compiling never raises, every error sits inside the source, a template that
    compiles renders or raises EvalError, and nothing but data reaches the output."""
    import random

    rng = random.Random(9)
    names = NAMES if typed else set(NAMES) - {"f"}
    compiled = 0
    for _ in range(1500):
        soup = " ".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 30)))
        src = rng.choice(["{{ " + soup + " }}", "{% if " + soup + " %}x{% endif %}", soup])
        t, msgs = check(src, names)
        if t is None:
            lines = src.count("\n") + 1
            for m in msgs:
                line, col = map(int, m.split(":")[1:3])
                assert 1 <= line <= lines and col >= 1, (src, m)
            continue
        compiled += 1
        try:
            out = t.render(VALUES)
        except EvalError as exc:
            # With the types known, what compiles renders, but for what only the values decide.
            assert not typed or any(w in str(exc) for w in ("out of range", "of an empty", "characters")), (src, exc)
            continue
        for word in ("0x", "True", "False", "None", "[", "{'", "<"):
            assert word not in out or word in src, (src, out)
    assert compiled > 100
