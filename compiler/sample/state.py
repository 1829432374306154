"""Sample a grammar's state: evaluate samplers in order, enforce `require` by bounded rejection."""
from __future__ import annotations

from ..codegen.grammar import CompiledGrammar
from ..codegen.levels import level_values
from ..errors import EvalError, TesseraError
from ..expr.compile import MAX_STEPS, Budget, run, run_checked
from ..expr.stack import with_headroom

# Steps one `sample` may spend on states and programs over all its attempts together. A step is a unit of work, not
# of time, so where a sample stops is the same on every machine and every run. One attempt may still use MAX_STEPS
# (state and program each), but `max_attempts` × that is hours: the total is what ends a hopeless sample in seconds.
MAX_SAMPLE_STEPS = 4_000_000


class SampleWork:
    """The total work of one sample, handed out as per-evaluation budgets: each budget is the smaller of MAX_STEPS and
    what the sample has left, and what it used is counted when the next one is handed out."""

    def __init__(self, total: int = MAX_SAMPLE_STEPS):
        self.total = total
        self.spent = 0
        self._open: Budget | None = None
        self.details: dict[str, str] = {}  # reason → the first error message seen for it

    def _settle(self) -> None:
        if self._open is not None:
            self.spent += min(self._open.used, self._open.limit)
            self._open = None

    def budget(self) -> Budget:
        self._settle()
        steps = max(0, min(MAX_STEPS, self.total - self.spent))
        why = "" if steps == MAX_STEPS else f" (all that was left of the {self.total} steps one sample may spend)"
        self._open = Budget(steps, why=why)
        return self._open

    def note(self, rejected: Rejected) -> None:
        if rejected.detail:
            self.details.setdefault(rejected.reason, rejected.detail)

    def exhausted(self) -> bool:
        self._settle()
        return self.spent >= self.total

    def failure(self, what: str, attempts: int, rejections: dict[str, int]) -> str:
        """The message when the total ran out: which constraint kept failing, how often, and (for an error) what it
        said the first time (the last attempt was cut short by the total, so its error says only that)."""
        ranked = sorted(rejections.items(), key=lambda kv: -kv[1])
        culprit = detail = ""
        if ranked:
            reason, times = ranked[0]
            culprit = f"; the constraint that keeps failing is {_describe(reason)} (rejected {times} of {attempts})"
            if reason in self.details:
                detail = f"; its error: {self.details[reason]}"
        table = ", ".join(f"{k} ×{v}" for k, v in ranked)
        return (f"{what}: sampling used its whole work budget ({self.total} steps over states and programs) in "
                f"{attempts} attempts without a state that satisfies the constraints{culprit} ({table}){detail}")


def _describe(reason: str) -> str:
    """'grammar:clear' → "grammar constraint 'clear'"; 'task:error:row' → "an error in task step 'row'"."""
    scope, _, rest = reason.partition(":")
    kind = "grammar" if scope == "grammar" else "task"
    if rest.startswith("error:"):
        return f"an error in {kind} step '{rest[len('error:'):]}'"
    return f"{kind} constraint '{rest}'"


class Rejected(Exception):
    """One attempt was rejected; `reason` names the constraint (or error) that failed."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


@with_headroom
def sample_state(grammar: CompiledGrammar, level: int, vocab: dict, rng, query: dict | None = None,
                 budget: Budget | None = None) -> dict:
    """One attempt: returns the state, or raises Rejected. `query` holds the task's drawn query variables; the state
    sees the grammar's declared inputs among them (the task compiler checked that each one is there). `budget` is
    this attempt's share of the sample's total work (see trace.instance); a fresh full budget when not given."""
    query = query or {}
    missing = [name for name in grammar.inputs if name not in query]
    if missing:
        raise TesseraError(f"grammar {grammar.id} reads the query variables {', '.join(missing)}, which were not given")
    env = {name: query[name] for name in grammar.inputs}
    if grammar.levels:
        env.update(level_values(grammar.levels, level, vocab))
    env.update({"level": level, "vocab": vocab, "$rng": rng, "$budget": budget if budget is not None else Budget()})
    where = ""
    try:
        for name, c in grammar.state:
            where = name
            env[name] = run_checked(c, env, f"state field '{name}'")
        del env["$rng"]
        for name, c in grammar.require:
            where = name
            if not run(c, env):
                raise Rejected(f"grammar:{name}")
    except EvalError as exc:
        # Named by the step that failed, so a report says which sampler keeps failing (e.g. grammar:error:shape).
        raise Rejected(f"grammar:error:{where}", str(exc)) from None
    return {name: env[name] for name, _ in grammar.state}
