"""Tessera's reward for TRL's GRPOTrainer: `GRPOTrainer(reward_funcs=tessera_reward, train_dataset=...)`.

TRL calls `reward_func(prompts=..., completions=..., completion_ids=..., **columns)` once per batch, where every
dataset column but `prompt` comes as a list (so `label=[...]`, from `tessera export --format trl`), plus
`trainer_state`, `log_extra`, `log_metric`. Completions are strings for a standard dataset and
`[{"role": "assistant", "content": ...}]` for a conversational one (content a string, or a list of parts).
It returns one float per completion, the verifier's reward (0.95 · answer + 0.05 · format); when TRL passes
`log_metric`, the batch's answer accuracy and format rate are logged as `tessera/answer_accuracy` and
`tessera/format_rate`. Nothing raises: an unreadable label or completion scores 0.
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


def completion_text(completion) -> str:
    """The text of one TRL completion: a string, or a conversational list whose last assistant turn is read."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        completion = [completion]
    if not isinstance(completion, (list, tuple)):
        return ""
    for message in reversed(completion):
        if isinstance(message, dict) and message.get("role", "assistant") == "assistant":
            content = message.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, (list, tuple)):  # content parts: the text parts in order
                return "".join(p["text"] for p in content
                               if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str))
            return ""
    return ""


def tessera_reward(prompts=None, completions=None, label=None, **kwargs) -> list[float]:
    try:
        completions = list(completions or [])
    except TypeError:
        return []
    labels = list(label) if isinstance(label, (list, tuple)) else [label] * len(completions)
    labels += [None] * (len(completions) - len(labels))
    scored = [score_transcript(completion_text(c), None, lab) for c, lab in zip(completions, labels)]
    log_metric = kwargs.get("log_metric")
    if callable(log_metric) and scored:
        try:
            log_metric("tessera/answer_accuracy", sum(s.answer for s in scored) / len(scored))
            log_metric("tessera/format_rate", sum(s.format for s in scored) / len(scored))
        except Exception:  # noqa: BLE001 - logging must never cost the batch its rewards
            pass
    return [s.reward for s in scored]


reward_func = tessera_reward  # the name a config that loads by path is most likely to look for
