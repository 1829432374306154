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
import os
from collections import Counter, defaultdict

from ..errors import SamplingFailed
from ..sample.rng import Rng
from ..trace.loop import sample_answer
from ..trace.target import effective_cap, in_class
from ..verify.shortcuts import OPTION_RULES, answer_index, option_texts
from .config import BalanceSpec

TRACK_SHARE = 0.6  # a value whose pilot share is over this fraction of the cap gets a quota of its own


def _key(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _seed(*parts) -> int:
    key = "tessera/balance/" + "/".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") >> 1


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
    return len(option_texts({"prompt": prompt, "answer_type": "option"}) or [])


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


class _Pilot:
    """Unrendered samples of one task per level, each with the index of the query it was drawn for."""

    def __init__(self, task, taxonomy, policy: BalanceSpec, dataset_seed: int, answer_format: str | None):
        self.task, self.taxonomy, self.policy, self.seed, self.format = task, taxonomy, policy, dataset_seed, \
            answer_format
        self.space = task.query_space()
        self.levels: dict[int, list[tuple]] = {}

    def at(self, level: int) -> list[tuple]:
        """(answer, prompt, query index) per sample."""
        if level not in self.levels:
            out = []
            for j in range(self.policy.pilot_samples):
                qi = j % len(self.space)
                try:
                    answer, prompt = sample_answer(self.task, _seed("pilot", self.seed, self.task.id, level, j), level,
                                                   self.space[qi], self.taxonomy.vocab, self.format)
                except SamplingFailed:
                    continue  # the build's own retries meet such seeds too; the pilot needs only the answers it gets
                out.append((answer, prompt, qi))
            self.levels[level] = out
        return self.levels[level]

    def answers(self, level: int) -> list:
        return [a for a, _, _ in self.at(level)]

    def feasible(self, cls: dict, level: int, qi: int) -> bool:
        """Whether an item of this level and query can meet the class: seen in the pilot, or too few samples of the
        query to tell (a query may fix the answer: "count the stars" asked of a board of stars)."""
        seen = [a for a, _, q in self.at(level) if q == qi]
        return len(seen) < 3 or any(in_class(cls, a) for a in seen)


_PILOTS: dict = {}  # the pilots a forked worker inherits


def _pilot_job(key: tuple) -> list[tuple]:
    tid, level = key
    return _PILOTS[tid].at(level)


def _run_pilots(needed: list[tuple], pilots: dict, workers: int):
    """Each (task, level)'s samples, in `needed` order; a pool of forked processes when there are several workers
    (the samples are a pure function of the key, so who computes which does not change a byte)."""
    if workers <= 1 or len(needed) < 2 or not hasattr(os, "fork"):
        return [pilots[tid].at(level) for tid, level in needed]
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    _PILOTS.clear()
    _PILOTS.update(pilots)
    try:
        with ProcessPoolExecutor(min(workers, len(needed)), mp_context=mp.get_context("fork")) as pool:
            return list(pool.map(_pilot_job, needed, chunksize=4))
    finally:
        _PILOTS.clear()


def _deal_classes(order: list[int], classes: list[tuple[dict, float, float]], feasible, start: int) -> dict:
    """Item → class, dealt in `order`: each item takes, among the classes it can meet and that are under their
    limit, the one furthest below its share (dealt / weight), ties rotating so no class is always first. Items that
    can meet fewer classes go first (a query may fix the answer), so the free ones even out what those take."""
    dealt = [0] * len(classes)
    out = {}
    can = {i: [c for c, (cls, w, _) in enumerate(classes) if w > 0 and feasible(i, cls)] for i in order}
    order = sorted(order, key=lambda i: len(can[i]))  # stable: the seeded order within each group
    for j, i in enumerate(order):
        cands = [c for c in can[i] if dealt[c] < classes[c][2]]
        if not cands:
            continue  # nothing this item can meet: it is built as it comes (the manifest's counts show it)
        n = len(classes)
        pick = min(cands, key=lambda c: ((dealt[c] + 1) / classes[c][1], (c - start - j) % n))
        dealt[pick] += 1
        out[i] = classes[pick][0]
    return out


def _gate_rules(pilot: _Pilot, levels: list[int], rules: list[str]) -> dict[str, float]:
    """rule → the share of its hits an item may keep, so that the rule scores chance on the built rows.

    Rejecting every instance a rule answers would make the rule score 0, not chance, and teach the opposite
    shortcut (never the median option); a rule that already scores chance is not gated at all. From the pilot: h
    hits, m misses; keeping a share ρ of hits gives accuracy h·ρ / (h·ρ + m + undecided) = 1/k when
    ρ = m / (h·(k − 1)) (undecided rows score 1/k either way)."""
    samples = []
    for level in levels:
        for answer, prompt, _ in pilot.at(level):
            texts = option_texts({"prompt": prompt, "answer_type": "option"})
            right = answer_index({"answer": answer})
            if texts and right is not None:
                samples.append((texts, right))
    keep: dict[str, float] = {}
    if not samples:
        return {r: 0.0 for r in rules}  # nothing learnt: gate every hit
    for rule in rules:
        hits = misses = 0
        chance = 0.0
        for texts, right in samples:
            chance += 1 / len(texts)
            try:
                pick = OPTION_RULES[rule](list(texts))
            except (ValueError, ArithmeticError, TypeError):
                pick = None
            hits += pick == right
            misses += pick is not None and pick != right
        k = len(samples) / chance  # options per row, on average
        if hits == 0:
            continue
        keep[rule] = min(1.0, misses / (hits * (k - 1))) if k > 1 else 0.0
    return {r: v for r, v in keep.items() if v < 1.0}


def assign_targets(by_split: dict[str, list], taxonomy, policy: BalanceSpec, dataset_seed: int,
                   options_only: list[str], workers: int = 1) -> dict[str, list]:
    """Each item with its `balance` (canonical JSON: target class and options-only rules) filled in, deterministic in
    (config, taxonomy): items are grouped per split and task, shuffled by the seed, and dealt their classes."""
    pilots: dict[str, _Pilot] = {}  # task → its pilot, shared by the splits
    needed = sorted({(it.task, it.level) for items in by_split.values() for it in items
                     if policy_kind(taxonomy.tasks[it.task], policy) or
                     (options_only and taxonomy.tasks[it.task].contract.type == "option")})
    answer_format = next((it.answer_format for items in by_split.values() for it in items), None)
    for tid, _ in needed:
        pilots.setdefault(tid, _Pilot(taxonomy.tasks[tid], taxonomy, policy, dataset_seed, answer_format))
    for (tid, level), samples in zip(needed, _run_pilots(needed, pilots, workers)):
        pilots[tid].levels[level] = samples
    return {split: _assign(items, taxonomy, policy, dataset_seed, options_only, pilots)
            for split, items in by_split.items()}


def _assign(items: list, taxonomy, policy: BalanceSpec, dataset_seed: int, options_only: list[str],
            pilots: dict) -> list:
    from dataclasses import replace

    groups: dict[tuple, list[int]] = defaultdict(list)
    for pos, it in enumerate(items):
        groups[(it.split, it.task)].append(pos)
    out = list(items)
    for (split, tid), positions in groups.items():
        task = taxonomy.tasks[tid]
        group = [items[p] for p in positions]
        if tid not in pilots:
            pilots[tid] = _Pilot(task, taxonomy, policy, dataset_seed, group[0].answer_format)
        pilot = pilots[tid]
        kind = policy_kind(task, policy)
        targets = _deal(kind, pilot, group, policy, dataset_seed, split) if kind else {}
        gated = {}
        if options_only and task.contract.type == "option":
            gated = _gate_rules(pilot, sorted({it.level for it in group}), options_only)
        for i, pos in enumerate(positions):
            balance = {}
            if i in targets:
                balance["target"] = targets[i]
            # per item and rule, a seeded draw decides whether a hit of that rule is kept (see _gate_rules)
            rules = [r for r in options_only if r in gated and
                     Rng(_seed("gate", dataset_seed, split, tid, group[i].index, r)).random() >= gated[r]]
            if rules:
                balance["options_only"] = rules
            if balance:
                out[pos] = replace(items[pos], balance=_key(balance))
    return out


def _deal(kind, pilot: _Pilot, group: list, policy: BalanceSpec, dataset_seed: int, split: str) -> dict:
    task = pilot.task
    qindex = {_key(dict(q)): i for i, q in enumerate(pilot.space)}
    query_of = [qindex.get(_key(dict(it.query)), -1) for it in group]
    rng = Rng(_seed("deal", dataset_seed, split, task.id))
    order = rng.shuffle(list(range(len(group))))  # classes must not follow the planner's query/level cycle
    levels = sorted({it.level for it in group})
    start = rng.below(1 << 16)
    inf = float("inf")
    if kind == "letters":
        shown = {lv: max((option_count(p) for _, p, _ in pilot.at(lv)), default=0) for lv in levels}
        letters = [chr(ord("A") + i) for i in range(max(shown.values(), default=0))]
        classes = [({"value": x}, 1.0, inf) for x in letters]
        # the letter is the program's shuffle: every query can show every letter its level shows
        return _deal_classes(order, classes, lambda i, cls: ord(cls["value"]) - ord("A") < shown[group[i].level],
                             start)
    if kind == "yes_no":
        classes = [({"value": True}, 1.0, inf), ({"value": False}, 1.0, inf)]
        return _deal_classes(order, classes, lambda i, cls: pilot.feasible(cls, group[i].level, query_of[i]), start)
    if kind == "bins":
        targets: dict[int, dict] = {}
        for level in levels:
            mine = [i for i in order if group[i].level == level]
            answers = pilot.answers(level)
            classes = [(b, 1.0, inf) for b in _bins(answers, policy.numeric_bins)] if answers else []
            # each level rotates from its own seeded class, so levels of one item each do not all take the first bin
            targets.update(_deal_classes(mine, classes, lambda i, cls: pilot.feasible(cls, level, query_of[i]),
                                         rng.below(1 << 16)))
        return targets
    # The cap holds for the task's rows, not per level: a level that can show only two answers gives each half of
    # its rows, and the other levels make up for it. Quotas from the pilot's answers over all the group's levels.
    answers = [a for lv in levels for a in pilot.answers(lv)]
    if not answers:
        return {}
    cap = effective_cap(policy.max_top_share, len({_key(a) for a in answers}))
    limit = math.floor(cap * len(group) + 1e-9)
    classes = [(cls, w, limit if exact else inf) for cls, w, exact in _cap_classes(answers, cap)]
    return _deal_classes(order, classes, lambda i, cls: pilot.feasible(cls, group[i].level, query_of[i]), start)
