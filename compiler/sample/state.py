"""Sample a grammar's state: evaluate samplers in order, enforce `require` by bounded rejection."""
from __future__ import annotations

from ..codegen.grammar import CompiledGrammar
from ..errors import EvalError, TesseraError
from ..expr.compile import Budget, run


class Rejected(Exception):
    """One attempt was rejected; `reason` names the constraint (or error) that failed."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


def sample_state(grammar: CompiledGrammar, level: int, vocab: dict, rng, query: dict | None = None) -> dict:
    """One attempt: returns the state, or raises Rejected. `query` holds the task's drawn query variables; the state
    sees the grammar's declared inputs among them (the task compiler checked that each one is there)."""
    query = query or {}
    missing = [name for name in grammar.inputs if name not in query]
    if missing:
        raise TesseraError(f"grammar {grammar.id} reads the query variables {', '.join(missing)}, which were not given")
    env = {name: query[name] for name in grammar.inputs}
    env.update({"level": level, "vocab": vocab, "$rng": rng, "$budget": Budget()})
    where = ""
    try:
        for name, c in grammar.state:
            where = name
            env[name] = run(c, env)
        del env["$rng"]
        for name, c in grammar.require:
            where = name
            if not run(c, env):
                raise Rejected(f"grammar:{name}")
    except EvalError as exc:
        # Named by the step that failed, so a report says which sampler keeps failing (e.g. grammar:error:shape).
        raise Rejected(f"grammar:error:{where}", str(exc)) from None
    return {name: env[name] for name, _ in grammar.state}
