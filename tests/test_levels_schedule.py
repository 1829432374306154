"""`levels:` (issue 25): named difficulty parameters, the only place `level` is read. Checked when compiling (nothing
random, a value at every level, no clash), readable as a schedule (`tessera levels`, level_schedule, the audit),
linted (level-no-effect), and lifted into the library by bench/rewrite_levels.py without changing any instance."""
import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import probe_taxonomy

ROOT = Path(__file__).resolve().parent.parent
G = "grammars/probe/g.yaml"
P = "programs/probe/g/count.yaml"
SCENE = "render:\n  canvas: {width: 200, height: 100}\n  scene:\n    marks:\n      - rect: {x: 10, y: 10, width: 20, height: 20}\n"
PROGRAM = ("task: probe.g.count\ngrammar: probe.g\nsummary: Count.\noperations: [count]\nbucket: counting\n{body}"
           "answer: {{value: k, contract: integer_exact}}\nwitness: {{scalar: k}}\nprompt: {prompt}\n")


def _root(tmp: Path, grammar_head: str, program_body: str = "compute:\n  k: n\n", prompt: str = "How many?") -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    probe_taxonomy(tmp)
    (tmp / "grammars/probe").mkdir(parents=True)
    (tmp / G).write_text(f"grammar: probe.g\nsummary: Probe.\n{grammar_head}{SCENE}")
    (tmp / "programs/probe/g").mkdir(parents=True)
    (tmp / P).write_text(PROGRAM.format(body=program_body, prompt=prompt))
    return tmp


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TESSERA_CACHE_DIR": str(root / ".cache")}
    return subprocess.run([sys.executable, "-m", "tessera.cli", *args], capture_output=True, text=True, env=env,
                          cwd=root)


def _errors(root: Path) -> list[str]:
    proc = _cli(root, "compile", str(root), "--json")
    assert proc.returncode == 2, proc.stderr
    return [line.replace(str(root) + "/", "") for line in proc.stderr.splitlines() if ": error: " in line]


def test_a_random_builtin_in_levels_is_refused_at_its_position(tmp_path):
    root = _root(tmp_path, "levels:\n  top: randint(1, 9) + level\nstate:\n  n: top\n")
    assert _errors(root) == [
        f"{G}:4:8: error: random function 'randint' is not allowed in `levels:` (a difficulty parameter is the same "
        f"for every instance of a level: nothing random)  [not-allowed]"]


def test_level_read_outside_levels_is_an_error_pointing_to_levels(tmp_path):
    """Before issue 25 `level` was read anywhere (state, requirements, steps, prompts); now it is bound only in
    `levels:`, and each read elsewhere is level-outside-levels at the name."""
    why = ("'level' is read only in `levels:`: declare a named difficulty parameter there (e.g. `levels: {top: 10 + "
           "5 * level}`) and read its name here  [level-outside-levels]")
    root = _root(tmp_path, "state:\n  n: randint(2, 5) + level\nrequire:\n  big: n > level\n",
                 "compute:\n  k: n * level\n", "\"How many{{ ' now' if level > 3 else '' }}?\"")
    assert _errors(root) == [f"{G}:4:22: error: {why}", f"{G}:6:12: error: {why}"]
    (root / G).write_text(f"grammar: probe.g\nsummary: Probe.\nstate:\n  n: randint(2, 5)\n{SCENE}")
    assert _errors(root) == [f"{P}:7:10: error: {why}", f"{P}:10:31: error: {why}"]


def test_a_parameter_failing_at_one_level_is_a_compile_error_naming_that_level(tmp_path):
    root = _root(tmp_path, "levels:\n  spread: 10 // (level - 4)\nstate:\n  n: spread\n")
    assert _errors(root) == [f"{G}:4:14: error: levels parameter 'spread' fails at level 4: division by zero (in "
                             f"`10 // (level - 4)`)  [level-value]"]


def test_a_parameter_cannot_share_a_name_with_the_state_or_an_input(tmp_path):
    root = _root(tmp_path, "inputs:\n  k: int\nlevels:\n  k: level\n  n: level\nstate:\n  n: 3\n",
                 "query:\n  k: [1, 2]\ncompute:\n  j: n\n")
    errors = _errors(root)
    assert f"{G}:6:3: error: 'k' cannot name a levels parameter (reserved, an input, a function, or not a name)  " \
           f"[reserved-name]" in errors
    assert f"{G}:9:3: error: 'n' cannot name a state field (reserved, an input, a function, a levels parameter, or " \
           f"not a name)  [reserved-name]" in errors


def test_a_parameter_that_never_changes_or_is_never_read_is_a_warning_and_strict_makes_it_an_error(tmp_path):
    root = _root(tmp_path, "levels:\n  flat: 3 + level * 0\n  unread: 2 * level\n  grows: 1 + level // 2\n"
                           "state:\n  n: randint(flat, flat + grows)\n")
    proc = _cli(root, "compile", str(root), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["warnings"] == 2
    lines = [line.replace(str(root) + "/", "") for line in proc.stderr.splitlines() if "[level-no-effect]" in line]
    assert lines == [
        f"{G}:4:3: warning: levels parameter 'flat' is 3 at every level 0-9: it never changes anything (make it "
        f"depend on the level, or write the constant where it is read)  [level-no-effect]",
        f"{G}:5:3: warning: levels parameter 'unread' is never read: nothing in this file changes with it  "
        f"[level-no-effect]"]
    strict = _cli(root, "compile", str(root), "--json", "--strict")
    assert strict.returncode == 2 and lines[0].replace(": warning: ", ": error: ") in \
        [line.replace(str(root) + "/", "") for line in strict.stderr.splitlines()]


def test_the_schedule_is_each_parameter_at_every_level(tmp_path):
    """The table, from the compiled grammar and task, from `tessera levels` and its JSON, against values computed
    here from the same formulas in Python."""
    from tessera.codegen.levels import level_schedule
    from tessera.taxonomy import compile_taxonomy

    root = _root(tmp_path, "levels:\n  bars: 3 + level // 3\n  pick: '[2, 4, 8][level // 4]'\n"
                           "  dense: level >= 5\n  twice: bars * 2\n  part: vocab.months[level]\n"
                           "state:\n  n: \"randint(bars, twice) + pick if dense else bars\"\n  m: part\n",
                 "levels:\n  extra: level * 0.5\ncompute:\n  k: n + extra\n")
    (root / P).write_text((root / P).read_text().replace("integer_exact", "number_tenth"))
    months = compile_taxonomy(root).vocab["months"]
    expected = {"bars": [3 + lv // 3 for lv in range(10)], "pick": [[2, 4, 8][lv // 4] for lv in range(10)],
                "dense": [lv >= 5 for lv in range(10)], "twice": [2 * (3 + lv // 3) for lv in range(10)],
                "part": [months[lv] for lv in range(10)]}
    tax = compile_taxonomy(root)
    assert tax.grammars["probe.g"].level_schedule == expected
    assert level_schedule(tax.tasks["probe.g.count"]) == {**expected, "extra": [lv * 0.5 for lv in range(10)]}
    proc = _cli(root, "levels", "probe.g.count", "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout) == {**expected, "extra": [lv * 0.5 for lv in range(10)]}
    table = _cli(root, "levels", "probe.g")
    assert table.returncode == 0, table.stderr
    row = next(line for line in table.stdout.splitlines() if "│ bars" in line)
    assert [c.strip() for c in row.strip("│").split("│")][1:] == [str(v) for v in expected["bars"]]
    # The state holds only its own fields: a parameter is not stored in the trace.
    from tessera.trace.instance import generate
    inst = generate(tax.tasks["probe.g.count"], 3, 6, vocab=tax.vocab)
    assert set(inst.trace["state"]) == {"n", "m"} and inst.trace["state"]["m"] == months[6]


# Recorded on main at 0bb9829 (before `levels:` existed) from the probe below written inline — `level` in the state,
# a step and the prompt — with the same seeds: png sha256 (16 hex), instance id, answer, the prompt's first line.
INLINE_BASELINE = {
    0: ["fce7e3b2aa735122", "82d75f5a7b03cf50472a9499", 6, "How many?"],
    4: ["17aa38d9dfc40207", "e9e95f75618f64cfd36d1e5c", 88, "How many in all?"],
    9: ["cb26aa51a1b124b4", "f60184ffdf3d06479529ab57", 165, "How many in all?"],
}
INLINE_GRAMMAR = """grammar: probe.g
summary: Probe.
state:
  n: randint(2 + level // 3, 4 + level // 2)
  top: 10 + 5 * level
  # labels at low levels, on half the pictures in the middle
  labelled: level < 3 or (level < 7 and randint(0, 1) == 0)
  xs: "[randint(1, top) for i in range(n)]"
render:
  canvas: {width: 200, height: 100}
  scene:
    marks:
      - rect: {x: 10, y: 10, width: "xs[0] + top", height: "20 if labelled else 30"}
"""
INLINE_PROGRAM = """task: probe.g.count
grammar: probe.g
summary: Count.
operations: [count]
bucket: counting
compute:
  k: "sum(xs) + (1 if level >= 5 else 0)"
  pick: sample(xs, min(n, 1 + level // 4))
answer: {value: k + len(pick), contract: integer_exact}
witness: {scalar: k}
prompt: "How many{{ ' in all' if level > 3 else '' }}?"
"""


def test_the_rewrite_lifts_level_into_levels_and_changes_no_instance(tmp_path):
    """bench/rewrite_levels.py on a probe written the old way: the expected text (names, layout, the comment kept),
    idempotent (--check finds nothing the second time), and the same pictures, ids, answers and prompts as the old
    compiler drew from the inline form (INLINE_BASELINE)."""
    import hashlib

    from tessera.taxonomy import compile_taxonomy
    from tessera.trace.instance import generate

    root = tmp_path / "lib"
    root.mkdir()
    probe_taxonomy(root)
    (root / "grammars/probe").mkdir(parents=True)
    (root / G).write_text(INLINE_GRAMMAR)
    (root / "programs/probe/g").mkdir(parents=True)
    (root / P).write_text(INLINE_PROGRAM)
    tool = [sys.executable, str(ROOT / "bench/rewrite_levels.py"), str(root)]
    assert subprocess.run(tool + ["--check"], capture_output=True).returncode == 1
    done = subprocess.run(tool, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == "lifted 8 level parameters in 2 files\n", done.stderr
    assert (root / G).read_text() == INLINE_GRAMMAR.replace("state:\n", (
        "levels:\n  n_lo: 2 + level // 3\n  n_hi: 4 + level // 2\n  top_at_level: 10 + 5 * level\n"
        "  labelled_1: level < 3\n  labelled_2: level < 7\nstate:\n")).replace(
        "randint(2 + level // 3, 4 + level // 2)", "randint(n_lo, n_hi)").replace(
        "top: 10 + 5 * level", "top: top_at_level").replace(
        "level < 3 or (level < 7 and", "labelled_1 or (labelled_2 and")
    assert (root / P).read_text() == INLINE_PROGRAM.replace(
        "(1 if level >= 5 else 0)", "k_1").replace("1 + level // 4", "pick_1").replace(
        "{{ ' in all' if level > 3 else '' }}", "{{ prompt_1 }}").replace("compute:\n", (
            "levels:\n  k_1: 1 if level >= 5 else 0\n  pick_1: 1 + level // 4\n"
            "  prompt_1: \"' in all' if level > 3 else ''\"\ncompute:\n"))
    again = subprocess.run(tool + ["--check"], capture_output=True, text=True)
    assert again.returncode == 0 and again.stdout == "would lift 0 level parameters in 0 files\n"
    tax = compile_taxonomy(root)
    for level, (png, instance_id, answer, first_line) in INLINE_BASELINE.items():
        inst = generate(tax.tasks["probe.g.count"], 11, level, vocab=tax.vocab)
        assert [hashlib.sha256(inst.png).hexdigest()[:16], inst.instance_id, inst.answer,
                inst.prompt.split("\n")[0]] == [png, instance_id, answer, first_line]


def test_the_bundled_library_reads_level_only_in_levels():
    proc = subprocess.run([sys.executable, str(ROOT / "bench/rewrite_levels.py"), "--check"], capture_output=True,
                          text=True)
    assert proc.returncode == 0 and proc.stdout == "would lift 0 level parameters in 0 files\n", proc.stdout


def test_the_audit_reads_each_tasks_schedule_from_the_library_that_built_it(tmp_path):
    """The audit's report holds a task's schedule when the library's grammar and program are the ones the build
    recorded (taxonomy.inputs in the manifest), a note for each parameter that never changes, and no schedule (a
    note why) when the task changed since the build."""
    from tessera.taxonomy import compile_taxonomy
    from tessera.validate.audit import level_schedules

    root = _root(tmp_path, "levels:\n  bars: 3 + level // 3\n  spare: 2 + level * 0\n"
                           "state:\n  n: randint(bars, bars + spare)\n")
    tax = compile_taxonomy(root)
    task = tax.tasks["probe.g.count"]
    built = {"program": task.spec_hash, "grammar": task.grammar.spec_hash}
    schedules, notes = level_schedules({"taxonomy": {"inputs": {"probe.g.count": built}}}, ["probe.g.count"], tax)
    assert schedules == {"probe.g.count": {"bars": [3, 3, 3, 4, 4, 4, 5, 5, 5, 6], "spare": [2] * 10}}
    assert notes == ["probe.g.count: levels parameter 'spare' is 2 at every level (it never changes anything)"]
    stale = {"taxonomy": {"inputs": {"probe.g.count": {**built, "program": "0" * 64}}}}
    assert level_schedules(stale, ["probe.g.count"], tax) == (
        {"probe.g.count": None},
        ["probe.g.count: its grammar or program changed in the library since the build; schedule not shown"])
    assert level_schedules({}, ["other.t.t"], tax) == ({"other.t.t": None}, [])
