"""Compile a scene grammar: infer the typed state schema, compile samplers, constraints and the bound layout."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from ..errors import Diagnostics
from ..expr.compile import Compiled, Scope, Site, compile_expr
from ..expr.template import Template, compile_template
from ..expr.compile import CONSTANTS
from ..expr.types import ANY, BOOL, FLOAT, INT, STR, FnT, ListT, RecordT, Type, accepts, type_of_value
from ..load.library import Loaded
from ..load.validate_model import report
from .scene import CNode, SceneCompiler
from .steps import compile_constraints, compile_functions, compile_steps, value_names
from ..render.layouts import LAYOUTS, LayoutDef
from pydantic import ValidationError

CANVAS_TYPE = RecordT((("width", INT), ("height", INT)))  # the scene sees the canvas size as `canvas`
RESERVED = {"level", "vocab", "true", "false"} | set(CONSTANTS)
INPUT_TYPES: dict[str, Type] = {"int": INT, "float": FLOAT, "str": STR, "bool": BOOL}


@dataclass
class CompiledGrammar:
    id: str
    domain: str
    summary: str
    state: list[tuple[str, Compiled]]
    schema: dict[str, Type]
    require: list[tuple[str, Compiled]]
    layout: LayoutDef | None
    layout_params: Any
    items: Compiled | None
    layout_exprs: dict[str, Compiled]
    texts: dict[str, Template]
    width: int
    height: int
    max_attempts: int
    spec_hash: str
    source: str
    base_scope: dict[str, Type] = field(default_factory=dict)
    scene: CNode | None = None  # the composed scene (render.scene); None for a grammar on a closed layout
    # Query variables the state reads (name → type); every task on this grammar declares them (codegen.task).
    inputs: dict[str, Type] = field(default_factory=dict)


def spec_hash(spec) -> str:
    return hashlib.sha256(json.dumps(spec.model_dump(mode="json"), sort_keys=True).encode()).hexdigest()


def vocab_type(vocab: dict[str, list]) -> RecordT:
    return RecordT(tuple((k, type_of_value(v)) for k, v in sorted(vocab.items())))


def compile_grammar(loaded: Loaded, vocab: dict[str, list], diags: Diagnostics,
                    components: dict | None = None) -> CompiledGrammar | None:
    spec, doc = loaded.spec, loaded.doc
    base = {"level": INT, "vocab": vocab_type(vocab)}
    names: dict[str, Type] = dict(base)
    ok_functions = compile_functions(spec.functions, names, doc, lambda n: n in RESERVED, diags)
    inputs: dict[str, Type] = {}
    for name, type_name in spec.inputs.items():
        if name in RESERVED or name in names or not name.isidentifier() or name.startswith("_"):
            diags.error(doc.key_pos(("inputs", name)), f"'{name}' cannot name an input (reserved, a function, "
                                                       f"or not a name)")
            ok_functions = False
            continue
        inputs[name] = names[name] = INPUT_TYPES[type_name]
    state, ok_state = compile_steps(spec.state, names, doc, "state", "grammar state",
                                    lambda n: n in RESERVED or n in names,
                                    "'{name}' cannot name a state field (reserved, an input, a function, or not a "
                                    "name)", diags)
    schema = {k: v for k, v in names.items() if k not in base and k not in inputs and not isinstance(v, FnT)}
    require, ok_require = compile_constraints(spec.require, names, doc, "require", "a grammar constraint",
                                              "constraint", diags)
    ok = ok_functions and ok_state and ok_require

    # The picture draws the state alone (rendering has no query): inputs are for building the state, and a state
    # field can keep whatever of them the picture needs.
    layout_names = {k: t for k, t in names.items() if k not in inputs}
    render = spec.render
    if (render.scene is None) == (render.layout is None):
        diags.error(doc.pos(("render",)), "render needs exactly one of 'scene' (a composed scene) or 'layout'")
        return None
    scene = None
    if render.scene is not None:
        sc = SceneCompiler(doc, diags, components)
        scene_names = {**layout_names, **({} if "canvas" in layout_names else {"canvas": CANVAS_TYPE})}
        scene = sc.node(doc, render.scene, ("render", "scene"), Scope(scene_names, True, "the scene"))
        if scene is None or not sc.ok or not ok:
            return None
        layout_def, params, items, exprs, texts = None, None, None, {}, {}
    else:
        bound = _compile_layout(doc, spec, layout_names, diags)
        if bound is None or not ok:
            return None
        layout_def, params, items, exprs, texts = bound
    return CompiledGrammar(
        id=spec.grammar, domain=spec.grammar.split(".")[0], summary=spec.summary, state=state, schema=schema,
        require=require, layout=layout_def, layout_params=params, items=items, layout_exprs=exprs, texts=texts,
        width=spec.render.canvas.width, height=spec.render.canvas.height, max_attempts=spec.max_attempts,
        spec_hash=spec_hash(spec), source=doc.path, base_scope=base, scene=scene, inputs=inputs,
    )


def _compile_layout(doc, spec, names: dict[str, Type], diags: Diagnostics):
    layouts = spec.render.layout
    loc = ("render", "layout")
    if len(layouts) != 1:
        diags.error(doc.pos(loc), f"render.layout names exactly one layout, got {len(layouts)} "
                                  f"(known layouts: {', '.join(sorted(LAYOUTS))})")
        return None
    (name, raw), = layouts.items()
    ldef = LAYOUTS.get(name)
    if ldef is None:
        diags.error(doc.key_pos(loc + (name,)), f"unknown layout '{name}' (known: {', '.join(sorted(LAYOUTS))})")
        return None
    if not isinstance(raw, dict):
        diags.error(doc.pos(loc + (name,)), f"layout '{name}' takes a mapping of parameters")
        return None
    try:
        params = ldef.params.model_validate(raw)
    except ValidationError as exc:
        for err in exc.errors(include_url=False):
            report(ldef.params, doc, diags, loc + (name,), err)
        return None
    scope = Scope(names, what=f"layout '{name}'")
    items = compile_expr(params.items, scope, Site(doc, loc + (name, "items")), diags)
    if items is None:
        return None
    elem = items.type.elem if isinstance(items.type, ListT) else None
    if not isinstance(elem, RecordT):
        diags.error(doc.pos(loc + (name, "items")), f"layout items must be a list of records, got {items.type}")
        return None
    ok = True
    for param, allowed in ldef.fields.items():
        field_name = getattr(params, param)
        if field_name is None:
            continue
        t = elem.field(field_name)
        if t is None:
            diags.error(doc.pos(loc + (name, param)),
                        f"'{param}: {field_name}' names no field of the items (they have: {', '.join(elem.names)})")
            ok = False
        elif t not in allowed and t != ANY:
            diags.error(doc.pos(loc + (name, param)), f"'{param}' needs a field of type "
                                                       f"{' or '.join(map(str, allowed))}; '{field_name}' is {t}")
            ok = False
    exprs = {}
    for param, want in ldef.exprs.items():
        c = compile_expr(getattr(params, param), scope, Site(doc, loc + (name, param)), diags)
        if c is None:
            ok = False
            continue
        # `want` is a type, or a check (type, params) → what is wrong, for shapes one type cannot state
        # (e.g. "a list of records with integer fields a and b").
        if callable(want):
            problem = want(c.type, params)
        else:
            problem = None if accepts(want, c.type) else f"must be {want}, got {c.type}"
        if problem:
            diags.error(doc.pos(loc + (name, param)), f"'{param}' {problem}")
            ok = False
            continue
        exprs[param] = c
    texts = {}
    for param in ldef.texts:
        src = getattr(params, param)
        if src is None:
            continue
        t = compile_template(src, value_names(names),
                             lambda line, col, p=param: doc.expr_pos(loc + (name, p), line - 1, 0), diags)
        if t is None:
            ok = False
        else:
            texts[param] = t
    if not ok:
        return None
    return ldef, params, items, exprs, texts
