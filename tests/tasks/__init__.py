"""Per-task test knowledge, one file per grammar: tests/tasks/<domain>/<grammar>.py holds the oracles (and option
fits) of every task of grammars/<domain>/<grammar>.yaml, registered with `@oracle(task_id)` / `@option_fit(task_id)`
(tests/tasks/registry.py). Helpers that several grammars of a domain share live in tests/tasks/<domain>/_shared.py,
generic trace helpers in tests/tasks/common.py. Importing this package imports every file under it: no list to keep.
The generic battery (tests/test_tasks.py) runs each task against its oracle."""
from __future__ import annotations

import importlib
from pathlib import Path

from tests.tasks.registry import OPTION_FITS, ORACLES, REGISTERED_IN

__all__ = ["ORACLES", "OPTION_FITS", "REGISTERED_IN", "grammar_module", "same_answer"]


def grammar_module(grammar_id: str) -> str:
    """The module that holds a grammar's oracles: `charts.bar_chart` → tests.tasks.charts.bar_chart."""
    return f"{__name__}.{grammar_id}"


def _import_every_grammar_file() -> None:
    here = Path(__file__).parent
    for path in sorted(here.glob("*/*.py")):
        importlib.import_module(f"{__name__}.{path.parent.name}.{path.stem}")


def same_answer(contract, expected, actual) -> bool:
    """Does an oracle's answer equal the compiled one, as the task's contract compares answers? Numbers (and number
    items) within the contract's own tolerance (`abs`, or `rel` of the compiled answer, as the verifier reads it),
    never a looser one; sets ignore order; everything else is exact."""
    tol = contract.spec.tolerance

    def close(a, b) -> bool:
        return abs(a - b) <= max(tol.abs, tol.rel * abs(b), 1e-9)

    kind, items = contract.type, contract.items
    if kind == "number":
        return close(expected, actual)
    if kind in ("list", "set") and items == "number":
        if kind == "set":
            expected, actual = sorted(expected), sorted(actual)
        return len(expected) == len(actual) and all(close(e, a) for e, a in zip(expected, actual))
    if kind == "set":
        return sorted(expected) == sorted(actual)
    return expected == actual


_import_every_grammar_file()
