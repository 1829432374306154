"""Names of the asset library (spec/assets.py) for expressions: `icons()` / `icons(tag)` list monochrome icons (the
`icon` mark draws them), `objects()` / `objects(tag)` coloured objects (the `object` mark). A tag is a set's category
(`animals-nature`, `food-drink`) or a word of a name (`apple`, `sword`); the list is sorted, so
`sample(objects('fruit'), 3)` draws the same names for the same seed on every machine.

A tag written as a string literal is looked up when compiling (an unknown tag is an error at its position, with the
near tags); a computed tag is looked up when evaluated.

What a viewer can tell apart, read from the per-set tables bench/asset_tables.py precomputes (spec/assets.py):
`distinct_sample(names, k)` draws k names no two of which are near-identical at icon size; `rotation_safe(names)` and
`mirror_safe(names)` keep the names whose asset, turned (90° and 180°) or mirrored, differs visibly from itself — the
pool of a rotation or orientation task; `asset_label(name)` is the words of a name ('red apple') and
`asset_synonyms(name)` the words a person may say for it ('apple', 'red apple'). A name written as a string literal
(alone or in a list literal) is checked when compiling: an unknown one is an error at its position.
"""
from __future__ import annotations

from ..errors import EvalError
from ..spec.assets import (KINDS, asset_label, asset_names, asset_synonyms, assets_named, mirror_safe, near_identical,
                           rotation_safe)
from .builtins import _charge_bytes, _rng, builtin
from .compile import Compiled
from .types import INT, STR, ListT

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


# -- what a viewer can tell apart (the tables of bench/asset_tables.py) ------------------------------------------
def _check_literal_names(ck, arg) -> None:
    """An asset name written as a string literal, alone or in a list literal, is looked up now: an unknown one is an
    error at its own position."""
    lits = [arg] if getattr(arg, "data", None) == "str_lit" else (
        [c for c in arg.children if c is not None] if getattr(arg, "data", None) == "list_lit" else [])
    for lit in lits:
        if getattr(lit, "data", None) != "str_lit":
            continue
        try:
            assets_named(ck.compile(lit).fn({"$budget": None}))
        except EvalError as exc:
            ck.error(lit, str(exc), code="unknown-asset")


def _names_arg(ck, arg, what: str):
    _check_literal_names(ck, arg)
    return ck.expect(arg, NAMES, what)


@builtin("distinct_sample", "distinct_sample(names, k)", 2, random=True,
         doc="k of the asset names, in random order, no two near-identical at icon size (docs/assets.md: the "
             "near-identical pairs); an error when the names hold no k such")
def _distinct_sample(ck, node, args):
    names = _names_arg(ck, args[0], "the names of distinct_sample()")
    k = ck.expect(args[1], INT, "the size of distinct_sample()")
    nf, kf = names.fn, k.fn

    def run(env):
        xs, n = nf(env), kf(env)
        if not 0 <= n <= len(xs):
            raise EvalError(f"distinct_sample(): cannot take {n} names from a list of {len(xs)}")
        _charge(env, len(xs))  # the shuffle touches every name
        picked: list[str] = []
        # a random order, then each name kept unless near-identical to one kept: every name is looked at once and
        # compared with at most k kept ones
        for name in _rng(env).shuffle(xs):
            if len(picked) == n:
                break
            _charge(env, len(picked) + 1)
            if not any(near_identical(name, p) for p in picked):
                picked.append(name)
        if len(picked) < n:
            raise EvalError(f"distinct_sample(): the {len(xs)} names hold only {len(picked)} that are pairwise "
                            f"distinct in this draw, not {n}")
        _charge_bytes(env, n)
        return picked

    return Compiled(NAMES, run)


def _filter_typer(name: str, keep):
    def typer(ck, node, args):
        names = _names_arg(ck, args[0], f"the names of {name}()")
        nf = names.fn

        def run(env):
            xs = nf(env)
            _charge(env, len(xs))
            return [x for x in xs if keep(x)]

        return Compiled(NAMES, run)

    return typer


builtin("rotation_safe", "rotation_safe(names)", 1,
        doc="the asset names whose asset, turned 90° or 180°, differs visibly from itself (a rotation task's pool), "
            "in their order")(_filter_typer("rotation_safe", rotation_safe))
builtin("mirror_safe", "mirror_safe(names)", 1,
        doc="the asset names whose asset, mirrored left to right (`flip`), differs visibly from itself, in their "
            "order")(_filter_typer("mirror_safe", mirror_safe))


def _name_typer(name: str, fn, result):
    def typer(ck, node, args):
        _check_literal_names(ck, args[0])
        f = ck.expect(args[0], STR, f"the name of {name}()").fn
        return Compiled(result, lambda env: fn(f(env)))

    return typer


builtin("asset_label", "asset_label(name)", 1,
        doc="the display name of an icon or object: the words of its name ('red apple' for 'red-apple')"
        )(_name_typer("asset_label", asset_label, STR))
builtin("asset_synonyms", "asset_synonyms(name)", 1,
        doc="the words a person may say for an icon or object, sorted: its label, its old names, the head noun of a "
            "colour- or size-qualified name ('apple' for 'red-apple'), a few kinds ('cup' for a mug)"
        )(_name_typer("asset_synonyms", asset_synonyms, NAMES))
