"""Oracles of the grammar symbolic.morse_key (grammars/symbolic/morse_key.yaml, programs/symbolic/morse_key/): each
task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


@oracle("symbolic.morse_key.decode_word")
def _morse_decode(tr):
    key = {k["code"]: k["letter"] for k in tr["state"]["key"]}
    assert len(key) == len(tr["state"]["key"])  # no two key entries share a code
    return "".join(key[g["code"]] for g in tr["state"]["groups"])


@oracle("symbolic.morse_key.dash_count")
def _morse_signs(tr):
    sign = "-" if tr["query"]["sign"] == "dash" else "."
    return sum(g["code"].count(sign) for g in tr["state"]["groups"])
