"""The figures of a GPU smoke run (training/smoke_gpu.sh), read from OpenRLHF's log: `python -m
tessera.training.smoke_report OUT MODE...` writes OUT/reward_curve.tsv (per mode and step: reward, answer accuracy,
format rate, mean curriculum level, policy loss) and OUT/pass_by_level.tsv (per mode, step and level seen: the share
of the step's samples at that level and their pass rate, from the `level/<L>/share|correct` logs).

OpenRLHF 0.11.2 logs one line per step, `✨ Global step N: {python dict of the step's metrics}`
(openrlhf/trainer/ppo_trainer.py); the dict is read with `ast.literal_eval`, never evaluated.
"""
from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

STEP_LINE = re.compile(r"Global step (\d+): (\{.*\})\s*$")
CURVE_KEYS = ("reward", "rollout/reward_mean", "answer_accuracy", "format_rate", "curriculum_level_mean", "policy_loss")
LEVELS = range(10)


def step_metrics(log_text: str) -> list[tuple[int, dict]]:
    """(step, metrics) for every step line of an OpenRLHF log; lines that do not parse are skipped."""
    steps = []
    for line in log_text.splitlines():
        m = STEP_LINE.search(line)
        if not m:
            continue
        try:
            metrics = ast.literal_eval(m.group(2))
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            continue
        if isinstance(metrics, dict):
            steps.append((int(m.group(1)), {k: v for k, v in metrics.items() if isinstance(v, (int, float))}))
    return steps


def report(out: Path, modes: list[str]) -> tuple[str, str]:
    curve = ["\t".join(("mode", "step", *CURVE_KEYS))]
    by_level = ["\t".join(("mode", "step", "level", "share", "pass_rate"))]
    for mode in modes:
        log = out / mode / "train.log"
        if not log.is_file():
            raise SystemExit(f"{log}: missing (the {mode} run did not start)")
        steps = step_metrics(log.read_text(errors="replace"))
        if not steps:
            raise SystemExit(f"{log}: no training step was logged (look for errors above the last lines)")
        for step, metrics in steps:
            curve.append("\t".join([mode, str(step)] + ["" if k not in metrics else f"{metrics[k]:.4f}"
                                                      for k in CURVE_KEYS]))
            for level in LEVELS:
                share = metrics.get(f"level/{level}/share", 0.0)
                if share > 0:
                    rate = metrics.get(f"level/{level}/correct", 0.0) / share
                    by_level.append(f"{mode}\t{step}\t{level}\t{share:.3f}\t{rate:.3f}")
    curve_text, level_text = "\n".join(curve) + "\n", "\n".join(by_level) + "\n"
    (out / "reward_curve.tsv").write_text(curve_text)
    (out / "pass_by_level.tsv").write_text(level_text)
    return curve_text, level_text


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: python -m tessera.training.smoke_report OUT MODE...", file=sys.stderr)
        return 2
    curve, levels = report(Path(argv[0]), argv[1:])
    print(curve + "\n" + levels, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
