"""Tessera's reward for verl: `custom_reward_function.path=training/verl_reward.py custom_reward_function.name=compute_score`.

verl loads this file by path inside its reward workers and its reward manager (NaiveRewardManager and kin) calls
`compute_score(data_source=..., solution_str=..., ground_truth=..., extra_info=...)` once per response, where
`solution_str` is the response decoded with special tokens skipped and `ground_truth` is the row's
`reward_model.ground_truth` written by `tessera export --format verl` (the verifier label as canonical JSON).
A dict return puts "score" into the reward and every other key into verl's `reward_extra_info`, whose per-data_source
means verl logs on validation (`val-core/<data_source>/acc/mean@N` uses "acc" when present): so "acc" is the exact
answer accuracy and the 0.05 format bonus never inflates it. The same keys come back for every call (verl requires
that), and nothing raises: an unreadable label or response scores 0.
"""
from __future__ import annotations

import sys

try:
    from tessera.training.reward import score_transcript
except ModuleNotFoundError as exc:  # loaded by path into a Python without the package: say which Python
    if exc.name != "tessera":
        raise
    raise ModuleNotFoundError(f"{__file__}: the tessera package is not installed in {sys.executable}; install it "
                              f"(`pip install tessera`, the same version on every node) where the trainer runs") from None

ZERO = {"score": 0.0, "acc": 0.0, "format": 0.0}


def compute_score(data_source=None, solution_str=None, ground_truth=None, extra_info=None, **kwargs) -> dict:
    """{"score": the verifier's reward (0.95 · answer + 0.05 · format), "acc": answer in {0, 1}, "format": 0|1}."""
    try:
        if isinstance(solution_str, (bytes, bytearray)):
            solution_str = bytes(solution_str).decode("utf-8", "replace")
        # verl hands the response alone; score_transcript finds no assistant marker and reads it whole.
        s = score_transcript(solution_str, None, ground_truth)
        return {"score": s.reward, "acc": s.answer, "format": s.format}
    except Exception:  # noqa: BLE001 - score_transcript never raises; this guards the dict building itself
        return dict(ZERO)
