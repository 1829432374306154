"""Authoring mistakes: each class gets its exact message at file:line:col, all of them in one run, exit status 2."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from tessera.errors import CompileFailed
from tessera.expr.types import INT
from tessera.taxonomy import compile_taxonomy
from tests.conftest import ROOT


def write(root, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"))


def diagnostics(root) -> list[str]:
    with pytest.raises(CompileFailed) as info:
        compile_taxonomy(root)
    return [str(d) for d in info.value.diagnostics.sorted() if d.severity == "error"]


GOOD_TASK = """
task: charts.bar_chart.extra_{name}
grammar: charts.bar_chart
summary: test task
operations: [count]
bucket: counting
compute:
  hits: filter(bars, b -> b.value > {literal})
answer: {{value: len(hits), contract: integer_exact}}
witness: {{set: hits}}
prompt: How many bars exceed {literal}?
"""


def test_each_error_class_has_its_exact_message(fixture_lib, monkeypatch):
    monkeypatch.chdir(fixture_lib)
    r = fixture_lib
    # the fixture library's grammars and contracts, and the line the domain appended below lands on
    known_grammars = "charts.bar_chart, icons.icon_tally"
    known_contracts = ("clock_time, integer_exact, label_sequence, label_set, label_string, number_tenth, "
                       "option_letter, point_coordinates, probability, yes_no")
    games_line = len((r / "taxonomy/taxonomy.yaml").read_text().splitlines()) + 3
    write(r, "programs/bad/unknown_key.yaml", """
        task: charts.bar_chart.unknown_key
        grammar: charts.bar_chart
        summary: s
        operations: [count]
        bucket: counting
        answr: 3
        answer: {value: len(bars), contract: integer_exact}
        witness: {set: bars}
        prompt: p
        """)
    write(r, "programs/bad/refs.yaml", """
        task: charts.bar_chart.refs
        grammar: charts.no_such_grammar
        summary: s
        operations: [count]
        bucket: counting
        answer: {value: len(bars), contract: no_such_contract}
        witness: {set: bars}
        prompt: p
        """)
    write(r, "programs/bad/types.yaml", """
        task: charts.bar_chart.types
        grammar: charts.bar_chart
        summary: s
        operations: [lookup]
        bucket: math
        query:
          k: "randint(1, 5)"
        compute:
          best: argmax(bars, b -> b.valu)
        answer: {value: "bars[0].label", contract: integer_exact}
        witness: {bbox: "bars[0]"}
        prompt: p
        """)
    write(r, "programs/bad/dup_id.yaml", """
        task: charts.bar_chart.extremum_label
        grammar: charts.bar_chart
        summary: s
        operations: [count]
        bucket: counting
        answer: {value: len(bars), contract: integer_exact}
        witness: {set: bars}
        prompt: p
        """)
    write(r, "programs/bad/extra_a.yaml", GOOD_TASK.format(name="a", literal=5))
    write(r, "programs/bad/extra_b.yaml", GOOD_TASK.format(name="b", literal=8))
    write(r, "grammars/bad/wrong_type.yaml", """
        grammar: shapes.wrong_type
        summary: s
        state:
          n: randint(1, 3)
        render:
          canvas: {width: big, height: 300}
          scene:
            marks: []
        """)
    write(r, "contracts/broken.yaml", "contract: broken\nsummary: [unclosed\n")
    with open(r / "taxonomy/taxonomy.yaml", "a") as f:
        f.write("  nowhere:\n    summary: nothing here yet\n    tasks: [nowhere.board.no_such_task]\n")

    assert diagnostics(r) == [
        "contracts/broken.yaml:3:1: error: YAML syntax: did not find expected ',' or ']' "
        "(while parsing a flow sequence)  [yaml-syntax]",
        "grammars/bad/wrong_type.yaml:6:19: error: expected an integer, got string 'big'  [value-type]",
        "programs/bad/extra_b.yaml:1:7: error: task 'charts.bar_chart.extra_b' duplicates task "
        "'charts.bar_chart.extra_a' (programs/bad/extra_a.yaml): same grammar, same program up to literal operands "
        "and names, same answer type and contract. Make the differing literal a query variable of one task instead  [duplicate-id]",
        "programs/bad/refs.yaml:2:10: error: task 'charts.bar_chart.refs' uses unknown grammar "
        f"'charts.no_such_grammar' (known: {known_grammars})  [unknown-ref]",
        "programs/bad/refs.yaml:6:38: error: task 'charts.bar_chart.refs' uses unknown contract 'no_such_contract' "
        f"(known: {known_contracts})  [unknown-ref]",
        "programs/bad/types.yaml:7:6: error: query variable 'k' is unbounded: give a list of values, "
        "{range: [lo, hi]}, or the name of a vocabulary (vocab.NAME)  [query-values]",
        "programs/bad/types.yaml:9:29: error: unknown field 'valu' (this record has: label, value)  [unknown-field]",
        "programs/bad/types.yaml:10:17: error: answer is string but contract 'integer_exact' (integer) expects integer  [answer-type]",
        "programs/bad/unknown_key.yaml:6:1: error: unknown key 'answr' (allowed here: task, grammar, summary, "
        "operations, bucket, query, functions, levels, compute, require, answer, witness, prompt)  [unknown-key]",
        # Files load in path order, so the bundled file is the second definition here.
        "programs/charts/bar_chart/extremum_label.yaml:1:7: error: duplicate task id "
        "'charts.bar_chart.extremum_label' (first defined at programs/bad/dup_id.yaml:1:7)  [duplicate-id]",
        f"taxonomy/taxonomy.yaml:{games_line}:13: error: taxonomy lists unknown task 'nowhere.board.no_such_task'  [unknown-ref]",
    ]


def test_missing_keys_and_bad_enums(fixture_lib, monkeypatch):
    monkeypatch.chdir(fixture_lib)
    write(fixture_lib, "programs/bad/missing.yaml", """
        task: charts.bar_chart.missing
        grammar: charts.bar_chart
        operations: [counting]
        bucket: vision
        answer: {value: len(bars), contract: integer_exact}
        witness: {box: bars}
        prompt: p
        """)
    got = diagnostics(fixture_lib)
    assert "programs/bad/missing.yaml:1:1: error: missing required key 'summary'  [missing-key]" in got
    assert any(m.startswith("programs/bad/missing.yaml:3:14: error: expected 'lookup', 'filter'") and
               m.endswith("got string 'counting'  [value-type]") for m in got)
    assert any(m.startswith("programs/bad/missing.yaml:4:9: error: expected 'spatial', 'math'") for m in got)
    assert any(m.startswith("programs/bad/missing.yaml:6:") and "got string 'box'" in m for m in got)


def test_unquoted_flow_expression_gets_a_hint(fixture_lib, monkeypatch):
    monkeypatch.chdir(fixture_lib)
    write(fixture_lib, "programs/bad/flow.yaml", """
        task: charts.bar_chart.flow
        grammar: charts.bar_chart
        summary: s
        operations: [count]
        bucket: counting
        answer: {value: count(bars, b -> b.value > 3), contract: integer_exact}
        witness: {set: bars}
        prompt: p
        """)
    got = diagnostics(fixture_lib)
    assert got == ["programs/bad/flow.yaml:6:29: error: unknown key 'b -> b.value > 3)' (allowed here: value, "
                   "contract); an expression with commas or colons inside {...} or [...] must be quoted  [unknown-key]"]


def test_unsatisfiable_grammar_names_the_constraint(fixture_lib, monkeypatch):
    from tessera.errors import SamplingFailed
    from tessera.trace.instance import generate

    monkeypatch.chdir(fixture_lib)
    path = fixture_lib / "grammars/charts/bar_chart.yaml"
    path.write_text(path.read_text().replace("render:", "require:\n  impossible: n > 100\nrender:"))
    tax = compile_taxonomy(fixture_lib)
    with pytest.raises(SamplingFailed, match=r"no state satisfied the constraints in 200 attempts "
                                             r"\(grammar:impossible ×200\)"):
        generate(tax.tasks["charts.bar_chart.value_difference"], 1, 0, vocab=tax.vocab)


def test_cli_reports_errors_without_traceback(fixture_lib):
    write(fixture_lib, "programs/bad/unknown_key.yaml", "task: charts.bar_chart.x\nfoo: [1\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "tessera.cli", "compile", str(fixture_lib)], capture_output=True,
                          text=True, env=env, cwd=fixture_lib)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "programs/bad/unknown_key.yaml:3:1: error: YAML syntax:" in proc.stderr
    assert proc.stderr.strip().endswith("1 error; nothing was compiled")


def test_templates_are_sandboxed(fixture_lib, monkeypatch):
    monkeypatch.chdir(fixture_lib)
    write(fixture_lib, "programs/bad/template.yaml", """
        task: charts.bar_chart.template
        grammar: charts.bar_chart
        summary: s
        operations: [count]
        bucket: counting
        answer: {value: len(bars), contract: integer_exact}
        witness: {set: bars}
        prompt: "{% for i in range(9) %}{{ bars.__class__ }}{% endfor %}{{ cycler }}"
        """)
    got = diagnostics(fixture_lib)
    known = "(known here: bars, labelled, n, step, top, topic, vocab)"
    assert got == [  # each at its token's column
        "programs/bad/template.yaml:8:13: error: templates may only print values, use if and filters; 'for' is not "
        "allowed  [not-allowed]",
        f"programs/bad/template.yaml:8:22: error: unknown name 'range' in template {known}  [unknown-name]",
        "programs/bad/template.yaml:8:27: error: templates may only print values, use if and filters; a call is not "
        "allowed  [not-allowed]",
        "programs/bad/template.yaml:8:41: error: template attribute '__class__' is not allowed  [not-allowed]",
        f"programs/bad/template.yaml:8:68: error: unknown name 'cycler' in template {known}  [unknown-name]",
    ]


def test_bundled_library_compiles_clean():
    tax = compile_taxonomy(ROOT)
    assert len(tax.domains) >= 2 and len(tax.grammars) >= 4 and len(tax.tasks) >= 12


def test_the_fixture_library_compiles_clean_without_warnings():
    """tests/data/fixture_lib is what the mistakes above are written into: it must compile clean on its own, or a test
    would assert an error the fixture made rather than the one it wrote (a language change must update it too)."""
    from tests.conftest import FIXTURE_LIB

    tax = compile_taxonomy(FIXTURE_LIB)
    assert tax.warnings == []
    assert sorted(tax.grammars) == ["charts.bar_chart", "icons.icon_tally"] and len(tax.tasks) == 4


def test_sampler_errors_are_counted_under_the_failing_step(fixture_lib, monkeypatch):
    from tessera.errors import SamplingFailed
    from tessera.trace.instance import generate

    monkeypatch.chdir(fixture_lib)
    path = fixture_lib / "grammars/charts/bar_chart.yaml"
    path.write_text(path.read_text().replace("  top: top_at_level", "  top: 10 // (n - n)"))
    tax = compile_taxonomy(fixture_lib)
    # The error names the operator's position (issue 9, class 4: run-time errors are positioned).
    with pytest.raises(SamplingFailed, match=r"\(grammar:error:top ×200\); last error: "
                                             r"grammars/charts/bar_chart\.yaml:14:11: division by zero"):
        generate(tax.tasks["charts.bar_chart.value_difference"], 1, 0, vocab=tax.vocab)


TALLY_TASK = """
task: icons.icon_tally.{name}
grammar: icons.icon_tally
summary: s
operations: [count]
bucket: counting
{query}
answer: {{value: "count(icons, i -> i.icon == featured)", contract: integer_exact}}
witness: {{set: icons}}
prompt: p
"""


def test_a_task_must_declare_the_inputs_its_grammar_reads(fixture_lib, monkeypatch):
    monkeypatch.chdir(fixture_lib)
    write(fixture_lib, "programs/bad/no_input.yaml", TALLY_TASK.format(name="no_input", query=""))
    write(fixture_lib, "programs/bad/str_input.yaml",
          TALLY_TASK.format(name="str_input", query="query:\n  target: [one, two]"))
    write(fixture_lib, "programs/bad/float_input.yaml",
          TALLY_TASK.format(name="float_input", query="query:\n  target: [1.5, 2]"))
    assert diagnostics(fixture_lib) == [
        "programs/bad/float_input.yaml:7:11: error: query variable 'target' holds number values, but grammar "
        "'icons.icon_tally' reads it as integer  [query-type]",
        "programs/bad/no_input.yaml:2:10: error: grammar 'icons.icon_tally' reads the query variable 'target' (integer), "
        "which task 'icons.icon_tally.no_input' does not set and which has no default: add it under query: "
        "(values: 1..9)  [query-type]",
        "programs/bad/str_input.yaml:7:11: error: query variable 'target' holds string values, but grammar "
        "'icons.icon_tally' reads it as integer  [query-type]",
    ]


def test_inputs_reach_the_state_and_replay(taxonomy):
    from tessera.trace.instance import generate
    from tessera.validate.replay import replay_trace

    task = taxonomy.tasks["icons.icon_tally.count_kind"]
    assert task.grammar.inputs == {"target": INT} and "target" not in task.grammar.schema
    for target in (1, 5, 9):
        inst = generate(task, 7, 4, query={"target": target}, vocab=taxonomy.vocab)
        assert inst.answer == target and inst.trace["attempts"] == 1  # built towards the answer, nothing rejected
        assert replay_trace(json.loads(json.dumps(inst.trace)), taxonomy).ok
    drawn = {generate(task, seed, 0, vocab=taxonomy.vocab).answer for seed in range(40)}
    assert drawn == set(range(1, 10))


def test_grammar_inputs_and_functions_errors(fixture_lib, monkeypatch):
    monkeypatch.chdir(fixture_lib)
    write(fixture_lib, "grammars/bad/inputs.yaml", """
        grammar: shapes.inputs
        summary: s
        inputs:
          level: integer
          pick: string
          size: huge
        functions:
          count: "x -> x"
          pi: "x -> x"
          spot: "p -> {x: p.x, y: p.y, k: later(p)}"
          later: "p -> 1"
          grow: "x -> x + n"
          twice: "x -> x + x"
        state:
          n: randint(1, 3)
          pick: "'a'"
          pi: 3.0
          bars: "[{label: pick, value: twice(i)} for i in range(n)]"
          oops: grow(1)
          bad: twice(bars[0])
        render:
          scene:
            use: bar_chart
            with: {items: bars, label: "b -> b.label", value: "b -> b.value", title: "{{ pick }} {{ twice }}"}
        """)
    # An unknown type word is reported with the grammar's other errors (it is checked with the grammar, not at
    # load), and the input is still bound, so what reads it is not reported as unknown too.
    with_size = [m for m in diagnostics(fixture_lib) if m.startswith("grammars/bad/")]
    (fixture_lib / "grammars/bad/inputs.yaml").write_text(
        (fixture_lib / "grammars/bad/inputs.yaml").read_text().replace("  size: huge\n", ""))
    got = diagnostics(fixture_lib)
    size = ("grammars/bad/inputs.yaml:6:9: error: input 'size': unknown type 'huge' (expected one of integer, number, "
            "string, boolean)  [value-type]")
    assert with_size[1] == size
    bad = [m for m in got if m.startswith("grammars/bad/")]
    # the same errors otherwise (a line further down each, after the 'size' line that is gone now)
    assert [m.split(": error: ")[1] for m in with_size if m != size] == [m.split(": error: ")[1] for m in bad]
    assert bad == [
        "grammars/bad/inputs.yaml:4:3: error: 'level' cannot name an input (reserved, a function, or not a "
        "name)  [reserved-name]",
        "grammars/bad/inputs.yaml:7:3: error: function 'count' would hide the builtin count(list, x -> bool); "
        "choose another name  [reserved-name]",
        "grammars/bad/inputs.yaml:8:3: error: 'pi' cannot name a function (reserved, taken, or not a name)  [reserved-name]",
        "grammars/bad/inputs.yaml:9:35: error: unknown function 'later' (did you mean letter, filter, "
        "scatter?)  [unknown-function]",
        "grammars/bad/inputs.yaml:11:19: error: unknown name 'n' in function 'grow' (known here: later, "
        "spot, vocab, x)  [unknown-name]",
        "grammars/bad/inputs.yaml:12:18: error: operator '+' needs numbers, got {label: string, value: integer} and "
        "{label: string, value: integer}  [type-mismatch]",
        "grammars/bad/inputs.yaml:15:3: error: 'pick' cannot name a state field (reserved, an input, a "
        "function, a levels parameter, or not a name)  [reserved-name]",
        "grammars/bad/inputs.yaml:16:3: error: 'pi' cannot name a state field (reserved, an input, a "
        "function, a levels parameter, or not a name)  [reserved-name]",
        "grammars/bad/inputs.yaml:18:9: error: function 'grow' does not type-check for arguments of types "
        "(integer); see the errors in its body  [type-mismatch]",
        "grammars/bad/inputs.yaml:19:8: error: function 'twice' does not type-check for arguments of types "
        "({label: string, value: integer}); see the errors in its body  [type-mismatch]",
        "grammars/bad/inputs.yaml:23:82: error: unknown name 'pick' in template (known here: bad, bars, "
        "canvas, n, oops, vocab)  [unknown-name]",
        "grammars/bad/inputs.yaml:23:93: error: 'twice' is a function; a template prints values (compute the "
        "value in a step and print the step)  [reserved-name]",
    ]


def test_program_functions_and_task_identity(fixture_lib, monkeypatch):
    monkeypatch.chdir(fixture_lib)
    program = """
        task: charts.bar_chart.{name}
        grammar: charts.bar_chart
        summary: s
        operations: [count]
        bucket: counting
        query:
          k: [2, 3]
        functions:
          {helper}: "(b, t) -> b.value > t * k"
          tall: "b -> {helper}(b, 2)"
        compute:
          hits: filter(bars, tall)
        answer: {{value: len(hits), contract: integer_exact}}
        witness: {{set: hits}}
        prompt: How many?
        """
    write(fixture_lib, "programs/bad/helper_a.yaml", program.format(name="helper_a", helper="over"))
    write(fixture_lib, "programs/bad/helper_b.yaml", program.format(name="helper_b", helper="exceeds"))
    got = diagnostics(fixture_lib)
    # Functions see no query variable (k), so both fail to compile; fix that, and they are one task.
    assert "programs/bad/helper_a.yaml:9:34: error: unknown name 'k' in function 'over' (known here: b, t, " \
           "vocab)  [unknown-name]" in got
    for name in ("helper_a", "helper_b"):
        path = fixture_lib / f"programs/bad/{name}.yaml"
        path.write_text(path.read_text().replace("t * k", "t * 3"))
    # A helper that differs in what it computes (not just in its name) makes a different task.
    write(fixture_lib, "programs/bad/helper_c.yaml",
          program.format(name="helper_c", helper="over").replace("t * k", "t - 3"))
    assert diagnostics(fixture_lib) == [
        "programs/bad/helper_b.yaml:1:7: error: task 'charts.bar_chart.helper_b' duplicates task "
        "'charts.bar_chart.helper_a' (programs/bad/helper_a.yaml): same grammar, same program up to literal operands "
        "and names, same answer type and contract. Make the differing literal a query variable of one task instead  [duplicate-id]",
    ]
