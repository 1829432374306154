"""Run a task program: named steps in order, uniqueness requirements, answer and witness binding."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..codegen.task import CompiledTask
from ..errors import EvalError
from ..expr.compile import MAX_STEPS, Budget, run
from ..sample.state import Rejected


@dataclass
class ProgramResult:
    steps: dict[str, Any]
    answer: Any
    witness: Any  # scene object(s) or a scalar, per task.witness_kind
    work: int = 0  # element evaluations the program needed (a measure of reasoning steps, for level audits)


def run_program(task: CompiledTask, state: dict, query: dict, level: int, vocab: dict, rng) -> ProgramResult:
    """Raises Rejected when a requirement fails (a tie, a degenerate scene): the caller resamples the state."""
    budget = Budget()
    env = {**state, **query, "level": level, "vocab": vocab, "$rng": rng, "$budget": budget}
    steps: dict[str, Any] = {}
    where = ""
    try:
        for name, c in task.compute:
            where = name
            steps[name] = env[name] = run(c, env)
        del env["$rng"]
        for name, c in task.require:
            where = name
            if not run(c, env):
                raise Rejected(f"task:{name}")
        where = "answer"
        answer = run(task.answer, env)
        where = "witness"
        witness = run(task.witness, env)
    except EvalError as exc:
        raise Rejected(f"task:error:{where}", str(exc)) from None
    if isinstance(answer, float):
        answer = round(answer, 6)
    return ProgramResult(steps, answer, witness, MAX_STEPS - budget.left)
