"""Scoring transcripts for OpenRLHF with the exact verifier of `tessera score`, and the figures it logs.

A training label is the verifier label (`compiler/verify/score.py`) plus the fields the exporter adds:
    "task", "domain"   where the instance comes from
    "domains"          {domain: share of the split's rows}: the same mapping on every row of one split
    "eval_weight"      evaluation rows only (every split but train): N / (D · n_domain) for that split

What OpenRLHF does with the reward function's return value (0.11.2):
* training: `rewards` drive the policy gradient; every `extra_logs` key becomes a per-sample value that the actor
  averages over *all* samples of a step (it requires the same keys on every sample). A per-domain accuracy is not
  such a mean, so each domain logs two means whose ratio is exact: `domain/<d>/correct` (share of the step's samples
  from d answered correctly) and `domain/<d>/share` (share of the step's samples from d).
* evaluation (`compute_eval_metrics`): extra_logs are ignored; `eval_<datasource>_pass1` is the mean *reward* over
  the datasource's samples, so the 0.05 format bonus would inflate it. Evaluation rows therefore get the reward
  answer · eval_weight and all share the datasource `macro`: the mean over the split is
  Σ_d (n_d/N) · acc_d · N/(D·n_d) = the macro answer accuracy over domains, exactly (`eval_macro_pass1`; the max
  over a prompt's samples gives the macro pass@k in `eval_macro_pass<k>`). That is the launcher's
  `--ckpt.best_metric_key`. Online validation rows (`tessera export --format openrlhf-online`) carry the same
  weight in their row token, and training/online.py returns answer · eval_weight for them, ungated.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache

from tessera.verify.score import score

from .chat import extract_response

MAX_LABEL_CHARS = 1_000_000
EVAL_DATASOURCE = "macro"  # the datasource of every evaluation row: OpenRLHF logs eval_macro_pass1
MACRO_METRIC = f"eval_{EVAL_DATASOURCE}_pass1"
# N / (D · n_d) is at most the split's row count; a larger weight is a corrupted label, not a rare domain.
MAX_EVAL_WEIGHT = 1e7


@dataclass(frozen=True)
class Scored:
    reward: float
    answer: float
    format: float
    domain: str | None
    reason: str
    eval_weight: float | None = None  # set on evaluation rows: the reward is then answer · eval_weight
    level: int | None = None  # the instance's difficulty level (0-9), when the label or row says it

    @property
    def logged_reward(self) -> float:
        """What goes to OpenRLHF as the reward: the verifier's on training rows, weighted accuracy on eval rows."""
        return self.reward if self.eval_weight is None else self.answer * self.eval_weight


@lru_cache(maxsize=8192)
def _label_from_text(text: str) -> dict | None:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def read_label(label) -> dict | None:
    """A label as OpenRLHF passes it (a JSON string from the dataset, or already a dict); None if unreadable."""
    if isinstance(label, dict):
        return label
    if isinstance(label, (bytes, bytearray)):
        label = bytes(label).decode("utf-8", "replace")
    if isinstance(label, str) and len(label) <= MAX_LABEL_CHARS:
        return _label_from_text(label)
    return None


def score_transcript(query, prompt, label) -> Scored:
    """Score one decoded transcript against its label. Never raises."""
    try:
        lab = read_label(label)
        if lab is None:
            return Scored(0.0, 0.0, 0.0, None, "label is not a JSON object")
        weight = lab.get("eval_weight")
        if weight is not None and not valid_eval_weight(weight):
            return Scored(0.0, 0.0, 0.0, None,
                          f"label eval_weight {weight!r} is not a number in (0, {MAX_EVAL_WEIGHT:g}]")
        s = score(lab, extract_response(query, prompt))
        domain = lab.get("domain")
        return Scored(float(s.reward), float(s.answer), float(s.format),
                      domain if isinstance(domain, str) else None, s.reason,
                      None if weight is None else float(weight), known_level(lab.get("level")))
    except Exception as exc:  # noqa: BLE001 - an exception inside OpenRLHF's rollout silently breaks the run
        return Scored(0.0, 0.0, 0.0, None, f"reward error: {type(exc).__name__}")


def valid_eval_weight(weight) -> bool:
    return isinstance(weight, (int, float)) and not isinstance(weight, bool) and math.isfinite(weight) \
        and 0 < weight <= MAX_EVAL_WEIGHT


def eval_weights(domain_counts: dict[str, int]) -> dict[str, float]:
    """{domain: N / (D · n_domain)} for an evaluation split: answer · weight averages to the macro accuracy."""
    total, n_domains = sum(domain_counts.values()), len(domain_counts)
    return {d: total / (n_domains * n) for d, n in sorted(domain_counts.items()) if n > 0}


def domain_shares(labels) -> dict[str, float]:
    """The `domains` mapping of a batch of labels (the union, should two exports be mixed)."""
    shares: dict[str, float] = {}
    for label in labels:
        lab = read_label(label)
        table = lab.get("domains") if lab else None
        if isinstance(table, dict):
            for d, share in table.items():
                if isinstance(d, str) and isinstance(share, (int, float)) and share > 0:
                    shares.setdefault(d, float(share))
    return dict(sorted(shares.items()))


LEVELS = range(10)


def known_level(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value in LEVELS else None


def sample_logs(scored: Scored, shares: dict[str, float]) -> dict[str, float]:
    """The per-sample values OpenRLHF averages into the step's metrics (same keys for every sample, each in [0, 1]).
    accuracy of domain d over a step = mean(domain/<d>/correct) / mean(domain/<d>/share), exactly; the same for
    level L with level/<L>/correct and level/<L>/share (the pass rate per level; all ten levels are always logged,
    so every sample has the same keys)."""
    logs = {"answer_accuracy": scored.answer, "format_rate": scored.format}
    for d in shares:
        inside = 1.0 if scored.domain == d else 0.0
        logs[f"domain/{d}/correct"] = scored.answer * inside
        logs[f"domain/{d}/share"] = inside
    for level in LEVELS:
        inside = 1.0 if scored.level == level else 0.0
        logs[f"level/{level}/correct"] = scored.answer * inside
        logs[f"level/{level}/share"] = inside
    return logs
