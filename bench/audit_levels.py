"""Difficulty ladders, audited: per task, how `level` changes the scene (records and values in the state), the
program's work (element evaluations), what is drawn (marks) and the answer (its size: a number's magnitude, a list's
length; and how many distinct answers the seeds give).

A task is flagged when its level 9 is not measurably harder than its level 0:
  - FLAT: none of the scene's size (objects), the program's work and the answer's size grows by GROWTH (×1.5), or
    nothing more is drawn;
  - NUMERIC FLAT: a numeric answer whose mean and largest magnitude both grow by less than ANSWER_GROWTH (×1.25)
    — the level does not reach larger answers, so a model never practises them.

    python bench/audit_levels.py [--seeds N] [--domain D] [--task PREFIX] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tessera.taxonomy import compile_taxonomy  # noqa: E402
from tessera.trace.instance import generate  # noqa: E402

LEVELS = (0, 3, 6, 9)
GROWTH = 1.5  # level 9's state size, work or answer size over level 0's
ANSWER_GROWTH = 1.25  # a numeric answer's mean magnitude, level 9 over level 0
# Numeric answers that name a place or read a fixed scale: their range is the picture's format, not the level's
# doing (NUMERIC FLAT does not apply; FLAT still does — their levels must add objects or work).
BOUNDED = {
    "games.connect_four.winning_column": "a column number, 1-7",
    "games.tic_tac_toe.winning_cell": "a cell number, 1-9",
    "geometry.protractor.ray_angle": "an angle read off a protractor, 0-180",
    "symbolic.clock_row.hand_angle": "the angle between two hands, 0-180",
    "symbolic.clock_row.elapsed_minutes": "minutes between two clock faces, under 12 hours",
    "symbolic.gauge.read_value": "a reading on a fixed dial",
    "charts.donut.share_sum": "a percentage of one whole, at most 100",
}


def state_size(value) -> int:
    """Number of scalar values in the state (records and lists count what they hold)."""
    if isinstance(value, dict):
        return sum(state_size(v) for v in value.values())
    if isinstance(value, list):
        return sum(state_size(v) for v in value)
    return 1


def answer_size(answer) -> float | None:
    """A number's magnitude, a list's length; None for a label (its size says nothing)."""
    if isinstance(answer, bool):
        return None
    if isinstance(answer, (int, float)):
        return abs(float(answer))
    if isinstance(answer, list):
        return float(len(answer))
    return None


def profile(task, vocab, seeds: int, levels=LEVELS) -> dict:
    """Per level: mean state size, program work, marks, answer size (None for labels), distinct answers."""
    out = {}
    for lv in levels:
        traces = [generate(task, s, lv, vocab=vocab).trace for s in range(seeds)]
        sizes = [answer_size(t["answer"]) for t in traces]
        out[lv] = {
            "size": statistics.mean(state_size(t["state"]) for t in traces),
            "work": statistics.mean(t["program_work"] for t in traces),
            "marks": statistics.mean(t["render"]["decisions"]["marks"] for t in traces),
            "answer": statistics.mean(sizes) if all(s is not None for s in sizes) else None,
            "answer_max": max(sizes) if all(s is not None for s in sizes) else None,
            "numeric": all(isinstance(t["answer"], (int, float)) and not isinstance(t["answer"], bool)
                           for t in traces),
            "distinct": len({json.dumps(t["answer"], sort_keys=True) for t in traces}),
        }
    return out


def _ratio(hi: float, lo: float) -> float:
    return hi / lo if lo > 0 else (math.inf if hi > 0 else 1.0)


def verdict(prof: dict, task_id: str = "") -> list[str]:
    """The flags of one task's profile (empty: its levels grow)."""
    lo, hi = prof[min(prof)], prof[max(prof)]
    flags = []
    work_grows = _ratio(hi["work"], lo["work"]) >= GROWTH
    answer_grows = lo["answer"] is not None and hi["answer"] is not None and \
        _ratio(hi["answer"], lo["answer"]) >= GROWTH
    size_grows = _ratio(hi["size"], lo["size"]) >= GROWTH
    if not (size_grows or work_grows or answer_grows) or hi["marks"] <= lo["marks"]:
        flags.append("FLAT")
    if task_id not in BOUNDED and lo["numeric"] and hi["numeric"] and _ratio(hi["answer"], lo["answer"]) < ANSWER_GROWTH and \
            _ratio(hi["answer_max"], lo["answer_max"]) < ANSWER_GROWTH:
        flags.append("NUMERIC FLAT")
    return flags


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=12)
    ap.add_argument("--domain")
    ap.add_argument("--task", help="only tasks whose id starts with this")
    ap.add_argument("--json", help="write the profiles and flags here")
    args = ap.parse_args()
    tax = compile_taxonomy(ROOT)
    flagged, report = {}, {}
    print(f"{'task':48} " + " ".join(f"{'L' + str(lv) + ' work/marks/answer':>24}" for lv in LEVELS) + "  verdict")
    for tid in sorted(tax.tasks):
        task = tax.tasks[tid]
        if (args.domain and task.domain != args.domain) or (args.task and not tid.startswith(args.task)):
            continue
        prof = profile(task, tax.vocab, args.seeds)
        flags = verdict(prof, tid)
        report[tid] = {"levels": prof, "flags": flags}
        if flags:
            flagged[tid] = flags
        cells = [f"{p['work']:7.0f}/{p['marks']:5.0f}/" + (f"{p['answer']:7.2f}" if p["answer"] is not None
                                                           else f"{'d' + str(p['distinct']):>7}")
                 for p in prof.values()]
        print(f"{tid:48} " + " ".join(f"{c:>24}" for c in cells) + "  " + (", ".join(flags) or "grows"), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1, sort_keys=True))
    print(f"\n{len(flagged)} task(s) whose level 9 is not measurably harder than level 0"
          + (":\n  " + "\n  ".join(f"{t}: {', '.join(f)}" for t, f in flagged.items()) if flagged else ""))
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
