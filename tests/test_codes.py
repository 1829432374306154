"""Diagnostic codes (compiler/codes.py): every diagnostic carries a registered code, shown mypy-style at the end of
its line; the generated table in docs/diagnostics.md is fresh; --strict makes warnings errors."""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tessera.codes import CODES, markdown
from tessera.errors import Diagnostic, Diagnostics, Position

ROOT = Path(__file__).resolve().parent.parent


def test_docs_table_is_generated_from_the_registry():
    assert (ROOT / "docs" / "diagnostics.md").read_text() == markdown(), \
        "run: python -m compiler.codes > docs/diagnostics.md"


def test_a_diagnostic_line_ends_with_its_code_and_unknown_codes_are_refused():
    d = Diagnostics()
    d.error(Position("g.yaml", 3, 5), "unknown name 'x'", code="unknown-name")
    d.warning(Position("g.yaml", 1, 1), "pattern 'a.*' matches no task", code="pattern-unmatched")
    assert [str(x) for x in d.sorted()] == ["g.yaml:1:1: warning: pattern 'a.*' matches no task  [pattern-unmatched]",
                                            "g.yaml:3:5: error: unknown name 'x'  [unknown-name]"]
    with pytest.raises(ValueError, match="unknown diagnostic code 'no-such-code'"):
        Diagnostic(Position("g.yaml"), "m", "error", "no-such-code")
    with pytest.raises(TypeError):  # a code is required where a diagnostic is made
        d.error(Position("g.yaml"), "m")  # type: ignore[call-arg]


def test_every_call_site_in_the_compiler_names_a_registered_code():
    """Every `.error(...)`/`.warning(...)` that makes a diagnostic passes `code=` with a literal registered code (or
    forwards its own `code` parameter), so no diagnostic of any path can come out without one."""
    missing = []
    for path in sorted((ROOT / "compiler").rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("error", "warning") and len(node.args) >= 2):
                continue
            code = next((k.value for k in node.keywords if k.arg == "code"), None)
            if isinstance(code, ast.Constant) and code.value in CODES:
                continue
            if isinstance(code, ast.Name) and code.id == "code":
                continue
            missing.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert missing == []


def test_codes_are_kebab_case_with_a_known_stage_and_severity():
    for c in CODES.values():
        assert c.name.replace("-", "").isalpha() and c.name == c.name.lower(), c.name
        assert c.severity in ("error", "warning") and c.description


def _cli(root, *extra):
    import os
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TESSERA_CACHE_DIR": str(root / ".cache")}
    return subprocess.run([sys.executable, "-m", "tessera.cli", "compile", str(root), "--json", *extra],
                          capture_output=True, text=True, env=env, cwd=root)


def test_task_id_not_matching_its_path_is_a_warning_and_strict_makes_it_an_error(library_copy):
    """0.10.0 compiled a task filed under the wrong path silently; now it is warning task-id-path, shown and counted
    by `tessera compile`, and an error (exit 2) under --strict."""
    import json
    src = library_copy / "programs/charts/bar_chart/extremum_label.yaml"
    (library_copy / "programs/charts/misfiled.yaml").write_text(src.read_text())
    src.unlink()
    ok = _cli(library_copy)
    line = ("programs/charts/misfiled.yaml:1:7: warning: task id 'charts.bar_chart.extremum_label' does not match its "
            "file: expected it at programs/charts/bar_chart/extremum_label.yaml  [task-id-path]")
    assert ok.returncode == 0, ok.stderr
    assert line in ok.stderr.splitlines()
    assert json.loads(ok.stdout)["warnings"] == 1
    strict = _cli(library_copy, "--strict")
    assert strict.returncode == 2
    assert line.replace(": warning: ", ": error: ") in strict.stderr.splitlines()
    assert strict.stderr.strip().endswith("1 error; nothing was compiled")


def test_the_bundled_library_has_no_warnings(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "tessera.cli", "compile", str(ROOT), "--json", "--strict"],
                          capture_output=True, text=True, cwd=tmp_path,
                          env={**__import__("os").environ, "TESSERA_CACHE_DIR": str(tmp_path / "c")})
    assert proc.returncode == 0, proc.stderr


def _probe_with_query(tmp: Path, query: str, prompt: str) -> Path:
    from tests.conftest import probe_taxonomy

    probe_taxonomy(tmp)
    (tmp / "grammars/probe").mkdir(parents=True)
    (tmp / "grammars/probe/g.yaml").write_text(
        "grammar: probe.g\nsummary: Probe.\nstate:\n  n: randint(2, 5)\nrender:\n  canvas: {width: 200, height: 100}\n"
        "  scene:\n    marks:\n      - rect: {x: 10, y: 10, width: 20, height: 20}\n")
    (tmp / "programs/probe/g").mkdir(parents=True)
    (tmp / "programs/probe/g/count.yaml").write_text(
        f"task: probe.g.count\ngrammar: probe.g\nsummary: Count.\noperations: [count]\nbucket: counting\n"
        f"query:\n{query}\ncompute:\n  k: n\nanswer: {{value: k, contract: integer_exact}}\nwitness: {{scalar: k}}\n"
        f"prompt: {prompt}\n")
    return tmp


def test_an_unused_query_variable_is_a_warning_and_strict_makes_it_an_error(tmp_path):
    """0.10.0 compiled a query variable nothing reads silently (its values drew the same task again); now it is
    warning unused-query-var at the variable, and an error under --strict. A variable the prompt reads is used."""
    import json
    root = _probe_with_query(tmp_path / "a", "  unit: [cm, mm]\n  extra: [1, 2, 3]", "'How many, in {{ unit }}?'")
    ok = _cli(root)
    line = ("programs/probe/g/count.yaml:8:3: warning: query variable 'extra' is read by no step, requirement, answer, "
            "witness, prompt or grammar input: its 3 values multiply the query space and change nothing (remove it, "
            "or use it)  [unused-query-var]")
    assert ok.returncode == 0, ok.stderr
    assert line in ok.stderr.splitlines()
    assert json.loads(ok.stdout)["warnings"] == 1  # `unit` is read by the prompt
    strict = _cli(root, "--strict")
    assert strict.returncode == 2 and line.replace(": warning: ", ": error: ") in strict.stderr.splitlines()
    used = _cli(_probe_with_query(tmp_path / "b", "  extra: [1, 2, 3]", "'How many (hint {{ extra }})?'"))
    assert used.returncode == 0 and json.loads(used.stdout)["warnings"] == 0, used.stderr


def test_a_bare_colour_word_in_a_text_channel_is_an_error(tmp_path):
    """0.10.0 drew `text: red` as the word "red" silently (a bare colour word was a constant in every channel, which
    fill: red needs); then a warning. By the value rule a colour word is a listed word only in a colour channel, so
    in a text channel it is error color-word-text at the value (fill: red stays the colour). Quoted, it is meant."""
    import json
    from tests.conftest import probe_taxonomy

    def root(text: str) -> Path:
        tmp = tmp_path / str(len(list(tmp_path.iterdir())))
        tmp.mkdir()
        probe_taxonomy(tmp)
        (tmp / "grammars/probe").mkdir(parents=True)
        (tmp / "grammars/probe/g.yaml").write_text(
            "grammar: probe.g\nsummary: Probe.\nstate:\n  n: randint(2, 5)\nrender:\n  canvas: {width: 200, height: 100}\n"
            f"  scene:\n    marks:\n      - text: {{x: 10, y: 10, text: {text}, fill: red}}\n")
        (tmp / "programs/probe/g").mkdir(parents=True)
        (tmp / "programs/probe/g/count.yaml").write_text(
            "task: probe.g.count\ngrammar: probe.g\nsummary: Count.\noperations: [count]\nbucket: counting\n"
            "compute:\n  k: n\nanswer: {value: k, contract: integer_exact}\nwitness: {scalar: k}\nprompt: How many?\n")
        return tmp

    bare = _cli(root("red"))
    line = ("grammars/probe/g.yaml:9:36: error: 'text' is the bare colour word 'red', which is a word only in a colour "
            "channel; write \"'red'\" for the word, or the field or expression that holds the text  [color-word-text]")
    assert bare.returncode != 0 and line in bare.stderr.splitlines(), bare.stderr
    assert len([x for x in bare.stderr.splitlines() if "[color-word-text]" in x]) == 1  # fill: red is a colour
    quoted = _cli(root("\"'red'\""))
    assert quoted.returncode == 0 and json.loads(quoted.stdout)["warnings"] == 0, quoted.stderr
