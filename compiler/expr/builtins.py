"""The standard library of the expression language.

Each builtin has a *typer*: given the checker and the argument syntax trees, it checks the argument types (compiling
lambdas with the right parameter type), and returns the compiled call. Implementations charge the step budget for
every element they touch, so no expression can run unbounded.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from ..errors import EvalError
from .compile import MAX_INT, MAX_LIST, Compiled, _checked_number, equal
from .types import (ANY, BOOL, FLOAT, INT, STR, ListT, RecordT, Type, accepts, has_xy, is_numeric, record,
                    unify)


@dataclass(frozen=True)
class Builtin:
    name: str
    min_args: int
    max_args: int
    signature: str
    typer: Callable
    random: bool = False
    doc: str = ""
    returns: str = ""  # the result's type, for docs/reference/builtins.md


BUILTINS: dict[str, Builtin] = {}


# What each function returns, for docs/reference/builtins.md (the typers compute the exact type; these are its words:
# integer, number, string, boolean, list of ..., a record {fields}, or a type named after an argument's).
# tests/test_reference.py checks that every registered function has an entry.
RETURNS: dict[str, str] = {
    # counting, filtering, mapping, folding
    "count": "integer", "filter": "list (the items)", "any": "boolean", "all": "boolean", "map": "list",
    "len": "integer", "range": "list of integers", "fold": "the accumulator", "scan": "list of accumulators",
    "case": "the values' type",
    # reductions and orderings
    "sum": "number (integer for integers)", "mean": "number", "median": "number", "min": "an item (or number)",
    "max": "an item (or number)", "mode": "an item", "argmax": "an item", "argmin": "an item",
    "unique_max": "boolean", "unique_min": "boolean", "unique_mode": "boolean", "sort": "list (the items)",
    "rank": "integer", "reverse": "list (the items)", "first": "an item", "last": "an item", "index": "integer",
    "unique": "list (the items)", "union": "list (the items)", "intersect": "list (the items)",
    "difference": "list (the items)", "consecutive": "list of {a, b}", "pairs": "list of {a, b}",
    # numbers and text
    "abs": "number (integer for an integer)", "floor": "integer", "ceil": "integer", "sin": "number",
    "cos": "number", "tan": "number", "asin": "number", "acos": "number", "atan": "number", "atan2": "number",
    "sqrt": "number", "hypot": "number", "exp": "number", "degrees": "number", "radians": "number",
    "log": "number", "round": "integer (number with digits)", "int": "integer", "float": "number",
    "str": "string", "join": "string", "letter": "string",
    # points
    "distance": "number", "left_of": "boolean", "right_of": "boolean", "above": "boolean", "below": "boolean",
    "angle": "number", "bbox": "{x0, y0, x1, y1}", "inside": "boolean", "nearest": "an item", "farthest": "an item",
    # random
    "randint": "integer", "uniform": "number", "choice": "an item", "sample": "list (the items)",
    "shuffle": "list (the items)", "scatter": "list of {x, y}",
    # colour, fractions
    "ramp": "string (a colour)", "ink_on": "string (a colour)", "tint": "string (a colour)", "gcd": "integer",
    "fraction": "string",
    # geometry
    "polygon_area": "number", "perimeter": "number", "is_simple": "boolean", "interior_angles": "list of numbers",
    "lattice_points_inside": "integer", "point_in_polygon": "boolean", "on_boundary": "boolean",
    "order_around": "list (the points)", "same_points": "boolean", "reflect": "a point {x, y}",
    "rotate": "a point {x, y}", "translate": "a point {x, y}", "transform": "a point {x, y}",
    "polygon_with_angles": "list of {x, y}",
    # graphs and trees
    "neighbors": "list of ids", "successors": "list of ids", "predecessors": "list of ids", "degree": "integer",
    "in_degree": "integer", "out_degree": "integer", "component_of": "list of ids", "reachable_from": "list of ids",
    "reachable": "boolean", "directed_reachable": "boolean", "shortest_path_length": "integer",
    "directed_path_length": "integer", "shortest_path": "list of ids", "weighted_path_length": "number (integer for integer weights)",
    "weighted_path": "list of ids", "path_edges": "list (the edges)", "components": "list of lists of ids",
    "has_cycle": "boolean", "has_directed_cycle": "boolean", "children": "list (the nodes)", "depth": "integer",
    "ancestors": "list (the nodes)", "descendants": "list (the nodes)", "leaves": "list (the nodes)",
    "tree_height": "integer", "common_ancestor": "a node", "maze_passages": "list of {a, b}",
    # grids and patterns
    "neighbors4": "list (the cells)", "neighbors8": "list (the cells)", "grid_rows": "list of lists of cells",
    "grid_cols": "list of lists of cells", "grid_boxes": "list of lists of cells", "runs": "list of lists of items",
    "region": "list (the cells)", "regions": "list of lists of cells", "piece_moves": "list of {row, col}",
    "grid_walk": "list of {row, col}", "period": "integer", "steps": "list of numbers",
    # placement
    "spring_layout": "list of {x, y}", "tree_layout": "list of {x, y, depth}", "scatter_layout": "list of {x, y}",
    "grid_layout": "list of {x, y, row, col}", "ring_layout": "list of {x, y, angle}",
    "maze_walls": "list of {x, y, x2, y2}", "label_spots": "list of {x, y}", "nice_ticks": "{lo, hi, step, ticks}",
    "treemap": "list of {x, y, x2, y2}",
    # maps
    "map_regions": "list of {id, name, continent, lon, lat, area}",
    # time
    "clock_angle": "number", "format_time": "string", "dial_minutes": "integer", "add_minutes": "{hour, minute}",
    "minutes_between": "integer",
    # the asset library
    "icons": "list of strings (icon names)", "objects": "list of strings (object names)",
    "distinct_sample": "list of strings (the names)", "rotation_safe": "list of strings (the names)",
    "mirror_safe": "list of strings (the names)", "asset_label": "string", "asset_synonyms": "list of strings",
}


def builtin(name: str, signature: str, min_args: int, max_args: int | None = None, random: bool = False,
            doc: str = ""):
    def register(typer):
        BUILTINS[name] = Builtin(name, min_args, min_args if max_args is None else max_args, signature, typer,
                                 random, doc, RETURNS.get(name, ""))
        return typer

    return register


# -- shared helpers ---------------------------------------------------------------------------------------------
def _charge(env, n: int) -> None:
    env["$budget"].charge(n)


def _charge_bytes(env, n: int) -> None:
    env["$budget"].charge_bytes(n)


def _where(ck, node) -> str:
    """The call's position, for run-time errors about the value it makes (overflow, inf, NaN)."""
    return str(ck.pos(node))


def _sort_cost(n: int) -> int:
    """Comparisons a sort of n items makes, at most: n log2 n (and at least one step per item)."""
    return n * max(1, n.bit_length())


def _list_arg(ck, node, what: str):
    c = ck.compile(node)
    if c.type == ANY:
        return c, ANY
    if not isinstance(c.type, ListT):
        ck.error(node, f"{what} must be a list, got {c.type}", code="type-mismatch")
        return None, None
    return c, c.type.elem


def _key(ck, args, elem: Type, idx: int, what: str):
    """Optional key lambda at args[idx]; returns (key type, key(env, x))."""
    if len(args) <= idx:
        return elem, lambda env, x: x
    res = ck.lambda_of(args[idx], elem, what)
    if res is None:
        return None, None
    return res


def _list_with_key(ck, args, name: str, key_index: int = 1):
    """The common prologue: a list argument and an optional key lambda over its items.
    Returns (compiled list, element type, key type, key(env, x)) or None after reporting an error."""
    c, elem = _list_arg(ck, args[0], f"the first argument of {name}()")
    if c is None:
        return None
    kt, key = _key(ck, args, elem, key_index, f"argument {key_index + 1} of {name}()")
    if key is None:
        return None
    return c, elem, kt, key


def _fail(ck):
    return Compiled(ANY, lambda env: None)


def _nonempty(xs, fname: str):
    if not xs:
        raise EvalError(f"{fname}() of an empty list")
    return xs


def _orderable(t: Type) -> bool:
    return is_numeric(t) or t == STR


# -- counting, filtering, mapping -------------------------------------------------------------------------------
def _pred_builtin(name: str, doc: str, result: str):
    @builtin(name, f"{name}(list, x -> bool)", 2, doc=doc)
    def typer(ck, node, args):
        c, elem = _list_arg(ck, args[0], f"the first argument of {name}()")
        if c is None:
            return _fail(ck)
        typed = ck.lambda_of(args[1], elem, f"the second argument of {name}()")
        if typed is None:
            return _fail(ck)
        t, pred = typed
        if not accepts(BOOL, t):
            return ck.error(args[1], f"the lambda given to {name}() must return boolean, got {t}", code="lambda-form")
        xf = c.fn
        if result == "count":
            def count(env):
                xs = xf(env)
                _charge(env, len(xs))
                return sum(1 for x in xs if pred(env, x))
            return Compiled(INT, count)
        if result == "filter":
            def kept(env):
                xs = xf(env)
                _charge(env, len(xs))
                _charge_bytes(env, len(xs))
                return [x for x in xs if pred(env, x)]
            return Compiled(ListT(elem), kept)
        if result == "any":
            def some(env):
                xs = xf(env)
                _charge(env, len(xs))
                return any(pred(env, x) for x in xs)
            return Compiled(BOOL, some)

        def every(env):
            xs = xf(env)
            _charge(env, len(xs))
            return all(pred(env, x) for x in xs)
        return Compiled(BOOL, every)


_pred_builtin("count", "number of items for which the predicate holds", "count")
_pred_builtin("filter", "the items for which the predicate holds, in order", "filter")
_pred_builtin("any", "true when the predicate holds for at least one item", "any")
_pred_builtin("all", "true when the predicate holds for every item (true for an empty list)", "all")


@builtin("map", "map(list, x -> y)", 2, doc="apply a lambda to every item")
def _map(ck, node, args):
    c, elem = _list_arg(ck, args[0], "the first argument of map()")
    if c is None:
        return _fail(ck)
    typed = ck.lambda_of(args[1], elem, "the second argument of map()")
    if typed is None:
        return _fail(ck)
    t, f = typed
    xf = c.fn

    def impl(env):
        xs = xf(env)
        _charge(env, len(xs))
        _charge_bytes(env, len(xs))
        return [f(env, x) for x in xs]

    return Compiled(ListT(t), impl)


@builtin("len", "len(list or str)", 1, doc="number of items (or characters)")
def _len(ck, node, args):
    c = ck.compile(args[0])
    if c.type != ANY and not (isinstance(c.type, ListT) or c.type == STR):
        return ck.error(args[0], f"len() needs a list or a string, got {c.type}", code="type-mismatch")
    f = c.fn
    return Compiled(INT, lambda env: len(f(env)))


@builtin("range", "range(stop), range(start, stop) or range(start, stop, step)", 1, 3,
         doc="integers from start (0 by default) up to stop, stop itself excluded, by step (1 by default; negative "
             "counts down)")
def _range(ck, node, args):
    cs = [ck.expect(a, INT, "the arguments of range()") for a in args]
    fs = [c.fn for c in cs]
    where = _where(ck, node)

    def impl(env):
        bounds = [f(env) for f in fs]
        if len(bounds) == 3 and bounds[2] == 0:
            raise EvalError(f"{where}: range()'s step is 0 (it must count up or down)")
        r = range(*bounds)
        if len(r) > MAX_LIST:
            raise EvalError(f"range of {len(r)} items exceeds the limit of {MAX_LIST}")
        _charge(env, len(r))
        _charge_bytes(env, len(r))
        return list(r)

    return Compiled(ListT(INT), impl)


# -- folds and cases -------------------------------------------------------------------------------------------
def _accumulator(ck, args, name: str):
    """(list fn, init fn, accumulator type, step(env, acc, x)) of fold/scan(list, init, (acc, x) -> acc'), or None.
    The accumulator's type is the init's, widened once if the step widens it (an int total that gains a float)."""
    c, elem = _list_arg(ck, args[0], f"the first argument of {name}()")
    if c is None:
        return None
    init = ck.compile(args[1])
    acc_t = init.type
    for _ in range(2):
        res = ck.lambda2_of(args[2], acc_t, elem, f"the third argument of {name}()")
        if res is None:
            return None
        body_t, step = res
        wider = unify(acc_t, body_t)
        if wider is None:
            ck.error(args[2], f"{name}()'s function must return the accumulator's type {acc_t} (the init's), "
                              f"got {body_t}", code="type-mismatch")
            return None
        if wider == acc_t:
            return c.fn, init.fn, acc_t, step
        acc_t = wider
    ck.error(args[2], f"{name}()'s function must return the accumulator's type {acc_t}, got {body_t}",
             code="type-mismatch")
    return None


@builtin("fold", "fold(list, init, (acc, x) -> acc')", 3,
         doc="the accumulator after the function has taken each item in turn, starting from init (init for [])")
def _fold(ck, node, args):
    parts = _accumulator(ck, args, "fold")
    if parts is None:
        return _fail(ck)
    xf, initf, acc_t, step = parts

    def impl(env):
        xs = xf(env)
        _charge(env, len(xs))
        acc = initf(env)
        for x in xs:
            acc = step(env, acc, x)
        return acc

    return Compiled(acc_t, impl)


@builtin("scan", "scan(list, init, (acc, x) -> acc')", 3,
         doc="every accumulator fold() passes through: init first, then one after each item (len(list) + 1 values)")
def _scan(ck, node, args):
    parts = _accumulator(ck, args, "scan")
    if parts is None:
        return _fail(ck)
    xf, initf, acc_t, step = parts

    def impl(env):
        xs = xf(env)
        if len(xs) + 1 > MAX_LIST:
            raise EvalError(f"scan() of {len(xs)} items would make more than {MAX_LIST}")
        _charge(env, len(xs))
        _charge_bytes(env, len(xs) + 1)
        out = [initf(env)]
        for x in xs:
            out.append(step(env, out[-1], x))
        return out

    return Compiled(ListT(acc_t), impl)


@builtin("case", "case(cond1, value1, cond2, value2, ..., otherwise)", 3, 41,
         doc="the value after the first condition that holds, else the last argument; only that value is evaluated")
def _case(ck, node, args):
    if len(args) % 2 == 0:
        return ck.error(node, f"case() takes condition, value pairs and then the value otherwise: an odd number of "
                              f"arguments, got {len(args)}", code="arg-count")
    conds = [ck.expect(a, BOOL, "each condition of case()") for a in args[:-1:2]]
    values = [ck.compile(a) for a in args[1::2]] + [ck.compile(args[-1])]
    t = values[0].type
    for a, v in zip([*args[1::2], args[-1]], values):
        wider = unify(t, v.type)
        if wider is None:
            return ck.error(a, f"case()'s values must share a type: {t} and {v.type} do not mix",
                            code="type-mismatch")
        t = wider
    pairs = [(c.fn, v.fn) for c, v in zip(conds, values)]
    otherwise = values[-1].fn

    def impl(env):
        for cf, vf in pairs:
            if cf(env):
                return vf(env)
        return otherwise(env)

    return Compiled(t, impl)


# -- aggregation ------------------------------------------------------------------------------------------------
def _reduce_builtin(name: str, doc: str):
    @builtin(name, f"{name}(list) or {name}(list, x -> number)" + (" or min/max(a, b)" if name in ("min", "max") else ""),
             1, 2, doc=doc)
    def typer(ck, node, args):
        first = ck.compile(args[0])
        if name in ("min", "max") and len(args) == 2 and is_numeric(first.type) and first.type != ANY:
            second = ck.compile(args[1])
            if not is_numeric(second.type):
                return ck.error(args[1], f"{name}(a, b) needs two numbers, got {first.type} and {second.type}",
                        code="type-mismatch")
            af, bf = first.fn, second.fn
            py = min if name == "min" else max
            return Compiled(unify(first.type, second.type) or FLOAT, lambda env: py(af(env), bf(env)))
        if first.type != ANY and not isinstance(first.type, ListT):
            return ck.error(args[0], f"the first argument of {name}() must be a list, got {first.type}",
                    code="type-mismatch")
        elem = first.type.elem if isinstance(first.type, ListT) else ANY
        kt, key = _key(ck, args, elem, 1, f"the second argument of {name}()")
        if key is None:
            return _fail(ck)
        numeric_only = name in ("sum", "mean", "median")
        if numeric_only and not is_numeric(kt):
            return ck.error(args[-1], f"{name}() needs numbers, got {kt}", code="type-mismatch")
        if name in ("min", "max") and not _orderable(kt):
            return ck.error(args[-1], f"{name}() needs numbers or strings, got {kt}", code="type-mismatch")
        xf = first.fn
        rt = {"sum": kt if kt != ANY else INT, "mean": FLOAT, "median": FLOAT, "min": kt, "max": kt, "mode": kt}[name]

        def values(env):
            xs = xf(env)
            _charge(env, len(xs))
            return [key(env, x) for x in xs]

        where = _where(ck, node)
        if name == "sum":
            # Checked like `+`: a sum of in-range integers can leave the range, a sum of floats can reach inf.
            return Compiled(rt, lambda env: _checked_number(sum(values(env)), where, lambda: "sum()"))
        if name == "mean":
            def mean(env):
                vs = _nonempty(values(env), name)
                return _checked_number(sum(vs) / len(vs), where, lambda: "mean()")

            return Compiled(FLOAT, mean)
        if name == "median":
            def median(env):
                vs = _nonempty(values(env), name)
                _charge(env, _sort_cost(len(vs)))
                return _checked_number(_median(vs), where, lambda: "median()")

            return Compiled(FLOAT, median)
        if name == "mode":
            return Compiled(rt, lambda env: _mode(_nonempty(values(env), name), env["$budget"]))
        py = min if name == "min" else max
        return Compiled(rt, lambda env: py(_nonempty(values(env), name)))


def _median(vs):
    s = sorted(vs)
    n = len(s)
    mid = n // 2
    return float(s[mid]) if n % 2 else (s[mid - 1] + s[mid]) / 2


def _mode(vs, budget=None):
    """Most frequent value; ties go to the value seen first (state a uniqueness rule with unique_mode)."""
    counts: dict = {}
    keys = [_hashable(v, budget) for v in vs]
    for k in keys:
        counts[k] = counts.get(k, 0) + 1
    best = max(counts.values())
    for v, k in zip(vs, keys):
        if counts[k] == best:
            return v
    raise EvalError("mode() of an empty list")  # pragma: no cover


def _hashable(v, budget=None):
    """A hashable copy of a value (for counting and sets), each list item and record field charged to `budget`.
    Recursion is bounded by the value's type (MAX_VALUE_DEPTH for stored values, plus one expression's nesting)."""
    if isinstance(v, list):
        if budget is not None:
            budget.charge(len(v))
        return tuple(_hashable(x, budget) for x in v)
    if isinstance(v, dict):
        if budget is not None:
            budget.charge(len(v))
        return tuple((k, _hashable(x, budget)) for k, x in v.items())
    return v


for _n, _d in [("sum", "sum of the items (or of a key)"), ("mean", "arithmetic mean"), ("median", "median"),
               ("min", "smallest value"), ("max", "largest value"), ("mode", "most frequent value (first on ties)")]:
    _reduce_builtin(_n, _d)


def _arg_builtin(name: str, doc: str):
    @builtin(name, f"{name}(list, x -> number)", 2, doc=doc)
    def typer(ck, node, args):
        parts = _list_with_key(ck, args, name)
        if parts is None:
            return _fail(ck)
        c, elem, kt, key = parts
        if not _orderable(kt):
            return ck.error(args[1], f"{name}() needs a key that is a number or a string, got {kt}",
                    code="type-mismatch")
        xf = c.fn
        better = (lambda a, b: a > b) if name == "argmax" else (lambda a, b: a < b)

        def impl(env):
            xs = _nonempty(xf(env), name)
            _charge(env, len(xs))
            best, best_k = xs[0], key(env, xs[0])
            for x in xs[1:]:
                k = key(env, x)
                if better(k, best_k):
                    best, best_k = x, k
            return best

        return Compiled(elem, impl)


_arg_builtin("argmax", "the item with the largest key (first on ties)")
_arg_builtin("argmin", "the item with the smallest key (first on ties)")


def _unique_extreme(name: str, doc: str):
    @builtin(name, f"{name}(list, x -> number)", 2, doc=doc)
    def typer(ck, node, args):
        parts = _list_with_key(ck, args, name)
        if parts is None:
            return _fail(ck)
        c, elem, kt, key = parts
        xf = c.fn
        pick = max if name == "unique_max" else min

        def impl(env):
            xs = xf(env)
            _charge(env, len(xs))
            ks = [key(env, x) for x in xs]
            return bool(ks) and ks.count(pick(ks)) == 1

        return Compiled(BOOL, impl)


_unique_extreme("unique_max", "true when exactly one item attains the largest key")
_unique_extreme("unique_min", "true when exactly one item attains the smallest key")


@builtin("unique_mode", "unique_mode(list[, x -> key])", 1, 2, doc="true when exactly one value is the most frequent")
def _unique_mode(ck, node, args):
    parts = _list_with_key(ck, args, "unique_mode")
    if parts is None:
        return _fail(ck)
    c, elem, kt, key = parts
    xf = c.fn

    def impl(env):
        xs = xf(env)
        _charge(env, len(xs))
        counts: dict = {}
        for x in xs:
            k = _hashable(key(env, x), env["$budget"])
            counts[k] = counts.get(k, 0) + 1
        if not counts:
            return False
        best = max(counts.values())
        return list(counts.values()).count(best) == 1

    return Compiled(BOOL, impl)


@builtin("sort", "sort(list[, x -> key])", 1, 2, doc="items in ascending order of the key (stable)")
def _sort(ck, node, args):
    parts = _list_with_key(ck, args, "sort")
    if parts is None:
        return _fail(ck)
    c, elem, kt, key = parts
    if not _orderable(kt):
        return ck.error(args[-1], f"sort() needs keys that are numbers or strings, got {kt}", code="type-mismatch")
    xf = c.fn

    def impl(env):
        xs = xf(env)
        _charge(env, _sort_cost(len(xs)))
        _charge_bytes(env, len(xs))
        keyed = [(key(env, x), i) for i, x in enumerate(xs)]
        keyed.sort()
        return [xs[i] for _, i in keyed]

    return Compiled(ListT(elem), impl)


@builtin("rank", "rank(item, list, x -> key)", 3, doc="1-based rank of item when the list is ordered by key, largest first")
def _rank(ck, node, args):
    item = ck.compile(args[0])
    c, elem = _list_arg(ck, args[1], "the second argument of rank()")
    if c is None:
        return _fail(ck)
    if unify(item.type, elem) is None:
        return ck.error(args[0], f"rank() item is {item.type:a} but the list holds {elem}", code="type-mismatch")
    kt, key = _key(ck, args, elem, 2, "the third argument of rank()")
    if key is None:
        return _fail(ck)
    itf, xf = item.fn, c.fn

    def impl(env):
        it, xs = itf(env), xf(env)
        _charge(env, len(xs))
        k = key(env, it)
        return 1 + sum(1 for x in xs if key(env, x) > k)

    return Compiled(INT, impl)


@builtin("reverse", "reverse(list)", 1, doc="the list in reverse order")
def _reverse(ck, node, args):
    c, elem = _list_arg(ck, args[0], "the argument of reverse()")
    if c is None:
        return _fail(ck)
    f = c.fn

    def impl(env):
        xs = f(env)
        _charge(env, len(xs))
        _charge_bytes(env, len(xs))
        return list(reversed(xs))

    return Compiled(ListT(elem), impl)


def _end_builtin(name: str, at: int):
    @builtin(name, f"{name}(list)", 1, doc=f"the {name} item")
    def typer(ck, node, args):
        c, elem = _list_arg(ck, args[0], f"the argument of {name}()")
        if c is None:
            return _fail(ck)
        f = c.fn
        return Compiled(elem, lambda env: _nonempty(f(env), name)[at])


_end_builtin("first", 0)
_end_builtin("last", -1)


@builtin("index", "index(list, item)", 2, doc="0-based position of the first equal item")
def _index(ck, node, args):
    c, elem = _list_arg(ck, args[0], "the first argument of index()")
    if c is None:
        return _fail(ck)
    item = ck.compile(args[1])
    if unify(item.type, elem) is None:
        return ck.error(args[1], f"index() looks for {item.type:a} in a list of {elem}", code="type-mismatch")
    xf, itf = c.fn, item.fn

    def impl(env):
        xs, it = xf(env), itf(env)
        budget = env["$budget"]
        budget.charge(len(xs))
        for i, x in enumerate(xs):
            if equal(x, it, budget):
                return i
        raise EvalError("index(): item not in list")

    return Compiled(INT, impl)


@builtin("unique", "unique(list)", 1, doc="distinct items in order of first appearance")
def _unique(ck, node, args):
    c, elem = _list_arg(ck, args[0], "the argument of unique()")
    if c is None:
        return _fail(ck)
    f = c.fn
    return Compiled(ListT(elem), lambda env: _unique_list(env, f(env)))


def _unique_list(env, xs):
    _charge(env, len(xs))
    _charge_bytes(env, len(xs))
    seen, out = set(), []
    for x in xs:
        h = _hashable(x, env["$budget"])
        if h not in seen:
            seen.add(h)
            out.append(x)
    return out


def _set_builtin(name: str, doc: str):
    @builtin(name, f"{name}(list, list)", 2, doc=doc)
    def typer(ck, node, args):
        a, ea = _list_arg(ck, args[0], f"the first argument of {name}()")
        b, eb = _list_arg(ck, args[1], f"the second argument of {name}()")
        if a is None or b is None:
            return _fail(ck)
        t = unify(ea, eb)
        if t is None:
            return ck.error(node, f"{name}() of lists of {ea} and {eb}", code="type-mismatch")
        af, bf = a.fn, b.fn

        def impl(env):
            xs, ys = af(env), bf(env)
            _charge(env, len(xs) + len(ys))
            budget = env["$budget"]
            yset = {_hashable(y, budget) for y in ys}
            if name == "union":
                return _unique_list(env, xs + ys)
            if name == "intersect":
                return _unique_list(env, [x for x in xs if _hashable(x, budget) in yset])
            return _unique_list(env, [x for x in xs if _hashable(x, budget) not in yset])

        return Compiled(ListT(t), impl)


_set_builtin("union", "distinct items of either list")
_set_builtin("intersect", "distinct items of the first list that are also in the second")
_set_builtin("difference", "distinct items of the first list that are not in the second")


@builtin("consecutive", "consecutive(list)", 1, doc="neighbouring pairs {a, b} in order: n-1 of them")
def _consecutive(ck, node, args):
    c, elem = _list_arg(ck, args[0], "the argument of consecutive()")
    if c is None:
        return _fail(ck)
    f = c.fn

    def impl(env):
        xs = f(env)
        _charge(env, len(xs))
        _charge_bytes(env, 3 * len(xs))
        return [{"a": x, "b": y} for x, y in zip(xs, xs[1:])]

    return Compiled(ListT(record(a=elem, b=elem)), impl)


@builtin("pairs", "pairs(list)", 1, doc="every unordered pair {a, b} of distinct positions")
def _pairs(ck, node, args):
    c, elem = _list_arg(ck, args[0], "the argument of pairs()")
    if c is None:
        return _fail(ck)
    f = c.fn

    def impl(env):
        xs = f(env)
        n = len(xs) * (len(xs) - 1) // 2
        if n > MAX_LIST:
            raise EvalError(f"pairs() of {len(xs)} items makes {n} pairs, over the limit of {MAX_LIST}")
        _charge(env, n)
        _charge_bytes(env, 3 * n)
        return [{"a": xs[i], "b": xs[j]} for i in range(len(xs)) for j in range(i + 1, len(xs))]

    return Compiled(ListT(record(a=elem, b=elem)), impl)


# -- numbers and strings ----------------------------------------------------------------------------------------
def _num1(name: str, fn, result: Type | None, doc: str):
    @builtin(name, f"{name}(number)", 1, doc=doc)
    def typer(ck, node, args):
        c = ck.compile(args[0])
        if not is_numeric(c.type):
            return ck.error(args[0], f"{name}() needs a number, got {c.type}", code="type-mismatch")
        f = c.fn
        where = _where(ck, node)
        # floor/ceil of a large float is a huge integer: checked against the integer bound where it arises.
        return Compiled(result or c.type, lambda env: _checked_number(fn(f(env)), where, lambda: f"{name}()"))


_num1("abs", abs, None, "absolute value")
_num1("floor", math.floor, INT, "largest integer ≤ x")
_num1("ceil", math.ceil, INT, "smallest integer ≥ x")


# -- real functions (radians, as in Python) ----------------------------------------------------------------------
# Each checks its domain and its result: a NaN or an infinity must never reach a state, so a math error is an
# EvalError with the argument that caused it, like a division by zero.
def _finite(name: str, v: float) -> float:
    if not math.isfinite(v):
        raise EvalError(f"{name}() result is not a finite number")
    return v


def _in_domain(name: str, fn, ok, need: str):
    def impl(*xs):
        if not ok(*xs):
            raise EvalError(f"{name}({', '.join(_fmt(x) for x in xs)}) is undefined: {need}")
        try:
            return _finite(name, float(fn(*xs)))
        except OverflowError:
            raise EvalError(f"{name}({', '.join(_fmt(x) for x in xs)}) is too large") from None

    return impl


def _real(name: str, fn, doc: str, arity: int = 1, ok=lambda *xs: True, need: str = ""):
    impl = _in_domain(name, fn, ok, need)
    params = ", ".join("xyz"[i] for i in range(arity))

    @builtin(name, f"{name}({params})", arity, doc=doc)
    def typer(ck, node, args):
        cs = [ck.compile(a) for a in args]
        for a, c in zip(args, cs):
            if not is_numeric(c.type):
                return ck.error(a, f"{name}() needs numbers, got {c.type}", code="type-mismatch")
        fs = [c.fn for c in cs]
        where = _where(ck, node)
        if arity == 1:
            f0 = fs[0]
            return Compiled(FLOAT, lambda env: _at(where, impl, f0(env)))
        f0, f1 = fs
        return Compiled(FLOAT, lambda env: _at(where, impl, f0(env), f1(env)))


def _at(where: str, impl, *xs):
    """Run a checked math function, its errors prefixed with the call's position."""
    try:
        return impl(*xs)
    except EvalError as exc:
        raise EvalError(f"{where}: {exc}") from None


_real("sin", math.sin, "sine of an angle in radians")
_real("cos", math.cos, "cosine of an angle in radians")
_real("tan", math.tan, "tangent of an angle in radians")
_real("asin", math.asin, "arc sine, in radians (-pi/2..pi/2)", ok=lambda x: -1 <= x <= 1, need="needs -1 ≤ x ≤ 1")
_real("acos", math.acos, "arc cosine, in radians (0..pi)", ok=lambda x: -1 <= x <= 1, need="needs -1 ≤ x ≤ 1")
_real("atan", math.atan, "arc tangent, in radians (-pi/2..pi/2)")
_real("atan2", math.atan2, "angle of the point (x, y) as atan2(y, x), in radians (-pi..pi)", arity=2)
_real("sqrt", math.sqrt, "square root", ok=lambda x: x >= 0, need="needs x ≥ 0")
_real("hypot", math.hypot, "length of the vector (x, y): sqrt(x*x + y*y)", arity=2)
_real("exp", math.exp, "e to the power x")
_real("degrees", math.degrees, "radians to degrees")
_real("radians", math.radians, "degrees to radians")

_log_natural = _in_domain("log", math.log, lambda x: x > 0, "needs x > 0")
_log_base = _in_domain("log", math.log, lambda x, b: x > 0 and b > 0 and b != 1, "needs x > 0 and a base > 0, ≠ 1")


@builtin("log", "log(x[, base])", 1, 2, doc="natural logarithm, or the logarithm to a base")
def _log(ck, node, args):
    cs = [ck.compile(a) for a in args]
    for a, c in zip(args, cs):
        if not is_numeric(c.type):
            return ck.error(a, f"log() needs numbers, got {c.type}", code="type-mismatch")
    where = _where(ck, node)
    if len(cs) == 1:
        xf = cs[0].fn
        return Compiled(FLOAT, lambda env: _at(where, _log_natural, xf(env)))
    xf, bf = cs[0].fn, cs[1].fn
    return Compiled(FLOAT, lambda env: _at(where, _log_base, xf(env), bf(env)))


@builtin("round", "round(number[, digits])", 1, 2, doc="round half to even; with digits, a float")
def _round(ck, node, args):
    c = ck.compile(args[0])
    if not is_numeric(c.type):
        return ck.error(args[0], f"round() needs a number, got {c.type}", code="type-mismatch")
    f = c.fn
    where = _where(ck, node)
    if len(args) == 1:
        return Compiled(INT, lambda env: _checked_number(int(round(f(env))), where, lambda: "round()"))
    d = ck.expect(args[1], INT, "the digits of round()")
    df = d.fn
    return Compiled(FLOAT, lambda env: float(round(f(env), max(0, min(12, df(env))))))


@builtin("int", "int(number or str)", 1, doc="truncate a number, or parse a string of digits")
def _int(ck, node, args):
    c = ck.compile(args[0])
    if not (is_numeric(c.type) or c.type == STR):
        return ck.error(args[0], f"int() needs a number or a string, got {c.type}", code="type-mismatch")
    f = c.fn
    where = _where(ck, node)

    def impl(env):
        v = f(env)
        if isinstance(v, str) and len(v) > 18:
            raise EvalError(f"{where}: int() of a string longer than 18 characters")
        return _checked_number(int(v), where, lambda: f"int({v!r})")

    return Compiled(INT, impl)


@builtin("float", "float(number)", 1, doc="as a float")
def _float(ck, node, args):
    c = ck.compile(args[0])
    if not is_numeric(c.type):
        return ck.error(args[0], f"float() needs a number, got {c.type}", code="type-mismatch")
    f = c.fn
    return Compiled(FLOAT, lambda env: float(f(env)))


@builtin("str", "str(value)", 1, doc="text of a number, bool or string")
def _str(ck, node, args):
    c = ck.compile(args[0])
    if c.type not in (INT, FLOAT, BOOL, STR, ANY):
        return ck.error(args[0], f"str() needs a scalar, got {c.type}", code="type-mismatch")
    f = c.fn

    def impl(env):
        text = _fmt(f(env))
        _charge_bytes(env, len(text))
        return text

    return Compiled(STR, impl)


def _fmt(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


@builtin("join", "join(list[str], sep)", 2, doc="concatenate strings with a separator")
def _join(ck, node, args):
    c = ck.expect(args[0], ListT(STR), "the first argument of join()")
    s = ck.expect(args[1], STR, "the separator of join()")
    cf, sf = c.fn, s.fn
    where = _where(ck, node)

    def impl(env):
        parts, sep = cf(env), sf(env)
        _charge(env, len(parts) + 1)
        n = sum(len(p) for p in parts) + len(sep) * max(0, len(parts) - 1)
        if n > MAX_LIST:  # measured before the string is built
            raise EvalError(f"{where}: join() would make a string of {n} characters (limit {MAX_LIST})")
        _charge_bytes(env, n)
        return sep.join(parts)

    return Compiled(STR, impl)


@builtin("letter", "letter(int)", 1, doc="option letter: 0 → 'A', 1 → 'B', ...")
def _letter(ck, node, args):
    c = ck.expect(args[0], INT, "the argument of letter()")
    f = c.fn

    def impl(env):
        i = f(env)
        if not 0 <= i < 26:
            raise EvalError(f"letter({i}): only 26 option letters")
        return chr(65 + i)

    return Compiled(STR, impl)


# -- geometry (state coordinates: x to the right, y downward, as in the image) ----------------------------------
def _xy_args(ck, args, name: str):
    cs = [ck.compile(a) for a in args]
    for a, c in zip(args, cs):
        if c.type != ANY and not has_xy(c.type):
            ck.error(a, f"{name}() needs records with numeric x and y fields, got {c.type}", code="type-mismatch")
            return None
    return cs


def _geo2(name: str, fn, result: Type, doc: str):
    @builtin(name, f"{name}(a, b)", 2, doc=doc)
    def typer(ck, node, args):
        cs = _xy_args(ck, args, name)
        if cs is None:
            return _fail(ck)
        af, bf = cs[0].fn, cs[1].fn
        where = _where(ck, node)
        return Compiled(result, lambda env: _checked_number(fn(af(env), bf(env)), where, lambda: f"{name}()"))


_geo2("distance", lambda a, b: math.hypot(a["x"] - b["x"], a["y"] - b["y"]), FLOAT, "Euclidean distance")
_geo2("left_of", lambda a, b: a["x"] < b["x"], BOOL, "a is left of b (smaller x)")
_geo2("right_of", lambda a, b: a["x"] > b["x"], BOOL, "a is right of b")
_geo2("above", lambda a, b: a["y"] < b["y"], BOOL, "a is above b (smaller y: y grows downward)")
_geo2("below", lambda a, b: a["y"] > b["y"], BOOL, "a is below b")
_geo2("angle", lambda a, b: math.degrees(math.atan2(a["y"] - b["y"], b["x"] - a["x"])) % 360.0, FLOAT,
      "direction from a to b in degrees, counter-clockwise from east as seen in the image")

BOX = record(x0=FLOAT, y0=FLOAT, x1=FLOAT, y1=FLOAT)


@builtin("bbox", "bbox(list of points)", 1, doc="bounding box {x0, y0, x1, y1} of records with x and y")
def _bbox(ck, node, args):
    c, elem = _list_arg(ck, args[0], "the argument of bbox()")
    if c is None:
        return _fail(ck)
    if elem != ANY and not has_xy(elem):
        return ck.error(args[0], f"bbox() needs records with numeric x and y fields, got {elem}", code="type-mismatch")
    f = c.fn

    def impl(env):
        ps = _nonempty(f(env), "bbox")
        _charge(env, len(ps))
        xs, ys = [p["x"] for p in ps], [p["y"] for p in ps]
        return {"x0": float(min(xs)), "y0": float(min(ys)), "x1": float(max(xs)), "y1": float(max(ys))}

    return Compiled(BOX, impl)


@builtin("inside", "inside(point, box)", 2, doc="point lies in the box {x0, y0, x1, y1} (edges included)")
def _inside(ck, node, args):
    p = ck.compile(args[0])
    b = ck.compile(args[1])
    if p.type != ANY and not has_xy(p.type):
        return ck.error(args[0], f"inside() needs a point with x and y, got {p.type}", code="type-mismatch")
    if b.type != ANY and not (isinstance(b.type, RecordT) and all(
            is_numeric(b.type.field(k) or BOOL) for k in ("x0", "y0", "x1", "y1"))):
        return ck.error(args[1], f"inside() needs a box with x0, y0, x1, y1, got {b.type}", code="type-mismatch")
    pf, bf = p.fn, b.fn

    def impl(env):
        pt, bx = pf(env), bf(env)
        return bx["x0"] <= pt["x"] <= bx["x1"] and bx["y0"] <= pt["y"] <= bx["y1"]

    return Compiled(BOOL, impl)


def _near_builtin(name: str, doc: str):
    @builtin(name, f"{name}(list, point)", 2, doc=doc)
    def typer(ck, node, args):
        c, elem = _list_arg(ck, args[0], f"the first argument of {name}()")
        p = ck.compile(args[1])
        if c is None:
            return _fail(ck)
        if (elem != ANY and not has_xy(elem)) or (p.type != ANY and not has_xy(p.type)):
            return ck.error(node, f"{name}() needs records with numeric x and y fields", code="type-mismatch")
        xf, pf = c.fn, p.fn
        pick = min if name == "nearest" else max

        def impl(env):
            xs, pt = xf(env), pf(env)
            _charge(env, len(xs))
            others = [x for x in xs if x is not pt]
            _nonempty(others, name)
            return pick(others, key=lambda x: math.hypot(x["x"] - pt["x"], x["y"] - pt["y"]))

        return Compiled(elem, impl)


_near_builtin("nearest", "the item closest to the point (the point itself excluded)")
_near_builtin("farthest", "the item farthest from the point (the point itself excluded)")


# -- random sampling (state sampling and program option building only) ------------------------------------------
def _rng(env):
    rng = env.get("$rng")
    if rng is None:
        raise EvalError("random function used where no random stream is available")
    return rng


@builtin("randint", "randint(lo, hi)", 2, random=True, doc="uniform integer in [lo, hi], both ends included")
def _randint(ck, node, args):
    lo, hi = (ck.expect(a, INT, "the bounds of randint()") for a in args)
    lf, hf = lo.fn, hi.fn
    where = _where(ck, node)

    def impl(env):
        a, b = lf(env), hf(env)
        if not (-MAX_INT < a < MAX_INT and -MAX_INT < b < MAX_INT):  # a bound from outside the checked operators
            raise EvalError(f"{where}: randint() bounds must lie within ±{MAX_INT}")
        if b < a:
            raise EvalError(f"{where}: randint({a}, {b}): empty range")
        return _rng(env).randint(a, b)

    return Compiled(INT, impl)


@builtin("uniform", "uniform(lo, hi)", 2, random=True, doc="uniform float in [lo, hi), rounded to 4 decimals")
def _uniform(ck, node, args):
    lo, hi = (ck.expect(a, FLOAT, "the bounds of uniform()") for a in args)
    lf, hf = lo.fn, hi.fn
    where = _where(ck, node)
    return Compiled(FLOAT, lambda env: _checked_number(round(_rng(env).uniform(lf(env), hf(env)), 4), where,
                                                       lambda: "uniform()"))


@builtin("choice", "choice(list)", 1, random=True, doc="one item, uniformly")
def _choice(ck, node, args):
    c, elem = _list_arg(ck, args[0], "the argument of choice()")
    if c is None:
        return _fail(ck)
    f = c.fn
    return Compiled(elem, lambda env: _rng(env).choice(_nonempty(f(env), "choice")))


@builtin("sample", "sample(list, k)", 2, random=True, doc="k distinct positions, in random order")
def _sample(ck, node, args):
    c, elem = _list_arg(ck, args[0], "the first argument of sample()")
    k = ck.expect(args[1], INT, "the size of sample()")
    if c is None:
        return _fail(ck)
    f, kf = c.fn, k.fn

    def impl(env):
        xs, n = f(env), kf(env)
        if not 0 <= n <= len(xs):
            raise EvalError(f"sample(): cannot take {n} items from a list of {len(xs)}")
        _charge(env, len(xs))
        _charge_bytes(env, n)
        return _rng(env).sample(xs, n)

    return Compiled(ListT(elem), impl)


@builtin("shuffle", "shuffle(list)", 1, random=True, doc="the items in random order")
def _shuffle(ck, node, args):
    c, elem = _list_arg(ck, args[0], "the argument of shuffle()")
    if c is None:
        return _fail(ck)
    f = c.fn

    def impl(env):
        xs = f(env)
        _charge(env, len(xs))
        _charge_bytes(env, len(xs))
        return _rng(env).shuffle(xs)

    return Compiled(ListT(elem), impl)


POINT = record(x=FLOAT, y=FLOAT)


@builtin("scatter", "scatter(n, min_dist)", 2, random=True,
         doc="n points {x, y} in the unit square (margin 0.08) at least min_dist apart (rejection-sampled)")
def _scatter(ck, node, args):
    n = ck.expect(args[0], INT, "the count of scatter()")
    d = ck.expect(args[1], FLOAT, "the spacing of scatter()")
    nf, df = n.fn, d.fn

    def impl(env):
        count, gap = nf(env), df(env)
        if not 0 <= count <= 400:
            raise EvalError(f"scatter(): {count} points (allowed 0..400)")
        rng = _rng(env)
        budget = env["$budget"]
        budget.charge_bytes(3 * count)
        pts: list[dict] = []
        tries = 0
        while len(pts) < count:
            tries += 1
            if tries > 300 * (count + 1):
                raise EvalError(f"scatter(): could not place {count} points {gap} apart")
            budget.charge(1 + len(pts))  # each try measures its distance to every point placed so far
            p = {"x": round(rng.uniform(0.08, 0.92), 4), "y": round(rng.uniform(0.08, 0.92), 4)}
            if all(math.hypot(p["x"] - q["x"], p["y"] - q["y"]) >= gap for q in pts):
                pts.append(p)
        return pts

    return Compiled(ListT(POINT), impl)


# -- operator families in their own modules (importing one registers its builtins) ------------------------------
# (one line per module; keep this list sorted)
from . import lib_assets  # noqa: E402,F401
from . import lib_color  # noqa: E402,F401
from . import lib_fraction  # noqa: E402,F401
from . import lib_geometry  # noqa: E402,F401
from . import lib_geo  # noqa: E402,F401
from . import lib_graph  # noqa: E402,F401
from . import lib_grid  # noqa: E402,F401
from . import lib_pattern  # noqa: E402,F401
from . import lib_place  # noqa: E402,F401
from . import lib_time  # noqa: E402,F401
from . import lib_treemap  # noqa: E402,F401
