"""Options-only rules: ways to pick the right option of a lettered question without looking at the image.

A model trained on option tasks learns these if the wrong options give the right one away (a distractor made by a
formula of the right answer sits "next to" it). `tessera audit` reports each rule's accuracy per option task against
chance, and a build gate can reject instances a rule answers. Every rule takes the option texts as the model sees
them (in order, without the letter) and returns the index it would pick, or None when it cannot decide (a tie, or
options it does not apply to): a rule that cannot decide scores as a guess, never as a hit.

    median    numeric options: the median (of an even count, the middle one nearer the mean)
    medoid    the one closest to all the others: by value (least squared distance, i.e. nearest the mean) for
              numeric options, by summed edit distance for text
    derived   the one most others are one simple step from: a round offset (1, 2 or 5 × 10^k; for times 10, 15,
              30 or 45 minutes or whole hours), a simple ratio (×2, ×3, ×10, their inverses, ×−1); for fractions
              a/b an off-by-one reading of it (numerator or denominator ±1, (b − a)/b, a/(b − a), 1/(a + 1)); for
              text a one-character edit
    longest / shortest   by the number of characters

Numbers are read as the model reads them: "0.75", "3/4", "−3" (a typographic minus), "10:30" (a time, compared
around the clock face), with a prefix or unit that all options share ("$3", "45°", "3 cm").
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

# -- reading options --------------------------------------------------------------------------------------------
# The `lettered` template filter writes "A. text" lines; "(A) text" and "A) text" are read too.
OPTION_LINE = re.compile(r"^\s*\(?([A-Z])[.)]\s*(.*?)\s*$")
MAX_OPTIONS = 26


def _lettered_runs(prompt: str) -> list[list[str]]:
    """Runs of consecutive lines lettered A, B, C, ... in order (each run starts at A)."""
    runs: list[list[str]] = []
    current: list[str] | None = None
    for line in prompt.splitlines():
        m = OPTION_LINE.match(line)
        if m and current is not None and m[1] == chr(65 + len(current)) and len(current) < MAX_OPTIONS:
            current.append(m[2])
            continue
        if current is not None and len(current) >= 2:
            runs.append(current)
        current = [m[2]] if m and m[1] == "A" else None
    if current is not None and len(current) >= 2:
        runs.append(current)
    return runs


def _parsed(value: Any) -> Any:
    """A dataset row holds JSON text ('"B"'); an instance record the value itself ("B")."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def is_option_record(record: dict) -> bool:
    label = _parsed(record.get("label"))
    return record.get("answer_type") == "option" or (isinstance(label, dict) and label.get("type") == "option")


def option_texts(instance_record: dict) -> list[str] | None:
    """The option texts of an option task's row (a dataset row or an instance record: prompt, answer_type, label),
    in the order shown, without letters; None when the row is not an option task or shows no lettered options.
    Read from the prompt, which is what the model sees: the last run of lines lettered A., B., ... in order."""
    if not isinstance(instance_record, dict) or not is_option_record(instance_record):
        return None
    prompt = instance_record.get("prompt")
    if not isinstance(prompt, str):
        return None
    runs = _lettered_runs(prompt)
    return runs[-1] if runs else None


def answer_index(instance_record: dict) -> int | None:
    """Index of the right option from the row's answer letter ("B" → 1), or None."""
    answer = _parsed(instance_record.get("answer")) if isinstance(instance_record, dict) else None
    if isinstance(answer, str) and len(answer.strip()) == 1 and answer.strip().isalpha():
        return ord(answer.strip().upper()) - 65
    return None


# -- numbers ----------------------------------------------------------------------------------------------------
_MINUSES = str.maketrans({"\u2212": "-", "\u2013": "-", "\u2012": "-", "\ufe63": "-", "\uff0d": "-"})
_TIME = re.compile(r"(\d{1,2}):([0-5]\d)")
_NUMBER = re.compile(r"(?P<pre>[^\w\s+\-.]{0,2})\s*(?P<num>[+-]?(?:\d+(?:\.\d*)?|\.\d+))"
                     r"(?:\s*/\s*(?P<den>\d+))?\s*(?P<post>[^\d]{0,12})")


@dataclass(frozen=True)
class Numbers:
    values: list[float]
    fractions: list[tuple[int, int] | None]  # (numerator, denominator) as written, for "a/b" options
    time_period: int | None  # minutes around the dial (720 or 1440) when the options are times


MAX_NUMBER_DIGITS = 30  # an option like "10**400" written out is text, not a number a rule can weigh


def parse_number(text: str) -> tuple[float, tuple[int, int] | None, str, str] | None:
    """(value, (num, den) when written as a fraction, prefix, suffix) of one option text, or None."""
    if len(text) > 2 * MAX_NUMBER_DIGITS + 20:
        return None
    m = _NUMBER.fullmatch(text.strip().translate(_MINUSES))
    if m is None or len(m["num"]) > MAX_NUMBER_DIGITS or len(m["den"] or "") > MAX_NUMBER_DIGITS:
        return None
    num = float(m["num"])
    if m["den"] is not None:
        den = int(m["den"])
        if den == 0 or "." in m["num"]:
            return None
        return num / den, (int(m["num"]), den), m["pre"], m["post"].strip()
    return num, None, m["pre"], m["post"].strip()


def numbers(texts: list[str]) -> Numbers | None:
    """The options as numbers when every one is a number (the same prefix and unit) or every one a time."""
    if len(texts) < 2:
        return None
    times = [m for t in texts if (m := _TIME.fullmatch(t.strip())) is not None]
    if len(times) == len(texts):
        hours = [int(m[1]) for m in times]
        period = 1440 if max(hours) >= 13 or min(hours) == 0 else 720
        minutes = [(h * 60 + int(m[2])) % period for h, m in zip(hours, times)]
        return Numbers([float(v) for v in _unwrap(minutes, period)], [None] * len(texts), period)
    parsed = [p for t in texts if (p := parse_number(t)) is not None]
    if len(parsed) != len(texts) or len({(p[2], p[3]) for p in parsed}) != 1:
        return None
    return Numbers([p[0] for p in parsed], [p[1] for p in parsed], None)


def _unwrap(minutes: list[int], period: int) -> list[int]:
    """Times on a dial as a line: cut the circle at its widest gap, so 11:50 and 12:10 are 20 minutes apart."""
    order = sorted(set(minutes))
    if len(order) < 2:
        return minutes
    gaps = [(order[(i + 1) % len(order)] - order[i]) % period for i in range(len(order))]
    cut = max(range(len(order)), key=lambda i: (gaps[i], -i))  # the gap after order[cut] is the widest
    if cut == len(order) - 1:
        return minutes  # the widest gap wraps past 12 already
    start = order[cut + 1]
    return [m if m >= start else m + period for m in minutes]


# -- the rules --------------------------------------------------------------------------------------------------
def _unique_best(scores: Sequence[float], lowest: bool) -> int | None:
    """Index of the single best score, or None on a tie (scores compare with a small tolerance)."""
    if not scores:
        return None
    best = min(scores) if lowest else max(scores)
    winners = [i for i, s in enumerate(scores) if math.isclose(s, best, rel_tol=1e-9, abs_tol=1e-12)]
    return winners[0] if len(winners) == 1 else None


def _distinct(texts: list[str]) -> bool:
    return len(texts) >= 2 and len(set(texts)) == len(texts)


def rule_median(texts: list[str]) -> int | None:
    nums = numbers(texts) if _distinct(texts) else None
    if nums is None:
        return None
    values = sorted(nums.values)
    n = len(values)
    if n % 2:
        return _unique_best([abs(v - values[n // 2]) for v in nums.values], lowest=True)
    # An even count has two middle options, always equally close to their midpoint: take the one nearer the mean.
    middle = (values[n // 2 - 1], values[n // 2])
    mean = sum(values) / n
    return _unique_best([abs(v - mean) if v in middle else math.inf for v in nums.values], lowest=True)


MAX_EDIT_CHARS = 200  # edit distance is quadratic: longer options are compared by their first 200 characters


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (insert, delete, substitute, each 1) of the first MAX_EDIT_CHARS characters."""
    a, b = a[:MAX_EDIT_CHARS], b[:MAX_EDIT_CHARS]
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def rule_medoid(texts: list[str]) -> int | None:
    if not _distinct(texts):
        return None
    nums = numbers(texts)
    if nums is not None:
        # Squared distances: with absolute ones both middle options of an even count tie (that is the median).
        v = nums.values
        return _unique_best([sum((a - b) ** 2 for b in v) for a in v], lowest=True)
    folded = [t.casefold() for t in texts]
    return _unique_best([sum(edit_distance(a, b) for b in folded) for a in folded], lowest=True)


_ROUND_MANTISSAS = (1, 2, 5)
_TIME_STEPS = {10, 15, 30, 45}
_RATIOS = (2.0, 3.0, 10.0, 0.5, 1 / 3, 0.1, -1.0)


def _round_offset(d: float) -> bool:
    """1, 2 or 5 times a power of ten."""
    if d <= 0 or not math.isfinite(d):
        return False
    k = math.floor(math.log10(d))
    mantissa = d / 10 ** k
    return any(math.isclose(mantissa, m, rel_tol=1e-9) for m in _ROUND_MANTISSAS) or math.isclose(mantissa, 10)


def fraction_slips(a: int, b: int) -> dict[str, Fraction]:
    """The off-by-one readings of a fraction a/b: numerator or denominator ±1, the complement (b − a)/b, the
    part-to-rest ratio a/(b − a) and 1/(a + 1). Directed: they are made from a/b, not the other way round."""
    out = {"numerator+1": Fraction(a + 1, b), "numerator-1": Fraction(a - 1, b), "denominator+1": Fraction(a, b + 1),
           "complement": Fraction(b - a, b)}
    if b > 1:
        out["denominator-1"] = Fraction(a, b - 1)
    if b != a:
        out["part_to_rest"] = Fraction(a, b - a)
    if a != -1:
        out["unit"] = Fraction(1, a + 1)
    return out


def as_fraction(written: tuple[int, int] | None, value: float) -> tuple[int, int] | None:
    if written is not None:
        return written
    return (int(value), 1) if value == int(value) else None  # a decimal among fractions has no parts


def _numeric_step(nums: Numbers, i: int, j: int) -> bool:
    a, b = nums.values[i], nums.values[j]
    d = abs(b - a)
    if nums.time_period is not None:
        minutes = round(d)
        return minutes in _TIME_STEPS or (minutes > 0 and minutes % 60 == 0)
    if any(f is not None for f in nums.fractions):  # fractions: their slips, whole numbers read as n/1
        fi, fj = as_fraction(nums.fractions[i], a), as_fraction(nums.fractions[j], b)
        if fi is None or fj is None:
            return False
        return Fraction(*fj) in fraction_slips(*fi).values()
    if _round_offset(d):
        return True
    return a != 0 and any(math.isclose(b / a, r, rel_tol=1e-9) for r in _RATIOS)


def rule_derived(texts: list[str]) -> int | None:
    if not _distinct(texts):
        return None
    nums = numbers(texts)
    n = len(texts)
    if nums is not None:
        def step(i, j):
            return _numeric_step(nums, i, j)
    else:
        folded = [t.casefold() for t in texts]

        def step(i, j):
            return edit_distance(folded[i], folded[j]) == 1
    scores = [sum(1 for j in range(n) if j != i and step(i, j)) for i in range(n)]
    if max(scores) == 0:
        return None
    return _unique_best(scores, lowest=False)


def rule_longest(texts: list[str]) -> int | None:
    return _unique_best([len(t) for t in texts], lowest=False) if len(texts) >= 2 else None


def rule_shortest(texts: list[str]) -> int | None:
    return _unique_best([len(t) for t in texts], lowest=True) if len(texts) >= 2 else None


OPTION_RULES: dict[str, Callable[[list[str]], int | None]] = {
    "median": rule_median,
    "medoid": rule_medoid,
    "derived": rule_derived,
    "longest": rule_longest,
    "shortest": rule_shortest,
}


def rule_picks(texts: list[str]) -> dict[str, int | None]:
    """What each rule picks for one list of options."""
    return {name: rule(texts) for name, rule in OPTION_RULES.items()}


def identified_by(texts: list[str], right: int) -> list[str]:
    """Names of the rules that pick the right option (a build gate rejects an instance when this is not empty)."""
    return [name for name, pick in rule_picks(texts).items() if pick == right]
