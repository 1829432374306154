"""Compile a scene grammar: infer the typed state schema, compile samplers, constraints and the scene."""
from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import Diagnostics
from ..check.queries import literals_outside
from ..expr.compile import Compiled, Scope, Site
from ..expr.compile import CONSTANTS
from ..expr.types import ANY, BOOL, FLOAT, INT, STR, FnT, ListT, RecordT, Type, type_of_value
from ..load.library import Loaded
from ..spec.fonts import FONT_CLASSES
from ..spec.raster import EDITS
from .levels import compile_levels, warn_no_effect
from .scene import CNode, SceneCompiler
from .steps import compile_constraints, compile_functions, compile_steps, fields_read

CANVAS_TYPE = RecordT((("width", INT), ("height", INT)))  # the scene sees the canvas size as `canvas`
RESERVED = {"level", "vocab", "true", "false"} | set(CONSTANTS)
INPUT_TYPES: dict[str, Type] = {"integer": INT, "number": FLOAT, "string": STR, "boolean": BOOL}
# The type words before 0.11 → the word that replaced them (one vocabulary across the language).
OLD_TYPE_WORDS = {"int": "integer", "float": "number", "str": "string", "bool": "boolean"}


def _same(a, b) -> bool:
    """Equal as query values: true is not 1 (Python's == says it is), 2 is 2.0."""
    return isinstance(a, bool) == isinstance(b, bool) and a == b


def shown_value(v) -> str:
    return "true" if v is True else "false" if v is False else str(v)


def quoted_value(v) -> str:
    """A value as a message quotes it: a string in quotes, a number or boolean as written."""
    return repr(v) if isinstance(v, str) else shown_value(v)


@dataclass(frozen=True)
class InputDecl:
    """A grammar input as declared: its type, the values a task may give it (`values`, or the integers lo..hi of
    `span`; both None: any value of the type), and the value a task that does not set it gets."""
    type: Type
    values: tuple | None = None
    span: tuple[int, int] | None = None
    has_default: bool = False
    default: Any = None

    def allows(self, v) -> bool:
        if self.span is not None:
            return type(v) is int and self.span[0] <= v <= self.span[1]
        return self.values is None or any(_same(v, w) for w in self.values)

    def shown(self) -> str:
        if self.span is not None:
            return f"{self.span[0]}..{self.span[1]}"
        return ", ".join(shown_value(v) for v in self.values or ())


def _of_type(v, t: Type) -> bool:
    if t == BOOL:
        return isinstance(v, bool)
    if t == STR:
        return isinstance(v, str)
    if t == INT:
        return type(v) is int
    return isinstance(v, (int, float)) and not isinstance(v, bool)  # number: an integer is a number too


def compile_input(name: str, raw, doc, diags: Diagnostics) -> InputDecl | None:
    """One `inputs:` entry (short form `name: TYPE`, or long form {type, values, default, summary}), checked: the
    type word is the language's, every value and the default are of the type, the default is one of the values."""
    loc = ("inputs", name)
    long = not isinstance(raw, str)
    word = raw.type if long else raw
    type_loc = loc + ("type",) if long else loc
    if word in OLD_TYPE_WORDS:
        diags.error(doc.pos(type_loc), f"input '{name}': '{word}' is the old type word; write "
                                       f"'{OLD_TYPE_WORDS[word]}' (types: {', '.join(INPUT_TYPES)})",
                    code="old-type-word")
        return None
    if word not in INPUT_TYPES:
        diags.error(doc.pos(type_loc), f"input '{name}': unknown type '{word}' (expected one of "
                                       f"{', '.join(INPUT_TYPES)})", code="value-type")
        return None
    t = INPUT_TYPES[word]
    if not long:
        return InputDecl(t, (False, True) if t == BOOL else None)
    ok = True
    values: tuple | None = None
    span: tuple[int, int] | None = None
    if raw.values is None:
        values = (False, True) if t == BOOL else None
    elif isinstance(raw.values, list):
        if not raw.values:
            diags.error(doc.pos(loc + ("values",)), f"input '{name}' lists no values", code="query-values")
            ok = False
        for i, v in enumerate(raw.values):
            if not _of_type(v, t):
                diags.error(doc.pos(loc + ("values", i)), f"input '{name}' is {word}, but its value "
                                                          f"{quoted_value(v)} is not", code="value-type")
                ok = False
            elif any(_same(v, w) for w in raw.values[:i]):
                diags.error(doc.pos(loc + ("values", i)), f"input '{name}' lists the value {quoted_value(v)} "
                                                          f"twice", code="query-values")
                ok = False
        values = tuple(raw.values)
    else:
        lo, hi = raw.values.range
        if t != INT:
            diags.error(doc.pos(loc + ("values",)), f"input '{name}' is {word}: a {{range: [lo, hi]}} of values "
                                                    f"is for integer inputs; list the values", code="value-type")
            ok = False
        elif hi < lo:
            diags.error(doc.pos(loc + ("values", "range")), f"input '{name}': empty range [{lo}, {hi}]",
                        code="query-values")
            ok = False
        span = (lo, hi)
    decl = InputDecl(t, values, span)
    if "default" in raw.model_fields_set:
        d = raw.default
        if d is None or not _of_type(d, t):
            diags.error(doc.pos(loc + ("default",)), f"input '{name}' is {word}, but its default "
                                                     f"{'null' if d is None else quoted_value(d)} is not",
                        code="value-type")
            ok = False
        elif ok and not decl.allows(d):
            diags.error(doc.pos(loc + ("default",)), f"input '{name}': default {quoted_value(d)} is not one of "
                                                     f"its values ({decl.shown()})", code="input-value")
            ok = False
        decl = InputDecl(t, values, span, True, d)
    return decl if ok else None


@dataclass(frozen=True)
class InspectRule:
    """render.tools.inspect.LIST: a point on a mark bound to one of LIST's records reads out its `field`."""
    field: str
    says: str | None = None  # how the prompt describes the result; None: "the <field> of the mark there"


@dataclass
class CompiledGrammar:
    id: str
    domain: str
    summary: str
    state: list[tuple[str, Compiled]]
    schema: dict[str, Type]
    require: list[tuple[str, Compiled]]
    width: int
    height: int
    max_attempts: int
    spec_hash: str
    source: str
    base_scope: dict[str, Type] = field(default_factory=dict)
    scene: CNode | None = None  # the composed scene (render.scene)
    # Query variables the state reads (name → type); every task on this grammar sets them or takes their default
    # (codegen.task), from the values declared in input_decls.
    inputs: dict[str, Type] = field(default_factory=dict)
    input_decls: dict[str, InputDecl] = field(default_factory=dict)
    fonts: tuple[str, ...] | None = None  # render.fonts: the font classes the scene's text may use
    # Render variety bounds (render.canvas scale/aspect ranges, render.raster): None where undeclared.
    canvas_scale: tuple[float, float] | None = None
    canvas_aspect: tuple[float, float] | None = None
    raster_strength: str = "strong"
    raster_skip: tuple[str, ...] = ()
    inspect: dict[str, InspectRule] = field(default_factory=dict)  # render.tools.inspect: state list → rule
    # What tasks need to know whether they read an inspected field (codegen.task): each state field → the record
    # fields its definition reads (closed over the fields it mentions), and the grammar's functions as written.
    state_reads: dict[str, frozenset[str]] = field(default_factory=dict)
    function_sources: dict[str, str] = field(default_factory=dict)
    # `levels:` (codegen.levels): the compiled parameters, in order, and each one's value at levels 0-9.
    levels: list[tuple[str, Compiled]] = field(default_factory=list)
    level_schedule: dict[str, list] = field(default_factory=dict)


def spec_hash(spec) -> str:
    data = spec.model_dump(mode="json")
    if data.get("levels", 0) == {}:  # `levels:` came later (issue 25): a file without it keeps its hash
        del data["levels"]
    # Keys added after hashes were first recorded (fonts; render variety) leave the hash alone while unset, so
    # grammars that do not use them keep their hash and old traces still replay.
    if data.get("fonts", 0) is None:
        del data["fonts"]
    render = data.get("render")
    if isinstance(render, dict):
        if render.get("fonts", 0) is None:
            del render["fonts"]
        for key in ("scale", "aspect"):
            if isinstance(render.get("canvas"), dict) and render["canvas"].get(key, 0) is None:
                del render["canvas"][key]
        if render.get("raster", 0) is None:
            del render["raster"]
        # Tools never change a picture or an answer (a tool episode's trace replays its calls, which checks them),
        # so declaring them keeps the grammar's hash and the traces of its instances.
        render.pop("tools", None)
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()



# Bounds of the declared canvas ranges: a picture may grow or shrink by at most 2× a side; its width/height ratio
# stays between 0.4 and 2.5 (a ruler or a timeline is wider than 2:1).
CANVAS_SCALE_BOUNDS = (0.5, 2.0)
CANVAS_ASPECT_BOUNDS = (0.4, 2.5)


def _range(values, bounds, what: str, doc, loc: tuple, diags: Diagnostics) -> tuple[float, float] | None:
    if values is None:
        return None
    lo_b, hi_b = bounds
    if len(values) != 2 or not lo_b <= values[0] <= values[1] <= hi_b:
        diags.error(doc.pos(loc), f"render.canvas.{what} must be [lo, hi] with {lo_b} ≤ lo ≤ hi ≤ {hi_b}, "
                                  f"got {values}", code="scene-shape")
        return None
    return float(values[0]), float(values[1])


def vocab_type(vocab: dict[str, list]) -> RecordT:
    return RecordT(tuple((k, type_of_value(v)) for k, v in sorted(vocab.items())))


def compile_grammar(loaded: Loaded, vocab: dict[str, list], diags: Diagnostics,
                    components: Mapping | None = None) -> CompiledGrammar | None:
    spec, doc = loaded.spec, loaded.doc
    base = {"vocab": vocab_type(vocab)}  # `level` is bound only inside `levels:` (codegen.levels)
    names: dict[str, Type] = dict(base)
    ok_functions = compile_functions(spec.functions, names, doc, lambda n: n in RESERVED, diags)
    inputs: dict[str, Type] = {}
    input_decls: dict[str, InputDecl] = {}
    for name, raw in spec.inputs.items():
        if name in RESERVED or name in names or not name.isidentifier() or name.startswith("_"):
            diags.error(doc.key_pos(("inputs", name)), f"'{name}' cannot name an input (reserved, a function, "
                                                       f"or not a name)", code="reserved-name")
            ok_functions = False
            continue
        decl = compile_input(name, raw, doc, diags)
        if decl is None:  # reported; bound all the same, so what reads it is not reported as unknown too
            ok_functions = False
            inputs[name] = names[name] = ANY
            continue
        input_decls[name] = decl
        inputs[name] = names[name] = decl.type
    levels, schedule, ok_levels = compile_levels(spec.levels, names, vocab, doc,
                                                 lambda n: n in RESERVED or n in names, diags)
    state, ok_state = compile_steps(spec.state, names, doc, "state", "grammar state",
                                    lambda n: n in RESERVED or n in names,
                                    "'{name}' cannot name a state field (reserved, an input, a function, a levels "
                                    "parameter, or not a name)", diags)
    # The state's own fields: what the trace stores and what tasks and the scene read (never a levels parameter).
    schema = {k: v for k, v in names.items()
              if k not in base and k not in inputs and k not in spec.levels and not isinstance(v, FnT)}
    require, ok_require = compile_constraints(spec.require, names, doc, "require", "a grammar constraint",
                                              "constraint", diags)
    ok = ok_functions and ok_levels and ok_state and ok_require
    if ok:
        _warn_literals_outside(spec, doc, input_decls, diags)
    if ok_levels:
        warn_no_effect(schedule, [*spec.levels.values(), *spec.state.values(), *spec.require.values()], doc, diags)
    if spec.render.fonts is not None:
        if not spec.render.fonts:
            diags.error(doc.pos(("render", "fonts")), f"render.fonts must name at least one font class "
                                                      f"({', '.join(FONT_CLASSES)})", code="scene-shape")
            ok = False
        for i, c in enumerate(spec.render.fonts):
            if c not in FONT_CLASSES:
                diags.error(doc.pos(("render", "fonts", i)), f"unknown font class '{c}' in render.fonts (known: "
                                                             f"{', '.join(FONT_CLASSES)})", code="unknown-kind")
                ok = False

    # The picture draws the state alone (rendering has no query): inputs are for building the state, and a state
    # field can keep whatever of them the picture needs.
    picture_names = {k: t for k, t in names.items() if k not in inputs and k not in spec.levels}
    sc = SceneCompiler(doc, diags, components)
    scene_names = {**picture_names, **({} if "canvas" in picture_names else {"canvas": CANVAS_TYPE})}
    scene = sc.node(doc, spec.render.scene, ("render", "scene"), Scope(scene_names, True, "the scene"))
    canvas = spec.render.canvas
    n_errors = len(diags.errors)
    canvas_scale = _range(canvas.scale, CANVAS_SCALE_BOUNDS, "scale", doc, ("render", "canvas", "scale"), diags)
    canvas_aspect = _range(canvas.aspect, CANVAS_ASPECT_BOUNDS, "aspect", doc, ("render", "canvas", "aspect"), diags)
    own = canvas.width / canvas.height
    if canvas_aspect is not None and not canvas_aspect[0] <= round(own, 4) <= canvas_aspect[1]:
        # The range is absolute (width / height), and mild and strong sample around the grammar's own canvas: a
        # range that leaves it out squeezes every varied picture towards one end (a relative range is a mistake).
        diags.error(doc.pos(("render", "canvas", "aspect")),
                    f"render.canvas.aspect {list(canvas.aspect)} must contain the canvas's own width/height ratio "
                    f"{own:.3g} ({canvas.width} / {canvas.height}): the range is absolute, not a factor, e.g. "
                    f"[{own * 0.87:.2f}, {own * 1.15:.2f}]", code="scene-shape")
        canvas_aspect = None
    raster = spec.render.raster
    if raster is not None:
        for i, name in enumerate(raster.skip):
            if name not in EDITS:
                diags.error(doc.pos(("render", "raster", "skip", i)),
                            f"unknown raster edit '{name}' (edits: {', '.join(EDITS)})", code="unknown-kind")
    inspect = _inspect_rules(spec, doc, schema, diags)
    if scene is None or not sc.ok or not ok or len(diags.errors) > n_errors:
        return None
    functions = dict(spec.functions)
    state_reads: dict[str, frozenset[str]] = {}
    for name, source in spec.state.items():  # in order: a field's reads include those of the fields it mentions
        state_reads[name] = fields_read([source], functions, state_reads)
    return CompiledGrammar(
        id=spec.grammar, domain=spec.grammar.split(".")[0], summary=spec.summary, state=state, schema=schema,
        require=require, width=spec.render.canvas.width, height=spec.render.canvas.height, max_attempts=spec.max_attempts,
        spec_hash=spec_hash(spec), source=doc.path, base_scope=base, scene=scene, inputs=inputs,
        input_decls=input_decls,
        fonts=tuple(spec.render.fonts) if spec.render.fonts else None,
        canvas_scale=canvas_scale, canvas_aspect=canvas_aspect,
        raster_strength=raster.strength if raster is not None else "strong",
        raster_skip=tuple(raster.skip) if raster is not None else (),
        inspect=inspect, state_reads=state_reads, function_sources=functions, levels=levels,
        level_schedule=schedule,
    )


def _warn_literals_outside(spec, doc, decls: dict[str, InputDecl], diags: Diagnostics) -> None:
    """Warn (query-literal-outside) at a literal the state or a constraint compares with an input of declared
    values that is none of them (`unknown == 'distanse'`): the branch is dead for every task."""
    known = {}
    for name, decl in decls.items():
        if decl.type == BOOL:
            continue
        if decl.span is not None:
            known[name] = range(decl.span[0], decl.span[1] + 1)
        elif decl.values is not None:
            known[name] = list(decl.values)
    if known:
        literals_outside([(src, Site(doc, ("state", name))) for name, src in spec.state.items()] +
                         [(src, Site(doc, ("require", name))) for name, src in spec.require.items()], known, diags)


def _inspect_rules(spec, doc, schema: dict[str, Type], diags: Diagnostics) -> dict[str, InspectRule]:
    """render.tools.inspect, checked against the state: each key a list of records, each field a text field of
    them. Text only: inspect reads out a label the picture shows, never a quantity the question is about."""
    tools = spec.render.tools
    rules: dict[str, InspectRule] = {}
    if tools is None:
        return rules
    for name, raw in tools.inspect.items():
        loc = ("render", "tools", "inspect", name)
        rule = InspectRule(raw) if isinstance(raw, str) else InspectRule(raw.field, raw.says)
        t = schema.get(name)
        if not (isinstance(t, ListT) and isinstance(t.elem, RecordT)):
            what = f"it is {t}" if t is not None else "no such state field"
            diags.error(doc.key_pos(loc), f"render.tools.inspect: '{name}' is not a list of records in the state "
                                          f"of {spec.grammar} ({what}); inspect names marks bound to such records",
                                                  code="scene-shape")
            continue
        field_loc = loc if isinstance(raw, str) else loc + ("field",)
        ft = t.elem.field(rule.field)
        if ft is None:
            diags.error(doc.pos(field_loc), f"render.tools.inspect.{name}: its records have no field "
                                            f"'{rule.field}' (fields: {', '.join(t.elem.names)})", code="unknown-field")
        elif ft != STR:
            diags.error(doc.pos(field_loc), f"render.tools.inspect.{name}: '{rule.field}' is {ft}; inspect "
                                            f"returns a text label (a string field), never a quantity", code="scene-shape")
        elif rule.says is not None and not rule.says.strip():
            diags.error(doc.pos(loc + ("says",)), f"render.tools.inspect.{name}.says is empty", code="scene-shape")
        else:
            rules[name] = rule
    return rules
