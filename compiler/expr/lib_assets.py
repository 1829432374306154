"""Names of the asset library (spec/assets.py) for expressions: `icons()` / `icons(tag)` list monochrome icons (the
`icon` mark draws them), `objects()` / `objects(tag)` coloured objects (the `object` mark). A tag is a set's category
(`animals-nature`, `food-drink`) or a word of a name (`apple`, `sword`); the list is sorted, so
`sample(objects('fruit'), 3)` draws the same names for the same seed on every machine.

A tag written as a string literal is looked up when compiling (an unknown tag is an error at its position, with the
near tags); a computed tag is looked up when evaluated.
"""
from __future__ import annotations

from ..errors import EvalError
from ..spec.assets import KINDS, asset_names
from .builtins import builtin
from .compile import Compiled
from .types import STR, ListT

NAMES = ListT(STR)


def _names_typer(kind: str):
    def typer(ck, node, args):
        if not args:
            def run_all(env):
                names = asset_names(kind)
                _charge(env, len(names))
                return names

            return Compiled(NAMES, run_all)
        tag = ck.expect(args[0], STR, f"the tag of {KINDS[kind]}s()")
        if getattr(args[0], "data", None) == "str_lit":  # a literal tag: looked up now
            try:
                asset_names(kind, tag.fn({"$budget": None}))
            except EvalError as exc:
                ck.error(args[0], str(exc), code="unknown-asset")
        tf = tag.fn

        def run(env):
            names = asset_names(kind, tf(env))
            _charge(env, len(names))
            return names

        return Compiled(NAMES, run)

    return typer


def _charge(env, n: int) -> None:
    budget = env.get("$budget")
    if budget is not None:
        budget.charge(n)


builtin("icons", "icons(tag?)", 0, 1,
        doc="the names of the monochrome icons (the `icon` mark), all or those with a tag (a category or a word of "
            "the name: 'sword', 'animal'), sorted; docs/assets.md lists the sets")(_names_typer("mono"))
builtin("objects", "objects(tag?)", 0, 1,
        doc="the names of the coloured objects (the `object` mark), all or those with a tag (a category such as "
            "'animals-nature' or 'food-drink', or a word of the name: 'apple', 'dog'), sorted; docs/assets.md lists "
            "the sets")(_names_typer("colour"))
