"""Clock and fraction operators (compiler/expr/lib_time.py, lib_fraction.py), the contracts they answer to
(clock_time, probability, point_coordinates). The symbolic components (analog_clock, balance, spinner) are tested in
test_scene_comp-sym.py."""
from __future__ import annotations

import json

import pytest

from tessera.errors import Diagnostics, EvalError
from tessera.expr.compile import Scope, Site, compile_expr, new_env, run
from tessera.expr.types import INT, STR, ListT, record
from tessera.sample.rng import Rng
from tessera.verify.score import score, wrong_answer

CLOCK = record(hour=INT, minute=INT, label=STR)
SCOPE = Scope({"clocks": ListT(CLOCK), "t": CLOCK, "n": INT, "word": STR}, allow_random=True)
VALUES = {"clocks": [{"hour": 3, "minute": 0, "label": "A"}, {"hour": 12, "minute": 5, "label": "B"},
                     {"hour": 11, "minute": 50, "label": "C"}],
          "t": {"hour": 9, "minute": 45, "label": "T"}, "n": 7, "word": "x"}


def ev(src: str, **extra):
    d = Diagnostics()
    c = compile_expr(src, SCOPE, Site(None, (), "t.yaml"), d)
    assert c is not None, [str(x) for x in d.items]
    return str(c.type), run(c, new_env({**VALUES, **extra}, Rng(5)))


@pytest.mark.parametrize("src,typ,value", [
    ("clock_angle(clocks[0])", "number", 90.0),
    ("clock_angle({hour: 12, minute: 0})", "number", 0.0),
    ("clock_angle({hour: 6, minute: 0})", "number", 180.0),
    ("clock_angle(t)", "number", 22.5),  # hour hand at 292.5°, minute hand at 270°
    ("clock_angle({hour: 2, minute: 50})", "number", 145.0),  # 85° vs 300°: the smaller side
    ("format_time(clocks[1])", "string", "12:05"),
    ("format_time({hour: 0, minute: 7})", "string", "12:07"),
    ("format_time({hour: 15, minute: 30})", "string", "3:30"),
    ("add_minutes(clocks[2], 15)", "{hour: integer, minute: integer}", {"hour": 12, "minute": 5}),
    ("add_minutes(clocks[2], 75)", "{hour: integer, minute: integer}", {"hour": 1, "minute": 5}),
    ("add_minutes(clocks[0], -200)", "{hour: integer, minute: integer}", {"hour": 11, "minute": 40}),
    ("add_minutes(clocks[0], 720 * 3)", "{hour: integer, minute: integer}", {"hour": 3, "minute": 0}),
    ("minutes_between(clocks[0], clocks[2])", "integer", 530),
    ("minutes_between(clocks[2], clocks[1])", "integer", 15),  # forward across 12 o'clock
    ("minutes_between(clocks[0], clocks[0])", "integer", 0),
    ("map(sort(clocks, c -> dial_minutes(c)), c -> c.label)", "list[string]", ["B", "A", "C"]),
    ("fraction(6, 16)", "string", "3/8"),
    ("fraction(4, 2)", "string", "2"),
    ("fraction(0, 5)", "string", "0"),
    ("fraction(3, -6)", "string", "-1/2"),
    ("gcd(12, 18) + gcd(0, 0)", "integer", 6),
])
def test_operators_type_and_evaluate(src, typ, value):
    t, v = ev(src)
    assert t == typ and v == value


@pytest.mark.parametrize("src,needle", [
    ("clock_angle(n)", "must be a time"),
    ("format_time({hour: 'three', minute: 0})", "must be a time"),
    ("add_minutes(t, 1.5)", "must be integer"),
    ("minutes_between(t, word)", "must be a time"),
    ("fraction(1.5, 2)", "must be integer"),
])
def test_type_errors(src, needle):
    d = Diagnostics()
    assert compile_expr(src, SCOPE, Site(None, (), "t.yaml"), d) is None
    assert needle in str(d.sorted()[0]) and str(d.sorted()[0]).startswith("t.yaml:1:")


@pytest.mark.parametrize("src,needle", [
    ("format_time({hour: 3, minute: 60})", "not a time of day"),
    ("clock_angle({hour: -1, minute: 0})", "not a time of day"),
    ("fraction(n, 0)", "zero denominator"),
])
def test_runtime_errors(src, needle):
    with pytest.raises(EvalError, match=needle):
        ev(src)


def test_clock_angle_matches_hand_positions_everywhere():
    for total in range(0, 720, 7):
        h, m = divmod(total, 60)
        hour_hand, minute_hand = total * 0.5, m * 6
        gap = abs(hour_hand - minute_hand)
        assert ev("clock_angle(t)", t={"hour": h, "minute": m, "label": ""})[1] == min(gap, 360 - gap)


# -- contracts --------------------------------------------------------------------------------------------------
@pytest.fixture
def label_of(taxonomy):
    return lambda contract, answer: taxonomy.contracts[contract].label(answer)


@pytest.mark.parametrize("response,ok", [
    ('"3:05"', 1), ('"03:05"', 1), ('"3.05"', 1), ('"15:05"', 1), ('"3:05 pm"', 1), ('"3:05 P.M."', 1),
    ('" 3 : 05 "', 1), ('"3:50"', 0), ('"4:05"', 0), ('"3:5"', 0), ('"25:05"', 0), ('"3:65"', 0), ('"305"', 0),
    ('"half past three"', 0), ("3", 0), ('"' + "9" * 3000 + '"', 0),
])
def test_clock_time_contract(label_of, response, ok):
    s = score(label_of("clock_time", "3:05"), '{"answer": %s}' % response)
    assert (s.answer, s.format) == (ok, 1)


def test_clock_time_reads_hours_and_noon(label_of):
    lab = label_of("clock_time", "12:00")
    for response in ("12:00", "0:00", "12 o'clock", "12", "12:00 am"):
        assert score(lab, json.dumps({"answer": response})).answer == 1, response
    assert score(label_of("clock_time", "7:00"), '{"answer": "7 o\'clock"}').answer == 1
    assert score(lab, json.dumps({"answer": wrong_answer(lab)})).answer == 0


@pytest.mark.parametrize("response,ok", [
    ('"3/8"', 1), ('"6/16"', 1), ("0.375", 1), ('"0.38"', 1), ("0.37", 1), ('"3 / 8"', 1), ("0.368", 0),
    ('"3/7"', 0), ('"3/0"', 0), ('"37.5%"', 1), ('"37.5"', 0), ('"3.75%"', 0), ('"3/8/2"', 0),
    ('"' + "1" * 30 + "/" + "3" * 30 + '"', 0),
])
def test_probability_contract_reads_fractions(label_of, response, ok):
    s = score(label_of("probability", 0.375), '{"answer": %s}' % response)
    assert (s.answer, s.format) == (ok, 1)


@pytest.mark.parametrize("response,ok", [
    ("[3, -2]", 1), ('"(3, -2)"', 1), ('"3, -2"', 1), ('"[3,-2]"', 1), ('["3", "-2"]', 1), ("[-2, 3]", 0),
    ("[3]", 0), ('"(3, -2"', 0), ("[3, -2, 0]", 0),
])
def test_point_coordinates_contract(label_of, response, ok):
    s = score(label_of("point_coordinates", [3, -2]), '{"answer": %s}' % response)
    assert (s.answer, s.format) == (ok, 1)

