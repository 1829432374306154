"""Oracles of the grammar pages.flowchart (grammars/pages/flowchart.yaml, programs/pages/flowchart/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.registry import oracle


# -- flowchart: an independent walk over the recorded boxes (heap ids: node i's children are 2i and 2i + 1) ----------
def _flow_walk(tr):
    s = tr["state"]

    def run(op, x):
        return {"add": x + op["k"], "sub": x - op["k"], "mul": x * op["k"]}.get(op["kind"], x)

    x = s["x0"]
    for op in sorted(s["steps"], key=lambda o: o["i"]):
        x = run(op, x)
    decisions = {d["id"]: d for d in s["decisions"]}
    ops = {b["id"]: b for b in s["branch_ops"]}
    ends = {e["id"]: e["name"] for e in s["ends"]}
    node, yeses = 1, 0
    while node not in ends:
        d = decisions[node]
        yes = x > d["t"] if d["kind"] == "gt" else (x < d["t"] if d["kind"] == "lt" else x % 2 == 0)
        yeses += yes
        node = 2 * node + (0 if yes == d["yes_left"] else 1)  # the yes arrow goes to the left child when yes_left
        if node in ops:
            x = run(ops[node], x)
    return ends[node], x, yeses


@oracle("pages.flowchart.end_box")
def _end_box(tr):
    return _flow_walk(tr)[0]


@oracle("pages.flowchart.final_value")
def _final_value(tr):
    return _flow_walk(tr)[1]


@oracle("pages.flowchart.yes_count")
def _yes_count(tr):
    return _flow_walk(tr)[2]
