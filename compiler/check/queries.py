"""Query variables: each task's bounded variables and their finite values (a list, an integer range, a vocabulary).

Read by the task check (positioned errors) and by `tessera list` (the values, from a header, nothing compiled)."""
from __future__ import annotations

from lark import Tree

from ..errors import Diagnostics, Position
from ..expr.compile import _unquote
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


# -- literals compared with a query variable (lint query-literal-outside) --------------------------------------------
def _bare(node):
    while isinstance(node, Tree) and node.data == "paren":
        node = node.children[0]
    return node


def _literal(node):
    """(value, line, col) of a string or number literal (a negated number too), else None."""
    node = _bare(node)
    if not isinstance(node, Tree):
        return None
    if node.data in ("str_lit", "int_lit", "float_lit"):
        tok = node.children[0]
        text = str(tok)
        value = _unquote(text) if node.data == "str_lit" else int(text) if node.data == "int_lit" else float(text)
        return value, tok.line, tok.column
    if node.data == "neg":
        inner = _literal(node.children[0])
        if inner is not None and not isinstance(inner[0], str):
            return -inner[0], node.meta.line, node.meta.column
    return None


def compared_literals(tree, names: set[str]) -> list[tuple[str, str, object, int, int]]:
    """Every literal an expression tree compares with one of `names` (==, != either way round, `in`/`not in` a
    list literal), as (name, op, value, line, col) with the literal's place in the source. A name a lambda, let or
    comprehension binds is not the outer one inside it."""
    found = []
    stack = [(tree, frozenset())]
    while stack:
        node, bound = stack.pop()
        if not isinstance(node, Tree):
            continue
        children = [c for c in node.children if isinstance(c, Tree)]
        if node.data == "lambda":
            stack.append((node.children[-1], bound | {str(t) for t in node.children[:-1]}))
            continue
        if node.data == "let_expr":
            inner = bound
            for b in node.children[:-1]:
                stack.append((b.children[1], inner))
                inner = inner | {str(b.children[0])}
            stack.append((node.children[-1], inner))
            continue
        if node.data == "listcomp":
            inner = bound
            for clause in node.children[1:]:
                name_tok, src, *ifs = clause.children
                stack.append((src, inner))
                inner = inner | {str(name_tok)}
                stack.extend((i, inner) for i in ifs)
            stack.append((node.children[0], inner))
            continue
        pairs = []
        if node.data == "compare" and str(node.children[1]) in ("==", "!="):
            op = str(node.children[1])
            pairs = [(node.children[0], node.children[2], op), (node.children[2], node.children[0], op)]
        elif node.data in ("in_", "not_in"):
            items = _bare(node.children[1])
            if isinstance(items, Tree) and items.data == "list_lit":
                op = "in" if node.data == "in_" else "not in"
                pairs = [(node.children[0], item, op) for item in items.children if item is not None]
        for var, lit, op in pairs:
            var = _bare(var)
            if isinstance(var, Tree) and var.data == "name" and str(var.children[0]) in names - bound:
                got = _literal(lit)
                if got is not None:
                    found.append((str(var.children[0]), op, *got))
        stack.extend((c, bound) for c in children)
    return found


def literals_outside(sources, values: dict[str, list | range], diags: Diagnostics) -> None:
    """Warn (query-literal-outside) at every literal that an expression compares with a variable of known values
    (a query variable, a grammar input) and that is none of them: `unknown == 'distanse'` never holds. `sources`:
    (source, site) pairs; `values`: name → its values (string or number variables only)."""
    from ..expr.compile import parse

    for source, site in sources:
        if not isinstance(source, str):
            continue
        tree = parse(source, site, Diagnostics())  # one that does not parse was reported by the compiler
        if tree is None:
            continue
        for name, op, value, line, col in compared_literals(tree, set(values)):
            outside_warning(name, op, value, values[name], site.at(line, col), diags)


def outside_warning(name: str, op: str, value, values: list | range, at: Position, diags: Diagnostics) -> None:
    """The warning for one compared literal, if it is none of `values` (a list, or a range of integers)."""
    if isinstance(value, str) != isinstance(values[0], str):
        return  # a string against numbers: a type error, reported by the compiler
    if isinstance(values, range):
        if value == int(value) and int(value) in values:
            return
        shown = f"{values.start}..{values.stop - 1}"
    else:
        if any(isinstance(v, bool) == isinstance(value, bool) and v == value for v in values):
            return
        shown = ", ".join(str(v) for v in values[:12]) + (", …" if len(values) > 12 else "")
    holds = "false" if op in ("==", "in") else "true"
    lit = f"[..., {value!r}, ...]" if op in ("in", "not in") else repr(value)
    diags.warning(at, f"{value!r} is none of the values of '{name}' ({shown}): `{name} {op} {lit}` is always {holds}",
                  code="query-literal-outside")
