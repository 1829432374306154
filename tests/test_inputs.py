"""Grammar inputs with type, values and default (issue 25): a task's query value outside an input's values is an
error in the task's file, an input a task leaves out takes its default exactly as if the task had pinned it, the
type words before 0.11 are refused with the new word, and a literal compared with a variable that never takes it
is a warning (an error under --strict). Each test builds a small probe library (tests/conftest.py)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tessera.errors import CompileFailed
from tessera.taxonomy import compile_taxonomy, open_taxonomy
from tessera.trace.instance import generate
from tests.conftest import probe_taxonomy

ROOT = Path(__file__).resolve().parent.parent

GRAMMAR = """grammar: probe.g
summary: Probe.
inputs:
  unknown: {type: string, values: [none, mass, distance], default: none}
  least: {type: integer, values: {range: [1, 3]}, default: 2}
state:
  n: randint(least, 6)
  items: "[{x: 10 + 25 * i, y: 40 + (10 if unknown == 'mass' else 0)} for i in range(n)]"
render:
  canvas: {width: 200, height: 100}
  scene:
    marks:
      - circle: {each: items, as: b, x: b.x, y: b.y, r: 6}
"""


def program(name: str, query: str = "", compute: str = "  k: len(items)", prompt: str = "How many circles?") -> str:
    return (f"task: probe.g.{name}\ngrammar: probe.g\nsummary: Count.\noperations: [count]\nbucket: counting\n"
            f"{query}compute:\n{compute}\nanswer: {{value: k, contract: integer_exact}}\nwitness: {{scalar: k}}\n"
            f"prompt: {prompt}\n")


def library(tmp: Path, grammar: str = GRAMMAR, **programs: str) -> Path:
    probe_taxonomy(tmp)
    (tmp / "grammars/probe").mkdir(parents=True)
    (tmp / "grammars/probe/g.yaml").write_text(grammar)
    (tmp / "programs/probe/g").mkdir(parents=True)
    for name, text in programs.items():
        (tmp / f"programs/probe/g/{name}.yaml").write_text(text)
    return tmp


def errors(root: Path) -> list[str]:
    with pytest.raises(CompileFailed) as info:
        compile_taxonomy(root)
    return [str(d).removeprefix(f"{root}/") for d in info.value.diagnostics.sorted() if d.severity == "error"]


def cli(root: Path, *extra: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TESSERA_CACHE_DIR": str(root / ".cache")}
    return subprocess.run([sys.executable, "-m", "tessera.cli", "compile", str(root), "--json", *extra],
                          capture_output=True, text=True, env=env, cwd=root)


def test_a_query_value_outside_the_inputs_values_is_an_error_at_the_literal(tmp_path):
    """0.10 checked a task's input values for their type only: `unknown: [distanse]` compiled and drew a scene that
    asks about nothing. Now it is error input-value at the literal in the program file, listing the values."""
    root = library(tmp_path, typo=program("typo", "query:\n  unknown: [mass, distanse]\n"),
                   wide=program("wide", "query:\n  least: {range: [2, 5]}\n"))
    assert errors(root) == [
        "programs/probe/g/typo.yaml:7:19: error: query variable 'unknown': 'distanse' is not a value of grammar "
        "'probe.g''s input 'unknown' (its values: none, mass, distance)  [input-value]",
        "programs/probe/g/wide.yaml:7:22: error: query variable 'least': 5 is not a value of grammar 'probe.g''s "
        "input 'least' (its values: 1..3)  [input-value]",
    ]


def test_an_input_left_out_takes_its_default_exactly_as_if_pinned(tmp_path):
    """A task that does not set an input gets its default: the same query, answer, trace (task hash included) and
    image bytes as the task that pins the default, so the rewrite that dropped such lines changed no instance."""
    pinned = program("count", "query:\n  unknown: [none]\n  least: [2]\n")
    left_out = program("count")
    tasks = {}
    for name, text in (("pinned", pinned), ("left_out", left_out)):
        tax = compile_taxonomy(library(tmp_path / name, count=text))
        tasks[name] = (tax, tax.tasks["probe.g.count"])
    assert tasks["left_out"][1].queries == {"unknown": ["none"], "least": [2]}
    # what `tessera list` and build selection read from the headers, nothing compiled, says the same
    assert open_taxonomy(tmp_path / "left_out").info("probe.g.count").queries == {"unknown": ["none"], "least": [2]}
    for seed in range(3):
        a, b = (generate(task, seed, 3, vocab=tax.vocab) for tax, task in tasks.values())
        assert a.png == b.png and a.answer == b.answer and a.prompt == b.prompt
        assert json.dumps(a.trace, sort_keys=True) == json.dumps(b.trace, sort_keys=True)
        assert a.trace["query"] == {"unknown": "none", "least": 2}
    # and the default is what the state reads: a task pinning another value draws another scene
    other = compile_taxonomy(library(tmp_path / "other", count=program("count", "query:\n  least: [3]\n")))
    assert {generate(other.tasks["probe.g.count"], s, 3, vocab=other.vocab).answer for s in range(12)} <= {3, 4, 5, 6}


def test_an_input_with_no_default_must_be_set(tmp_path):
    grammar = GRAMMAR.replace(", default: none}", "}")
    root = library(tmp_path, count=program("count"))
    (root / "grammars/probe/g.yaml").write_text(grammar)
    assert errors(root) == [
        "programs/probe/g/count.yaml:2:10: error: grammar 'probe.g' reads the query variable 'unknown' (string), which "
        "task 'probe.g.count' does not set and which has no default: add it under query: (values: none, mass, "
        "distance)  [query-type]",
    ]


def test_old_type_words_name_the_new_word(tmp_path):
    grammar = GRAMMAR.replace("{type: string, values: [none, mass, distance], default: none}", "str").replace(
        "type: integer", "type: int")
    root = library(tmp_path, grammar, count=program("count", "query:\n  unknown: [none]\n"))
    assert [e for e in errors(root) if e.startswith("grammars/")] == [
        "grammars/probe/g.yaml:4:12: error: input 'unknown': 'str' is the old type word; write 'string' (types: "
        "integer, number, string, boolean)  [old-type-word]",
        "grammars/probe/g.yaml:5:17: error: input 'least': 'int' is the old type word; write 'integer' (types: "
        "integer, number, string, boolean)  [old-type-word]",
    ]


def test_a_default_outside_the_values_or_of_another_type_is_an_error(tmp_path):
    grammar = GRAMMAR.replace("default: none}", "default: nothing}").replace("default: 2}", "default: '2'}")
    root = library(tmp_path, grammar, count=program("count"))
    assert [e for e in errors(root) if e.startswith("grammars/")] == [
        "grammars/probe/g.yaml:4:68: error: input 'unknown': default 'nothing' is not one of its values (none, mass, "
        "distance)  [input-value]",
        "grammars/probe/g.yaml:5:60: error: input 'least' is integer, but its default '2' is not  [value-type]",
    ]


def test_a_literal_outside_a_variables_values_is_a_warning_and_strict_makes_it_an_error(tmp_path):
    """0.10 compiled `unknown == 'distanse'` silently (the branch never runs). Now every literal compared with a
    query variable or an input of known values, in a step, requirement, answer, witness, prompt condition or the
    grammar's state, is warning query-literal-outside at the literal; --strict makes it an error."""
    grammar = GRAMMAR.replace("(10 if unknown == 'mass' else 0)", "(10 if unknown == 'mas' else 0)")
    compute = ("  k: \"len(items) if unknown in ['none', 'distanse'] else 0\"\n"
               "  j: \"map(['a', 'b'], unknown -> unknown == 'zzz')\"")  # a lambda's own `unknown` is not the input
    prompt = "\"How many{% if unit == 'inches' %} (inches){% endif %}?\""
    root = library(tmp_path, grammar, count=program("count", "query:\n  unit: [cm, mm]\n", compute, prompt))
    ok = cli(root)
    lines = [
        "grammars/probe/g.yaml:8:55: warning: 'mas' is none of the values of 'unknown' (none, mass, distance): "
        "`unknown == 'mas'` is always false  [query-literal-outside]",
        "programs/probe/g/count.yaml:9:41: warning: 'distanse' is none of the values of 'unknown' (none): "
        "`unknown in [..., 'distanse', ...]` is always false  [query-literal-outside]",
        "programs/probe/g/count.yaml:13:32: warning: 'inches' is none of the values of 'unit' (cm, mm): "
        "`unit == 'inches'` is always false  [query-literal-outside]",
    ]
    assert ok.returncode == 0, ok.stderr
    assert [line for line in ok.stderr.splitlines() if "warning:" in line] == lines
    assert json.loads(ok.stdout)["warnings"] == 3
    strict = cli(root, "--strict")
    assert strict.returncode == 2
    assert [line for line in strict.stderr.splitlines() if "query-literal-outside" in line] == \
        [line.replace(": warning: ", ": error: ") for line in lines]


def test_the_rewrite_tool_moves_a_library_to_the_long_form_once(tmp_path):
    """bench/rewrite_inputs.py: short-form inputs become the long form (values from the comment and the programs,
    default the most pinned value), the lines pinning the default go, and a second run changes nothing."""
    grammar = GRAMMAR.replace("{type: string, values: [none, mass, distance], default: none}",
                              "str    # none | mass (a '?' weight) | distance").replace(
        "{type: integer, values: {range: [1, 3]}, default: 2}", "int")
    root = library(tmp_path, grammar,
                   a=program("a", "query:\n  unknown: [mass]  # read by the grammar\n  least: [2]\n"),
                   b=program("b", "query:\n  unknown: [mass]\n  least: {range: [1, 3]}\n", "  k: n"),
                   c=program("c", "query:\n  unknown: [distance]\n  least: [2]\n", "  k: len(items) * n"))
    tool = [sys.executable, str(ROOT / "bench/rewrite_inputs.py"), str(root)]
    assert subprocess.run([*tool, "--check"], capture_output=True).returncode == 1
    assert subprocess.run(tool, capture_output=True).returncode == 0
    text = (root / "grammars/probe/g.yaml").read_text()
    assert ("inputs:\n  unknown:\n    type: string\n    values: [none, mass, distance]\n    default: mass\n"
            "    summary: \"none | mass (a '?' weight) | distance\"\n"
            "  least: {type: integer, values: {range: [1, 3]}, default: 2}\nstate:") in text
    assert "query:" not in (root / "programs/probe/g/a.yaml").read_text()
    assert "query:\n  least: {range: [1, 3]}\ncompute:" in (root / "programs/probe/g/b.yaml").read_text()
    assert "query:\n  unknown: [distance]\ncompute:" in (root / "programs/probe/g/c.yaml").read_text()
    assert subprocess.run([*tool, "--check"], capture_output=True).returncode == 0
    compile_taxonomy(root)  # the output compiles


def test_the_bundled_library_is_rewritten():
    proc = subprocess.run([sys.executable, str(ROOT / "bench/rewrite_inputs.py"), "--check"], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stdout
