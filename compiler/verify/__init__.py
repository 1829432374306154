"""The verifier: parse a response's final JSON object, normalise by answer type, score. Never raises."""
from .score import score, Score  # noqa: F401
