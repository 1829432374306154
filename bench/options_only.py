"""Options-only shortcuts, per option task: how often each rule of compiler/validate/shortcuts.py (OPTION_RULES)
picks the right option from the option texts alone, against chance (1 / number of options).

    python bench/options_only.py [--n 240] [--tasks PATTERN] [--render]

Instances are spread over levels 0..9 (n / 10 seeds each). Without --render the scene is not drawn (the options
and the answer never depend on the render stream), which makes the sweep a few seconds per task. A rule that cannot
decide (None) counts as a uniform guess, so every column is comparable with chance. Exit 1 when some task's best
rule is more than 10 points above chance (the target of issue 11).
"""
from __future__ import annotations

import argparse
import fnmatch
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from compiler.execute.program import run_program  # noqa: E402
from compiler.sample.rng import Rng, derive_seed  # noqa: E402
from compiler.sample.state import Rejected, SampleWork, sample_state  # noqa: E402
from compiler.taxonomy import compile_taxonomy  # noqa: E402
from compiler.trace.instance import generate  # noqa: E402
try:
    from compiler.validate.shortcuts import OPTION_RULES  # noqa: E402
except ImportError:  # before branch `audit` lands: the same rules, written down here for the sweep
    from bench.option_rules_stopgap import OPTION_RULES  # noqa: E402

MARGIN = 0.10
_OPTION_LINE = re.compile(r"^([A-H])[.)] (.*)$")


def option_lines(prompt: str) -> list[str]:
    """The option texts as the prompt lists them (`A. text` lines, in order, without the letter)."""
    texts = []
    for line in prompt.splitlines():
        m = _OPTION_LINE.match(line)
        if m and m.group(1) == "ABCDEFGH"[len(texts)]:
            texts.append(m.group(2))
    return texts


def quick_instance(task, seed: int, level: int, vocab: dict) -> tuple[str, str]:
    """(prompt body, answer letter) without drawing the scene; same state, query and prompt as generate()."""
    seeds = {name: derive_seed(seed, task.id, name) for name in ("state", "query", "prompt")}
    q_rng = Rng(seeds["query"])
    q = q_rng.choice(task.query_space())
    s_rng, work = Rng(seeds["state"]), SampleWork()
    for _ in range(task.grammar.max_attempts):
        try:
            state = sample_state(task.grammar, level, vocab, s_rng, q, work.budget())
            result = run_program(task, state, q, level, vocab, q_rng, work.budget())
            break
        except Rejected:
            continue
    else:
        raise RuntimeError(f"{task.id}: no state at level {level}, seed {seed}")
    values = {**state, **q, **result.steps, "level": level, "vocab": vocab}
    p_rng = Rng(seeds["prompt"])
    body = task.prompts[p_rng.below(len(task.prompts))].render(values)
    return body, result.answer


def rank_rules(count: int) -> dict:
    """Diagnostics beyond OPTION_RULES: always take the k-th smallest numeric option (a positional bias of the
    distractors shows here first); None for non-numeric options."""
    def pick(k):
        def rule(texts):
            vals = [_value(t) for t in texts]
            if None in vals or len(vals) <= k or len(set(vals)) < len(vals):
                return None
            return sorted(range(len(vals)), key=vals.__getitem__)[k]
        return rule
    return {f"rank{k}": pick(k) for k in range(count)}


_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})$")
_FRACTION = re.compile(r"^(\d+)/(\d+)$")


def _value(text: str):
    if m := _CLOCK.match(text):
        return int(m.group(1)) % 12 * 60 + int(m.group(2))
    if m := _FRACTION.match(text):
        return int(m.group(1)) / int(m.group(2))
    try:
        return float(text)
    except ValueError:
        return None


RULES = {**OPTION_RULES, **rank_rules(4)}


def measure(task, n: int, vocab: dict, render: bool) -> tuple[dict[str, float], float, int]:
    hits = {name: 0.0 for name in RULES}
    chance, done = 0.0, 0
    for i in range(n):
        level, seed = i % 10, 10_000 + i // 10
        if render:
            inst = generate(task, seed, level, vocab=vocab)
            prompt, answer = inst.prompt, inst.answer
        else:
            prompt, answer = quick_instance(task, seed, level, vocab)
        texts = option_lines(prompt)
        if not texts:
            continue
        right = "ABCDEFGH".index(answer)
        for name, rule in RULES.items():
            pick = rule(texts)
            hits[name] += (1.0 / len(texts)) if pick is None else float(pick == right)
        chance += 1.0 / len(texts)
        done += 1
    return {k: v / max(done, 1) for k, v in hits.items()}, chance / max(done, 1), done


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=240, help="instances per task (spread over levels 0..9)")
    ap.add_argument("--tasks", default="*", help="fnmatch pattern over task ids")
    ap.add_argument("--render", action="store_true", help="build whole instances (slower; same options)")
    args = ap.parse_args()
    tax = compile_taxonomy(ROOT)
    ids = [t for t in sorted(tax.tasks) if tax.tasks[t].answer_type == "option"
           and fnmatch.fnmatch(t, args.tasks)]
    rules = list(RULES)
    print(f"{'task':48} {'n':>4} {'chance':>7} " + " ".join(f"{r:>8}" for r in rules) + f" {'best-ch':>8}")
    over = []
    for tid in ids:
        acc, chance, done = measure(tax.tasks[tid], args.n, tax.vocab, args.render)
        best = max(acc.values())
        flag = "  OVER" if best - chance > MARGIN else ""
        if flag:
            over.append(tid)
        print(f"{tid:48} {done:4d} {chance:7.2f} " + " ".join(f"{acc[r]:8.2f}" for r in rules)
              + f" {best - chance:+8.2f}{flag}")
    print(f"\n{len(over)} option task(s) with a rule more than {MARGIN:.0%} above chance"
          + (": " + ", ".join(over) if over else ""))
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
