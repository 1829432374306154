"""Oracles of the grammar symbolic.rhythm_staff (grammars/symbolic/rhythm_staff.yaml, programs/symbolic/rhythm_staff/):
each task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


_NOTE_BEATS = {8: 4.0, 4: 2.0, 2: 1.0, 1: 0.5}  # whole, half, quarter, eighth (durations in eighths)


def _bar_beats(tr, bar: int) -> float:
    return sum(_NOTE_BEATS[n["dur"]] for n in tr["state"]["notes"] if n["bar"] == bar)


@oracle("symbolic.rhythm_staff.bar_beats")
def _rhythm_bar(tr):
    return _bar_beats(tr, step(tr, "pick")["i"])


@oracle("symbolic.rhythm_staff.full_bars")
def _rhythm_full(tr):
    meter = tr["state"]["meter"]
    return sum(_bar_beats(tr, b["i"]) == meter for b in tr["state"]["bars"])


@oracle("symbolic.rhythm_staff.note_count")
def _rhythm_notes(tr):
    want = {"whole": 8, "half": 4, "quarter": 2, "eighth": 1}[step(tr, "kind")]
    return sum(n["dur"] == want for n in tr["state"]["notes"])
