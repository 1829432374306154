"""Run a task program: named steps in order, uniqueness requirements, answer and witness binding."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..codegen.levels import level_values
from ..codegen.task import CompiledTask
from ..errors import EvalError
from ..expr.compile import Budget, check_value, run, run_checked
from ..expr.stack import with_headroom
from ..sample.state import Rejected


@dataclass
class ProgramResult:
    steps: dict[str, Any]
    answer: Any
    witness: Any  # scene object(s) or a scalar, per task.witness_kind
    work: int = 0  # element evaluations the program needed (a measure of reasoning steps, for level audits)


@with_headroom
def run_program(task: CompiledTask, state: dict, query: dict, level: int, vocab: dict, rng,
                budget: Budget | None = None) -> ProgramResult:
    """Raises Rejected when a requirement fails (a tie, a degenerate scene): the caller resamples the state.
    `budget` is this attempt's share of the sample's total work (see trace.instance); a full one when not given."""
    budget = budget if budget is not None else Budget()
    used_before = budget.used
    env = {**state, **query, **level_values(task.levels, level, vocab), "vocab": vocab, "$rng": rng,
           "$budget": budget}
    steps: dict[str, Any] = {}
    where = ""
    try:
        where = "query"
        check_value(query, budget, f"task {task.id}: the query")
        for name, c in task.compute:
            where = name
            steps[name] = env[name] = run_checked(c, env, f"step '{name}'")
        del env["$rng"]
        for name, c in task.require:
            where = name
            if not run(c, env):
                raise Rejected(f"task:{name}")
        where = "answer"
        answer = run_checked(task.answer, env, "the answer")
        where = "witness"
        witness = run_checked(task.witness, env, "the witness")
    except EvalError as exc:
        raise Rejected(f"task:error:{where}", str(exc)) from None
    if isinstance(answer, float):
        answer = round(answer, 6)
    return ProgramResult(steps, answer, witness, budget.used - used_before)
