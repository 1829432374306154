"""Compile a scene grammar: infer the typed state schema, compile samplers, constraints and the scene."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from ..errors import Diagnostics
from ..expr.compile import Compiled, Scope
from ..expr.compile import CONSTANTS
from ..expr.types import BOOL, FLOAT, INT, STR, FnT, ListT, RecordT, Type, type_of_value
from ..load.library import Loaded
from ..spec.fonts import FONT_CLASSES
from ..spec.raster import EDITS
from .scene import CNode, SceneCompiler
from .steps import compile_constraints, compile_functions, compile_steps, fields_read

CANVAS_TYPE = RecordT((("width", INT), ("height", INT)))  # the scene sees the canvas size as `canvas`
RESERVED = {"level", "vocab", "true", "false"} | set(CONSTANTS)
INPUT_TYPES: dict[str, Type] = {"int": INT, "float": FLOAT, "str": STR, "bool": BOOL}


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
    # Query variables the state reads (name → type); every task on this grammar declares them (codegen.task).
    inputs: dict[str, Type] = field(default_factory=dict)
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


def spec_hash(spec) -> str:
    data = spec.model_dump(mode="json")
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
                    components: dict | None = None) -> CompiledGrammar | None:
    spec, doc = loaded.spec, loaded.doc
    base = {"level": INT, "vocab": vocab_type(vocab)}
    names: dict[str, Type] = dict(base)
    ok_functions = compile_functions(spec.functions, names, doc, lambda n: n in RESERVED, diags)
    inputs: dict[str, Type] = {}
    for name, type_name in spec.inputs.items():
        if name in RESERVED or name in names or not name.isidentifier() or name.startswith("_"):
            diags.error(doc.key_pos(("inputs", name)), f"'{name}' cannot name an input (reserved, a function, "
                                                       f"or not a name)", code="reserved-name")
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
    picture_names = {k: t for k, t in names.items() if k not in inputs}
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
        fonts=tuple(spec.render.fonts) if spec.render.fonts else None,
        canvas_scale=canvas_scale, canvas_aspect=canvas_aspect,
        raster_strength=raster.strength if raster is not None else "strong",
        raster_skip=tuple(raster.skip) if raster is not None else (),
        inspect=inspect, state_reads=state_reads, function_sources=functions,
    )


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
