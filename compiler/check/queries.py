"""Query variables: each task's bounded variables and their finite values (a list, an integer range, a vocabulary).

Read by the task check (positioned errors) and by `tessera list` (the values, from a header, nothing compiled)."""
from __future__ import annotations

from ..errors import Diagnostics, Position
from ..expr.types import ANY, ListT, Scalar, type_of_value

MAX_QUERY_VALUES = 256  # values of one query variable
MAX_QUERY_SPACE = 1_024  # combinations of all of a task's query variables (the product of their sizes)


def bounded_query(name, raw, vocab: dict, doc, diags: Diagnostics) -> list | None:
    loc = ("query", name)
    unbounded = (f"query variable '{name}' is unbounded: give a list of values, {{range: [lo, hi]}}, "
                 f"or the name of a vocabulary (vocab.NAME)")
    if isinstance(raw, list):
        if not raw:
            diags.error(doc.pos(loc), f"query variable '{name}' has no values", code="query-values")
            return None
        if any(isinstance(v, (list, dict)) or v is None for v in raw):
            diags.error(doc.pos(loc), f"query variable '{name}' values must be plain scalars", code="query-values")
            return None
        if len(set(map(repr, raw))) != len(raw):
            diags.error(doc.pos(loc), f"query variable '{name}' lists a value twice", code="query-values")
            return None
        values = raw
    elif isinstance(raw, dict) and set(raw) == {"range"} and isinstance(raw["range"], list) and \
            len(raw["range"]) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in raw["range"]):
        lo, hi = raw["range"]
        if hi < lo:
            diags.error(doc.pos(loc), f"query variable '{name}': empty range [{lo}, {hi}]", code="query-values")
            return None
        if hi - lo + 1 > MAX_QUERY_VALUES:  # sized before it is built: a range can name billions of values
            diags.error(doc.pos(loc), f"query variable '{name}' has {hi - lo + 1} values; the limit is "
                                      f"{MAX_QUERY_VALUES} (a query selects among a few variants of one task)",
                                              code="bound")
            return None
        values = list(range(lo, hi + 1))
    elif isinstance(raw, str) and raw.startswith("vocab."):
        key = raw[len("vocab."):]
        if key not in vocab:
            diags.error(doc.pos(loc), f"query variable '{name}': unknown vocabulary '{key}' "
                                      f"(known: {', '.join(sorted(vocab))})", code="unknown-ref")
            return None
        values = list(vocab[key])
    else:
        diags.error(doc.pos(loc), unbounded, code="query-values")
        return None
    if len(values) > MAX_QUERY_VALUES:
        diags.error(doc.pos(loc), f"query variable '{name}' has {len(values)} values; the limit is "
                                  f"{MAX_QUERY_VALUES} (a query selects among a few variants of one task)",
                                          code="bound")
        return None
    t = type_of_value(values)
    if not isinstance(t, ListT) or t.elem == ANY or not isinstance(t.elem, Scalar):
        diags.error(doc.pos(loc), f"query variable '{name}' values must all have one scalar type", code="query-values")
        return None
    return values




def query_space(queries: dict[str, list]) -> list[dict]:
    """Every combination of query values, in a fixed order (the variables' order, then each one's values)."""
    space: list[dict] = [{}]
    for name, values in queries.items():
        space = [{**q, name: v} for q in space for v in values]
    return space


class _Nowhere:
    """A document stand-in for query_values: positions are not needed when only the values are."""

    def pos(self, loc) -> Position:
        return Position("", 0, 0)


def query_values(raw: dict, vocab: dict) -> dict[str, list] | None:
    """Every query variable's values from a task header, or None when one of them is not well declared (the task
    check reports why)."""
    out = {}
    for name, spec in raw.items():
        values = bounded_query(name, spec, vocab, _Nowhere(), Diagnostics())
        if values is None:
            return None
        out[name] = values
    return out
