"""A `levels:` block: the named difficulty parameters of a grammar or a program (reasoning-gym's named difficulty
attributes are the model). Each is an expression of `level` (0-9), the vocabulary, the file's functions and the
parameters above it; never random, never of the state or the query. `level` itself is bound only here, so what a
level means is written in one place, and the schedule (each parameter's value at every level) is known when the
file compiles: `tessera levels`, the audit and the reference docs read it.

A parameter is evaluated before each state attempt (a grammar's) or program run (a program's), from nothing but the
level and the vocabulary: it draws nothing from the random streams, so lifting an expression of `level` into
`levels:` changes no picture and no answer (bench/rewrite_levels.py did that for the library)."""
from __future__ import annotations

import re
from typing import Any, Iterable

from ..errors import Diagnostics, EvalError, Position
from ..expr.compile import (BASE_NAMES, CONSTANTS, Budget, Compiled, Scope, Site, compile_expr, new_env, references,
                            run_checked)
from ..expr.types import ANY, INT, FnT, Type

LEVELS = tuple(range(10))  # the levels a task is generated at
LEVELS_WHAT = "`levels:` (a difficulty parameter is the same for every instance of a level: nothing random)"


def compile_levels(entries: dict, names: dict[str, Type], vocab: dict, doc, taken, diags: Diagnostics
                   ) -> tuple[list[tuple[str, Compiled]], dict[str, list], bool]:
    """Compile `levels:` in order and evaluate each parameter at every level. Adds each parameter's type to `names`
    (in place; `names` must not hold `level`, which only the parameters see). Returns the compiled parameters,
    the schedule (name → its value at levels 0-9; only parameters that compiled and evaluated everywhere) and
    whether all is well. `taken(name)`: does the name clash with the file's other names?"""
    params: list[tuple[str, Compiled]] = []
    schedule: dict[str, list] = {}
    ok = True
    visible = {k: t for k, t in names.items() if k in BASE_NAMES or isinstance(t, FnT)}
    visible["level"] = INT
    for name, source in entries.items():
        loc = ("levels", name)
        if (not isinstance(name, str) or not name.isidentifier() or name.startswith("_") or name in BASE_NAMES
                or name in CONSTANTS or taken(name)):
            diags.error(doc.key_pos(loc), f"'{name}' cannot name a levels parameter (reserved, an input, a "
                                          f"function, or not a name)", code="reserved-name")
            ok = False
            continue
        c = compile_expr(source, Scope(dict(visible), allow_random=False, what=LEVELS_WHAT), Site(doc, loc), diags)
        if c is None:
            ok = False
            names[name] = visible[name] = ANY  # readers stay quiet: the parameter's own error says what is wrong
            continue
        names[name] = visible[name] = c.type
        params.append((name, c))
        values = _schedule_of(name, c, params, schedule, vocab, doc, loc, diags)
        if values is None:
            ok = False
        else:
            schedule[name] = values
    return params, schedule, ok


def _schedule_of(name: str, c: Compiled, params, schedule: dict[str, list], vocab: dict, doc, loc: tuple,
                 diags: Diagnostics) -> list | None:
    """The parameter's value at each level, evaluated now: a failure at some level is a compile error naming it."""
    if any(p not in schedule for p, _ in params[:-1]):
        return None  # an earlier parameter failed; its error is reported
    values = []
    for level in LEVELS:
        env = new_env({"level": level, "vocab": vocab, **{p: schedule[p][level] for p, _ in params[:-1]}})
        try:
            values.append(run_checked(c, env, f"levels parameter '{name}'"))
        except EvalError as exc:
            # At the failing operator when the run-time message names it (path:line:col: ...), else the parameter.
            m = re.match(r"(.*?):(\d+):(\d+): (.*)", str(exc), re.S)
            pos, why = doc.pos(loc), str(exc)
            if m and m.group(1) == pos.path:
                pos, why = Position(pos.path, int(m.group(2)), int(m.group(3))), m.group(4)
            diags.error(pos, f"levels parameter '{name}' fails at level {level}: {why}", code="level-value")
            return None
    return values


def level_values(params: list[tuple[str, Compiled]], level: int, vocab: dict) -> dict[str, Any]:
    """The parameters' values at `level` (run time: the vocabulary may be a build's own). Charged to a budget of
    its own, so the state's attempts spend what they spent when these expressions were written inline."""
    env = new_env({"level": level, "vocab": vocab}, budget=Budget())
    out: dict[str, Any] = {}
    for name, c in params:
        out[name] = env[name] = run_checked(c, env, f"levels parameter '{name}'")
    return out


def warn_no_effect(schedule: dict[str, list], readers: Iterable[Any], doc, diags: Diagnostics,
                   also_read: Iterable[str] = ()) -> None:
    """Warning level-no-effect: a parameter whose value is the same at all ten levels (it is a constant: write it
    where it is read, or make it depend on the level), or that no expression of the file reads."""
    read: set[str] = set(also_read)  # names read where `references` cannot see (a prompt template's)
    for source in readers:
        read |= references(source)[0]
    for name, values in schedule.items():
        pos = doc.key_pos(("levels", name))
        if name not in read:
            diags.warning(pos, f"levels parameter '{name}' is never read: nothing in this file changes with it",
                          code="level-no-effect")
        elif all(v == values[0] for v in values[1:]):
            diags.warning(pos, f"levels parameter '{name}' is {values[0]!r} at every level 0-9: it never changes "
                               f"anything (make it depend on the level, or write the constant where it is read)",
                          code="level-no-effect")


def level_schedule(compiled) -> dict[str, list]:
    """The difficulty schedule of a compiled grammar or task: parameter name → its value at levels 0-9 (a task's
    own parameters after its grammar's, each table in declaration order)."""
    grammar = getattr(compiled, "grammar", None)
    out = dict(grammar.level_schedule) if grammar is not None else {}
    out.update(compiled.level_schedule)
    return out
