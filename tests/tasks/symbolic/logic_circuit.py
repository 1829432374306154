"""Oracles of the grammar symbolic.logic_circuit (grammars/symbolic/logic_circuit.yaml,
programs/symbolic/logic_circuit/): each task's answer recomputed by plain Python from the recorded trace, never the
expression language."""
from __future__ import annotations

from tests.tasks.common import step
from tests.tasks.registry import oracle


_GATES = {
    "AND": lambda xs: int(all(xs)), "OR": lambda xs: int(any(xs)), "XOR": lambda xs: sum(xs) % 2,
    "NAND": lambda xs: 1 - int(all(xs)), "NOR": lambda xs: 1 - int(any(xs)), "NOT": lambda xs: 1 - xs[0],
}


def _circuit_out(nodes, bits) -> int:
    by_id = {n["id"]: n for n in nodes}

    def value(i):
        n = by_id[i]
        if n["kind"] == "IN":
            return bits[n["label"]]
        assert len(n["ins"]) == (1 if n["kind"] == "NOT" else 2)
        return _GATES[n["kind"]]([value(c) for c in n["ins"]])

    (root,) = [n["id"] for n in nodes if n["parent"] < 0]
    return value(root)


def _circuit_bits(tr):
    return {n["label"]: n["bit"] for n in tr["state"]["nodes"] if n["kind"] == "IN"}


@oracle("symbolic.logic_circuit.output_bit")
def _circuit_output(tr):
    out = _circuit_out(tr["state"]["nodes"], _circuit_bits(tr))
    assert out == tr["query"]["bit"]
    return out


@oracle("symbolic.logic_circuit.flip_count")
def _circuit_flips(tr):
    nodes, bits = tr["state"]["nodes"], _circuit_bits(tr)
    base = _circuit_out(nodes, bits)
    return sum(_circuit_out(nodes, {**bits, k: 1 - v}) != base for k, v in bits.items())


@oracle("symbolic.logic_circuit.gate_count")
def _circuit_gate_count(tr):
    kind = step(tr, "kind")
    return sum(n["kind"] == kind for n in tr["state"]["nodes"])
