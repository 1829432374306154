"""training/smoke_gpu.sh without a GPU (SMOKE_DRY=1): it builds, exports and writes both modes' exact commands,
which `tessera train --dry-run` checks with OpenRLHF's own argument parser; and its report reads OpenRLHF's step
log lines (written here with OpenRLHF's own format string) into the reward curve and the pass rate per level."""
from __future__ import annotations

import json
import os
import sys

from tessera.training.smoke_report import report
from tests.bounds import run_bounded
from tests.conftest import ROOT


def test_the_smoke_script_prepares_both_modes_without_a_gpu(tmp_path):
    out = tmp_path / "smoke"
    env = {**os.environ, "SMOKE_DRY": "1", "OUT": str(out), "STEPS": "1", "PROMPTS": "4", "SAMPLES": "2",
           "SMOKE_TASKS": "charts.bar_chart.extremum_label icons.shape_field.count_matching", "PYTHON": sys.executable,
           "MODEL": str(tmp_path / "model")}
    done = run_bounded(["bash", str(ROOT / "training" / "smoke_gpu.sh")], 300, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    offline = (out / "offline" / "command.txt").read_text()
    online = (out / "online" / "command.txt").read_text()
    assert "--reward.remote_url" in offline and str(out / "offline" / "export") in offline
    assert "--train.agent_func_path" in online and str(out / "online" / "export") in online
    manifest = json.loads((out / "offline" / "dataset" / "manifest.json").read_text())
    assert manifest["splits"]["train"]["rows"] == 4
    assert not (out / "offline" / "train.log").exists() and "no training run" in done.stdout


def test_the_report_reads_openrlhfs_step_lines(tmp_path):
    for mode, levels in (("offline", {0: (0.5, 0.25), 3: (0.5, 0.5)}), ("online", {1: (1.0, 0.75)})):
        (tmp_path / mode).mkdir()
        lines = ["Episode [1/1]:  50%|#####     | 1/2 [00:10<00:10]"]
        for global_step in (1, 2):
            log_status = {"reward": 0.5 * global_step, "answer_accuracy": 0.25 * global_step, "format_rate": 1.0,
                          "policy_loss": -0.01, "curriculum_level_mean": 0.0 if mode == "offline" else 1.0}
            for level in range(10):
                share, correct = levels.get(level, (0.0, 0.0))
                log_status[f"level/{level}/share"] = share
                log_status[f"level/{level}/correct"] = correct
            lines.append(f"(PPOTrainer pid=1) INFO ✨ Global step {global_step}: {log_status}")  # ppo_trainer.py:551
        lines.append("✨ Global step 3: {'broken': ")  # a cut line is skipped
        (tmp_path / mode / "train.log").write_text("\n".join(lines) + "\n")
    curve, by_level = report(tmp_path, ["offline", "online"])
    rows = [line.split("\t") for line in curve.splitlines()]
    assert rows[0] == ["mode", "step", "reward", "rollout/reward_mean", "answer_accuracy", "format_rate",
                       "curriculum_level_mean", "policy_loss"]
    assert rows[1:] == [["offline", "1", "0.5000", "", "0.2500", "1.0000", "0.0000", "-0.0100"],
                        ["offline", "2", "1.0000", "", "0.5000", "1.0000", "0.0000", "-0.0100"],
                        ["online", "1", "0.5000", "", "0.2500", "1.0000", "1.0000", "-0.0100"],
                        ["online", "2", "1.0000", "", "0.5000", "1.0000", "1.0000", "-0.0100"]]
    assert by_level.splitlines()[1:3] == ["offline\t1\t0\t0.500\t0.500", "offline\t1\t3\t0.500\t1.000"]
    assert by_level.splitlines()[-1] == "online\t2\t1\t1.000\t0.750"
    assert (tmp_path / "pass_by_level.tsv").read_text() == by_level
