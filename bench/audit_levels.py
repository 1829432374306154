"""Difficulty ladders, audited: per task, how `level` changes the scene (records and values in the state), the
program's work (element evaluations) and what is drawn (marks). Flags tasks whose level 9 draws no more than level 0.

    python bench/audit_levels.py [--seeds N] [--domain D]
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tessera.taxonomy import compile_taxonomy  # noqa: E402
from tessera.trace.instance import generate  # noqa: E402


def state_size(value) -> int:
    """Number of scalar values in the state (records and lists count what they hold)."""
    if isinstance(value, dict):
        return sum(state_size(v) for v in value.values())
    if isinstance(value, list):
        return sum(state_size(v) for v in value)
    return 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--domain")
    args = ap.parse_args()
    tax = compile_taxonomy(ROOT)
    levels = (0, 3, 6, 9)
    flagged = []
    header = f"{'task':48} " + " ".join(f"{'L' + str(lv) + ' size/work/marks':>22}" for lv in levels) + "  verdict"
    print(header)
    for tid in sorted(tax.tasks):
        task = tax.tasks[tid]
        if args.domain and task.domain != args.domain:
            continue
        cells, marks_by_level = [], {}
        for lv in levels:
            traces = [generate(task, s, lv, vocab=tax.vocab).trace for s in range(args.seeds)]
            size = statistics.mean(state_size(t["state"]) for t in traces)
            work = statistics.mean(t["program_work"] for t in traces)
            marks = statistics.mean(t["render"]["decisions"]["marks"] for t in traces)
            marks_by_level[lv] = marks
            cells.append(f"{size:7.0f}/{work:6.0f}/{marks:6.0f}")
        grows = marks_by_level[9] > marks_by_level[0]
        if not grows:
            flagged.append(tid)
        print(f"{tid:48} " + " ".join(f"{c:>22}" for c in cells) + ("  grows" if grows else "  FLAT: nothing more drawn"))
    print(f"\n{len(flagged)} task(s) whose level 9 draws no more than level 0" + (": " + ", ".join(flagged)
                                                                                   if flagged else ""))
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
