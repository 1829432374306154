"""A per-module oracle table and the decorator that fills it (tests/oracles.py merges every module's ORACLES)."""
from __future__ import annotations

from typing import Callable


def registry() -> tuple[dict, Callable]:
    table: dict = {}

    def oracle(task_id: str):
        def wrap(fn):
            table[task_id] = fn
            return fn
        return wrap

    return table, oracle
