"""Issue 9, class 4: the evaluation budget covers every operation.

Every operator and builtin charges steps as it works (in proportion to its work), the budget bounds bytes as well as
counts, numbers are checked where they arise (integer bound, finite, real) with the position of the operator or call,
`**` is typed soundly, value nesting is bounded at compile time, and one `sample` ends after a bounded total of work
with a message naming the constraint that keeps failing. Each test is about ending: nothing here may hang.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tessera.errors import CompileFailed, Diagnostics, EvalError, SamplingFailed
from tessera.expr.compile import (
    MAX_BYTES,
    MAX_INT,
    MAX_STEPS,
    MAX_VALUE_DEPTH,
    Budget,
    Scope,
    Site,
    check_value,
    compile_expr,
    new_env,
    run,
)
from tessera.expr.types import FLOAT, INT, STR, ListT, record
from tessera.sample.rng import Rng
from tessera.sample.state import MAX_SAMPLE_STEPS, SampleWork
from tessera.taxonomy import compile_taxonomy
from tessera.trace.instance import generate
from tests.conftest import ROOT, probe_taxonomy

BIG = MAX_INT - 1  # the largest integer a value may hold
SCOPE = Scope({"level": INT, "word": STR, "n": INT, "huge": INT, "xs": ListT(INT),
               "pts": ListT(record(x=FLOAT, y=FLOAT)),
               "cells": ListT(record(row=INT, col=INT, v=INT))}, allow_random=True)
VALUES = {"level": 2, "word": "abc", "n": 5, "huge": 2**70, "xs": list(range(100)),
          "pts": [{"x": 1e308, "y": 0.0}, {"x": -1e308, "y": 0.0}],
          "cells": [{"row": r, "col": c, "v": 1} for r in range(30) for c in range(30)]}


def compiled(src: str):
    d = Diagnostics()
    c = compile_expr(src, SCOPE, Site(None, (), "e.yaml"), d)
    assert c is not None, [str(x) for x in d.items]
    return c


def evaluate(src: str, budget: Budget | None = None):
    """(value, steps used) of one evaluation."""
    c = compiled(src)
    env = new_env(VALUES, Rng(1), budget)
    value = run(c, env)
    return value, env["$budget"].used


def failure(src: str, budget: Budget | None = None) -> str:
    c = compiled(src)
    with pytest.raises(EvalError) as info:
        run(c, new_env(VALUES, Rng(1), budget))
    return str(info.value)


# -- the integer bound holds for every operator ------------------------------------------------------------------
@pytest.mark.parametrize("src,position,what", [
    (f"{BIG} + {BIG}", "e.yaml:1:21", "+"),
    (f"0 - {BIG} - {BIG}", "e.yaml:1:25", "-"),
    (f"{BIG} * 2", "e.yaml:1:21", "*"),
    (f"sum([{BIG}, {BIG}])", "e.yaml:1:1", "sum()"),
    ("sum(xs, x -> x * 46116860184273879)", "e.yaml:1:1", "sum()"),
    ("floor(1e300)", "e.yaml:1:1", "floor()"),
    ("ceil(0 - 1e300)", "e.yaml:1:1", "ceil()"),
    ("round(1e300)", "e.yaml:1:1", "round()"),
    ("int(1e300)", "e.yaml:1:1", "int("),
    (f"steps([0 - {BIG}, {BIG}])", "e.yaml:1:1", "steps()"),
    (f"translate({{x: {BIG}, y: 0}}, {BIG}, 0)", "e.yaml:1:1", "translate()"),
])
def test_integer_overflow_is_a_positioned_error_for_every_operator(src, position, what):
    message = failure(src)
    assert message.startswith(f"{position}: integer overflow: "), message
    assert what in message and f"is outside ±{MAX_INT}" in message and message.endswith(f"(in `{src}`)")


def test_randint_never_sees_a_bound_it_cannot_draw_from():
    # Before, `+` let 2^63 through and randint looped forever; now the sum fails where it arises...
    assert failure(f"randint(0, {BIG} + {BIG})").startswith("e.yaml:1:32: integer overflow")
    # ...a bound from outside the operators (a query, a state) is refused by randint itself...
    assert failure("randint(0, huge)").startswith(f"e.yaml:1:1: randint() bounds must lie within ±{MAX_INT}")
    # ...and the generator refuses a range no 64-bit draw can cover instead of drawing forever.
    with pytest.raises(ValueError, match="cannot draw below"):
        Rng(1).below(2**64 + 1)
    assert 0 <= Rng(1).below(2**64) < 2**64
    assert evaluate(f"randint(0 - {BIG}, {BIG})")[0] == evaluate(f"randint(0 - {BIG}, {BIG})")[0]


# -- non-finite and complex numbers are refused where they arise -----------------------------------------------
@pytest.mark.parametrize("src,message", [
    ("0 - 1e308 - 1e308", "e.yaml:1:11: -1e+308 - 1e+308 gives -inf, not a finite number"),
    ("1e308 * 10 - 1e308", "e.yaml:1:7: 1e+308 * 10 gives inf, not a finite number"),
    ("1e300 ** 2", "e.yaml:1:7: power failed: 1e+300 ** 2 is too large"),
    ("0.0 ** (0 - 1)", "e.yaml:1:5: power failed: 0.0 ** -1 divides by zero"),
    ("(0 - 8.0) ** 0.5", "e.yaml:1:11: power failed: -8.0 ** 0.5 is not a real number"),
    ("(0 - 8) ** 0.5", "e.yaml:1:9: power failed: -8 ** 0.5 is not a real number"),
    ("mean([1e308, 1e308])", "e.yaml:1:1: mean() gives inf, not a finite number"),
    ("median([1e308, 1e308])", "e.yaml:1:1: median() gives inf, not a finite number"),
    ("sum([1e308, 1e308])", "e.yaml:1:1: sum() gives inf, not a finite number"),
    ("distance(pts[0], pts[1])", "e.yaml:1:1: distance() gives inf, not a finite number"),
    ("exp(1000)", "e.yaml:1:1: exp(1000) is too large"),
    ("sqrt(0 - 1)", "e.yaml:1:1: sqrt(-1) is undefined: needs x ≥ 0"),
    ("steps([0 - 1e308, 1e308])", "e.yaml:1:1: steps() gives inf, not a finite number"),
    ("polygon_area([{x: 1e200, y: 0.0}, {x: 0.0, y: 1e200}, {x: 0.0 - 1e200, y: 0.0 - 1e200}])",
     "e.yaml:1:1: polygon_area() gives inf, not a finite number"),
])
def test_non_finite_numbers_are_positioned_errors(src, message):
    got = failure(src)
    assert got.startswith(message), got
    assert got.endswith(f"(in `{src}`)")


def test_uniform_over_a_range_too_wide_for_floats_is_refused():
    # hi - lo overflows to inf, so the draw is inf or nan: never returned.
    assert "uniform() gives" in failure("uniform(0 - 1.7e308, 1.7e308)")


def test_nothing_non_finite_or_non_data_can_be_stored():
    budget = Budget()
    for bad, fragment in [(float("inf"), "gives inf"), (float("nan"), "gives nan"), ([1, [2.0, float("-inf")]], "-inf"),
                          ({"a": 2**63}, "integer overflow"), (1j, "complex, which is not data"),
                          (object(), "object, which is not data")]:
        with pytest.raises(EvalError, match=re.escape(fragment)):
            check_value(bad, budget, "g.yaml:3:5: state field 'x'")
    assert check_value({"a": [1, 2.5, "s", True]}, budget, "x") == {"a": [1, 2.5, "s", True]}


@pytest.mark.parametrize("number", [float("inf"), float("-inf"), float("nan")])
def test_a_non_finite_yaml_number_does_not_compile(number):
    d = Diagnostics()
    assert compile_expr(number, SCOPE, Site(None, (), "e.yaml"), d) is None
    assert [str(x) for x in d.items] == [f"e.yaml:1:1: error: a number must be finite, got {number}  [type-mismatch]"]


# -- ** is typed soundly ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("src,typ,value", [
    ("2 ** 10", "integer", 1024),
    ("2 ** (3)", "integer", 8),
    ("level ** 2", "integer", 4),
    ("2 ** 0", "integer", 1),
    ("2 ** -1", "number", 0.5),
    ("2 ** (0 - 2)", "number", 0.25),
    ("2 ** level", "number", 4.0),
    ("n ** level", "number", 25.0),
    ("2.0 ** 2", "number", 4.0),
    ("4 ** 0.5", "number", 2.0),
])
def test_power_type_and_value_agree(src, typ, value):
    c = compiled(src)
    v = run(c, new_env(VALUES, Rng(1)))
    assert str(c.type) == typ and v == value
    assert isinstance(v, int if typ == "integer" else float)


def test_power_of_a_negative_exponent_cannot_pass_as_an_int():
    # An int-typed result is needed here (a list index); `2 ** -1` is a float, so this is a compile error now.
    d = Diagnostics()
    assert compile_expr("xs[2 ** -1]", SCOPE, Site(None, (), "e.yaml"), d) is None
    assert [str(x) for x in d.items] == ["e.yaml:1:4: error: a list index must be integer, got number  [type-mismatch]"]


# -- every operation charges as it works -------------------------------------------------------------------------
@pytest.mark.parametrize("src,steps", [
    ("[1, 2, 3] == [1, 2, 3]", 1 + 3),
    ("[[1, 2], [3, 4]] == [[1, 2], [3, 4]]", 1 + 2 + 2 + 2),
    ("{a: [1, 2]} != {a: [1, 2]}", 1 + 1 + 2),
    ("2 in [1, 2, 3]", 3 + 1),
    ("[2] in [[1], [2]]", 2 + 1 + (1 + 1) + (1 + 1)),
    ("'b' in word", 1),
    ("1 + 2 * 3", 2),
    ("level < 3", 1),
    ("len(sort(range(1024)))", 1024 + 1024 * 11),
    ("len(reverse(range(50)))", 50 + 50),
    ("len(consecutive(range(50)))", 50 + 50),
    ("index(range(40), 39)", 40 + 40 + 40),  # range(), the scan, and one comparison per item
])
def test_operators_charge_in_proportion_to_their_work(src, steps):
    assert evaluate(src)[1] == steps


def test_equality_and_membership_on_big_lists_hit_the_budget():
    # 1,000 pairs of distinct but equal 5,000-item lists: 5M item comparisons, free before.
    src = "let r = range(5000), s = range(5000) in [r for i in range(1000)] == [s for i in range(1000)]"
    # (the error names the expression that ran out: e.yaml:1:1)
    assert failure(src).startswith(f"e.yaml:1:1: expression evaluation exceeded {MAX_STEPS} steps")
    assert failure("count(range(1000), i -> (i + 10000) in range(10000))").startswith(
        f"e.yaml:1:1: expression evaluation exceeded {MAX_STEPS} steps")
    assert failure("len(unique([range(5000) for i in range(500)]))").startswith("e.yaml:1:1: expression evaluation "
                                                                                "exceeded")


def test_lambdas_and_comprehensions_charge_their_bodies():
    cheap = evaluate("count(range(100), x -> x > 0)")[1]
    dear = evaluate("count(range(100), x -> x > 0 and x + 1 > 0 and x + 2 > 0 and x + 3 > 0)")[1]
    assert dear - cheap >= 100 * 9  # nine more nodes per call
    assert evaluate("len([x for x in range(100)])")[1] == 100 * 2 + 100  # the element's nodes, and range()
    # Per item 1 + the filter's 7 nodes + the element's 1, up front; range(); then the comparisons that ran.
    assert evaluate("len([x for x in range(100) if x > 0 and x < 50])")[1] == 100 * (1 + 7 + 1) + 100 + 100 + 99


def test_scatter_charges_inside_its_loop():
    # 400 points 0.3 apart never fit: the tries stop at the budget, not after 120,300 of them.
    assert failure("scatter(400, 0.3)", Budget(10_000)) == \
        "e.yaml:1:1: expression evaluation exceeded 10000 steps (in `scatter(400, 0.3)`)"
    _, used = evaluate("scatter(10, 0.01)")
    assert used >= 10 * 11 / 2  # each try measures against every point placed so far


@pytest.mark.parametrize("src,at_least", [
    ("len(path_edges([{a: i, b: i + 1} for i in range(300)], range(301)))", 300 * 300),  # each step scans the edges
    ("shortest_path_length([{a: i, b: i + 1} for i in range(500)], 0, 500)", 500 * 2),
    ("len(regions(cells, c -> c.v))", 900 * 2),  # flood fill: per cell as it is reached
    ("depth([{id: i, parent: i - 1} for i in range(300)], 299)", 300 * 2),  # walking the chain to the root
    ("tree_height([{id: i, parent: i - 1} for i in range(300)])", 300 * 299 / 2),
    ("len(grid_rows(cells))", 900 * 10),
    ("len(order_around(pts))", 2 * 2),
    ("len(interior_angles([{x: 0.0, y: 0.0}, {x: 1.0, y: 0.0}, {x: 1.0, y: 1.0}, {x: 0.0, y: 1.0}]))", 16),
])
def test_library_operations_charge_at_least_their_work(src, at_least):
    assert evaluate(src)[1] >= at_least


def test_searches_end_at_a_small_budget():
    # The same searches with a budget far below their work stop inside their loops.
    for src in ("len(path_edges([{a: i, b: i + 1} for i in range(300)], range(301)))",
                "len(regions(cells, c -> c.v))", "tree_height([{id: i, parent: i - 1} for i in range(300)])"):
        assert evaluate(src)[1] > 3_000
        assert "exceeded 3000 steps" in failure(src, Budget(3_000))


# -- bytes, not only counts -------------------------------------------------------------------------------------
def test_strings_built_count_against_the_byte_budget():
    big = "let s = join(map(range(1000), x -> 'abcd'), '') in "
    assert evaluate(big + "len(s + s)")[0] == 8000
    msg = failure(big + "len([s + str(x) for x in range(3000)])")  # 3,000 distinct strings of 4,000+ characters
    assert msg.startswith(f"e.yaml:1:1: expressions built more than {MAX_BYTES} bytes of strings and list items")


@pytest.mark.parametrize("src,message", [
    ("join(map(range(3000), x -> 'abcd'), '')", "e.yaml:1:1: join() would make a string of 12000 characters"),
    ("let s = join(map(range(1000), x -> 'abcdefg'), '') in s + s", "e.yaml:1:57: '+' would make a string of 14000"),
    ("len(range(6000) + range(6000))", "e.yaml:1:17: '+' would make a list of 12000 items"),
])
def test_strings_and_lists_are_measured_before_they_are_built(src, message):
    assert failure(src).startswith(message)


def test_a_stored_value_is_charged_for_every_item_it_holds():
    # 1,000 references to one 10,000-item list: cheap to build, 10M items to store or serialise.
    c = compiled("let r = range(10000) in [r for i in range(1000)]")
    env = new_env(VALUES, Rng(1))
    value = run(c, env)
    with pytest.raises(EvalError, match="exceeded|more than"):
        check_value(value, env["$budget"], "state field 'm'")


# -- deep chains --------------------------------------------------------------------------------------------------
def test_deep_values_are_refused_without_recursion():
    deep: list = [1]
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(EvalError, match=f"nests lists and records more than {MAX_VALUE_DEPTH} levels deep"):
        check_value(deep, Budget(), "g.yaml:2:3: state field 'x'")


# -- a small library to sample from -----------------------------------------------------------------------------
def probe_root(tmp: Path, state: dict, require: dict | None = None, compute: dict | None = None,
               task_require: dict | None = None, max_attempts: int = 10_000) -> Path:
    """A library with one grammar (the given state, a bar chart of three fruits) and one task on it."""
    probe_taxonomy(tmp)

    def block(key: str, entries: dict | None) -> list[str]:
        return [f"{key}:"] + [f"  {k}: {json.dumps(v)}" for k, v in entries.items()] if entries else []

    bars = "[{label: f, value: randint(1, 9)} for f in sample(vocab.fruits, 3)]"
    grammar = ["grammar: probe.g", "summary: Probe.", f"max_attempts: {max_attempts}",
               *block("state", {**state, "bars": bars}), *block("require", require),
               "render:", "  canvas: {width: 512, height: 384}", "  scene:", "    use: bar_chart",
               '    with: {items: bars, label: "b -> b.label", value: "b -> b.value", title: "T"}']
    program = ["task: probe.g.count", "grammar: probe.g", "summary: Count bars.", "operations: [count]",
               "bucket: counting", *block("compute", {"k": "len(bars)", **(compute or {})}),
               *block("require", task_require), "answer: {value: k, contract: integer_exact}",
               "witness: {set: bars}", "prompt: How many bars?"]
    for folder, name, lines in (("grammars", "g.yaml", grammar), ("programs", "g/count.yaml", program)):
        (tmp / folder / "probe" / name).parent.mkdir(parents=True, exist_ok=True)  # a task's file is named by its id
        (tmp / folder / "probe" / name).write_text("\n".join(lines) + "\n")
    return tmp


def test_chained_steps_sample_without_recursion(tmp_path):
    # The loader allows 256 keys in one mapping, so a chain is at most 256 state fields long.
    state = {"s0": 1, **{f"s{i}": f"s{i - 1} + 1" for i in range(1, 250)}}
    tax = compile_taxonomy(probe_root(tmp_path, state))
    inst = generate(tax.tasks["probe.g.count"], 1, 0, vocab=tax.vocab)
    assert inst.trace["state"]["s249"] == 250 and inst.answer == 3


def test_twelve_hundred_chained_steps_are_refused_where_the_mapping_grows_too_large(tmp_path):
    state = {"s0": 1, **{f"s{i}": f"s{i - 1} + 1" for i in range(1, 1200)}}
    with pytest.raises(CompileFailed) as info:
        compile_taxonomy(probe_root(tmp_path, state))
    text = (tmp_path / "grammars/probe/g.yaml").read_text().splitlines()
    line = next(i for i, t in enumerate(text, 1) if t.strip().startswith("s256:"))  # the 257th key of `state`
    assert str(info.value).splitlines()[0] == (f"{tmp_path}/grammars/probe/g.yaml:{line}:3: error: mapping has more "
                                               f"than 256 keys; the limit for one mapping in an authoring file is 256  [bound]")


def test_chained_steps_that_nest_values_are_a_compile_error(tmp_path):
    state = {"s0": 1, **{f"s{i}": f"[s{i - 1}]" for i in range(1, 250)}}
    with pytest.raises(CompileFailed) as info:
        compile_taxonomy(probe_root(tmp_path, state))
    lines = str(info.value).splitlines()
    # s17 is the first field deeper than the limit (16); the fields after it are not compiled on its unknown type.
    assert lines[0] == (f"{tmp_path}/grammars/probe/g.yaml:22:9: error: 's17' holds lists and records nested 17 "
                        f"levels deep; the limit is {MAX_VALUE_DEPTH}  [bound]")
    assert all("levels deep; the limit is 16  [bound]" in line for line in lines)


# -- the total work of one sample -------------------------------------------------------------------------------
def test_sample_work_hands_out_what_is_left():
    work = SampleWork(5_000_000)
    first = work.budget()
    assert first.limit == MAX_STEPS
    first.charge(MAX_STEPS - 10)
    second = work.budget()
    assert second.limit == MAX_STEPS and work.spent == MAX_STEPS - 10
    with pytest.raises(EvalError):
        second.charge(MAX_STEPS + 1)  # an exhausted budget counts as its limit, not more
    third = work.budget()
    assert work.spent == 2 * MAX_STEPS - 10 and third.limit == 5_000_000 - work.spent
    with pytest.raises(EvalError, match="all that was left of the 5000000 steps one sample may spend"):
        third.charge(third.limit + 1)
    assert work.exhausted()


FAILING = re.compile(r"sampling used its whole work budget \((\d+) steps over states and programs\) in (\d+) "
                     r"attempts without a state that satisfies the constraints; the constraint that keeps failing is "
                     r"(.+?) \(rejected (\d+) of (\d+)\)")


@pytest.mark.parametrize("state,require,task_require,culprit", [
    ({"xs": "[x * y for x in range(100) for y in range(100)]"}, {"never": "len(xs) < 0"}, None,
     "grammar constraint 'never'"),
    ({"pts": "scatter(60, 0.09)"}, {"apart": "len(pts) < 0"}, None, "grammar constraint 'apart'"),
    ({"ys": "sort(range(10000), x -> 0 - x)"}, None, {"impossible": "len(ys) < 0"}, "task constraint 'impossible'"),
])
def test_a_hopeless_sample_ends_and_names_the_constraint(tmp_path, state, require, task_require, culprit):
    tax = compile_taxonomy(probe_root(tmp_path, state, require, task_require=task_require))
    with pytest.raises(SamplingFailed) as info:
        generate(tax.tasks["probe.g.count"], 1, 0, vocab=tax.vocab)  # 10,000 attempts allowed: hours before
    message = str(info.value)
    m = FAILING.search(message)
    assert m, message
    total, attempts, named, rejected, of = m.groups()
    assert int(total) == MAX_SAMPLE_STEPS and named == culprit and int(of) == int(attempts) < 10_000
    assert int(rejected) >= int(attempts) - 1  # the last attempt may be cut short by the total itself
    key = ("grammar:" if culprit.startswith("grammar") else "task:") + culprit.split("'")[1]
    assert f"{key} ×{rejected}" in message


def test_a_step_that_keeps_failing_is_named_with_its_first_error(tmp_path):
    tax = compile_taxonomy(probe_root(tmp_path, {"s": "join(map(range(2000 + randint(0, 9)), x -> 'abcdef'), '')"}))
    with pytest.raises(SamplingFailed) as info:
        generate(tax.tasks["probe.g.count"], 1, 0, vocab=tax.vocab)
    message = str(info.value)
    assert "the constraint that keeps failing is an error in grammar step 's'" in message
    assert re.search(r"its error: \S+/grammars/probe/g\.yaml:\d+:\d+: join\(\) would make a string of 120\d\d "
                     r"characters", message), message


def test_cheap_attempts_still_stop_at_max_attempts(tmp_path):
    tax = compile_taxonomy(probe_root(tmp_path, {"a": "randint(1, 3)"}, {"never": "a < 0"}, max_attempts=300))
    with pytest.raises(SamplingFailed, match=re.escape("no state satisfied the constraints in 300 attempts "
                                                       "(grammar:never ×300)")):
        generate(tax.tasks["probe.g.count"], 1, 0, vocab=tax.vocab)


def test_sample_cli_reports_the_exhausted_budget_without_a_traceback(tmp_path, capsys):
    from tessera.cli import main

    root = probe_root(tmp_path / "lib", {"xs": "[x * y for x in range(100) for y in range(100)]"},
                      {"never": "len(xs) < 0"})
    code = main(["--root", str(root), "sample", "probe.g.count", "--seed", "1", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert "the constraint that keeps failing is grammar constraint 'never'" in err


def test_rendering_draws_on_the_same_total_as_states_and_programs(tmp_path, monkeypatch):
    # Measure what state and program cost for this seed, then leave the render only a few steps of the total.
    tax = compile_taxonomy(probe_root(tmp_path, {"n": "3"}))
    task = tax.tasks["probe.g.count"]
    spent = []
    real_budget = SampleWork.budget

    def counting(self):
        spent.append(self.spent)
        return real_budget(self)

    monkeypatch.setattr(SampleWork, "budget", counting)
    generate(task, 1, 0, vocab=tax.vocab)
    before_render = spent[2]  # budgets handed out: state, program, render
    monkeypatch.setattr(SampleWork, "budget", real_budget)
    import tessera.trace.loop as instance_module

    monkeypatch.setattr(instance_module, "SampleWork", lambda: SampleWork(before_render + 5))
    with pytest.raises(SamplingFailed, match=rf"rendering failed: .*all that was left of the {before_render + 5} "
                                             r"steps one sample may spend"):
        generate(task, 1, 0, vocab=tax.vocab)
