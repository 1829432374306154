"""Answer balancing as build policy (CLEVR-style), by construction.

Before any item is built, the planner decides every item's target answer class (trace.target) from the config, the
seed and a pilot: a few answers per task and level, sampled without rendering. Workers then only meet their item's
target (generate rejects attempts outside it before rendering), so the split's answer shares are fixed by the plan:
no worker races another for a quota, and the bytes are the same for any worker count.

    uniform_options   option tasks: the right letter cycles over the letters shown (counts differ by at most 1)
    uniform_yes_no    boolean tasks: yes and no alternate (counts differ by at most 1)
    numeric_bins      integer/number tasks: per level, the pilot's observed range cut into bins, each bin an equal
                      share of that level's items (integers: contiguous groups of values)
    max_top_share     any other task (and any of the above with the policy off): values the pilot shows near or
                      over the cap get a fixed quota ≤ cap, the rest of the level's items must avoid them
"""
from __future__ import annotations

import hashlib
import json
import math
from collections import Counter, defaultdict

from ..errors import SamplingFailed
from ..sample.rng import Rng
from ..trace.instance import sample_answer
from .config import BalanceSpec

TRACK_SHARE = 0.6  # a value whose pilot share is over this fraction of the cap gets a quota of its own


def _key(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _seed(*parts) -> int:
    key = "tessera/balance/" + "/".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") >> 1


def effective_cap(cap: float, distinct: int) -> float:
    """The issue's bound: no answer over max(2/k, cap) for k distinct answers (two answers may split 60/40)."""
    return max(cap, 2 / distinct) if distinct else cap


def policy_kind(task, policy: BalanceSpec) -> str | None:
    ctype = task.contract.type
    if ctype == "option" and policy.uniform_options:
        return "letters"
    if ctype == "boolean" and policy.uniform_yes_no:
        return "yes_no"
    if ctype in ("integer", "number") and policy.numeric_bins:
        return "bins"
    if policy.max_top_share is not None:
        return "cap"
    return None


def option_count(prompt: str) -> int:
    """Options a prompt lists (`A. …` lines), read as the options-only rules and the audit read them."""
    from ..validate.shortcuts import option_texts

    return len(option_texts({"prompt": prompt, "answer_type": "option"}) or [])


def pilot(task, level: int, queries: list[dict], vocab: dict, dataset_seed: int, samples: int,
          answer_format: str | None) -> list[tuple]:
    """(answer, prompt) of `samples` unrendered samples at one level, queries cycled as the planner cycles them."""
    out = []
    for j in range(samples):
        try:
            out.append(sample_answer(task, _seed("pilot", dataset_seed, task.id, level, j), level,
                                     queries[j % len(queries)], vocab, answer_format))
        except SamplingFailed:
            continue  # the build's own retries meet such seeds too; the pilot only needs the answers it gets
    return out


def _bins(answers: list, n_bins: int) -> list[dict]:
    """Target classes spreading numeric answers over their observed range; bins no pilot answer fell in are left out
    (a gap in what the level can produce, or too rare to target)."""
    nums = [a for a in answers if isinstance(a, (int, float)) and not isinstance(a, bool) and math.isfinite(a)]
    if len(nums) < len(answers) or not nums:
        return []
    lo, hi = min(nums), max(nums)
    if all(isinstance(a, int) for a in nums):
        values = list(range(lo, hi + 1))
        k = min(n_bins, len(values))
        groups = [values[len(values) * i // k: len(values) * (i + 1) // k] for i in range(k)]
        classes = [{"at_least": g[0], "at_most": g[-1]} for g in groups]
    elif hi == lo:
        classes = [{"at_least": lo, "at_most": hi}]
    else:
        edges = [lo + (hi - lo) * i / n_bins for i in range(n_bins + 1)]
        classes = [{"at_least": edges[i], "below": edges[i + 1]} for i in range(n_bins - 1)]
        classes.append({"at_least": edges[-2], "at_most": hi})
    from ..trace.target import in_class

    return [c for c in classes if any(in_class(c, a) for a in nums)]


def _cap_classes(answers: list, cap: float) -> list[tuple[dict, float, bool]]:
    """(class, weight, exact) for a capped level: each value near or over the cap gets its own class (weight its
    capped share), the rest share one class that avoids them."""
    counts = Counter(_key(a) for a in answers)
    by_key = {_key(a): a for a in answers}
    total = sum(counts.values())
    shares = {k: n / total for k, n in counts.items()}
    tracked: dict[str, float] = {}
    rest = dict(shares)
    while True:  # water-filling: cap the big ones, spread what they lose over the others, repeat
        mass = 1 - sum(tracked.values())
        free = sum(rest.values())
        big = {k: s for k, s in rest.items() if free and s * mass / free > TRACK_SHARE * cap}
        if not big:
            break
        for k, s in big.items():
            tracked[k] = min(s * mass / free, cap)
            del rest[k]
    if not tracked:
        return []
    classes = [({"value": by_key[k]}, w, True) for k, w in sorted(tracked.items())]
    if rest:
        classes.append(({"not": [by_key[k] for k in sorted(tracked)]}, max(0.0, 1 - sum(tracked.values())), False))
    return classes


def _quotas(classes: list[tuple[dict, float, bool]], n: int, cap: float, rng: Rng) -> list[int]:
    """Items per class: exact classes get at most floor(cap·n); the avoid-class takes what is left, or (none) the
    remainders go, largest first with seeded ties, to classes still under the cap."""
    total = sum(w for _, w, _ in classes) or 1.0
    raw = [w / total * n for _, w, _ in classes]
    limit = math.floor(cap * n + 1e-9)
    quotas = [min(math.floor(r + 1e-9), limit) if exact else 0 for r, (_, _, exact) in zip(raw, classes)]
    loose = [i for i, (_, _, exact) in enumerate(classes) if not exact]
    left = n - sum(quotas)
    if loose:
        quotas[loose[0]] += left
        return quotas
    order = sorted(range(len(classes)), key=lambda i: (-(raw[i] - math.floor(raw[i])), rng.next64()))
    while left > 0:
        progressed = False
        for i in order:
            if left and quotas[i] < limit:
                quotas[i] += 1
                left -= 1
                progressed = True
        if not progressed:  # every value at the cap already (k·cap < 1): the cap cannot hold, spread evenly
            for i in order[:left]:
                quotas[i] += 1
            left = 0
    return quotas


def assign_targets(items: list, taxonomy, policy: BalanceSpec, dataset_seed: int, options_only: list[str]) -> list:
    """Each item with its `balance` (canonical JSON: target class and options-only rules) filled in, deterministic in
    (config, taxonomy): items are grouped per split and task, shuffled by the seed, and dealt their classes."""
    from dataclasses import replace

    groups: dict[tuple, list[int]] = defaultdict(list)
    for pos, it in enumerate(items):
        groups[(it.split, it.task)].append(pos)
    out = list(items)
    pilots: dict[tuple, list] = {}
    for (split, tid), positions in groups.items():
        task = taxonomy.tasks[tid]
        kind = policy_kind(task, policy)
        targets: dict[int, dict] = {}
        if kind is not None:
            targets = _deal(kind, task, [items[p] for p in positions], positions, taxonomy, policy, dataset_seed,
                            split, pilots)
        for pos in positions:
            balance = {}
            if pos in targets:
                balance["target"] = targets[pos]
            if options_only and task.contract.type == "option":
                balance["options_only"] = options_only
            if balance:
                out[pos] = replace(items[pos], balance=_key(balance))
    return out


def _deal(kind, task, group: list, positions: list[int], taxonomy, policy, dataset_seed, split, pilots) -> dict:
    space = task.query_space()
    rng = Rng(_seed("deal", dataset_seed, split, task.id))
    order = rng.shuffle(list(range(len(group))))  # classes must not follow the planner's query/level cycle
    levels = sorted({it.level for it in group})

    def level_pilot(level):
        if (task.id, level) not in pilots:
            pilots[(task.id, level)] = pilot(task, level, space, taxonomy.vocab, dataset_seed, policy.pilot_samples,
                                             group[0].answer_format)
        return pilots[(task.id, level)]

    targets: dict[int, dict] = {}
    if kind in ("letters", "yes_no"):
        # Per level the classes it can show; dealt greedily to the class with the fewest items so far: the
        # counts over the whole split differ by at most one where every level shows every class.
        per_level = {}
        for level in levels:
            if kind == "yes_no":
                per_level[level] = [True, False]
            else:
                shown = [option_count(p) for _, p in level_pilot(level)]
                per_level[level] = [chr(ord("A") + i) for i in range(max(shown, default=0))]
        dealt: Counter = Counter()
        for j, i in enumerate(order):
            choices = per_level[group[i].level]
            if not choices:
                continue
            start = j % len(choices)  # rotate ties so no class is always first
            pick = min(range(len(choices)), key=lambda c: (dealt[_key(choices[c])], (c - start) % len(choices)))
            dealt[_key(choices[pick])] += 1
            targets[positions[i]] = {"value": choices[pick]}
        return targets
    by_level: dict[int, list[int]] = defaultdict(list)
    for i in order:
        by_level[group[i].level].append(i)
    all_answers = [a for level in levels for a, _ in level_pilot(level)]
    cap = effective_cap(policy.max_top_share, len({_key(a) for a in all_answers})) \
        if policy.max_top_share is not None else 1.0
    for level in levels:
        answers = [a for a, _ in level_pilot(level)]
        if kind == "bins":
            bins = _bins(answers, policy.numeric_bins)
            classes = [(b, 1.0, True) for b in bins]
            quotas = _quotas(classes, len(by_level[level]), 1.0, rng) if classes else []
        else:
            classes = _cap_classes(answers, cap) if answers else []
            quotas = _quotas(classes, len(by_level[level]), cap, rng) if classes else []
        dealt_items = iter(by_level[level])
        for (cls, _, _), q in zip(classes, quotas):
            for _ in range(q):
                targets[positions[next(dealt_items)]] = cls
    return targets
