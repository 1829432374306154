"""Oracles of the grammar icons.sequence (grammars/icons/sequence.yaml, programs/icons/sequence/): each task's answer
recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import _letter_of, only
from tests.tasks.icons._shared import PANEL_KEYS
from tests.tasks.registry import option_fit, oracle


# -- sequences --------------------------------------------------------------------------------------------------
def _next_in_cycle(values: list):
    """The value after a list that repeats with the shortest period it shows."""
    for p in range(1, len(values) + 1):
        if all(values[i] == values[i % p] for i in range(len(values))):
            return values[len(values) - p]
    raise AssertionError("unreachable")


def _next_by_step(values: list[int], modulus: int | None = None) -> int:
    gaps = {(b - a) % modulus if modulus else b - a for a, b in zip(values, values[1:])}
    gap = only(sorted(gaps))
    nxt = values[-1] + gap
    return nxt % modulus if modulus else nxt


def expected_next(panels: list[dict]) -> dict:
    return {
        "icon": only(sorted({p["icon"] for p in panels})),
        "color": _next_in_cycle([p["color"] for p in panels]),
        "size": _next_in_cycle([p["size"] for p in panels]),
        "count": _next_by_step([p["count"] for p in panels]),
        "angle": _next_by_step([p["angle"] for p in panels], 360),
    }


@option_fit("icons.sequence.next_panel")
def next_panel_fits(tr) -> list[int]:
    want = expected_next(tr["state"]["panels"])
    return [k for k, o in enumerate(tr["state"]["options"]) if all(o[f] == want[f] for f in PANEL_KEYS)]


@oracle("icons.sequence.next_count")
def _next_count(tr):
    return _next_by_step([p["count"] for p in tr["state"]["panels"]])


@oracle("icons.sequence.changing_properties")
def _changing(tr):
    panels = tr["state"]["panels"]
    names = {"color": "colour", "size": "size", "count": "number", "angle": "rotation"}
    return sorted(name for key, name in names.items() if len({p[key] for p in panels}) > 1)


oracle("icons.sequence.next_panel")(_letter_of(next_panel_fits))
