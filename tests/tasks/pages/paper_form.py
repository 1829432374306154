"""Oracles of the grammar pages.paper_form (grammars/pages/paper_form.yaml, programs/pages/paper_form/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


# -- paper form: fields hold their written text; dates are day/month/year -------------------------------------------
@oracle("pages.paper_form.field_value")
def _form_field(tr):
    (f,) = [f for f in tr["state"]["fields"] if f["label"] == step(tr, "field")["label"]]
    return f["value"]


@oracle("pages.paper_form.count_ticked")
def _form_count(tr):
    group = step(tr, "group")
    assert (group == "") == (tr["level"] >= 8)
    want = tr["query"]["state"] == "ticked"
    return sum(1 for b in tr["state"]["boxes"] if (not group or b["group"] == group) and b["on"] == want)


@oracle("pages.paper_form.age_on_form")
def _form_age(tr):
    import datetime

    s = tr["state"]
    (dob,) = [f["value"] for f in s["fields"] if f["label"] == "Date of birth"]
    bd, bm, by = (int(v) for v in dob.split("/"))
    fd, fm, fy = (int(v) for v in s["today"].split("/"))
    born, on = datetime.date(by, bm, bd), datetime.date(fy, fm, fd)
    return on.year - born.year - ((on.month, on.day) < (born.month, born.day))
