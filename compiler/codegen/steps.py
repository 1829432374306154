"""Ordered named expressions and boolean constraints: the shape shared by grammar state/require and task
compute/require. Each step sees the names defined before it; every problem is reported, none stops the rest."""
from __future__ import annotations

from typing import Callable

from ..errors import Diagnostics
from ..expr.compile import Compiled, Scope, Site, compile_expr
from ..expr.types import ANY, BOOL, Type, accepts


def compile_steps(entries: dict, names: dict[str, Type], doc, key: str, what: str, taken: Callable[[str], bool],
                  clash: str, diags: Diagnostics) -> tuple[list[tuple[str, Compiled]], bool]:
    """Compile `key:` entries in order, adding each result's type to `names` (in place)."""
    steps: list[tuple[str, Compiled]] = []
    ok = True
    for name, source in entries.items():
        if taken(name) or not name.isidentifier() or name.startswith("_"):
            diags.error(doc.key_pos((key, name)), clash.format(name=name))
            ok = False
            continue
        c = compile_expr(source, Scope(names, allow_random=True, what=what), Site(doc, (key, name)), diags)
        if c is None:
            ok = False
            names[name] = ANY  # later steps may use it without a cascade of errors
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
            diags.error(doc.pos((key, name)), f"{noun} '{name}' must be a bool expression, got {c.type}")
            ok = False
        else:
            out.append((name, c))
    return out, ok
