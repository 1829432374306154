"""Type-check and compile an expression in one pass: every node becomes (static type, closure over an env dict).

The env maps names to values; reserved entries that no author name can spell carry the run-time budget
(`$budget`), the random stream (`$rng`) and, in a component's env, the env of its caller (`$caller`). Lambda
parameters, let-bindings and function parameters are bound by writing into the env and restoring the previous value
afterwards, which is safe because evaluation is pure and single-threaded.

Named functions (`FnT`) are macros: each call compiles the function's body for that call's argument types (cached
per type tuple), so there are no function values at run time and nothing to store in a state.
"""
from __future__ import annotations

import hashlib
import math
import operator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from ..errors import Diagnostics, EvalError, Position, located
from . import fastparse
from .types import ANY, BOOL, FLOAT, INT, STR, FnT, ListT, RecordT, Type, accepts, is_numeric, unify

MAX_LIST = 10_000  # longest list any expression may build
MAX_STEPS = 2_000_000  # steps one evaluation may take (a state attempt, a program run, a scene); see Budget
MAX_INT = 2**62
MAX_BYTES = 4_000_000  # characters of strings plus items of lists one evaluation may build or store
MAX_VALUE_DEPTH = 16  # nesting of lists and records in a stored value (a state field, a step, an answer)
MAX_SOURCE = 4_000  # characters in one expression
MAX_DEPTH = 64  # nesting of the syntax tree; keeps compiling and evaluating far from Python's recursion limit
# Nesting summed over function calls (a call compiles its function's body inside the caller's tree): functions can
# only call earlier functions, so this is finite anyway, but a long chain must not reach Python's recursion limit.
MAX_EXPANDED_DEPTH = 160
MAX_FUNCTION_BODIES = 16  # distinct argument-type tuples one function is compiled for

# Names with a fixed meaning everywhere. A constant cannot be shadowed by a state field or a local binding; the base
# names cannot be rebound by a local binding (lambda parameter, loop variable, let, function parameter) because a
# function body reads them from the env it runs in, where a local binding of the caller would otherwise hide them.
CONSTANTS: dict[str, float] = {"pi": math.pi}
BASE_NAMES = ("level", "vocab")
# `level` is bound only inside a `levels:` block (codegen.levels): everywhere else a difficulty is a named parameter.
LEVEL_OUTSIDE = ("'level' is read only in `levels:`: declare a named difficulty parameter there (e.g. `levels: "
                 "{top: 10 + 5 * level}`) and read its name here")

Fn = Callable[[dict], Any]


@lru_cache(maxsize=1)
def lark_parser() -> Lark:
    """lark's LALR parser of expr.lark, the definition of the language. Built on first use: its tables cost a
    process ~120 ms, and valid expressions are parsed by fastparse, so only a syntax error (or an input fastparse
    declines) needs it."""
    return Lark.open(
        str(Path(__file__).with_name("expr.lark")), parser="lalr", propagate_positions=True, maybe_placeholders=True
    )


class Budget:
    """What one evaluation (a state attempt, a program run, a scene) may still spend, charged as the work happens.

    `left` counts steps: every element an operation touches, every call, comparison and arithmetic result.
    `bytes_left` counts the size of what is built: characters of every string made and items of every list made or
    stored, so a small expression cannot fill memory with large strings that each cost one step."""

    __slots__ = ("bytes_left", "left", "limit", "why")

    def __init__(self, steps: int = MAX_STEPS, size: int = MAX_BYTES, why: str = ""):
        self.left = steps
        self.limit = steps
        self.bytes_left = size
        self.why = why  # said when the steps run out: e.g. that the sample's total work, not this attempt, ran out

    def charge(self, n: int) -> None:
        self.left -= n
        if self.left < 0:
            raise EvalError(f"expression evaluation exceeded {self.limit} steps{self.why}")

    def charge_work(self, n: int, what: str) -> None:
        """Charge n steps of work that is not an expression's (drawing: render/work.py); `what` names that work in
        the message when the steps run out."""
        self.left -= n
        if self.left < 0:
            raise EvalError(f"{what} exceeded {self.limit} steps{self.why}")

    def charge_bytes(self, n: int) -> None:
        self.bytes_left -= n
        if self.bytes_left < 0:
            raise EvalError(f"expressions built more than {MAX_BYTES} bytes of strings and list items")

    @property
    def used(self) -> int:
        return self.limit - self.left


@dataclass
class Compiled:
    type: Type
    fn: Fn
    source: str = ""
    where: str = ""  # "path:line:col" of the expression, for run-time errors about its value
    cost: int = 1  # nodes of its syntax tree: the steps one evaluation costs, loops and calls aside


@dataclass
class Site:
    """Where an expression string lives, so positions inside it map back to the YAML file."""

    doc: Any  # SourceDoc or None
    loc: tuple
    path: str = "<expr>"

    def at(self, line: int, col: int) -> Position:
        if self.doc is None:
            return Position(self.path, line, col)
        return self.doc.expr_pos(self.loc, line - 1, col - 1)


@dataclass
class Scope:
    names: dict[str, Type]
    allow_random: bool = False
    what: str = "expression"  # used in messages: "grammar state", "task program", ...

    def child(self, **extra: Type) -> "Scope":
        return Scope({**self.names, **extra}, self.allow_random, self.what)


class _Checker:
    def __init__(self, site: Site, diags: Diagnostics, scope: Scope, nesting: int = 0):
        self.site = site
        self.diags = diags
        self.scope = scope
        self.failed = False
        self.nesting = nesting  # tree levels being compiled, counting the call sites of enclosing function bodies

    # -- diagnostics -------------------------------------------------------------------------------------------
    def pos(self, node) -> Position:
        if isinstance(node, Token):
            return self.site.at(node.line or 1, node.column or 1)
        meta = getattr(node, "meta", None)
        if meta is not None and not getattr(meta, "empty", True):
            return self.site.at(meta.line, meta.column)
        return self.site.at(1, 1)

    def error(self, node, message: str, *, code: str) -> Compiled:
        self.failed = True
        self.diags.error(self.pos(node), message, code=code)
        return Compiled(ANY, _raise_checked)

    # -- dispatch ---------------------------------------------------------------------------------------------
    def compile(self, node, scope: Scope | None = None) -> Compiled:
        if self.nesting >= MAX_EXPANDED_DEPTH:
            return self.error(node, f"function calls nest too deeply (over {MAX_EXPANDED_DEPTH} levels of "
                                    f"expression counting the bodies of called functions)", code="bound")
        saved = self.scope
        if scope is not None:
            self.scope = scope
        self.nesting += 1
        try:
            handler = getattr(self, "c_" + node.data, None) if isinstance(node, Tree) else None
            if handler is None:
                return self.error(node, f"unsupported expression form '{getattr(node, 'data', node)}'",
                        code="expr-syntax")
            return handler(node)
        finally:
            self.scope = saved
            self.nesting -= 1

    def binder_ok(self, tok, kind: str = "") -> bool:
        """May this token name a local binding (lambda or function parameter, loop variable, let)? Reports why not.
        `kind == "let"` also refuses function names, since a let-bound value of that name could never be called."""
        name = str(tok)
        if name.startswith("_"):
            self.error(tok, f"names starting with '_' are not allowed ('{name}')", code="reserved-name")
            return False
        if name in CONSTANTS or name in BASE_NAMES:
            self.error(tok, f"'{name}' is a reserved name and cannot be rebound", code="reserved-name")
            return False
        if kind == "let":
            from .builtins import BUILTINS

            if name in BUILTINS or isinstance(self.scope.names.get(name), FnT):
                self.error(tok, f"let cannot bind '{name}': it names a function", code="reserved-name")
                return False
        return True

    def expect(self, node, expected: Type, what: str, scope: Scope | None = None) -> Compiled:
        c = self.compile(node, scope)
        if not accepts(expected, c.type):
            self.error(node, f"{what} must be {expected}, got {c.type}", code="type-mismatch")
            return Compiled(ANY, c.fn)
        return c

    # -- literals and names -----------------------------------------------------------------------------------
    def c_int_lit(self, node):
        v = int(node.children[0])
        if v >= MAX_INT:
            return self.error(node, f"integer literal {v} is too large (limit {MAX_INT})", code="bound")
        return Compiled(INT, lambda env: v)

    def c_float_lit(self, node):
        v = float(node.children[0])
        if not math.isfinite(v):
            return self.error(node, f"number literal {node.children[0]} is too large", code="bound")
        return Compiled(FLOAT, lambda env: v)

    def c_str_lit(self, node):
        v = _unquote(str(node.children[0]))
        return Compiled(STR, lambda env: v)

    def c_paren(self, node):
        # Kept as a node so `(a == b) == c` is not mistaken for the chained comparison `a == b == c`.
        return self.compile(node.children[0])

    def c_true_lit(self, node):
        return Compiled(BOOL, lambda env: True)

    def c_false_lit(self, node):
        return Compiled(BOOL, lambda env: False)

    def c_name(self, node):
        name = str(node.children[0])
        if name.startswith("_"):
            return self.error(node, f"names starting with '_' are not allowed ('{name}')", code="reserved-name")
        if name in CONSTANTS:
            v = CONSTANTS[name]
            return Compiled(FLOAT, lambda env: v)
        t = self.scope.names.get(name)
        if isinstance(t, FnT):
            return self.error(node, f"'{name}' is a function: call it as {name}(...)", code="reserved-name")
        if t is None:
            from .builtins import BUILTINS

            if name in BUILTINS:
                return self.error(node, f"'{name}' is a function: call it as {name}(...)", code="reserved-name")
            if name == "level":
                return self.error(node, LEVEL_OUTSIDE, code="level-outside-levels")
            known = ", ".join(sorted(k for k in self.scope.names if not k.startswith("$")))
            return self.error(node, f"unknown name '{name}' in {self.scope.what} (known here: {known})",
                    code="unknown-name")
        return Compiled(t, operator.itemgetter(name))

    # -- records and lists ------------------------------------------------------------------------------------
    def c_field(self, node):
        base_node, name_tok = node.children
        name = str(name_tok)
        if name.startswith("_"):
            return self.error(name_tok, f"field names starting with '_' are not allowed ('{name}')",
                    code="reserved-name")
        base = self.compile(base_node)
        if base.type == ANY:
            return Compiled(ANY, _raise_checked)
        if not isinstance(base.type, RecordT):
            return self.error(name_tok, f"cannot take field '.{name}' of {base.type:a}", code="type-mismatch")
        t = base.type.field(name)
        if t is None:
            return self.error(
                name_tok, f"unknown field '{name}' (this record has: {', '.join(base.type.names)})"
            , code="unknown-field")
        bf = base.fn
        return Compiled(t, lambda env: bf(env)[name])

    def c_index(self, node):
        base_node, idx_node = node.children
        base = self.compile(base_node)
        idx = self.expect(idx_node, INT, "a list index")
        if base.type == ANY:
            return Compiled(ANY, _raise_checked)
        if isinstance(base.type, ListT):
            bf, xf = base.fn, idx.fn

            def index(env):
                xs, i = bf(env), xf(env)
                if not -len(xs) <= i < len(xs):
                    raise EvalError(f"index {i} out of range for a list of {len(xs)}")
                return xs[i]

            return Compiled(base.type.elem, index)
        if base.type == STR:
            bf, xf = base.fn, idx.fn
            return Compiled(STR, lambda env: _str_index(bf(env), xf(env)))
        return self.error(node, f"cannot index {base.type:a}", code="type-mismatch")

    def c_slice(self, node):
        base_node, *bound_nodes = node.children  # start, stop, step; None where left out
        base = self.compile(base_node)
        bounds = [None if b is None else self.expect(b, INT, "a slice bound").fn for b in bound_nodes]
        if base.type == ANY:
            return Compiled(ANY, _raise_checked)
        if not (isinstance(base.type, ListT) or base.type == STR):
            return self.error(node, f"cannot slice {base.type:a}", code="type-mismatch")
        bf = base.fn
        start_f, stop_f, step_f = bounds

        def slice_(env):
            xs = bf(env)
            start = None if start_f is None else start_f(env)
            stop = None if stop_f is None else stop_f(env)
            step = None if step_f is None else step_f(env)
            if step == 0:
                raise EvalError("slice step cannot be 0")
            out = xs[start:stop:step]
            env["$budget"].charge(len(out))
            env["$budget"].charge_bytes(len(out))
            return out

        return Compiled(base.type, slice_)

    def c_list_lit(self, node):
        items = [self.compile(c) for c in node.children if c is not None]
        t: Type = ANY
        for c, item in zip([c for c in node.children if c is not None], items):
            u = unify(t, item.type)
            if u is None:
                return self.error(c, f"list items must share one type: {t} and {item.type} do not mix",
                        code="type-mismatch")
            t = u
        fns = [i.fn for i in items]

        def list_lit(env):
            env["$budget"].charge_bytes(len(fns))
            return [f(env) for f in fns]

        return Compiled(ListT(t), list_lit)

    def c_record_lit(self, node):
        fields: list[tuple[str, Type]] = []
        fns: list[tuple[str, Fn]] = []
        for pair in node.children:
            if pair is None:
                continue
            key_tok, value_node = pair.children
            key = str(key_tok)
            if key.startswith("_"):
                self.error(key_tok, f"field names starting with '_' are not allowed ('{key}')", code="reserved-name")
                continue
            if any(k == key for k, _ in fields):
                self.error(key_tok, f"duplicate field '{key}' in record", code="duplicate-key")
                continue
            c = self.compile(value_node)
            fields.append((key, c.type))
            fns.append((key, c.fn))
        return Compiled(RecordT(tuple(fields)), lambda env: {k: f(env) for k, f in fns})

    def c_listcomp(self, node):
        elem_node, *fors = node.children
        scope = self.scope
        # Each `for` clause binds a name; compile clauses left to right, then the element in the innermost scope.
        clauses = []
        for clause in fors:
            name_tok, src_node, *ifs = clause.children
            name = str(name_tok)
            self.binder_ok(name_tok)
            src = self.compile(src_node, scope)
            if src.type != ANY and not isinstance(src.type, ListT):
                self.error(src_node, f"a comprehension iterates over a list, got {src.type}", code="type-mismatch")
                elem_t: Type = ANY
            else:
                elem_t = src.type.elem if isinstance(src.type, ListT) else ANY
            scope = scope.child(**{name: elem_t})
            conds = [self.expect(i.children[0], BOOL, "a comprehension filter", scope).fn for i in ifs]
            # Each item costs its filters' nodes (and, innermost, the element's): charged per item, up front.
            clauses.append((name, src.fn, conds, 1 + sum(tree_size(i.children[0]) for i in ifs)))
        elem = self.compile(elem_node, scope)
        efn = elem.fn
        last = len(clauses) - 1
        clauses[last] = (*clauses[last][:3], clauses[last][3] + tree_size(elem_node))

        def run(env, depth=0, out=None):
            out = [] if out is None else out
            name, src, conds, per_item = clauses[depth]
            xs = src(env)
            env["$budget"].charge(len(xs) * per_item)
            had = name in env
            old = env.get(name)
            try:
                for x in xs:
                    env[name] = x
                    if all(c(env) for c in conds):
                        if depth + 1 < len(clauses):
                            run(env, depth + 1, out)
                        else:
                            out.append(efn(env))
                            env["$budget"].charge_bytes(1)
                            if len(out) > MAX_LIST:
                                raise EvalError(f"a comprehension built more than {MAX_LIST} items")
            finally:
                if had:
                    env[name] = old
                else:
                    env.pop(name, None)
            return out

        return Compiled(ListT(elem.type), run)

    # -- operators --------------------------------------------------------------------------------------------
    def c_neg(self, node):
        c = self.compile(node.children[0])
        if not is_numeric(c.type):
            return self.error(node, f"cannot negate {c.type:a}", code="type-mismatch")
        f = c.fn
        return Compiled(c.type, lambda env: -f(env))  # negation keeps a value inside the (symmetric) bounds

    def c_binop(self, node):
        left_node, op_tok, right_node = node.children
        op = str(op_tok)
        a, b = self.compile(left_node), self.compile(right_node)
        if a.type == ANY or b.type == ANY:
            return Compiled(ANY, _raise_checked)
        af, bf = a.fn, b.fn
        where = str(self.pos(op_tok))
        if op == "+" and a.type == STR and b.type == STR:
            def concat_str(env):
                x, y = af(env), bf(env)
                n = len(x) + len(y)
                if n > MAX_LIST:  # checked before the string is built
                    raise EvalError(f"{where}: '+' would make a string of {n} characters (limit {MAX_LIST})")
                budget = env["$budget"]
                budget.charge(1)
                budget.charge_bytes(n)
                return x + y

            return Compiled(STR, concat_str)
        if op == "+" and isinstance(a.type, ListT) and isinstance(b.type, ListT):
            t = unify(a.type, b.type)
            if t is None:
                return self.error(op_tok, f"cannot concatenate {a.type} and {b.type}", code="type-mismatch")

            def concat_list(env):
                x, y = af(env), bf(env)
                n = len(x) + len(y)
                if n > MAX_LIST:
                    raise EvalError(f"{where}: '+' would make a list of {n} items (limit {MAX_LIST})")
                budget = env["$budget"]
                budget.charge(n)
                budget.charge_bytes(n)
                return x + y

            return Compiled(t, concat_list)
        if not (is_numeric(a.type) and is_numeric(b.type)):
            return self.error(op_tok, f"operator '{op}' needs numbers, got {a.type} and {b.type}", code="type-mismatch")
        both_int = a.type == INT and b.type == INT
        rt = INT if both_int else FLOAT
        if op == "**":
            # int ** int is an int only when the exponent is a literal ≥ 0 (`r ** 2`); any other exponent may be
            # negative, so the result is typed float and is made a float, and type and value always agree.
            if both_int and not _nonnegative_int_literal(right_node):
                rt = FLOAT
            return Compiled(rt, _checked_op(_pow, op, where, rt == FLOAT, af, bf))
        py = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": _div, "//": _floordiv,
              "%": _mod}[op]
        if op == "/":
            rt = FLOAT
        return Compiled(rt, _checked_op(py, op, where, False, af, bf))

    def c_compare(self, node):
        left_node, op_tok, right_node = node.children
        op = str(op_tok)
        # `a < b < c` parses as compare(compare(a, b), c); we reject chaining rather than guess.
        if isinstance(left_node, Tree) and left_node.data == "compare":
            return self.error(op_tok, "chained comparisons are not supported; write (a < b) and (b < c)",
                    code="expr-syntax")
        a, b = self.compile(left_node), self.compile(right_node)
        if op in ("==", "!="):
            if unify(a.type, b.type) is None:
                return self.error(op_tok, f"cannot compare {a.type} with {b.type}", code="type-mismatch")
        elif not ((is_numeric(a.type) and is_numeric(b.type)) or (a.type == b.type == STR)):
            return self.error(op_tok, f"operator '{op}' needs two numbers or two strings, got {a.type} and {b.type}",
                    code="type-mismatch")
        af, bf = a.fn, b.fn
        if op in ("==", "!="):
            # Lists and records are compared item by item, each item charged (see `equal`).
            if op == "==":
                return Compiled(BOOL, lambda env: equal(af(env), bf(env), env["$budget"]))
            return Compiled(BOOL, lambda env: not equal(af(env), bf(env), env["$budget"]))
        py = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}[op]

        def order(env):
            env["$budget"].charge(1)  # numbers or strings, which are at most MAX_LIST characters
            return py(af(env), bf(env))

        return Compiled(BOOL, order)

    def _membership(self, node, negate: bool):
        left_node, right_node = node.children
        a, b = self.compile(left_node), self.compile(right_node)
        if b.type == STR:
            if not accepts(STR, a.type):
                return self.error(left_node, f"'in' a string needs a string on the left, got {a.type}",
                        code="type-mismatch")
        elif isinstance(b.type, ListT):
            if unify(a.type, b.type.elem) is None:
                return self.error(left_node, f"cannot look for {a.type:a} in {b.type:a}", code="type-mismatch")
        elif b.type != ANY:
            return self.error(right_node, f"'in' needs a list or a string on the right, got {b.type}",
                    code="type-mismatch")
        af, bf = a.fn, b.fn
        if negate:
            return Compiled(BOOL, lambda env: not contains(bf(env), af(env), env["$budget"]))
        return Compiled(BOOL, lambda env: contains(bf(env), af(env), env["$budget"]))

    def c_in_(self, node):
        return self._membership(node, False)

    def c_not_in(self, node):
        return self._membership(node, True)

    def c_not_(self, node):
        c = self.expect(node.children[0], BOOL, "the operand of 'not'")
        f = c.fn
        return Compiled(BOOL, lambda env: not f(env))

    def c_and_(self, node):
        a = self.expect(node.children[0], BOOL, "the operands of 'and'")
        b = self.expect(node.children[1], BOOL, "the operands of 'and'")
        af, bf = a.fn, b.fn
        return Compiled(BOOL, lambda env: af(env) and bf(env))

    def c_or_(self, node):
        a = self.expect(node.children[0], BOOL, "the operands of 'or'")
        b = self.expect(node.children[1], BOOL, "the operands of 'or'")
        af, bf = a.fn, b.fn
        return Compiled(BOOL, lambda env: af(env) or bf(env))

    def c_ifelse(self, node):
        then_node, cond_node, else_node = node.children
        cond = self.expect(cond_node, BOOL, "the condition of 'if'")
        a, b = self.compile(then_node), self.compile(else_node)
        t = unify(a.type, b.type)
        if t is None:
            return self.error(node, f"both branches of 'if' must have one type, got {a.type} and {b.type}",
                    code="type-mismatch")
        cf, af, bf = cond.fn, a.fn, b.fn
        return Compiled(t, lambda env: af(env) if cf(env) else bf(env))

    def c_lambda(self, node):
        if is_accessor(node):
            field = str(node.children[1].children[1])
            return self.error(node, f"a field accessor (.{field}) can only be passed where a function is taken, such "
                                    f"as sort(xs, .{field}), argmax or a component's fn parameter", code="lambda-form")
        return self.error(node, "a lambda (x -> ...) can only be passed to a function such as count, argmax or sort",
                          code="lambda-form")

    def c_let_expr(self, node):
        *binding_nodes, body_node = node.children
        scope = self.scope
        bindings: list[tuple[str, Fn]] = []
        seen: set[str] = set()
        for b in binding_nodes:
            name_tok, value_node = b.children
            name = str(name_tok)
            if name in seen:
                self.error(name_tok, f"'{name}' is bound twice in one let", code="duplicate-id")
                continue
            seen.add(name)
            # Checked against the scope so far: `let` may not hide a function, and later bindings see earlier ones.
            saved, self.scope = self.scope, scope
            ok = self.binder_ok(name_tok, "let")
            self.scope = saved
            value = self.compile(value_node, scope)
            scope = scope.child(**{name: value.type if ok else ANY})
            bindings.append((name, value.fn))
        body = self.compile(body_node, scope)
        bf = body.fn

        def let(env):
            saved = []
            try:
                for name, f in bindings:
                    v = f(env)
                    saved.append((name, name in env, env.get(name)))
                    env[name] = v
                return bf(env)
            finally:
                _restore(env, saved)

        return Compiled(body.type, let)

    def c_call(self, node):
        from .builtins import BUILTINS

        name_tok, args_node = node.children
        name = str(name_tok)
        args = [] if args_node is None else list(args_node.children)
        # A function bound in scope comes first: a component's parameter may take any name.
        fn = self.scope.names.get(name)
        if isinstance(fn, FnT):
            return self.call_function(node, name_tok, fn, args)
        spec = BUILTINS.get(name)
        if spec is None:
            if name in CONSTANTS:
                return self.error(name_tok, f"'{name}' is a constant, not a function: write {name}",
                        code="reserved-name")
            if name in self.scope.names:
                return self.error(name_tok, f"'{name}' is a value, not a function", code="reserved-name")
            return self.error(name_tok, _unknown_function(name), code="unknown-function")
        if spec.random and not self.scope.allow_random:
            return self.error(name_tok, f"random function '{name}' is not allowed in {self.scope.what}",
                    code="not-allowed")
        if not spec.min_args <= len(args) <= spec.max_args:
            want = str(spec.min_args) if spec.min_args == spec.max_args else f"{spec.min_args} to {spec.max_args}"
            return self.error(name_tok, f"{name}() takes {want} arguments ({spec.signature}), got {len(args)}",
                    code="arg-count")
        return spec.typer(self, node, args)

    # -- named functions ---------------------------------------------------------------------------------------
    def call_function(self, node, name_tok, fn: FnT, args: list) -> Compiled:
        name = str(name_tok)
        if fn.body is None:
            self.failed = True  # its declaration failed and said why; one error is enough
            return Compiled(ANY, _raise_checked)
        if len(args) != len(fn.params):
            n = len(fn.params)
            return self.error(name_tok, f"function '{name}' takes {n} argument{'s' if n != 1 else ''} "
                                        f"({', '.join(fn.params)}), got {len(args)}", code="arg-count")
        compiled_args = [self.compile(a) for a in args]
        body = self.instantiate(fn, name, tuple(c.type for c in compiled_args), name_tok)
        if body is None:
            return Compiled(ANY, _raise_checked)
        arg_fns, bf = [c.fn for c in compiled_args], body.fn
        if len(arg_fns) == 1:
            return Compiled(body.type, _one_argument_call(fn, bf, arg_fns[0]))
        cost = tree_size(fn.body)
        return Compiled(body.type, lambda env: _call_function(fn, bf, env, [f(env) for f in arg_fns], cost))

    def instantiate(self, fn: FnT, name: str, arg_types: tuple, at) -> Compiled | None:
        """The body of `fn` compiled for these argument types (cached on the FnT); None after reporting an error."""
        if fn.body is None:
            self.failed = True
            return None
        if arg_types not in fn.bodies:
            if len(fn.bodies) >= MAX_FUNCTION_BODIES:
                self.error(at, f"function '{name}' is called with more than {MAX_FUNCTION_BODIES} different "
                               f"argument types", code="bound")
                return None
            inner = _Checker(fn.site, self.diags, fn.scope.child(**dict(zip(fn.params, arg_types))), self.nesting)
            c = inner.compile(fn.body)
            fn.bodies[arg_types] = None if inner.failed else c
        body = fn.bodies[arg_types]
        if body is None:
            self.error(at, f"function '{name}' does not type-check for arguments of types "
                           f"({', '.join(map(str, arg_types))}); see the errors in its body", code="type-mismatch")
        return body

    # -- helpers for builtins ---------------------------------------------------------------------------------
    def _names_function(self, node) -> bool:
        """Is this argument the bare name of a named function (passed where a builtin takes a lambda)?"""
        return (isinstance(node, Tree) and node.data == "name"
                and isinstance(self.scope.names.get(str(node.children[0])), FnT))

    def _function_argument(self, node, arg_types: tuple, what: str, arity: str, code: str):
        """A named function passed as an argument, compiled for `arg_types`: (result type, call(env, args)), or None
        after reporting why not (the wrong number of parameters, or a body that does not type-check)."""
        fname = str(node.children[0])
        fn = self.scope.names[fname]
        assert isinstance(fn, FnT)  # the caller asked _names_function
        if fn.body is not None and len(fn.params) != len(arg_types):
            self.error(node, f"{what} must be a function of {arity}; '{fname}' takes {len(fn.params)} "
                             f"({', '.join(fn.params)})", code=code)
            return None
        body = self.instantiate(fn, fname, arg_types, node)
        if body is None:
            return None
        fbody, cost = body.fn, tree_size(fn.body)
        return body.type, lambda env, args: _call_function(fn, fbody, env, args, cost)

    def lambda_of(self, node, param: Type, what: str) -> tuple[Type, Callable[[dict, Any], Any]] | None:
        """Compile a one-argument lambda, or the name of a one-parameter function, whose parameter has type `param`;
        returns (result type, call(env, x))."""
        if self._names_function(node):
            res = self._function_argument(node, (param,), what, "one parameter", "type-mismatch")
            return None if res is None else (res[0], lambda env, x: res[1](env, [x]))
        if not (isinstance(node, Tree) and node.data == "lambda"):
            self.error(node, f"{what} must be a lambda such as x -> x.value", code="lambda-form")
            return None
        if len(node.children) != 2:
            self.error(node, f"{what} must be a lambda of one parameter, such as x -> x.value", code="lambda-form")
            return None
        name_tok, body_node = node.children
        name = str(name_tok)
        if not self.binder_ok(name_tok):
            return None
        body = self.compile(body_node, self.scope.child(**{name: param}))
        bf, cost = body.fn, tree_size(body_node)

        def call(env, x):
            # A lambda costs its body's nodes per call, so builtins that call it per item charge its real work.
            env["$budget"].charge(cost)
            return _bound(env, name, x, bf)

        return body.type, call

    def lambda2_of(self, node, first: Type, second: Type, what: str):
        """Compile a two-parameter lambda `(a, b) -> …`, or the name of a two-parameter function, whose parameters
        have types `first` and `second`; returns (result type, call(env, a, b)), or None after reporting why not."""
        if self._names_function(node):
            res = self._function_argument(node, (first, second), what, "two parameters", "lambda-form")
            return None if res is None else (res[0], lambda env, a, b: res[1](env, [a, b]))
        if not (isinstance(node, Tree) and node.data == "lambda" and len(node.children) == 3):
            self.error(node, f"{what} must be a lambda of two parameters, such as (total, x) -> total + x",
                       code="lambda-form")
            return None
        a_tok, b_tok, body_node = node.children
        if not (self.binder_ok(a_tok) and self.binder_ok(b_tok)):
            return None
        a_name, b_name = str(a_tok), str(b_tok)
        if a_name == b_name:
            self.error(b_tok, f"parameter '{b_name}' is named twice", code="reserved-name")
            return None
        body = self.compile(body_node, self.scope.child(**{a_name: first, b_name: second}))
        bf, cost = body.fn, tree_size(body_node)

        def call(env, a, b):
            env["$budget"].charge(cost)
            return _bound(env, a_name, a, lambda e: _bound(e, b_name, b, bf))

        return body.type, call


def _raise_checked(env):  # pragma: no cover - only reachable if a failed compile were run
    raise EvalError("expression has compile errors")


def _unknown_function(name: str) -> str:
    from difflib import get_close_matches

    from .builtins import BUILTINS

    close = get_close_matches(name, list(BUILTINS), n=3)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    return f"unknown function '{name}'{hint}"


def _restore(env: dict, saved: list[tuple[str, bool, Any]]) -> None:
    """Undo bindings made in order (name, was it bound, old value); newest first, so a rebinding unwinds right."""
    for name, had, old in reversed(saved):
        if had:
            env[name] = old
        else:
            env.pop(name, None)


def _bound(env: dict, name: str, value, body: Fn):
    """Run body with `name` bound to value in env, then put back whatever was there (evaluation is pure and
    single-threaded, so binding in place is safe and cheaper than copying the env)."""
    had = name in env
    old = env.get(name)
    env[name] = value
    try:
        return body(env)
    finally:
        if had:
            env[name] = old
        else:
            env.pop(name, None)


def _home(env: dict, hops: int) -> dict:
    """The env a function was defined in: `hops` links up the `$caller` chain of component envs."""
    for _ in range(hops):
        caller = env.get("$caller")
        if caller is None:
            raise EvalError("a function passed down from a caller ran where no caller env is linked")
        env = caller
    return env


def _one_argument_call(fn: FnT, body: Fn, arg: Fn) -> Fn:
    """The call of a one-parameter function, the common case (accessors such as `b -> b.value` handed to
    components): an accessor of a field of its parameter reads the field directly; any other body runs in its
    home env with the parameter bound. Both charge the call like `_call_function`."""
    tree = fn.body
    if isinstance(tree, Tree) and tree.data == "field" and isinstance(tree.children[0], Tree) and \
            tree.children[0].data == "name" and str(tree.children[0].children[0]) == fn.params[0]:
        field = str(tree.children[1])

        def read_field(env):
            env["$budget"].charge(1)
            return arg(env)[field]

        return read_field
    name, hops = fn.params[0], fn.hops
    cost = tree_size(tree)

    def call(env):
        env["$budget"].charge(cost)
        home = _home(env, hops)
        return _bound(home, name, arg(env), body)

    return call


def _call_function(fn: FnT, body: Fn, env: dict, values: list, cost: int = 1) -> Any:
    """Run a function body in the env it was defined in, its parameters bound to `values` for the duration."""
    env["$budget"].charge(cost)  # a call costs its body's nodes: chains of calls are bounded like loops are
    home = _home(env, fn.hops)
    saved = [(p, p in home, home.get(p)) for p in fn.params]
    try:
        for p, v in zip(fn.params, values):
            home[p] = v
        return body(home)
    finally:
        _restore(home, saved)


def _unquote(s: str) -> str:
    body = s[1:-1]
    out, i = [], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            out.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _str_index(s: str, i: int) -> str:
    if not -len(s) <= i < len(s):
        raise EvalError(f"index {i} out of range for a string of {len(s)}")
    return s[i]


def _nonnegative_int_literal(node) -> bool:
    while isinstance(node, Tree) and node.data == "paren":
        node = node.children[0]
    return isinstance(node, Tree) and node.data == "int_lit"


def _checked_op(py, op: str, where: str, to_float: bool, af: Fn, bf: Fn) -> Fn:
    """An arithmetic operator that charges a step and checks its result where it arises: integers inside ±MAX_INT
    (so no later randint or range sees a huge bound), floats finite and real. `where` is the operator's position."""
    def arith(env):
        x, y = af(env), bf(env)
        env["$budget"].charge(1)
        try:
            v = py(x, y)
        except EvalError as exc:
            raise EvalError(f"{where}: {exc}") from None
        except (OverflowError, ZeroDivisionError) as exc:
            raise EvalError(f"{where}: {_fmt_num(x)} {op} {_fmt_num(y)} failed: {exc}") from None
        if to_float:
            v = float(v)
        return _checked_number(v, where, lambda: f"{_fmt_num(x)} {op} {_fmt_num(y)}")

    return arith


def _fmt_num(v) -> str:
    return repr(v) if not isinstance(v, int) or abs(v) < 10**30 else f"an integer of {v.bit_length()} bits"


def _checked_number(v, where: str, what) -> Any:
    """`v` itself when it may be stored (an integer inside ±MAX_INT, a finite float, or not a number at all); else
    an EvalError at `where` naming `what()` (called only then, so messages cost nothing on the normal path)."""
    if isinstance(v, bool):
        return v
    at = f"{where}: " if where else ""
    if isinstance(v, int):
        if not -MAX_INT < v < MAX_INT:
            raise EvalError(f"{at}integer overflow: {what()} is outside ±{MAX_INT}")
        return v
    if isinstance(v, float):
        if not math.isfinite(v):
            raise EvalError(f"{at}{what()} gives {v}, not a finite number")
        return v
    if isinstance(v, complex):
        raise EvalError(f"{at}{what()} is not a real number")
    return v


def equal(a, b, budget: Budget) -> bool:
    """`a == b` with every compared item charged, walking lists and records without recursion. Strings are at most
    MAX_LIST characters, so each string comparison is one step."""
    budget.charge(1)
    if not isinstance(a, (list, dict)):
        return a == b
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, list):
            if not isinstance(y, list) or len(x) != len(y):
                return False
            budget.charge(len(x))
            stack.extend(zip(x, y))
        elif isinstance(x, dict):
            if not isinstance(y, dict) or len(x) != len(y):
                return False
            budget.charge(len(x))
            for k, v in x.items():
                if k not in y:
                    return False
                stack.append((v, y[k]))
        elif isinstance(y, (list, dict)) or x != y:
            return False
    return True


def contains(xs, x, budget: Budget) -> bool:
    """`x in xs` for a list or a string, charged by the size of what is searched."""
    if isinstance(xs, str):
        budget.charge(1 + len(xs) // 64)  # a substring search scans the text
        return x in xs
    budget.charge(len(xs) + 1)
    if not isinstance(x, (list, dict)):
        return x in xs  # scalars: one comparison per item, already charged
    return any(equal(x, y, budget) for y in xs)


def _div(a, b):
    if b == 0:
        raise EvalError("division by zero")
    return a / b


def _floordiv(a, b):
    if b == 0:
        raise EvalError("division by zero")
    return a // b


def _mod(a, b):
    if b == 0:
        raise EvalError("modulo by zero")
    return a % b


def _pow(a, b):
    if abs(b) > 64:
        raise EvalError(f"exponent {b} is too large (limit 64)")
    if isinstance(b, int) and b < 0 and isinstance(a, int):
        if a == 0:
            raise EvalError("zero to a negative power")
        return a**b
    try:
        v = a**b
    except OverflowError:
        raise EvalError(f"power failed: {a} ** {b} is too large") from None
    except ZeroDivisionError:
        raise EvalError(f"power failed: {a} ** {b} divides by zero") from None
    if isinstance(v, complex):  # a negative number to a fractional power
        raise EvalError(f"power failed: {a} ** {b} is not a real number")
    return v  # range and finiteness are checked by the operator (_checked_op)


# -- entry points -----------------------------------------------------------------------------------------------
# Larger than the bundled library's distinct expressions (about 4,200): a cyclic pass over more entries than an LRU
# holds never hits, so each compile of the library would parse every expression again.
@lru_cache(maxsize=1 << 15)
def _parse_cached(source: str):
    """The tree of `source`, shared by every caller (none may change it): fastparse's, which is lark's tree, or
    where fastparse declines, lark's own tree or its UnexpectedInput (not cached, so an error is raised again)."""
    tree = fastparse.parse(source)
    if tree is None:
        tree = lark_parser().parse(source)
    return desugar_accessors(tree) if "." in source else tree


ACCESSOR_PARAM = "it"  # the parameter a field accessor's lambda binds: `.value` is `it -> it.value`


def is_accessor(node) -> bool:
    """Is this lambda the desugared form of a field accessor `.f` (its parameter token sits on the field's name)?"""
    children = node.children
    return (len(children) == 2 and isinstance(children[1], Tree) and children[1].data == "field"
            and str(children[0]) == ACCESSOR_PARAM and isinstance(children[1].children[1], Token)
            and children[0].start_pos == children[1].children[1].start_pos)


def desugar_accessors(tree):
    """The tree with every field accessor `.f` replaced by the lambda `it -> it.f`, positioned where the accessor
    is (so every consumer of lambdas, and every message about them, reads an accessor as the lambda it stands for).
    Iterative: a tree as deep as the parser allows is never recursed into."""
    def lambda_for(node):
        name = node.children[0]
        param = Token("NAME", ACCESSOR_PARAM, name.start_pos, name.line, name.column, name.end_line,
                      name.end_column, name.end_pos)
        body = Tree("field", [Tree("name", [param], node.meta), name], node.meta)
        return Tree("lambda", [param, body], node.meta)

    if isinstance(tree, Tree) and tree.data == "accessor":
        return lambda_for(tree)
    stack = [tree]
    while stack:
        node = stack.pop()
        if not isinstance(node, Tree):
            continue
        for i, child in enumerate(node.children):
            if isinstance(child, Tree):
                if child.data == "accessor":
                    node.children[i] = lambda_for(child)
                else:
                    stack.append(child)
    return tree


def parse(source: str, site: Site, diags: Diagnostics):
    if len(source) > MAX_SOURCE:
        diags.error(site.at(1, 1), f"expression is {len(source)} characters long; the limit is {MAX_SOURCE}",
                code="bound")
        return None
    try:
        return _parse_cached(source)
    except UnexpectedInput as exc:
        message = _syntax_message(exc, source)
        if message == "expression ends too early":
            lines = source.rstrip("\n").split("\n")
            diags.error(site.at(len(lines), len(lines[-1]) + 1), message, code="expr-syntax")
        else:
            diags.error(site.at(exc.line if exc.line > 0 else 1, exc.column if exc.column > 0 else 1), message,
                    code="expr-syntax")
        return None


def _syntax_message(exc: UnexpectedInput, source: str) -> str:
    if isinstance(exc, UnexpectedEOF):
        return "expression ends too early"
    if isinstance(exc, UnexpectedCharacters):
        at = exc.pos_in_stream
        ch = source[at] if at is not None and at < len(source) else "?"
        return f"unexpected character '{ch}' in expression"
    if isinstance(exc, UnexpectedToken):
        tok = exc.token
        if tok.type == "$END":
            return "expression ends too early"
        expected = sorted({_pretty_terminal(t) for t in exc.expected})[:8]  # INT and FLOAT are both "a number"
        return f"unexpected '{tok}' in expression (expected {', '.join(expected)})"
    return "invalid expression"


_TERMINALS = {
    "RPAR": "')'", "LPAR": "'('", "RSQB": "']'", "LSQB": "'['", "RBRACE": "'}'", "LBRACE": "'{'", "COMMA": "','",
    "COLON": "':'", "NAME": "a name", "INT": "a number", "FLOAT": "a number", "STRING": "a string", "DOT": "'.'",
    "IF": "'if'", "ELSE": "'else'", "FOR": "'for'", "IN": "'in'", "NOT": "'not'", "AND": "'and'", "OR": "'or'",
    "MINUS": "'-'", "COMP_OP": "a comparison", "ADD_OP": "'+'/'-'", "MUL_OP": "'*'/'/'", "POW_OP": "'**'",
    "TRUE": "'true'", "FALSE": "'false'", "__ANON_0": "'->'", "LET": "'let'", "EQUAL": "'='",
}


def _pretty_terminal(t: str) -> str:
    return _TERMINALS.get(t, t.lower())


def tree_size(tree) -> int:
    """Nodes of a parse tree (tokens aside), counted without recursion: what one evaluation of it costs in steps."""
    count, stack = 0, [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, Tree):
            count += 1
            stack.extend(node.children)
    return max(count, 1)


def _depth(tree) -> int:
    """Depth of a parse tree, computed without recursion."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, d = stack.pop()
        deepest = max(deepest, d)
        if isinstance(node, Tree):
            stack.extend((c, d + 1) for c in node.children)
    return deepest


@lru_cache(maxsize=1 << 15)
def _parsed_depth(source: str) -> int:
    """The depth of a source's (cached) tree, kept beside it: walking every tree again cost a compile 40 % of its time."""
    return _depth(_parse_cached(source))


def _parse_bounded(source: str, site: Site, diags: Diagnostics, hint: str = ""):
    """The syntax tree of `source`, or None (with the error in diags) when it does not parse or nests too deep."""
    tree = parse(source, site, diags)
    if tree is None:
        return None
    depth = _parsed_depth(source)
    if depth > MAX_DEPTH:
        diags.error(site.at(1, 1), f"expression nests {depth} levels deep; the limit is {MAX_DEPTH}{hint}",
                code="bound")
        return None
    return tree


def compile_expr(source: Any, scope: Scope, site: Site, diags: Diagnostics) -> Compiled | None:
    """Parse, type-check and compile one expression. Errors go to `diags`; returns None on any error."""
    if isinstance(source, bool):
        source = "true" if source else "false"
    elif isinstance(source, float) and not math.isfinite(source):  # YAML's .inf, .nan or 1.0e999
        diags.error(site.at(1, 1), f"a number must be finite, got {source}", code="type-mismatch")
        return None
    elif isinstance(source, (int, float)):
        source = repr(source)
    if not isinstance(source, str):
        diags.error(site.at(1, 1), f"expected an expression (a string), got {type(source).__name__}",
                code="expr-syntax")
        return None
    tree = _parse_bounded(source, site, diags, " (name intermediate results as separate steps)")
    if tree is None:
        return None
    checker = _Checker(site, diags, scope)
    c = checker.compile(tree)
    if checker.failed:
        return None
    c.source = source
    c.where = str(site.at(1, 1))
    c.cost = tree_size(tree)
    return c


def function_type(source: Any, scope: Scope, site: Site, diags: Diagnostics, hops: int = 0) -> FnT | None:
    """Parse a function's source, which must be a lambda (`x -> e` or `(a, b) -> e`), and return its FnT.

    Only the shape is checked here: parameter names, and that every function the body calls exists now (a builtin or
    a function in `scope`), which is what makes recursion impossible: a function cannot name itself or a later one.
    The body is type-checked where the function is called, for that call's argument types."""
    if not isinstance(source, str):
        diags.error(site.at(1, 1), f"expected a function such as (a, b) -> a + b, got {type(source).__name__}",
                code="lambda-form")
        return None
    tree = _parse_bounded(source, site, diags)
    if tree is None:
        return None
    checker = _Checker(site, diags, scope)
    if not (isinstance(tree, Tree) and tree.data == "lambda"):
        checker.error(tree, "a function is a lambda such as x -> x * 2 or (a, b) -> a + b", code="lambda-form")
        return None
    *param_toks, body = tree.children
    params: list[str] = []
    for tok in param_toks:
        if not checker.binder_ok(tok):
            continue
        if str(tok) in params:
            checker.error(tok, f"parameter '{tok}' is named twice", code="duplicate-id")
            continue
        params.append(str(tok))
    _check_calls(checker, body, scope, set(params))
    if checker.failed:
        return None
    return FnT(tuple(params), body, scope, site, hops)


def _check_calls(checker: _Checker, body, scope: Scope, params: set[str]) -> None:
    """Report every call in `body` of a function that does not exist yet. Calls of local names (parameters, loop
    variables) are left to the type check, which says they are values."""
    from .builtins import BUILTINS

    local = set(params)
    calls: list[Token] = []  # the called names (the NAME of each call)
    stack = [body]
    while stack:
        n = stack.pop()
        if not isinstance(n, Tree):
            continue
        if n.data == "call" and isinstance(callee := n.children[0], Token):
            calls.append(callee)
        elif n.data == "lambda":
            local.update(str(t) for t in n.children[:-1])
        elif n.data in ("comp_for", "let_binding"):
            local.add(str(n.children[0]))
        stack.extend(n.children)
    for tok in sorted(calls, key=lambda t: (t.line or 0, t.column or 0)):
        name = str(tok)
        if name in BUILTINS or name in local or name in CONSTANTS or name in scope.names:
            continue
        checker.error(tok, _unknown_function(name), code="unknown-function")


def run(c: Compiled, env: dict) -> Any:
    """Evaluate a compiled expression, turning any Python-level failure into an EvalError that names the source."""
    try:
        return c.fn(env)
    except EvalError as exc:
        # Same class, so callers can tell a PlacementFailed (redraw) from other failures. An error that names no
        # position (a library function's, a limit's) gets the expression's own.
        raise type(exc)(located(f"{exc} (in `{c.source}`)", c.where)) from None
    except (ZeroDivisionError, IndexError, ValueError, KeyError, TypeError, OverflowError, RecursionError) as exc:
        raise EvalError(located(f"{type(exc).__name__}: {exc} (in `{c.source}`)", c.where)) from None


def check_value(value: Any, budget: Budget, what: str) -> Any:
    """The net under every stored value (state field, step, answer, witness, query): plain data only, integers
    inside ±MAX_INT, floats finite, nesting at most MAX_VALUE_DEPTH, and its serialised size charged to the byte
    budget (a list may hold the same large list many times; the trace would write each copy) and its items to the
    step budget. Walks without recursion and charges as it goes, so a huge shared structure stops at the budget,
    not at the end."""
    # (a list or record, its depth); the value wrapped, so it is checked like any item (at depth 0)
    stack: list[tuple[list | dict, int]] = [([value], -1)]
    while stack:
        v, depth = stack.pop()
        if depth >= MAX_VALUE_DEPTH:
            raise EvalError(f"{what} nests lists and records more than {MAX_VALUE_DEPTH} levels deep")
        budget.charge(len(v) + 1)  # the walk is work too: a sample's attempts cannot re-walk a huge value free
        budget.charge_bytes(len(v) + 1)
        for x in (v.values() if type(v) is dict else v):
            t = type(x)
            if t is int:
                if not -MAX_INT < x < MAX_INT:
                    _checked_number(x, what, lambda x=x: f"the value {x}")
            elif t is float:
                if not math.isfinite(x):
                    _checked_number(x, what, lambda: "a number in it")
            elif t is str:
                budget.charge_bytes(len(x))
            elif t is list or t is dict:
                stack.append((x, depth + 1))
            elif t is not bool and x is not None:
                raise EvalError(f"{what} holds a {t.__name__}, which is not data")
    return value


def run_checked(c: Compiled, env: dict, what: str) -> Any:
    """Evaluate and check the value for storing (see check_value); `what` names it: "state field 'n'"."""
    try:
        env["$budget"].charge(c.cost)  # so that an attempt of long expressions without loops still costs its work
    except EvalError as exc:
        raise type(exc)(located(str(exc), c.where)) from None
    v = run(c, env)
    try:
        return check_value(v, env["$budget"], f"{c.where}: {what}" if c.where else what)
    except EvalError as exc:
        raise EvalError(f"{exc} (in `{c.source}`)") from None


def new_env(values: dict, rng=None, budget: Budget | None = None) -> dict:
    env = dict(values)
    env["$budget"] = budget or Budget()
    if rng is not None:
        env["$rng"] = rng
    return env


def canonical_tree(source: Any, keep: set[str], rename: dict[str, str],
                   functions: dict[str, Any] | None = None, printed: dict[str, str] | None = None,
                   levels: dict[str, Any] | None = None) -> str:
    """A print of the expression for task identity: literals become <lit>; names in `rename` are replaced; names
    in `keep` (state fields, level, vocab) stay; any other name (lambda, let or loop variable) becomes <v>.

    A call of one of `functions` (name → lambda source) prints a digest of the function's own print in its place, so
    two programs that differ only in what they call a helper (or in its parameter names) print the same. Each
    function is printed once (into `printed`, which callers printing several expressions of one program share) and
    its callers print its digest, not its body: a chain of functions each calling the one before twice
    (`e_i = x -> e_{i-1}(e_{i-1}(x))`) prints in time linear in the chain, not in 2^length.

    A name in `levels` (a levels parameter → its expression) prints as its expression does, so a program that names
    an expression of `level` in `levels:` has the identity of one that writes it inline."""
    functions = functions or {}
    levels = levels or {}
    printed = {} if printed is None else printed
    if not isinstance(source, str):
        return "<lit>"
    try:
        tree = _parse_cached(source)
    except UnexpectedInput:
        return source
    # A function body sees only its parameters, the base names and earlier functions: never the program's names.
    body_keep = set(BASE_NAMES)

    def inline(name: str, expanding: tuple) -> str:
        if name in printed:
            return printed[name]
        try:
            fn_tree = _parse_cached(functions[name]) if isinstance(functions[name], str) else None
        except UnexpectedInput:
            fn_tree = None
        if fn_tree is None or name in expanding:  # malformed or self-referent: reported by the compiler itself
            return name
        body = walk(fn_tree, body_keep, {}, expanding + (name,))
        printed[name] = "fn(" + hashlib.sha256(body.encode()).hexdigest()[:32] + ")"
        return printed[name]

    def walk(n, keep_names: set, renames: dict, expanding: tuple) -> str:
        def sub(c) -> str:
            return walk(c, keep_names, renames, expanding)

        if n is None:
            return "_"
        if isinstance(n, Token):
            return str(n)
        if n.data in ("int_lit", "float_lit", "str_lit", "true_lit", "false_lit"):
            return "<lit>"
        if n.data == "paren":
            return sub(n.children[0])
        if n.data == "name":
            name = str(n.children[0])
            if name in levels and name not in renames:
                if not isinstance(levels[name], str):
                    return "<lit>"
                try:
                    return walk(_parse_cached(levels[name]), keep_names | {"level"}, {}, expanding)
                except UnexpectedInput:
                    return name
            if name in functions and name not in keep_names:  # a function passed where a lambda is expected
                return inline(name, expanding)
            return name if name in keep_names or name in CONSTANTS else renames.get(name, "<v>")
        if n.data == "lambda":
            return "lambda(" + ",".join("<v>" for _ in n.children[:-1]) + "," + sub(n.children[-1]) + ")"
        if n.data in ("comp_for", "let_binding"):
            return n.data + "(<v>," + ",".join(sub(c) for c in n.children[1:]) + ")"
        if n.data == "call" and str(n.children[0]) in functions:
            return "call(" + inline(str(n.children[0]), expanding) + "," + sub(n.children[1]) + ")"
        return n.data + "(" + ",".join(sub(c) for c in n.children) + ")"

    return walk(tree, keep, rename, ())


def references(source: Any) -> tuple[frozenset[str], frozenset[str]]:
    """(names, fields) an expression reads: every bare name it mentions (state fields, steps, functions it calls,
    and its own lambda, let and loop variables alike) and every record field it reads with `.field`. Keys of a
    record it builds are written, not read. A source that does not parse reads nothing (the compiler reports it)."""
    if not isinstance(source, str):
        return frozenset(), frozenset()
    try:
        tree = _parse_cached(source)
    except UnexpectedInput:
        return frozenset(), frozenset()
    names: set[str] = set()
    fields: set[str] = set()
    stack = [tree]
    while stack:
        n = stack.pop()
        if isinstance(n, Token) or n is None:
            continue
        if n.data == "name":
            names.add(str(n.children[0]))
        elif n.data == "field":
            fields.add(str(n.children[1]))
        elif n.data == "call":
            names.add(str(n.children[0]))
        stack.extend(c for c in n.children if not isinstance(c, Token))
    return frozenset(names), frozenset(fields)
