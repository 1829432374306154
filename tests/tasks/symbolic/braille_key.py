"""Oracles of the grammar symbolic.braille_key (grammars/symbolic/braille_key.yaml, programs/symbolic/braille_key/):
each task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


@oracle("symbolic.braille_key.decode_word")
def _braille_decode(tr):
    key = {k["dots"]: k["letter"] for k in tr["state"]["key"]}
    assert len(key) == len(tr["state"]["key"])
    return "".join(key[c["dots"]] for c in tr["state"]["cells"])


@oracle("symbolic.braille_key.raised_dots")
def _braille_dots(tr):
    return sum(len(c["dots"]) for c in tr["state"]["cells"])
