"""Compile a component use (`use: NAME, with: {...}`): check the arguments against the component's parameters in
the caller's scope, then compile the component's scene in a scope of its own parameters.

A component is a reusable scene fragment written in YAML (components/*.yaml). Its body sees only its parameters,
`level` and `vocab` — never the caller's state — so a component means the same thing in every grammar. Parameters
of kind `fn` take a lambda written by the caller (`value: "b -> b.value"`); the component calls it (`value(b)`),
and the lambda runs in the caller's environment, which the component's environment keeps under `$caller`.
The body is type-checked at each use with the argument types of that use, so a mistake inside a component is
reported at its position in the component file, together with the grammar that used it. Because each use compiles
the body again, uses are counted against the scene's bounds (scene.MAX_COMPONENT_USES, MAX_EXPANDED_SOURCE).
"""
from __future__ import annotations

import json

from ..expr.compile import Scope, Site, compile_expr
from ..expr.template import compile_template
from ..expr.types import ANY, BOOL, INT, STR, ListT, is_numeric
from ..spec.colors import COLOR_WORDS
from ..spec.fonts import check_classes

KIND_CHECK = {
    "list": lambda t: isinstance(t, ListT),
    "number": is_numeric,
    "integer": lambda t: t == INT,
    "string": lambda t: t == STR,
    "color": lambda t: t == STR,
    "boolean": lambda t: t == BOOL,
    "any": lambda t: True,
}
KIND_WORDS = {"list": "a list", "number": "a number", "integer": "an integer", "template": "a template (text with "
              "{{ expr }} holes)", "string": "a string", "color": "a colour name", "boolean": "a boolean",
              "any": "any value", "fn": "a lambda such as b -> b.value, or a field accessor such as .value"}
# The bare words a parameter kind lists (the value rule, as for scene channels): colour words for a colour.
KIND_LISTED = {"color": COLOR_WORDS}


def compile_use(sc, doc, raw: dict, loc: tuple, scope: Scope, depth: int):
    from ..expr.compile import function_type
    from ..expr.types import FnT
    from .scene import CUse, _const

    name = raw.get("use")
    if not isinstance(name, str) or name not in sc.components:
        known = ", ".join(sorted(sc.components)) or "none"  # only here: listing them all reads every component
        sc.error(doc, loc + ("use",), f"unknown component {name!r} (known: {known})", code="unknown-ref")
        return None
    if name in sc.stack:
        sc.error(doc, loc + ("use",), f"component '{name}' uses itself ({' → '.join(sc.stack + [name])})",
                code="component-use")
        return None
    loaded = sc.components[name]
    if not _charge_use(sc, doc, loc, name, loaded):
        return None
    spec, cdoc = loaded.spec, loaded.doc
    given = raw.get("with") or {}
    if not isinstance(given, dict):
        sc.error(doc, loc + ("with",), f"'with' takes a mapping of component '{name}''s parameters", code="scene-shape")
        return None
    for key in given:
        if key not in spec.params:
            sc.error(doc, loc + ("with", key), f"component '{name}' has no parameter '{key}' "
                                               f"(its parameters: {', '.join(spec.params) or 'none'})", key=True,
                                                       code="unknown-key")
    args, functions, body_names = {}, {}, {}
    for pname, param in spec.params.items():
        here = loc + ("with", pname)
        if pname in given:
            src, src_doc, src_loc, src_scope = given[pname], doc, here, scope
        elif param.default is not None:
            # A default is written in the component file and sees nothing of the caller's.
            src, src_doc, src_loc = param.default, cdoc, ("params", pname, "default")
            src_scope = Scope({k: scope.names[k] for k in ("level", "vocab") if k in scope.names}, True,
                              f"component '{name}'")
        else:
            sc.error(doc, loc + ("with",) if "with" in raw else loc + ("use",),
                     f"component '{name}' needs parameter '{pname}' ({KIND_WORDS[param.kind]})", code="missing-key")
            continue
        if param.kind == "fn":
            existing = src_scope.names.get(src) if isinstance(src, str) else None
            if isinstance(existing, FnT):
                fn = existing.passed_down()  # a function parameter handed on to a nested component
            else:
                fn = function_type(src, src_scope, Site(src_doc, src_loc), sc.diags, hops=1)
            if fn is None:
                sc.ok = False
                continue
            functions[pname] = fn
            body_names[pname] = fn
            continue
        if param.kind == "template":
            # Template parameters hold prose, like titles everywhere: `title: Fruit sold ({{ unit }})`.
            t = compile_template(str(src), src_scope.names,
                                 lambda line, col, d=src_doc, l_=src_loc: d.expr_pos(l_, line - 1, col - 1), sc.diags)
            if t is None:
                sc.ok = False
                continue
            args[pname] = t
            body_names[pname] = STR
            continue
        if isinstance(src, str) and src in KIND_LISTED.get(param.kind, ()) and src not in src_scope.names:
            c = _const(src)
        else:
            c = compile_expr(src, src_scope, Site(src_doc, src_loc), sc.diags)
        if c is None:
            sc.ok = False
            continue
        if not KIND_CHECK[param.kind](c.type) and c.type != ANY:
            sc.error(src_doc, src_loc, f"component '{name}' parameter '{pname}' must be {KIND_WORDS[param.kind]}, "
                                       f"got {c.type}", code="component-use")
            continue
        limit = spec.limits.get(pname)
        if limit is not None and isinstance(c.type, ListT):
            n = _constant_length(c)
            if n is not None and n > limit:
                sc.error(src_doc, src_loc, f"component '{name}' draws at most {limit} {pname}; this list has {n}",
                        code="bound")
                continue
        args[pname] = c
        body_names[pname] = c.type
    for lname, limit in spec.limits.items():
        if lname not in spec.params:
            sc.error(cdoc, ("limits", lname), f"limit on '{lname}', which is not a parameter of '{name}'", key=True,
                    code="component-use")
    if not sc.ok:
        return None
    for base in ("level", "vocab", "canvas"):
        if base in scope.names:
            body_names.setdefault(base, scope.names[base])
    requires = []
    req_scope = Scope(dict(body_names), False, f"component '{name}' require")
    for rname, src in spec.require.items():
        c = compile_expr(src, req_scope, Site(cdoc, ("require", rname)), sc.diags)
        if c is None:
            sc.ok = False
        elif c.type not in (BOOL, ANY):
            sc.error(cdoc, ("require", rname), f"requirement '{rname}' of component '{name}' must be a boolean "
                                               f"expression, got {c.type}", code="component-use")
        else:
            requires.append((rname, c, str(cdoc.pos(("require", rname)))))
    if not sc.ok:
        return None
    sc.stack.append(name)
    try:
        before = len(sc.diags.items)
        body = sc.node(cdoc, spec.scene, ("scene",), Scope(body_names, True, f"component '{name}'"), depth + 1)
        if len(sc.diags.items) > before and not sc.exhausted:
            sc.diags.error(doc.pos(loc + ("use",)), f"(the errors in component '{name}' above come from this use)",
                    code="component-use")
    finally:
        sc.stack.pop()
    if body is None:
        return None
    fonts = None
    if spec.fonts is not None:
        problem = check_classes(spec.fonts, f"component '{name}' fonts")
        if problem:
            bad = next((i for i, c in enumerate(spec.fonts) if not isinstance(c, str) or problem.find(f"'{c}'") > 0),
                       None)
            sc.error(cdoc, ("fonts",) + ((bad,) if bad is not None else ()), problem, code="unknown-kind")
            return None
        fonts = tuple(spec.fonts)
    return CUse(name, args, functions, body, dict(spec.limits), str(doc.pos(loc + ("use",))), requires, fonts)


def _charge_use(sc, doc, loc: tuple, name: str, loaded) -> bool:
    """Count this use against the scene's bounds on expanding components (scene.MAX_COMPONENT_USES): every use
    compiles the component's body again, so uses inside components multiply. False, after the one error that
    names the chain of components and stops the scene's compile, when a bound is broken."""
    from .scene import MAX_COMPONENT_USES, MAX_EXPANDED_SOURCE

    sc.uses += 1
    sc.expanded_source += _source_size(sc, name, loaded)
    if sc.uses <= MAX_COMPONENT_USES and sc.expanded_source <= MAX_EXPANDED_SOURCE:
        return True
    chain = " → ".join([sc.doc.path, *sc.stack, name])
    if sc.uses > MAX_COMPONENT_USES:
        what = f"uses components more than {MAX_COMPONENT_USES:,} times"
    else:
        what = f"compiles more than {MAX_EXPANDED_SOURCE:,} characters of components"
    sc.error(doc, loc + ("use",), f"the scene {what}, counting each use inside a component and each component once "
                                  f"per use ({sc.uses:,} uses and {sc.expanded_source:,} characters at this use of "
                                  f"'{name}': {chain}); each use compiles its component again, so components that "
                                  f"use other components many times multiply", code="component-use")
    sc.exhausted = True
    return False


def _source_size(sc, name: str, loaded) -> int:
    """Characters of what compiling one use of a component reads: its scene, requirements and parameter defaults,
    written as JSON (comments and layout cost nothing to compile, so they are not counted). Measured once."""
    size = sc.source_sizes.get(name)
    if size is None:
        spec = loaded.spec
        defaults = {k: p.default for k, p in spec.params.items()}
        size = sc.source_sizes[name] = len(json.dumps([spec.scene, spec.require, defaults], default=str))
    return size


def _constant_length(c) -> int | None:
    """The length of a list argument that names nothing (a literal, a range of constants), else None: such limits
    are checked when the grammar compiles, the rest when it is drawn."""
    from ..errors import EvalError
    from ..expr.compile import Budget

    try:
        value = c.fn({"$budget": Budget(100_000)})
    except (KeyError, EvalError, TypeError, ValueError, IndexError, ZeroDivisionError):
        return None
    return len(value) if isinstance(value, list) else None


__all__ = ["compile_use"]
