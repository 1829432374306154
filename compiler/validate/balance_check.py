"""`tessera validate` re-checks a balanced build's policy on the rows it finds (export.balance made them so):
top-answer share, option letters and yes/no uniform within a tolerance suited to the counts, and the options-only
gate. The policy is read from the manifest's config; the rows are recounted, never trusted."""
from __future__ import annotations

import json
import math
from collections import Counter, defaultdict

from ..trace.target import effective_cap


MIN_ROWS = 20  # a task with fewer rows in a split is too small to judge shares by (as the audit's min_rows)
OPTIONS_ONLY_MARGIN = 0.10  # issue 11: every option task's best options-only accuracy within 10 points of chance


def tolerance(n: int, p: float) -> float:
    """How far a class's count may be from n·p: two binomial standard deviations (what chance alone gives), never
    more than a tenth of the rows (the issue's 0.4–0.6 for yes shares), and never under one row (rounding)."""
    return max(1.0, min(0.1 * n, 2 * math.sqrt(n * p * (1 - p))))


class BalanceTally:
    """Answers per split and task, fed row by row while validate reads the shards."""

    def __init__(self, config: dict):
        policy = config.get("balance") if isinstance(config, dict) else None
        self.policy = policy if isinstance(policy, dict) else None
        gate = config.get("options_only_gate", False) if isinstance(config, dict) else False
        self.gate = gate if gate is True or (isinstance(gate, list) and all(isinstance(g, str) for g in gate)) \
            else False
        self.answers: dict[tuple[str, str], Counter] = defaultdict(Counter)
        self.kinds: dict[tuple[str, str], str] = {}
        self.letters: dict[tuple[str, str], int] = defaultdict(int)  # most options any row of the task showed
        self.option_rows: dict[tuple[str, str], int] = defaultdict(int)
        self.chance: dict[tuple[str, str], float] = defaultdict(float)  # summed 1/k: a guesser's expected hits
        self.rule_score: dict[tuple[str, str], Counter] = defaultdict(Counter)
        self.problems: list[str] = []

    @property
    def active(self) -> bool:
        return self.policy is not None or self.gate is not False

    def add(self, where: str, split: str, row: dict, answer, label, trace: dict) -> None:
        key = (split, row["task"])
        kind = label.get("type") if isinstance(label, dict) else None
        self.kinds[key] = kind if isinstance(kind, str) else "?"
        self.answers[key][json.dumps(answer, sort_keys=True)] += 1
        if kind != "option":
            return
        from ..verify.shortcuts import OPTION_RULES, answer_index, option_texts

        texts = option_texts({"prompt": row["prompt"], "label": label})
        if not texts:
            return
        self.letters[key] = max(self.letters[key], len(texts))
        right = answer_index({"answer": answer})
        if self.gate is False or right is None:
            return
        balance = trace.get("balance") if isinstance(trace, dict) else None
        gated = balance.get("options_only") if isinstance(balance, dict) else None
        gated = set(gated) if isinstance(gated, list) and all(isinstance(g, str) for g in gated) else set()
        names = sorted(OPTION_RULES) if self.gate is True else [g for g in self.gate if g in OPTION_RULES]
        self.chance[key] += 1 / len(texts)
        self.option_rows[key] += 1
        for name in names:
            try:
                pick = OPTION_RULES[name](list(texts))
            except (ValueError, ArithmeticError, TypeError):
                pick = None
            # a rule that cannot decide scores as a guess (as the audit scores it)
            self.rule_score[key][name] += 1.0 if pick == right else (1 / len(texts) if pick is None else 0.0)
            if pick == right and name in gated:
                self.problems.append(f"{where}: options_only_gate: rule '{name}' picks the right option "
                                     f"({chr(65 + right)}) from the options alone, and the row's trace says the "
                                     f"gate rejects that")

    def finish(self) -> list[str]:
        out = list(self.problems)
        policy = self.policy or {}
        cap = policy.get("max_top_share")
        for (split, task), scores in sorted(self.rule_score.items()):
            n, chance = self.option_rows[(split, task)], self.chance[(split, task)]
            if n < MIN_ROWS:
                continue
            # the bound: within 10 points of chance, plus what chance alone spreads over n rows (three
            # binomial standard deviations: a rule at chance passes a split of any size, and 136 tasks of 3 rows
            # do not raise false alarms)
            p = chance / n
            limit = chance + OPTIONS_ONLY_MARGIN * n + max(1.0, 3 * math.sqrt(n * p * (1 - p)))
            for name, score in sorted(scores.items()):
                if score > limit:
                    out.append(f"split {split}, task {task}: options_only_gate: rule '{name}' scores "
                               f"{score / n:.0%} on {n} rows from the options alone; chance is {chance / n:.0%} "
                               f"(allowed up to {limit / n:.0%})")
        for (split, task), counts in sorted(self.answers.items()):
            n = sum(counts.values())
            if n < MIN_ROWS:
                continue  # two validation rows on one letter are chance, not a policy broken
            kind = self.kinds[(split, task)]
            where = f"split {split}, task {task}"
            if kind == "option" and policy.get("uniform_options") and self.letters[(split, task)] >= 2:
                k = self.letters[(split, task)]
                shown = {json.dumps(chr(65 + i)): counts.get(json.dumps(chr(65 + i)), 0) for i in range(k)}
                tol = tolerance(n, 1 / k)
                off = {json.loads(a): c for a, c in shown.items() if abs(c - n / k) > tol}
                if off:
                    out.append(f"{where}: uniform_options: right letters {_counts(shown)} of {n} rows; each should be "
                               f"{n / k:.1f} ± {tol:.1f}")
                continue  # letters uniform: the top share is 1/k
            if kind == "boolean" and policy.get("uniform_yes_no"):
                yes = counts.get("true", 0)
                tol = tolerance(n, 0.5)
                if abs(yes - n / 2) > tol:
                    out.append(f"{where}: uniform_yes_no: {yes} of {n} answers are yes ({yes / n:.0%}); should be "
                               f"{n / 2:.1f} ± {tol:.1f}")
                continue
            if isinstance(cap, (int, float)) and not isinstance(cap, bool) and n:
                top, top_n = counts.most_common(1)[0]
                limit = effective_cap(cap, len(counts))
                if top_n / n > limit + 1e-9:
                    out.append(f"{where}: max_top_share: answer {top} is {top_n} of {n} rows ({top_n / n:.0%}); the "
                               f"cap is {limit:.0%} (max({cap}, 2/{len(counts)} distinct answers))")
        return out


def _counts(shown: dict) -> str:
    return ", ".join(f"{json.loads(a)} {c}" for a, c in shown.items())
