"""Tessera's reward function for OpenRLHF: `--reward.remote_url training/reward_func.py`.

OpenRLHF loads this file by path (`importlib.util.spec_from_file_location("reward_func", path)`) inside every
rollout actor and calls `reward_func([query], [prompt], [label])` once per sample in a worker thread. `query` is the
whole decoded chat (special tokens kept); `label` is the row's `label` column written by
`tessera export --format openrlhf`. An exception here is swallowed by OpenRLHF and leaves the sample without a
reward, so nothing here raises: an unreadable label or response scores 0.
"""
from __future__ import annotations

import sys

import torch  # noqa: E402

try:
    from tessera.training.reward import domain_shares, sample_logs, score_transcript
except ModuleNotFoundError as exc:  # loaded by path into a Python without the package: say which Python
    if exc.name != "tessera":
        raise
    raise ModuleNotFoundError(f"{__file__}: the tessera package is not installed in {sys.executable}; install it "
                              f"(`pip install tessera`, the same version on every node) where the trainer runs") from None


def reward_func(queries, prompts, labels, **kwargs):
    """{"rewards": tensor, "scores": tensor, "extra_logs": {name: tensor}}, one entry per query.

    rewards = 0.95 · answer + 0.05 · format (the verifier's reward) on training rows, and answer · eval_weight on
    evaluation rows, so that OpenRLHF's eval pass1 (a mean of rewards) is the exact macro answer accuracy
    (training/reward.py); scores = answer accuracy in {0, 1}, which is what `--algo.dynamic_filtering_enable` reads
    to drop groups that all pass or all fail."""
    try:
        queries = list(queries)
        n = len(queries)
        prompts = list(prompts) if prompts is not None else []
        labels = list(labels) if labels is not None else []
        prompts += [None] * (n - len(prompts))
        labels += [None] * (n - len(labels))
        shares = domain_shares(labels[:n])
        scored = [score_transcript(q, p, lab) for q, p, lab in zip(queries, prompts, labels)]
        logs = [sample_logs(s, shares) for s in scored]
        keys = list(logs[0]) if logs else ["answer_accuracy", "format_rate"]
        # One tensor for everything, handed out as row views: tensor creation dominates the cost of a call.
        rows = torch.tensor([[s.logged_reward for s in scored], [s.answer for s in scored],
                             *([row[k] for row in logs] for k in keys)], dtype=torch.float32).unbind(0)
        return {"rewards": rows[0], "scores": rows[1], "extra_logs": dict(zip(keys, rows[2:]))}
    except Exception:  # noqa: BLE001 - e.g. `queries` not iterable: score every sample 0 rather than raise
        n = len(queries) if isinstance(queries, list) else 1
        zeros = torch.zeros(n, dtype=torch.float32)
        return {"rewards": zeros, "scores": zeros.clone(),
                "extra_logs": {"answer_accuracy": zeros.clone(), "format_rate": zeros.clone()}}
