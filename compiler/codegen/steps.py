"""Ordered named expressions and boolean constraints: the shape shared by grammar state/require and task
compute/require. Each step sees the names defined before it; every problem is reported, none stops the rest."""
from __future__ import annotations

from typing import Callable

from ..errors import Diagnostics
from ..expr.compile import (BASE_NAMES, CONSTANTS, MAX_VALUE_DEPTH, Compiled, Scope, Site, compile_expr,
                            function_type)
from ..expr.types import ANY, BOOL, FnT, Type, accepts, type_depth

MAX_FUNCTIONS = 64  # named functions per file


def compile_functions(entries: dict, names: dict[str, Type], doc, taken: Callable[[str], bool],
                      diags: Diagnostics) -> bool:
    """Declare `functions:` in order, adding each to `names` (in place) as a FnT.

    A function sees its parameters, the base names (level, vocab), the functions declared above it and the builtins:
    never state fields, query variables or steps, so it is a pure helper and cannot call itself or a later one."""
    from ..expr.builtins import BUILTINS

    ok = True
    if len(entries) > MAX_FUNCTIONS:
        diags.error(doc.key_pos(("functions",)), f"{len(entries)} functions; the limit is {MAX_FUNCTIONS}",
                code="bound")
        return False
    for name, source in entries.items():
        loc = ("functions", name)
        if not name.isidentifier() or name.startswith("_") or name in CONSTANTS or name in BASE_NAMES or taken(name):
            diags.error(doc.key_pos(loc), f"'{name}' cannot name a function (reserved, taken, or not a name)",
                    code="reserved-name")
            ok = False
            continue
        if name in BUILTINS:
            diags.error(doc.key_pos(loc), f"function '{name}' would hide the builtin {BUILTINS[name].signature}; "
                                          f"choose another name", code="reserved-name")
            ok = False
            continue
        visible = {k: t for k, t in names.items() if k in BASE_NAMES or isinstance(t, FnT)}
        site = Site(doc, loc)
        fn = function_type(source, Scope(visible, what=f"function '{name}'"), site, diags)
        if fn is None:
            ok = False
            fn = FnT((), None, Scope(visible), site)  # calls of it stay quiet: its declaration said what is wrong
        names[name] = fn
    return ok


def compile_steps(entries: dict, names: dict[str, Type], doc, key: str, what: str, taken: Callable[[str], bool],
                  clash: str, diags: Diagnostics) -> tuple[list[tuple[str, Compiled]], bool]:
    """Compile `key:` entries in order, adding each result's type to `names` (in place)."""
    steps: list[tuple[str, Compiled]] = []
    ok = True
    for name, source in entries.items():
        if taken(name) or not name.isidentifier() or name.startswith("_"):
            diags.error(doc.key_pos((key, name)), clash.format(name=name), code="reserved-name")
            ok = False
            continue
        c = compile_expr(source, Scope(names, allow_random=True, what=what), Site(doc, (key, name)), diags)
        if c is None:
            ok = False
            names[name] = ANY  # later steps may use it without a cascade of errors
            continue
        depth = type_depth(c.type)
        if depth > MAX_VALUE_DEPTH:
            # A chain of steps each wrapping the last (`s2: "[s1]"`) would otherwise build values too deep to store,
            # walk or serialise; the type says how deep, so this is known before anything runs.
            diags.error(Site(doc, (key, name)).at(1, 1), f"'{name}' holds lists and records nested {depth} levels "
                                                         f"deep; the limit is {MAX_VALUE_DEPTH}", code="bound")
            ok = False
            names[name] = ANY
            continue
        names[name] = c.type
        steps.append((name, c))
    return steps, ok


def compile_constraints(entries: dict, names: dict[str, Type], doc, key: str, what: str, noun: str,
                        diags: Diagnostics) -> tuple[list[tuple[str, Compiled]], bool]:
    """Compile named bool expressions (no randomness allowed)."""
    out: list[tuple[str, Compiled]] = []
    ok = True
    for name, source in entries.items():
        c = compile_expr(source, Scope(names, what=what), Site(doc, (key, name)), diags)
        if c is None:
            ok = False
        elif not accepts(BOOL, c.type):
            diags.error(doc.pos((key, name)), f"{noun} '{name}' must be a boolean expression, got {c.type}",
                    code="type-mismatch")
            ok = False
        else:
            out.append((name, c))
    return out, ok


def fields_read(sources, functions: dict[str, str], derived: dict[str, frozenset[str]]) -> frozenset[str]:
    """Every record field the expressions `sources` read (`.field`), with what the functions they call read and
    what the names they mention read when they were defined (`derived`: a grammar's state field → the fields its
    definition read, closed over earlier fields). By name and conservative: a local variable that shares a state
    field's name counts as reading it."""
    from ..expr.compile import references

    fields: set[str] = set()
    expanded: set[str] = set()
    todo = list(sources)
    while todo:
        names, read = references(todo.pop())
        fields |= read
        for name in names:
            fields |= derived.get(name, frozenset())
            if name in functions and name not in expanded:
                expanded.add(name)
                todo.append(functions[name])
    return frozenset(fields)
