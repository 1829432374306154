"""How much of the evaluation budget the bundled tasks use: steps per attempt (state, program), total steps of one
sample over all its attempts, and bytes (the size budget), so the bounds in compiler/expr/compile.py and
compiler/sample/state.py can be judged against real use. Also times the steps, to turn the total into seconds.

    python bench/budget_usage.py [seeds] [levels]
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tessera.expr.compile import MAX_BYTES, MAX_STEPS
from tessera.sample import state as sample_state_mod
from tessera.taxonomy import compile_taxonomy
from tessera.trace.instance import generate


def main() -> None:
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    levels = [int(x) for x in sys.argv[2].split(",")] if len(sys.argv) > 2 else [0, 5, 9]
    tax = compile_taxonomy()
    budgets = []
    real = sample_state_mod.SampleWork.budget

    def spy(self):  # record every budget one sample hands out
        b = real(self)
        budgets.append(b)
        return b

    sample_state_mod.SampleWork.budget = spy
    worst_attempt = worst_total = worst_bytes = 0
    where = {}
    steps_done, seconds = 0, 0.0
    for tid, task in sorted(tax.tasks.items()):
        for level in levels:
            for seed in range(seeds):
                budgets.clear()
                t0 = time.perf_counter()
                try:
                    generate(task, seed, level, vocab=tax.vocab)
                except Exception as exc:  # noqa: BLE001 - report, keep measuring
                    print(f"{tid} L{level} s{seed}: {type(exc).__name__}: {exc}"[:300])
                seconds += time.perf_counter() - t0
                used = [min(b.used, b.limit) for b in budgets]
                steps_done += sum(used)
                size = max((MAX_BYTES - b.bytes_left for b in budgets), default=0)
                for name, v in (("attempt", max(used, default=0)), ("total", sum(used)), ("bytes", size)):
                    if v > {"attempt": worst_attempt, "total": worst_total, "bytes": worst_bytes}[name]:
                        where[name] = f"{tid} L{level} s{seed}"
                worst_attempt = max(worst_attempt, max(used, default=0))
                worst_total = max(worst_total, sum(used))
                worst_bytes = max(worst_bytes, size)
    print(f"largest steps in one evaluation: {worst_attempt} of {MAX_STEPS} ({where.get('attempt')})")
    print(f"largest steps of one sample, all attempts: {worst_total} of {sample_state_mod.MAX_SAMPLE_STEPS} "
          f"({where.get('total')})")
    print(f"largest bytes in one evaluation: {worst_bytes} of {MAX_BYTES} ({where.get('bytes')})")
    print(f"{steps_done} steps in {seconds:.1f} s of sampling (render included)")


if __name__ == "__main__":
    main()
