"""Oracles of the grammar pages.settings_panel (grammars/pages/settings_panel.yaml, programs/pages/settings_panel/):
each task's answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


# -- settings panel: switches and check boxes carry `on`; sliders a value -----------------------------------------
@oracle("pages.settings_panel.count_on")
def _settings_count(tr):
    q, s = tr["query"], tr["state"]
    if tr["level"] >= 3:  # switches and boxes together
        controls = s["switches"] + s["boxes"]
    else:
        controls = s["switches"] if q["control"] == "switches" else s["boxes"]
    return sum(1 for c in controls if c["on"] == (q["state"] == "on"))


@oracle("pages.settings_panel.switch_state")
def _settings_switch(tr):
    q, s = tr["query"], tr["state"]
    names = [p["name"] for p in step(tr, "picked")]
    assert len(set(names)) == (1 if tr["level"] < 6 else 2)
    state = {c["name"]: c["on"] for c in s["switches"]}
    return all(state[n] == (q["asked"] == "on") for n in names)


@oracle("pages.settings_panel.ticked_boxes")
def _settings_ticked(tr):
    want = tr["query"]["state"] == "ticked"
    return [b["name"] for b in tr["state"]["boxes"] if b["on"] == want]


@oracle("pages.settings_panel.slider_value")
def _settings_slider(tr):
    s = tr["state"]
    (slider,) = [x for x in s["sliders"] if x["name"] == step(tr, "slider")["name"]]
    assert slider["value"] % s["notch"] == 0 and 0 <= slider["value"] <= 100
    return slider["value"]
