"""The tables the per-grammar files under tests/tasks/ fill by decorator: each task's oracle (its answer recomputed by
plain Python from the recorded trace) and, for option tasks, its option fit (the indices of every listed option that
satisfies the question; the distractor tests insist on exactly one). Each entry records the module that registered
it, so a test can check that a task's knowledge lives in the file of its grammar."""
from __future__ import annotations

import sys
from typing import Callable

ORACLES: dict[str, Callable] = {}
OPTION_FITS: dict[str, Callable] = {}
REGISTERED_IN: dict[tuple[str, str], str] = {}  # (table, task id) → the module that registered it


def _register(table: dict, table_name: str, task_id: str) -> Callable:
    module = sys._getframe(2).f_globals["__name__"]  # the caller of oracle() / option_fit()

    def wrap(fn: Callable) -> Callable:
        if task_id in table:
            raise ValueError(f"{table_name} for {task_id} registered twice: in "
                             f"{REGISTERED_IN[table_name, task_id]} and in {module}")
        table[task_id] = fn
        REGISTERED_IN[table_name, task_id] = module
        return fn
    return wrap


def oracle(task_id: str) -> Callable:
    return _register(ORACLES, "oracle", task_id)


def option_fit(task_id: str) -> Callable:
    return _register(OPTION_FITS, "option_fit", task_id)
