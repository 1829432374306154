"""The expression language: typing, evaluation, positions of errors, and the sandbox's limits."""
from __future__ import annotations

import math
import re

import pytest

from tessera.errors import Diagnostics, EvalError
from tessera.expr.compile import MAX_STEPS, Budget, Scope, Site, compile_expr, function_type, new_env, run
from tessera.expr.types import FLOAT, INT, STR, ListT, record
from tessera.sample.rng import Rng

BARS = ListT(record(label=STR, value=INT))
SCOPE = Scope({"bars": BARS, "level": INT, "word": STR, "pts": ListT(record(x=FLOAT, y=FLOAT))},
              allow_random=True)
VALUES = {"bars": [{"label": "a", "value": 3}, {"label": "b", "value": 7}, {"label": "c", "value": 5}],
          "level": 2, "word": "max", "pts": [{"x": 0.0, "y": 0.0}, {"x": 3.0, "y": 4.0}, {"x": 1.0, "y": 1.0}]}


def ev(src: str, seed: int = 1):
    d = Diagnostics()
    c = compile_expr(src, SCOPE, Site(None, (), "e.yaml"), d)
    assert c is not None, [str(x) for x in d.items]
    return c.type, run(c, new_env(VALUES, Rng(seed)))


def errors(src: str, scope: Scope = SCOPE) -> list[str]:
    d = Diagnostics()
    assert compile_expr(src, scope, Site(None, (), "e.yaml"), d) is None
    return [str(x) for x in d.sorted()]


@pytest.mark.parametrize("src,typ,value", [
    ("1 + 2 * 3", "integer", 7),
    ("7 / 2", "number", 3.5),
    ("7 // 2 + 7 % 2", "integer", 4),
    ("2 ** 10", "integer", 1024),
    ("-level + 0.5", "number", -1.5),
    ("'a' + word", "string", "amax"),
    ("level > 1 and not (level == 3) or false", "boolean", True),
    ("3 if level in [1, 2] else 4", "integer", 3),
    ("(level == 2) == (word == 'max')", "boolean", True),
    ("((1 + 2)) * 3", "integer", 9),
    ("word not in ['min']", "boolean", True),
    ("count(bars, b -> b.value > 4)", "integer", 2),
    ("sum(bars, b -> b.value)", "integer", 15),
    ("mean(bars, b -> b.value)", "number", 5.0),
    ("median([4, 1, 3, 2])", "number", 2.5),
    ("min(bars, b -> b.value)", "integer", 3),
    ("max(2, 9)", "integer", 9),
    ("argmax(bars, b -> b.value).label", "string", "b"),
    ("argmin(bars, b -> b.value).label", "string", "a"),
    ("map(sort(bars, b -> -b.value), b -> b.label)", "list[string]", ["b", "c", "a"]),
    ("rank(bars[2], bars, b -> b.value)", "integer", 2),
    ("unique([3, 1, 3, 2, 1])", "list[integer]", [3, 1, 2]),
    ("mode(['x', 'y', 'y'])", "string", "y"),
    ("unique_max(bars, b -> b.value)", "boolean", True),
    ("unique_mode([1, 1, 2, 2])", "boolean", False),
    ("[x * y for x in range(3) for y in range(3) if x < y]", "list[integer]", [0, 0, 2]),
    ("{n: len(bars), top: bars[-1].label}", "{n: integer, top: string}", {"n": 3, "top": "c"}),
    ("len(consecutive(bars))", "integer", 2),
    ("len(pairs(bars))", "integer", 3),
    ("union([1, 2], [2, 3])", "list[integer]", [1, 2, 3]),
    ("intersect([1, 2, 3], [3, 2])", "list[integer]", [2, 3]),
    ("difference([1, 2, 3], [2])", "list[integer]", [1, 3]),
    ("distance(pts[0], pts[1])", "number", 5.0),
    ("left_of(pts[0], pts[1]) and above(pts[0], pts[2])", "boolean", True),
    ("angle(pts[0], pts[2])", "number", 315.0),
    ("inside(pts[2], bbox(pts))", "boolean", True),
    ("nearest(pts, pts[0]).x", "number", 1.0),
    ("farthest(pts, pts[0]).x", "number", 3.0),
    ("letter(2) + str(3) + str(2.0)", "string", "C32"),
    ("round(2.567, 2) + floor(1.5) + ceil(1.2)", "number", 5.57),
    ("join(['a', 'b'], '-')", "string", "a-b"),
])
def test_expressions_type_and_evaluate(src, typ, value):
    t, v = ev(src)
    assert str(t) == typ
    assert v == pytest.approx(value) if isinstance(value, float) else v == value


def test_random_functions_are_deterministic_per_seed():
    src = "[randint(0, 1000) for i in range(5)] + sample(range(50), 3) + [choice([7, 8, 9])]"
    assert ev(src, seed=4)[1] == ev(src, seed=4)[1]
    assert ev(src, seed=4)[1] != ev(src, seed=5)[1]
    pts = ev("scatter(12, 0.15)", seed=2)[1]
    assert len(pts) == 12
    assert all(((a["x"] - b["x"]) ** 2 + (a["y"] - b["y"]) ** 2) ** 0.5 >= 0.15
               for i, a in enumerate(pts) for b in pts[i + 1:])


@pytest.mark.parametrize("src,message", [
    ("bars[0].valu", "e.yaml:1:9: error: unknown field 'valu' (this record has: label, value)  [unknown-field]"),
    ("count(bars, b -> b.value)", "e.yaml:1:13: error: the lambda given to count() must return boolean, got integer  [lambda-form]"),
    ("level + word", "e.yaml:1:7: error: operator '+' needs numbers, got integer and string  [type-mismatch]"),
    ("levle * 2", "e.yaml:1:1: error: unknown name 'levle' in expression (known here: bars, level, pts, word)  [unknown-name]"),
    ("cuont(bars)", "e.yaml:1:1: error: unknown function 'cuont' (did you mean count, union, icons?)  [unknown-function]"),
    ("[1, 'a']", "e.yaml:1:5: error: list items must share one type: integer and string do not mix  [type-mismatch]"),
    ("1 if level else 2", "e.yaml:1:6: error: the condition of 'if' must be boolean, got integer  [type-mismatch]"),
    ("bars.__class__", "e.yaml:1:6: error: field names starting with '_' are not allowed ('__class__')  [reserved-name]"),
    ("_secret", "e.yaml:1:1: error: names starting with '_' are not allowed ('_secret')  [reserved-name]"),
    ("b -> b", "e.yaml:1:1: error: a lambda (x -> ...) can only be passed to a function such as count, argmax or sort  [lambda-form]"),
    ("level < 2 < 3", "e.yaml:1:11: error: chained comparisons are not supported; write (a < b) and (b < c)  [expr-syntax]"),
    ("(level + ", "e.yaml:1:10: error: expression ends too early  [expr-syntax]"),
    ("level $ 2", "e.yaml:1:7: error: unexpected character '$' in expression  [expr-syntax]"),
])
def test_compile_errors_name_the_position(src, message):
    assert errors(src) == [message]


def test_all_errors_of_an_expression_are_reported():
    msgs = errors("[bars[0].valu, levle]")
    assert len(msgs) == 2
    assert "unknown field 'valu'" in msgs[0] and "unknown name 'levle'" in msgs[1]


def test_random_functions_are_refused_outside_samplers():
    fixed = Scope(SCOPE.names, allow_random=False, what="a grammar constraint")
    assert errors("randint(1, 3) > 2", fixed) == [
        "e.yaml:1:1: error: random function 'randint' is not allowed in a grammar constraint  [not-allowed]"]


@pytest.mark.parametrize("src,fragment", [
    ("range(100000)", "exceeds the limit"),
    ("len([x for x in range(5000) for y in range(5000)])", "more than 10000 items"),
    ("len([1 for a in range(2000) for b in range(2000) if a < 0])", "exceeded"),
    ("2 ** 100", "exponent 100 is too large"),
    ("len(pairs(range(1000)))", "over the limit"),
    ("3 // (level - 2)", "division by zero"),
    ("argmax(filter(bars, b -> b.value > 100), b -> b.value)", "argmax() of an empty list"),
    ("4611686018427387903 * 4", "integer overflow"),
])
def test_sandbox_bounds_every_evaluation(src, fragment):
    d = Diagnostics()
    c = compile_expr(src, SCOPE, Site(None, (), "e.yaml"), d)
    assert c is not None
    with pytest.raises(EvalError, match=re.escape(fragment)):
        run(c, new_env(VALUES, Rng(1)))


def test_expressions_cannot_reach_python():
    # No name resolves to a Python object: builtins, modules and attributes are simply not in the language.
    for src in ("__import__('os')", "open('/etc/passwd')", "eval('1')", "().__class__", "bars.__dict__"):
        d = Diagnostics()
        assert compile_expr(src, SCOPE, Site(None, (), "e.yaml"), d) is None
        assert d.items


@pytest.mark.parametrize("src", ["[" * 1500 + "1" + "]" * 1500, "-" * 3000 + "1", "not " * 900 + "true",
                                 "1" + "+1" * 1900])
def test_deep_nesting_is_an_error_not_a_crash(src):
    msgs = errors(src)
    assert len(msgs) == 1 and "levels deep; the limit is 64" in msgs[0]


def test_hostile_templates_are_refused_without_crashing():
    from tessera.errors import Position
    from tessera.expr.template import compile_template

    d = Diagnostics()
    assert compile_template("{{ " + "(" * 1990 + "1" + ")" * 1990 + " }}", set(), lambda l, c: Position("t", l, c),
                            d) is None
    assert [(str(x.pos), x.message) for x in d.items] == [("t:1:12", "template brackets nest 9 deep; the limit is 8")]
    d = Diagnostics()
    assert compile_template("{{ 'a' ~ x|attr('__class__') }}", {"x"}, lambda l, c: Position("t", l, c), d) is None
    assert any("unknown template filter 'attr'" in x.message for x in d.items)


# -- math builtins ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("src,value", [
    ("sin(pi / 2)", 1.0), ("cos(pi)", -1.0), ("tan(pi / 4)", 1.0), ("asin(1)", math.pi / 2), ("acos(1)", 0.0),
    ("atan(1)", math.pi / 4), ("atan2(1, -1)", 3 * math.pi / 4), ("sqrt(2)", math.sqrt(2)), ("hypot(3, 4)", 5.0),
    ("exp(0)", 1.0), ("log(exp(2))", 2.0), ("log(8, 2)", 3.0), ("log(1000, 10)", 3.0), ("degrees(pi)", 180.0),
    ("radians(90)", math.pi / 2), ("pi", math.pi), ("sqrt(level * 8)", 4.0), ("hypot(pts[1].x, pts[1].y)", 5.0),
])
def test_math_builtins(src, value):
    t, v = ev(src)
    assert str(t) == "number" and v == pytest.approx(value)


@pytest.mark.parametrize("src,message", [
    ("sqrt(-1)", "e.yaml:1:1: sqrt(-1) is undefined: needs x ≥ 0"),
    ("log(0)", "e.yaml:1:1: log(0) is undefined: needs x > 0"),
    ("log(-2.5)", "e.yaml:1:1: log(-2.5) is undefined: needs x > 0"),
    ("log(8, 1)", "e.yaml:1:1: log(8, 1) is undefined: needs x > 0 and a base > 0, ≠ 1"),
    ("log(8, 0)", "e.yaml:1:1: log(8, 0) is undefined: needs x > 0 and a base > 0, ≠ 1"),
    ("asin(2)", "e.yaml:1:1: asin(2) is undefined: needs -1 ≤ x ≤ 1"),
    ("acos(-1.5)", "e.yaml:1:1: acos(-1.5) is undefined: needs -1 ≤ x ≤ 1"),
    ("exp(1000)", "e.yaml:1:1: exp(1000) is too large"),
    ("hypot(1.5e308, 1.5e308)", "e.yaml:1:1: hypot() result is not a finite number"),
    ("1e308 * 10", "e.yaml:1:7: 1e+308 * 10 gives inf, not a finite number"),
    ("1e308 + 1e308", "e.yaml:1:7: 1e+308 + 1e+308 gives inf, not a finite number"),
    ("(0 - 8.0) ** 0.5", "e.yaml:1:11: power failed: -8.0 ** 0.5 is not a real number"),
])
def test_math_domain_errors_never_let_inf_or_nan_through(src, message):
    d = Diagnostics()
    c = compile_expr(src, SCOPE, Site(None, (), "e.yaml"), d)
    assert c is not None
    with pytest.raises(EvalError) as info:
        run(c, new_env(VALUES, Rng(1)))
    assert str(info.value) == f"{message} (in `{src}`)"


@pytest.mark.parametrize("src,message", [
    ("sqrt('a')", "e.yaml:1:6: error: sqrt() needs numbers, got string  [type-mismatch]"),
    ("log(2, word)", "e.yaml:1:8: error: log() needs numbers, got string  [type-mismatch]"),
    ("atan2(1)", "e.yaml:1:1: error: atan2() takes 2 arguments (atan2(x, y)), got 1  [arg-count]"),
    ("pi()", "e.yaml:1:1: error: 'pi' is a constant, not a function: write pi  [reserved-name]"),
    ("let pi = 3 in pi", "e.yaml:1:5: error: 'pi' is a reserved name and cannot be rebound  [reserved-name]"),
    ("map(bars, pi -> pi)", "e.yaml:1:11: error: 'pi' is a reserved name and cannot be rebound  [reserved-name]"),
    ("[pi for pi in range(3)]", "e.yaml:1:9: error: 'pi' is a reserved name and cannot be rebound  [reserved-name]"),
    ("[level for level in range(3)]", "e.yaml:1:12: error: 'level' is a reserved name and cannot be rebound  [reserved-name]"),
    ("1e999 > 1", "e.yaml:1:1: error: number literal 1e999 is too large  [bound]"),
])
def test_math_compile_errors(src, message):
    assert errors(src) == [message]


def test_pi_is_the_constant_even_where_a_scope_names_it():
    shadowing = Scope({**SCOPE.names, "pi": INT})
    d = Diagnostics()
    c = compile_expr("pi", shadowing, Site(None, (), "e.yaml"), d)
    assert str(c.type) == "number" and run(c, new_env({"pi": 3})) == math.pi


# -- slicing ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("src,typ,value", [
    ("[1, 2, 3, 4, 5][1:3]", "list[integer]", [2, 3]),
    ("[1, 2, 3, 4, 5][2:]", "list[integer]", [3, 4, 5]),
    ("[1, 2, 3, 4, 5][:2]", "list[integer]", [1, 2]),
    ("[1, 2, 3, 4, 5][-2:]", "list[integer]", [4, 5]),
    ("[1, 2, 3, 4, 5][:-1]", "list[integer]", [1, 2, 3, 4]),
    ("[1, 2, 3, 4, 5][::2]", "list[integer]", [1, 3, 5]),
    ("[1, 2, 3, 4, 5][::-1]", "list[integer]", [5, 4, 3, 2, 1]),
    ("[1, 2, 3, 4, 5][4:0:-2]", "list[integer]", [5, 3]),
    ("[1, 2, 3][5:9]", "list[integer]", []),
    ("[1, 2, 3][:]", "list[integer]", [1, 2, 3]),
    ("map(bars[level - 1:], b -> b.label)", "list[string]", ["b", "c"]),
    ("bars[1:][0].value", "integer", 7),
    ("word[1:]", "string", "ax"),
    ("word[::-1]", "string", "xam"),
    ("word[-2:-1]", "string", "a"),
])
def test_slicing(src, typ, value):
    t, v = ev(src)
    assert str(t) == typ and v == value


@pytest.mark.parametrize("src,message", [
    ("bars['a':]", "e.yaml:1:6: error: a slice bound must be integer, got string  [type-mismatch]"),
    ("bars[:1.5]", "e.yaml:1:7: error: a slice bound must be integer, got number  [type-mismatch]"),
    ("level[1:]", "e.yaml:1:1: error: cannot slice an integer  [type-mismatch]"),
    ("bars[1:2:3:4]", "e.yaml:1:11: error: unexpected ':' in expression (expected ']')  [expr-syntax]"),
])
def test_slicing_errors(src, message):
    assert errors(src) == [message]


def test_slice_step_zero_is_an_eval_error():
    d = Diagnostics()
    c = compile_expr("bars[::level - 2]", SCOPE, Site(None, (), "e.yaml"), d)
    with pytest.raises(EvalError, match=re.escape("slice step cannot be 0")):
        run(c, new_env(VALUES))


# -- let ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("src,typ,value", [
    ("let a = 2 in a * a", "integer", 4),
    ("let a = level, b = a * 10, c = b + a in [a, b, c]", "list[integer]", [2, 20, 22]),
    ("let word = 3 in word + 1", "integer", 4),  # a let shadows an outer name inside its body only ...
    ("[let word = 3 in word, len(word)]", "list[integer]", [3, 3]),  # ... and the outer name is back afterwards
    ("let top = argmax(bars, b -> b.value) in top.label + str(top.value)", "string", "b7"),
    ("let hit = (word in ['max', 'min']) in hit", "boolean", True),
    ("let a = 1 in let b = a + 1 in a + b", "integer", 3),
    ("let x = 2 if level > 1 else 3 in x", "integer", 2),
    ("let a = 1 in [a + y for y in range(2)]", "list[integer]", [1, 2]),
    ("count(bars, b -> let v = b.value in v > 4 and v < 7)", "integer", 1),
    ("max(let a = 1, b = 2 in a + b, 9)", "integer", 9),
    ("let a = 1, b = a in a in [b]", "boolean", True),  # the first top-level `in` ends the bindings
])
def test_let(src, typ, value):
    t, v = ev(src)
    assert str(t) == typ and v == value


def test_let_restores_the_env():
    d = Diagnostics()
    c = compile_expr("let x = 5 in x", Scope({"x": INT}), Site(None, (), "e.yaml"), d)
    env = new_env({"x": 1})
    assert run(c, env) == 5 and env["x"] == 1
    env = new_env({})
    assert run(compile_expr("let y = 5 in y", Scope({}), Site(None, (), "e.yaml"), d), env) == 5 and "y" not in env


@pytest.mark.parametrize("src,message", [
    ("let _a = 1 in 2", "e.yaml:1:5: error: names starting with '_' are not allowed ('_a')  [reserved-name]"),
    ("let count = 1 in count", "e.yaml:1:5: error: let cannot bind 'count': it names a function  [reserved-name]"),
    ("let a = 1, a = 2 in a", "e.yaml:1:12: error: 'a' is bound twice in one let  [duplicate-id]"),
    ("let a = 1 in b", "e.yaml:1:14: error: unknown name 'b' in expression (known here: a, bars, level, pts, word)  [unknown-name]"),
    ("[let a = 1 in a, a]", "e.yaml:1:18: error: unknown name 'a' in expression (known here: bars, level, pts, "
                            "word)  [unknown-name]"),
    ("let a = 1", "e.yaml:1:10: error: expression ends too early  [expr-syntax]"),
    # A binding's value is not a lambda: `->` reads as minus, then greater-than.
    ("let a = b -> b in 1", "e.yaml:1:12: error: unexpected '>' in expression (expected '(', '-', '.', '[', '{', "
                            "a name, a number, a string)  [expr-syntax]"),
])
def test_let_errors(src, message):
    assert errors(src) == [message]


# -- named functions ------------------------------------------------------------------------------------------------
def declare(functions: dict[str, str], base: dict | None = None) -> tuple[dict, Diagnostics]:
    """Declare functions in order the way a grammar does: each sees the base names and the ones before it."""
    names = dict(base or {"level": INT})
    d = Diagnostics()
    for name, src in functions.items():
        fn = function_type(src, Scope(dict(names), what=f"function '{name}'"), Site(None, (), f"{name}.yaml"), d)
        if fn is not None:
            names[name] = fn
    return names, d


FUNCS = {
    "dist": "(a, b) -> hypot(a.x - b.x, a.y - b.y)",
    "near": "(p, q) -> dist(p, q) < 3",
    "twice": "x -> x + x",
    "scaled": "x -> x * level",
    "label_of": "b -> b.label",
}


def fev(src: str, functions: dict = FUNCS, values: dict = VALUES):
    names, d = declare(functions)
    assert not d.items, [str(x) for x in d.items]
    c = compile_expr(src, Scope({**SCOPE.names, **names}), Site(None, (), "e.yaml"), d)
    assert c is not None, [str(x) for x in d.sorted()]
    return str(c.type), run(c, new_env(values))


def ferrors(src: str, functions: dict = FUNCS) -> list[str]:
    names, d = declare(functions)
    assert compile_expr(src, Scope({**SCOPE.names, **names}), Site(None, (), "e.yaml"), d) is None
    return [str(x) for x in d.sorted()]


@pytest.mark.parametrize("src,typ,value", [
    ("dist(pts[0], pts[1])", "number", 5.0),
    ("near(pts[0], pts[2])", "boolean", True),  # calls an earlier function
    ("near(pts[0], pts[1])", "boolean", False),
    ("twice(3)", "integer", 6),  # typed at each call site: int here ...
    ("twice(2.5)", "number", 5.0),
    ("twice(word)", "string", "maxmax"),  # ... str here ...
    ("twice(bars[:1])", "list[{label: string, value: integer}]", [VALUES["bars"][0]] * 2),  # ... a list of records here
    ("label_of(bars[1])", "string", "b"),
    ("scaled(4)", "integer", 8),  # reads `level` from the env it runs in
    ("map(bars, label_of)", "list[string]", ["a", "b", "c"]),  # a named function where a lambda is expected
    ("map(sort(bars, label_of), label_of)", "list[string]", ["a", "b", "c"]),
    ("sort([3, -1, 2], twice)", "list[integer]", [-1, 2, 3]),
    ("count(pts, p -> near(p, pts[0]))", "integer", 2),
    ("[twice(x) for x in range(3)]", "list[integer]", [0, 2, 4]),
    ("let x = 10 in twice(x)", "integer", 20),
    ("let x = 10 in [twice(x) for x in range(2)]", "list[integer]", [0, 2]),  # parameter binding is set-and-restore
])
def test_named_functions(src, typ, value):
    assert fev(src) == (typ, value)


@pytest.mark.parametrize("src,messages", [
    ("dist(pts[0])", ["e.yaml:1:1: error: function 'dist' takes 2 arguments (a, b), got 1  [arg-count]"]),
    ("twice(1, 2)", ["e.yaml:1:1: error: function 'twice' takes 1 argument (x), got 2  [arg-count]"]),
    ("[twice]", ["e.yaml:1:2: error: 'twice' is a function: call it as twice(...)  [reserved-name]"]),
    ("twice + 1", ["e.yaml:1:1: error: 'twice' is a function: call it as twice(...)  [reserved-name]"]),
    ("{f: label_of}", ["e.yaml:1:5: error: 'label_of' is a function: call it as label_of(...)  [reserved-name]"]),
    ("map(bars, dist)", ["e.yaml:1:11: error: the second argument of map() must be a function of one parameter; "
                         "'dist' takes 2 (a, b)  [type-mismatch]"]),
    ("count(bars, (a, b) -> true)", ["e.yaml:1:13: error: the second argument of count() must be a lambda of one "
                                     "parameter, such as x -> x.value  [lambda-form]"]),
    ("dist(pts[0], 3)", [
        "dist.yaml:1:25: error: cannot take field '.x' of an integer  [type-mismatch]",
        "dist.yaml:1:36: error: cannot take field '.y' of an integer  [type-mismatch]",
        "e.yaml:1:1: error: function 'dist' does not type-check for arguments of types ({x: number, y: number}, integer); "
        "see the errors in its body  [type-mismatch]"]),
    ("[twice(1), twice('a')]", ["e.yaml:1:12: error: list items must share one type: integer and string do not mix  [type-mismatch]"]),
    ("let twice = 1 in twice", ["e.yaml:1:5: error: let cannot bind 'twice': it names a function  [reserved-name]"]),
])
def test_named_function_errors(src, messages):
    assert ferrors(src) == messages


@pytest.mark.parametrize("functions,messages", [
    ({"f": "x -> f(x - 1)"}, ["f.yaml:1:6: error: unknown function 'f'  [unknown-function]"]),  # recursion: a function cannot see itself
    ({"f": "x -> g(x)", "g": "x -> x"}, ["f.yaml:1:6: error: unknown function 'g'  [unknown-function]"]),  # nor a later one
    ({"f": "x -> bars[x]"}, []),  # names are checked where it is called (see below), calls at declaration
    ({"f": "x + 1"}, ["f.yaml:1:1: error: a function is a lambda such as x -> x * 2 or (a, b) -> a + b  [lambda-form]"]),
    ({"f": "(a, a) -> a"}, ["f.yaml:1:5: error: parameter 'a' is named twice  [duplicate-id]"]),
    ({"f": "(a, _b) -> a"}, ["f.yaml:1:5: error: names starting with '_' are not allowed ('_b')  [reserved-name]"]),
    ({"f": "level -> level"}, ["f.yaml:1:1: error: 'level' is a reserved name and cannot be rebound  [reserved-name]"]),
    ({"f": "x -> randint(1, x)"}, []),  # randomness is refused where it is called, in the function's scope
])
def test_function_declaration_errors(functions, messages):
    _, d = declare(functions)
    assert [str(x) for x in d.sorted()] == messages


def test_function_bodies_see_only_their_scope():
    assert ferrors("f(1)", {"f": "x -> bars[x]"}) == [
        "e.yaml:1:1: error: function 'f' does not type-check for arguments of types (integer); see the errors in its body  [type-mismatch]",
        "f.yaml:1:6: error: unknown name 'bars' in function 'f' (known here: level, x)  [unknown-name]"]
    assert ferrors("f(1)", {"f": "x -> randint(1, x)"}) == [
        "e.yaml:1:1: error: function 'f' does not type-check for arguments of types (integer); see the errors in its body  [type-mismatch]",
        "f.yaml:1:6: error: random function 'randint' is not allowed in function 'f'  [not-allowed]"]


def test_function_bodies_are_compiled_once_per_argument_types():
    names, d = declare({"twice": "x -> x + x"})
    c = compile_expr("[twice(1), twice(2), twice(len(word))] + map([3], twice) + [len(twice(word))]",
                     Scope({**SCOPE.names, **names}), Site(None, (), "e.yaml"), d)
    assert run(c, new_env(VALUES)) == [2, 4, 6, 6, 6]
    assert sorted(map(str, names["twice"].bodies)) == ["(Scalar(name='int'),)", "(Scalar(name='str'),)"]


def test_function_calls_charge_the_budget():
    # Each f_k calls f_(k-1) twice: 2^22 calls, with no list in sight. The budget stops it, not the clock.
    chain = {"f0": "x -> x + 1"}
    for k in range(1, 23):
        chain[f"f{k}"] = f"x -> f{k - 1}(x) + f{k - 1}(x)"
    names, d = declare(chain)
    c = compile_expr("f22(0)", Scope({**SCOPE.names, **names}), Site(None, (), "e.yaml"), d)
    with pytest.raises(EvalError, match="exceeded 2000000 steps"):
        run(c, new_env(VALUES))
    small = compile_expr("f10(0)", Scope({**SCOPE.names, **names}), Site(None, (), "e.yaml"), d)
    env = new_env(VALUES)
    assert run(small, env) == 1024 and MAX_STEPS - env["$budget"].left == 1023 * 7 + 1024 * 3 + 2047  # body nodes per call, and each +
    # A function in a big comprehension exhausts the budget too.
    big = compile_expr("len([1 for a in range(1500) for b in range(1500) if f0(a) < 0])",
                       Scope({**SCOPE.names, **names}), Site(None, (), "e.yaml"), d)
    with pytest.raises(EvalError, match="exceeded 2000000 steps"):
        run(big, new_env(VALUES))


def test_function_chains_cannot_nest_past_the_expanded_depth():
    chain = {"f0": "x -> " + "(" * 40 + "x" + ")" * 40}
    for k in range(1, 8):
        chain[f"f{k}"] = "x -> " + "(" * 30 + f"f{k - 1}(x)" + ")" * 30
    names, d = declare(chain)
    assert compile_expr("f7(1)", Scope({**SCOPE.names, **names}), Site(None, (), "e.yaml"), d) is None
    assert any("function calls nest too deeply (over 160 levels" in str(x) for x in d.items)


def test_hops_run_a_function_in_its_callers_env():
    # A component's body runs in a fresh env whose "$caller" is the env of the component's caller. A lambda the
    # caller wrote (reading the caller's `k`) is the component's parameter with hops=1; passed on to a nested
    # component it has hops=2. Here the chain is made by hand: caller ← component ← nested.
    d = Diagnostics()
    caller_scope = Scope({"level": INT, "k": INT})
    fn = function_type("b -> b.value + k", caller_scope, Site(None, (), "caller.yaml"), d, hops=1)
    assert fn is not None and fn.hops == 1 and fn.passed_down().hops == 2 and fn.hops == 1
    budget = Budget()
    caller_env = {"level": 0, "k": 100, "$budget": budget}
    component_env = {"k": "not the caller's k", "$caller": caller_env, "$budget": budget}
    nested_env = {"$caller": component_env, "$budget": budget}
    # The component sees `key` (the caller's lambda) and its own `k` of another type.
    component = Scope({"key": fn, "items": BARS, "k": STR})
    c = compile_expr("map(items, key) + [key(items[0])]", component, Site(None, (), "component.yaml"), d)
    assert str(c.type) == "list[integer]"
    component_env["items"] = VALUES["bars"]
    assert run(c, component_env) == [103, 107, 105, 103]
    assert "b" not in caller_env and "b" not in component_env  # parameters are restored where they were bound
    nested = compile_expr("key(item)", Scope({"key": fn.passed_down(), "item": BARS.elem}),
                          Site(None, (), "nested.yaml"), d)
    nested_env["item"] = VALUES["bars"][1]
    assert run(nested, nested_env) == 107
    # Without the link, a clear error rather than a KeyError.
    with pytest.raises(EvalError, match="no caller env is linked"):
        run(nested, {"item": VALUES["bars"][1], "$budget": Budget()})
    assert not d.items


def test_canonical_tree_handles_the_new_forms():
    from tessera.expr.compile import canonical_tree

    keep = {"bars", "level", "vocab"}

    def canon(src, functions=None):
        return canonical_tree(src, keep, {}, functions)

    assert canon("let a = bars[1:], b = 2 in (u, v) -> a") == canon("let x = bars[3:], y = 9 in (p, q) -> x")
    assert canon("bars[1:]") != canon("bars[:1]") != canon("bars[::1]")
    # A helper's name does not matter, what it computes does; a call prints the helper's body in its place.
    assert canon("map(bars, f)", {"f": "b -> b.value"}) == canon("map(bars, g)", {"g": "x -> x.value"})
    over = canon("f(bars[0], 1)", {"f": "(a, k) -> a.value > k"})
    assert over == canon("g(bars[0], 2)", {"g": "(b, t) -> b.value > t"})
    assert over != canon("f(bars[0], 1)", {"f": "(a, k) -> a.value < k"})
    # A helper never sees the program's names: a parameter named like a state field is still a parameter.
    assert canon("f(bars)", {"f": "bars -> len(bars)"}) == canon("f(bars)", {"f": "xs -> len(xs)"})
    assert canon("f(1)", {"f": "x -> f(x)"})  # self-reference (a compile error elsewhere) does not loop


def test_treemap_of_extreme_values_is_an_evaluation_error_never_a_python_one():
    """0.8.0 let a ZeroDivisionError (its name in the message) out of treemap() for values whose sum overflows or
    whose areas underflow. Seeded extremes: every call tiles the square or raises EvalError."""
    import random

    from tessera.errors import EvalError
    from tessera.expr.lib_treemap import squarify

    rng = random.Random(23)
    extremes = [5e-324, 1e-320, 1e-300, 1e-160, 1e-12, 1.0, 3.0, 1e12, 1e300, 1.7e308]
    outcomes = {"tiled": 0, "refused": 0}
    for _ in range(2_000):
        values = [rng.choice(extremes) * rng.uniform(1, 1.5) for _ in range(rng.randint(1, 9))]
        values = [v if v < 1.79e308 else 1.7e308 for v in values]
        try:
            rects = squarify(values, rng.choice([0.01, 0.5, 1.0, 3.0, 100.0]))
        except EvalError as exc:
            assert "Error" not in str(exc) and str(exc).startswith("treemap(): "), str(exc)
            outcomes["refused"] += 1
            continue
        assert len(rects) == len(values)
        area = sum((r["x2"] - r["x"]) * (r["y2"] - r["y"]) for r in rects)
        assert abs(area - 1.0) < 1e-6
        outcomes["tiled"] += 1
    assert outcomes["tiled"] > 100 and outcomes["refused"] > 100, outcomes


@pytest.mark.parametrize("src,typ,value", [
    ("range(0, 10, 3)", "list[integer]", [0, 3, 6, 9]),
    ("range(10, 0, -3)", "list[integer]", [10, 7, 4, 1]),
    ("range(5, 5, 2)", "list[integer]", []),
    ("fold([1, 2, 3], 0, (t, x) -> t + x)", "integer", 6),
    ("fold([], 5, (t, x) -> t + x)", "integer", 5),
    ("fold([1, 2], 0, (t, x) -> t + x / 2)", "number", 1.5),  # an int init widened by a float step
    ("fold(bars, '', (s, b) -> s + b.label)", "string", "abc"),
    ("scan([1, 2, 3], 0, (t, x) -> t + x)", "list[integer]", [0, 1, 3, 6]),
    ("scan([], 7, (t, x) -> t + x)", "list[integer]", [7]),
    ("scan(pts, 0.0, (d, p) -> d + p.x)", "list[number]", [0.0, 0.0, 3.0, 4.0]),
    ("case(level > 5, 'hard', level > 1, 'middle', 'easy')", "string", "middle"),
    ("case(level > 5, 1, 2.5)", "number", 2.5),
    ("case(true, 1, 1 // 0)", "integer", 1),  # only the chosen value is evaluated
])
def test_range_step_fold_scan_and_case(src, typ, value):
    t, v = ev(src)
    assert (str(t), v) == (typ, value)


def test_fold_charges_its_function_per_item_and_scan_its_list():
    d = Diagnostics()
    c = compile_expr("fold(range(5000), 0, (t, x) -> t + x * x)", SCOPE, Site(None, (), "e.yaml"), d)
    env = new_env(VALUES, Rng(1))
    env["$budget"] = Budget(steps=20_000)
    with pytest.raises(EvalError, match="exceeded 20000 steps"):
        run(c, env)
    env["$budget"] = Budget()
    assert run(c, env) == sum(x * x for x in range(5000))
    assert env["$budget"].used > 5 * 5000  # the lambda's nodes, per item


@pytest.mark.parametrize("src,message", [
    ("fold([1], 0, x -> x)", "e.yaml:1:14: error: the third argument of fold() must be a lambda of two parameters, "
                             "such as (total, x) -> total + x  [lambda-form]"),
    ("fold([1], 0, (t, t) -> t)", "e.yaml:1:18: error: parameter 't' is named twice  [reserved-name]"),
    ("scan([1], 'a', (t, x) -> [t])", "e.yaml:1:16: error: scan()'s function must return the accumulator's type string "
                                      "(the init's), got list[string]  [type-mismatch]"),
    ("case(true, 1)", "e.yaml:1:1: error: case() takes 3 to 41 arguments (case(cond1, value1, cond2, value2, ..., "
                      "otherwise)), got 2  [arg-count]"),
    ("case(true, 1, false, 2)", "e.yaml:1:1: error: case() takes condition, value pairs and then the value "
                                "otherwise: an odd number of arguments, got 4  [arg-count]"),
    ("case(1, 2, 3)", "e.yaml:1:6: error: each condition of case() must be boolean, got integer  [type-mismatch]"),
    ("case(true, 1, 'a')", "e.yaml:1:15: error: case()'s values must share a type: integer and string do not mix  [type-mismatch]"),
    ("range(1, 2, 3, 4)", "e.yaml:1:1: error: range() takes 1 to 3 arguments (range(stop), range(start, stop) or "
                          "range(start, stop, step)), got 4  [arg-count]"),
])
def test_fold_scan_case_errors_are_positioned(src, message):
    assert errors(src) == [message]


def test_a_zero_range_step_is_a_positioned_evaluation_error():
    with pytest.raises(EvalError, match=r"e\.yaml:1:1: range\(\)'s step is 0"):
        ev("range(0, 3, level - 2)")


@pytest.mark.parametrize("src,typ,value", [
    ("sort(bars, .value)", "list[{label: string, value: integer}]", [{"label": "a", "value": 3}, {"label": "c", "value": 5},
                                                              {"label": "b", "value": 7}]),
    ("map(bars, .label)", "list[string]", ["a", "b", "c"]),
    ("argmax(bars, .value).label", "string", "b"),
    ("sum(pts, .x)", "number", 4.0),
    ("[b.label for b in sort(bars, .value)]", "list[string]", ["a", "c", "b"]),
])
def test_a_field_accessor_is_the_lambda_that_reads_the_field(src, typ, value):
    t, v = ev(src)
    assert (str(t), v) == (typ, value)
    assert ev(src.replace(".value)", "b -> b.value)").replace(".label)", "b -> b.label)").replace(".x)", "p -> p.x)")) == (t, v)


@pytest.mark.parametrize("src,message", [
    ("sort(bars, .valu)", "e.yaml:1:13: error: unknown field 'valu' (this record has: label, value)  [unknown-field]"),
    (".label", "e.yaml:1:1: error: a field accessor (.label) can only be passed where a function is taken, such as "
               "sort(xs, .label), argmax or a component's fn parameter  [lambda-form]"),
    ("fold(bars, 0, .value)", "e.yaml:1:15: error: the third argument of fold() must be a lambda of two parameters, "
                              "such as (total, x) -> total + x  [lambda-form]"),
])
def test_field_accessor_errors_name_the_field(src, message):
    assert errors(src) == [message]
