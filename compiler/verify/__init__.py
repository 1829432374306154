"""The verifier: find a response's final answer (its last answer object, else a final answer line), normalise it by
answer type, score. Never raises."""
from .score import score, Score  # noqa: F401
