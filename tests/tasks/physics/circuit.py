"""Oracles of the grammar physics.circuit (grammars/physics/circuit.yaml, programs/physics/circuit/): each task's
answer recomputed by plain Python from the recorded trace, never the expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


def _circuit_lit(state, flipped=None):
    """Search the circuit as a graph: junctions are nodes, each part joins two of them (closed switches and bulbs
    conduct); a bulb is lit when both its ends connect to opposite battery terminals through other parts."""
    parts = state["parts"]
    b = state["b"]
    # nodes: 'P' (battery +, the top-left corner), 'N' (battery −, bottom rail), series chain nodes s0..s_ns (s_ns
    # is the top rail junction of the branches), branch j chain nodes from the top rail down to the bottom rail
    series = [p for p in parts if p["branch"] < 0]
    edges = []  # (u, v, part)
    prev = "P"
    for i, p in enumerate(series):
        nxt = f"s{i + 1}"
        edges.append((prev, nxt, p))
        prev = nxt
    rail = prev
    for j in range(b):
        chain = [p for p in parts if p["branch"] == j]
        chain.sort(key=lambda p: -p["y"])
        node = rail
        for k, p in enumerate(chain):
            nxt = "N" if k == len(chain) - 1 else f"b{j}_{k}"
            edges.append((node, nxt, p))
            node = nxt
        if not chain:
            edges.append((node, "N", None))

    def conducts(p):
        if p is None or p["kind"] == "bulb":
            return True
        closed = p["closed"]
        return (not closed) if flipped is not None and p["label"] == flipped else closed

    def reach(start, skip):
        seen, todo = {start}, [start]
        while todo:
            u = todo.pop()
            for a, c, p in edges:
                if p is skip or not conducts(p):
                    continue
                for x, y in ((a, c), (c, a)):
                    if x == u and y not in seen:
                        seen.add(y)
                        todo.append(y)
        return seen

    lit = []
    for a, c, p in edges:
        if p is None or p["kind"] != "bulb":
            continue
        ra, rc = reach(a, p), reach(c, p)
        if ("P" in ra and "N" in rc) or ("N" in ra and "P" in rc):
            lit.append(p["label"])
    return lit


@oracle("physics.circuit.lit_bulbs")
def _circuit_lit_bulbs(tr):
    return _circuit_lit(tr["state"])


@oracle("physics.circuit.flip_switch")
def _circuit_flip(tr):
    return len(_circuit_lit(tr["state"], step(tr, "flip")["label"]))
