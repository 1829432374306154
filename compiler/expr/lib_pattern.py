"""Pattern operators: the rules behind a visible sequence (colour cycles, repeating sizes, steady steps).

Sequence-completion tasks infer the rule from what the image shows rather than reading it from the sampler, so a
sequence too short to reveal its rule is caught by the task's requirements instead of producing a guessable answer.
"""
from __future__ import annotations

from ..errors import EvalError
from .builtins import _charge, _fail, _hashable, _list_arg, _where, builtin
from .compile import Compiled, _checked_number
from .types import INT, ListT, is_numeric


@builtin("period", "period(list)", 1,
         doc="the smallest p ≥ 1 with xs[i] == xs[i - p] for every i ≥ p (len(xs) when nothing shorter repeats)")
def _period(ck, node, args):
    c, elem = _list_arg(ck, args[0], "the argument of period()")
    if c is None:
        return _fail(ck)
    xf = c.fn

    def impl(env):
        xs = [_hashable(x, env["$budget"]) for x in xf(env)]
        if not xs:
            raise EvalError("period() of an empty list")
        n = len(xs)
        for p in range(1, n + 1):
            _charge(env, n)
            if all(xs[i] == xs[i - p] for i in range(p, n)):
                return p
        return n  # pragma: no cover - p == n always fits

    return Compiled(INT, impl)


@builtin("steps", "steps(list of numbers[, modulus])", 1, 2,
         doc="differences between neighbours, xs[i + 1] - xs[i]; with a modulus, each taken modulo it (angles: 360)")
def _steps(ck, node, args):
    c, elem = _list_arg(ck, args[0], "the first argument of steps()")
    if c is None:
        return _fail(ck)
    if not is_numeric(elem):
        return ck.error(args[0], f"steps() needs a list of numbers, got a list of {elem}", code="type-mismatch")
    mf = ck.expect(args[1], INT, "the modulus of steps()").fn if len(args) == 2 else None
    xf = c.fn
    where = _where(ck, node)

    def impl(env):
        xs = xf(env)
        _charge(env, len(xs))
        # Checked like '-': neighbours inside the bounds can differ by more than the bound (or by inf).
        out = [_checked_number(b - a, where, lambda: "steps()") for a, b in zip(xs, xs[1:])]
        if mf is not None:
            m = mf(env)
            if m <= 0:
                raise EvalError(f"steps(): modulus {m} must be positive")
            out = [d % m for d in out]
        return out

    return Compiled(ListT(elem), impl)
