"""Scoring transcripts for OpenRLHF with the exact verifier of `tessera score`.

A training label is the verifier label (`compiler/verify/score.py`) plus three fields the exporter adds:
    "task", "domain"   where the instance comes from
    "domains"          {domain: share of the prompt set's rows}: the same mapping on every row of one export
OpenRLHF averages every `extra_logs` key over the samples of a step, and requires the same keys on every sample,
so a per-domain accuracy is logged as `acc/<domain>` = answer · [sample in domain] / share(domain): its mean over
a step is the domain's accuracy (exact in expectation, since the prompt set holds each domain at its share;
OpenRLHF's eval reports the exact per-domain pass rate from the `datasource` column).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache

from compiler.verify.score import score

from .chat import extract_response

MAX_LABEL_CHARS = 1_000_000


@dataclass(frozen=True)
class Scored:
    reward: float
    answer: float
    format: float
    domain: str | None
    reason: str


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
        s = score(lab, extract_response(query, prompt))
        domain = lab.get("domain")
        return Scored(float(s.reward), float(s.answer), float(s.format),
                      domain if isinstance(domain, str) else None, s.reason)
    except Exception as exc:  # noqa: BLE001 - an exception inside OpenRLHF's rollout silently breaks the run
        return Scored(0.0, 0.0, 0.0, None, f"reward error: {type(exc).__name__}")


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


def sample_logs(scored: Scored, shares: dict[str, float]) -> dict[str, float]:
    """The per-sample values OpenRLHF averages into the step's metrics (same keys for every sample)."""
    logs = {"answer_accuracy": scored.answer, "format_rate": scored.format}
    for d, share in shares.items():
        logs[f"acc/{d}"] = scored.answer / share if scored.domain == d else 0.0
    return logs
