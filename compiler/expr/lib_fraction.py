"""Exact fractions as text: probabilities and ratios shown to a reader as "3/8".

The number contracts read "3/8" in a response as 0.375 (see compiler/verify/score.py), so a task can answer with a
float and still print the fraction in its prompt or options.
"""
from __future__ import annotations

import math

from ..errors import EvalError
from .builtins import builtin
from .compile import Compiled
from .types import INT, STR


@builtin("gcd", "gcd(a, b)", 2, doc="greatest common divisor of two integers (gcd(0, 0) = 0)")
def _gcd(ck, node, args):
    a = ck.expect(args[0], INT, "the arguments of gcd()")
    b = ck.expect(args[1], INT, "the arguments of gcd()")
    af, bf = a.fn, b.fn
    return Compiled(INT, lambda env: math.gcd(af(env), bf(env)))


def fraction_text(num: int, den: int) -> str:
    if den == 0:
        raise EvalError(f"fraction({num}, 0): zero denominator")
    if den < 0:
        num, den = -num, -den
    g = math.gcd(num, den)
    num, den = num // g, den // g
    return str(num) if den == 1 else f"{num}/{den}"


@builtin("fraction", "fraction(numerator, denominator)", 2,
         doc="the fraction in lowest terms as text: fraction(6, 16) = '3/8', fraction(4, 2) = '2', fraction(0, 5) = '0'")
def _fraction(ck, node, args):
    a = ck.expect(args[0], INT, "the numerator of fraction()")
    b = ck.expect(args[1], INT, "the denominator of fraction()")
    af, bf = a.fn, b.fn
    return Compiled(STR, lambda env: fraction_text(af(env), bf(env)))
