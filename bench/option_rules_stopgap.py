"""Stop-gap copy of the options-only rules (interface of compiler/validate/shortcuts.py: each rule takes the option
texts in order and returns the index it would pick, or None). Used by bench/options_only.py only until the audit
branch's module is merged; delete then."""
from __future__ import annotations

import re
import statistics
from fractions import Fraction

_TIME = re.compile(r"^(\d{1,2}):(\d{2})$")
_FRAC = re.compile(r"^(-?\d+)/(\d+)$")


def _number(text: str):
    t = text.strip()
    if m := _TIME.match(t):
        return int(m.group(1)) * 60 + int(m.group(2))
    if m := _FRAC.match(t):
        return float(Fraction(int(m.group(1)), int(m.group(2))))
    try:
        return float(t)
    except ValueError:
        return None


def _numbers(texts):
    vals = [_number(t) for t in texts]
    return None if any(v is None for v in vals) else vals


def _unique_best(scores, best=min):
    b = best(scores)
    return scores.index(b) if scores.count(b) == 1 else None


def _edit(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def median(texts):
    vals = _numbers(texts)
    if vals is None:
        return None
    m = statistics.median(vals)
    return _unique_best([abs(v - m) for v in vals])


def medoid(texts):
    vals = _numbers(texts)
    if vals is None:
        return _unique_best([sum(_edit(a, b) for b in texts) for a in texts])
    return _unique_best([sum(abs(a - b) for b in vals) for a in vals])


def derived(texts):
    vals = _numbers(texts)
    if vals is None:
        return None
    scores = []
    for i, a in enumerate(vals):
        offs = [b - a for j, b in enumerate(vals) if j != i]
        # others at offsets that come in ± pairs or repeat, or at simple ratios
        pair = sum(1 for d in offs if -d in offs or offs.count(d) > 1)
        ratio = sum(1 for b in (vals[j] for j in range(len(vals)) if j != i)
                    if a and b and any(abs(b / a - r) < 1e-9 for r in (2, 0.5, 3, 1 / 3)))
        scores.append(pair + ratio)
    return _unique_best(scores, max)


def longest(texts):
    return _unique_best([len(t) for t in texts], max)


def shortest(texts):
    return _unique_best([len(t) for t in texts], min)


OPTION_RULES = {"median": median, "medoid": medoid, "derived": derived, "longest": longest, "shortest": shortest}
