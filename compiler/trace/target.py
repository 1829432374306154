"""Balance targets: the answer class a build asks one instance to have, and the options-only rules it must defeat.

A balanced build (export.balance) gives each item a target before any work is done; `generate` then rejects, like a
failed `require`, every attempt whose answer is outside the class (before anything is rendered, so a miss is cheap).
The target is recorded in the trace (`balance`), so a replay rebuilds the same attempt without knowing the build.

Target classes (JSON):
    {"value": V}                      the answer is V (an option letter, true/false, a category)
    {"not": [V, ...]}                 the answer is none of these (the values a cap has already filled)
    {"at_least": LO, "below": HI}     a numeric answer in [LO, HI)
    {"at_least": LO, "at_most": HI}   a numeric answer in [LO, HI] (the top bin)
"""
from __future__ import annotations

import json
import math
from typing import Any

from ..errors import TesseraError

BALANCE_REJECTION = "balance:target"
OPTIONS_ONLY_REJECTION = "options_only:"  # + the rule that picked the right option
_BOUNDS = ("at_least", "below", "at_most")


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def in_class(target: dict, answer: Any) -> bool:
    if "value" in target:
        return _key(answer) == _key(target["value"])
    if "not" in target:
        return _key(answer) not in {_key(v) for v in target["not"]}
    if not _number(answer):
        return False
    if answer < target["at_least"]:
        return False
    return answer < target["below"] if "below" in target else answer <= target["at_most"]


def effective_cap(cap: float, distinct: int) -> float:
    """The issue's bound: no answer over max(2/k, cap) for k distinct answers (two answers may split 60/40). The
    build deals targets by it (export.balance) and validate checks a dataset by it (validate.balance_check)."""
    return max(cap, 2 / distinct) if distinct else cap


def check_balance(balance: Any, rules: dict | None = None) -> dict:
    """A trace's `balance` field comes from a file: check its shape before generate() runs with it."""
    if not isinstance(balance, dict) or set(balance) - {"target", "options_only"}:
        raise TesseraError("malformed trace: 'balance' should be an object with 'target' and/or 'options_only'")
    target = balance.get("target")
    if target is not None:
        ok = isinstance(target, dict) and (
            set(target) in ({"value"}, {"not"}) or
            set(target) in ({"at_least", "below"}, {"at_least", "at_most"}) and all(_number(target[k]) for k in target))
        if ok and "not" in target:
            ok = isinstance(target["not"], list) and len(target["not"]) <= 1000
        if not ok:
            raise TesseraError("malformed trace: 'balance.target' should be {value}, {not: [...]}, or "
                               "{at_least, below|at_most} with numbers")
    names = balance.get("options_only")
    if names is not None:
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise TesseraError("malformed trace: 'balance.options_only' should be a list of rule names")
        unknown = [n for n in names if rules is not None and n not in rules]
        if unknown:
            raise TesseraError(f"malformed trace: unknown options-only rule(s) {', '.join(unknown[:5])}")
    return balance


def options_only_pick(rules: dict, names: list[str], texts: list[str] | None, right: int) -> str | None:
    """The first rule (in `names` order) that picks the right option from the option texts alone, or None."""
    if not texts or not 0 <= right < len(texts):
        return None
    for name in names:
        try:
            pick = rules[name](list(texts))
        except (ValueError, ArithmeticError, TypeError):  # a rule that cannot read these options decides nothing
            pick = None
        if pick == right:
            return name
    return None
