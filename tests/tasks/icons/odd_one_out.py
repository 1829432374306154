"""Oracles of the grammar icons.odd_one_out (grammars/icons/odd_one_out.yaml, programs/icons/odd_one_out/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from collections import Counter

from tests.tasks.common import _letter_of, only
from tests.tasks.icons._shared import PANEL_KEYS
from tests.tasks.registry import option_fit, oracle


def _panel_key(p: dict) -> tuple:
    return tuple(p[f] for f in PANEL_KEYS)


@option_fit("icons.odd_one_out.odd_panel")
def odd_panel_fits(tr) -> list[int]:
    panels = tr["state"]["panels"]
    counts = Counter(_panel_key(p) for p in panels)
    usual = only([k for k, n in counts.items() if n > 1])
    return [i for i, p in enumerate(panels) if _panel_key(p) != usual]


@oracle("icons.odd_one_out.odd_property")
def _odd_property(tr):
    panels = tr["state"]["panels"]
    odd = panels[only(odd_panel_fits(tr))]
    usual = next(p for p in panels if p is not odd)
    names = {"icon": "pictogram", "color": "colour", "size": "size", "count": "number", "angle": "rotation"}
    return only([name for key, name in names.items() if odd[key] != usual[key]])


oracle("icons.odd_one_out.odd_panel")(_letter_of(odd_panel_fits))
