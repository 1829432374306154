"""Compile a grammar's `render.scene`: a tree of nodes (frames, marks, guides, layers, panels, components).

Every key is checked against the scene vocabulary of tessera.spec (spec.marks.MARKS, spec.guides.GUIDES, FRAME_KEYS
below; the renderer draws by the same tables, and codegen never imports it) and every expression is type-checked in
the scope it will run in: the state, `level`, `vocab`, the node's `let` names, the names a `panels`/mark `each`
binds, and inside a component its parameters. All mistakes are collected with
their positions. The result is a tree of plain dataclasses that render/compose.py evaluates.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import Diagnostics, EvalError, located
from ..expr.compile import Compiled, Scope, Site, compile_expr, run
from ..expr.template import Template, compile_template
from ..expr.types import ANY, BOOL, FLOAT, INT, STR, ListT, RecordT, Type, is_numeric
from ..spec.assets import find_asset
from ..spec.colors import COLOR_WORDS, PALETTES
from ..spec.geo import PROJECTION_WORDS
from ..spec.guides import GUIDES
from ..spec.marks import MARKS
from ..spec.options import OptionRule, number, words
from ..spec.svg import svg_commands

NAME = re.compile(r"^[a-z][a-z0-9_]*$")
MAX_NODE_DEPTH = 12  # nesting of nodes and components; deeper trees are refused at compile time
# Each use of a component compiles its body again (for the argument types and lambdas of that use), so a component
# that uses another many times, which uses another many times, multiplies: five levels of 40 uses are 40^5 bodies.
# One grammar's scene may compile at most this many component uses, counting the uses inside components, and at
# most this many characters of components (scene, requirements, defaults as JSON) counted once per use (about one authoring file's worth). The
# bundled library's largest scene (illustrations.tile_puzzle) compiles 16 uses and about 60,000 characters.
MAX_COMPONENT_USES = 256
MAX_EXPANDED_SOURCE = 1_000_000

NODE_KEYS = ("let", "region", "inset", "frame", "background", "title", "caption", "guides", "marks", "layers",
             "panels", "tiles", "use", "with")
TILE_KEYS = ("rows", "cols", "each", "as", "source", "turn", "label", "slot_cols", "gap", "scene")
PANEL_KEYS = ("each", "as", "index", "cols", "gap", "panel", "items", "max")
FRAME_KEYS = {
    "canvas": (),
    "cartesian": ("x", "y", "y_down"),
    "plane": ("x", "y"),
    "polar": ("theta", "r", "start", "clockwise", "inner", "sweep"),
    "grid": ("rows", "cols", "hex"),
    "camera": ("projection", "azimuth", "elevation", "distance", "bounds"),
    "geo": ("projection", "bounds"),
}
SCALE_KINDS = ("linear", "log", "band")
SCALE_KEYS = ("linear", "log", "band", "nice", "zero", "ticks", "padding")
MARK_META = ("each", "as", "index", "where", "bind", "group", "clear", "key")
# The options of the scene that are not in a spec table: frames' flags, scales', panels', tiles' and table columns'.
FRAME_FLAGS = {"cartesian": {"y_down": words((False, True))}, "polar": {"clockwise": words((True, False))},
               "grid": {"hex": words((False, True))},
               "camera": {"projection": words(("isometric", "orthographic", "perspective"))},
               "geo": {"projection": words(PROJECTION_WORDS)}}
SCALE_OPTIONS = {"nice": words((True, False)), "zero": words((False, True)), "ticks": number(6, 2, 30, integer=True)}
PANEL_OPTIONS = {"gap": number(8.0, 0.0, 400.0), "max": number(64, 1, 256, integer=True)}
TILE_OPTIONS = {"gap": number(4.0, 0.0, 64.0)}
COLUMN_OPTIONS = {"weight": words(("normal", "bold")), "width": number(1.0, 0.05, 20.0)}
# `clear: prefer`: the text takes a spot clear of strokes when one exists, else the first legible spot.
CLEAR_OPTION = words((False, True, "prefer"))
# The bare words a channel kind lists (the value rule: a listed word is that word, anything else an expression).
CHANNEL_WORDS = {"color": COLOR_WORDS, "palette": frozenset(PALETTES)}
_RULE_TYPES = {"boolean": (BOOL,), "string": (STR,), "integer": (INT,), "number": (INT, FLOAT)}


@dataclass(frozen=True)
class Option:
    """A scene option's value: a constant (checked against `rule` when the grammar compiled), or `expr`, an
    expression over the scope enclosing the option's node, evaluated once each time the node is drawn and checked
    against the same rule then. `value` is the one way the renderer reads an option."""
    key: str
    rule: OptionRule
    constant: Any = None
    expr: Compiled | None = None

    def value(self, env: dict) -> Any:
        if self.expr is None:
            return self.constant
        v = run(self.expr, env)
        if not self.rule.accepts(v):
            raise EvalError(located(f"option '{self.key}' must be {self.rule.expected()}, got {v!r} "
                                    f"(from `{self.expr.source}`)", self.expr.where))
        return self.rule.value(v)

    @property
    def fixed(self) -> bool:
        return self.expr is None


def option_values(options: dict[str, Option], env: dict) -> dict[str, Any]:
    """The values of a node's options in the env of the node (the run-time half of SceneCompiler.option)."""
    return {k: o.value(env) for k, o in options.items()}


@dataclass
class CScale:
    kind: str
    domain: Compiled
    options: dict[str, Option] = field(default_factory=dict)  # nice, zero, ticks
    padding: Compiled | None = None


@dataclass
class CFrame:
    kind: str
    scales: dict[str, CScale] = field(default_factory=dict)
    exprs: dict[str, Compiled] = field(default_factory=dict)
    flags: dict[str, Option] = field(default_factory=dict)
    where_text: str = ""  # the frame's kind key, "grammars/x.yaml:12:7", for run-time errors


@dataclass
class CMark:
    kind: str
    channels: dict[str, Compiled]
    options: dict[str, Option]  # the spec's options and `clear` (True, False or 'prefer'); the composer binds them
    each: Compiled | None = None
    as_name: str = "it"
    index_name: str | None = None
    where: Compiled | None = None
    bind: Compiled | None = None
    bind_items: bool = True
    group: str | None = None
    where_text: str = ""  # "grammars/x.yaml:12:7" for run-time messages


@dataclass
class CGuide:
    kind: str
    exprs: dict[str, Compiled]
    texts: dict[str, Template]
    options: dict[str, Option]
    each: Compiled | None = None
    as_name: str = "it"
    # tables: [{header: Template, text/fill/color: Compiled, weight/width: Option}]
    columns: list[dict] = field(default_factory=list)
    where_text: str = ""


@dataclass
class CPanels:
    cols: Compiled | None
    options: dict[str, Option]  # gap, max
    each: Compiled | None = None
    as_name: str = "it"
    index_name: str | None = None
    panel: "CNode | None" = None
    items: list["CNode"] = field(default_factory=list)
    where_text: str = ""


@dataclass
class CTiles:
    """A sub-scene cut into a rows × cols grid of square tiles, shown re-placed: slot k (row-major, in rows of
    `slot_cols`, by default the cut's cols) shows the sub-scene's tile `source` (row-major; -1: an empty slot)
    turned `turn` quarter turns clockwise, with an optional `label` in its corner."""
    rows: Compiled
    cols: Compiled
    each: Compiled
    source: Compiled
    turn: Compiled | None
    scene: "CNode"
    as_name: str = "it"
    label: Compiled | None = None
    slot_cols: Compiled | None = None
    options: dict[str, Option] = field(default_factory=dict)  # gap
    where_text: str = ""


@dataclass
class CUse:
    component: str
    args: dict[str, Compiled]  # evaluated in the caller's env
    functions: dict[str, Any]  # parameter → FnT (called from the body, run in the caller's env)
    body: "CNode"
    limits: dict[str, int]
    where_text: str = ""
    requires: list = field(default_factory=list)  # (name, compiled bool, where) checked on the arguments
    fonts: tuple[str, ...] | None = None  # the component's `fonts:` (font classes its text may use)


@dataclass
class CNode:
    lets: list[tuple[str, Compiled]] = field(default_factory=list)
    region: list[Compiled] | None = None
    inset: "list[float] | Compiled | None" = None
    frame: CFrame | None = None
    background: Compiled | None = None
    title: Template | None = None
    caption: Template | None = None
    guides: list[CGuide] = field(default_factory=list)
    marks: list[CMark] = field(default_factory=list)
    layers: list["CNode"] = field(default_factory=list)
    panels: CPanels | None = None
    tiles: CTiles | None = None
    use: CUse | None = None
    where_text: str = ""  # the node's position: run-time errors of its region, inset, titles, lets and layout


class SceneCompiler:
    """Compiles one grammar's scene (and the components it uses) into CNode trees."""

    def __init__(self, doc, diags: Diagnostics, components: dict | None = None):
        self.doc = doc
        self.diags = diags
        self.components = components if components is not None else {}  # name → Loaded (components/*.yaml)
        self.ok = True
        self.stack: list[str] = []  # components being expanded (a component may not use itself)
        # What expanding components has cost so far (see MAX_COMPONENT_USES): once a bound is broken the rest of
        # the scene is not compiled, so the one error says why and the compile ends at once.
        self.uses = 0
        self.expanded_source = 0
        self.exhausted = False
        self.source_sizes: dict[str, int] = {}  # component → characters one use compiles

    # -- diagnostics --------------------------------------------------------------------------------------------
    def error(self, doc, loc: tuple, message: str, key: bool = False, *, code: str) -> None:
        self.ok = False
        self.diags.error(doc.key_pos(loc) if key else doc.pos(loc), message, code=code)

    def expr(self, doc, src, loc: tuple, scope: Scope, listed: frozenset = frozenset()) -> Compiled | None:
        """A value by the value rule: a bare word `listed` for the key (a colour word in a colour channel, a palette
        name) is that word; anything else is an expression over `scope`."""
        if isinstance(src, str) and src in listed and src not in scope.names:
            return _const(src)
        c = compile_expr(src, scope, Site(doc, loc), self.diags)
        if c is None:
            self.ok = False
        return c

    def typed(self, doc, src, loc: tuple, scope: Scope, kind: str, what: str) -> Compiled | None:
        if kind == "shown" and isinstance(src, str) and src in COLOR_WORDS and src not in scope.names:
            # A colour word is listed only in colour channels; in a text channel it is a name like any other, so
            # the mistake `text: red` (the word meant, or a field) is named here rather than as an unknown name.
            self.error(doc, loc, f"{what} is the bare colour word '{src}', which is a word only in a colour "
                                 f"channel; write \"'{src}'\" for the word, or the field or expression that holds "
                                 f"the text", code="color-word-text")
            return None
        c = self.expr(doc, src, loc, scope, CHANNEL_WORDS.get(kind, frozenset()))
        if c is None:
            return None
        problem = _kind_problem(kind, c.type)
        if problem:
            self.error(doc, loc, f"{what} {problem}", code="scene-shape")
            return None
        return c

    def template(self, doc, src, loc: tuple, scope: Scope) -> Template | None:
        if not isinstance(src, str):
            src = str(src)
        t = compile_template(src, scope.names, lambda line, col: doc.expr_pos(loc, line - 1, col - 1), self.diags)
        if t is None:
            self.ok = False
        return t

    def mapping(self, doc, raw, loc: tuple, allowed, what: str) -> dict | None:
        if raw is None:
            return {}
        if not isinstance(raw, dict):
            self.error(doc, loc, f"{what} takes a mapping (allowed keys: {', '.join(allowed)})", code="scene-shape")
            return None
        for k in raw:
            if k not in allowed:
                self.error(doc, loc + (k,), f"unknown key '{k}' in {what} (allowed here: {', '.join(allowed)})",
                           key=True, code="unknown-key")
        return raw

    def option(self, doc, raw: dict, key: str, loc: tuple, rule: OptionRule, what: str, scope: Scope) -> Option:
        """An option by the value rule: a YAML number or boolean, or a word the option lists, is that constant,
        checked now; any other string is an expression over `scope` (the node's: an option is evaluated once per
        node, never per `each` item), type-checked now and checked against the rule when the node is drawn. A bare
        name that is neither listed nor in scope is reported as a word the option does not list."""
        default = Option(key, rule, rule.default_value)
        if key not in raw:
            return default
        v, here = raw[key], loc + (key,)
        if isinstance(v, str) and not rule.accepts(v) and not (NAME.match(v) and v not in scope.names):
            c = compile_expr(v, scope, Site(doc, here), self.diags)
            if c is None:
                self.ok = False
                return default
            types = rule.type_words()
            if c.type != ANY and c.type not in [t for w in types for t in _RULE_TYPES[w]]:
                self.error(doc, here, f"{what} '{key}' must be {' or '.join(types)} ({rule.expected()}), got "
                                      f"{c.type}", code="type-mismatch")
                return default
            return Option(key, rule, None, c)
        if not rule.accepts(v):
            self.error(doc, here, f"{what} '{key}' must be {rule.expected()}, got {v!r}", code="scene-shape")
            return default
        return Option(key, rule, rule.value(v))

    def options(self, doc, raw: dict, loc: tuple, rules: dict[str, OptionRule], what: str,
                scope: Scope) -> dict[str, Option]:
        return {key: self.option(doc, raw, key, loc, rule, what, scope) for key, rule in rules.items()}

    def name(self, doc, raw: dict, key: str, loc: tuple, default: str | None) -> str | None:
        v = raw.get(key, default)
        if v is None:
            return None
        if not isinstance(v, str) or not NAME.match(v):
            self.error(doc, loc + (key,), f"'{key}' must be a lowercase name, got {v!r}", code="bad-id")
            return default
        return v

    # -- nodes --------------------------------------------------------------------------------------------------
    def node(self, doc, raw, loc: tuple, scope: Scope, depth: int = 0) -> CNode | None:
        if self.exhausted:
            return None
        if depth > MAX_NODE_DEPTH:
            self.error(doc, loc, f"scene nodes nest deeper than {MAX_NODE_DEPTH} levels", code="bound")
            return None
        raw = self.mapping(doc, raw, loc, NODE_KEYS, "a scene node")
        if raw is None:
            return None
        out = CNode(where_text=str(doc.pos(loc)))
        scope = Scope(dict(scope.names), True, scope.what)
        lets = self.mapping(doc, raw.get("let"), loc + ("let",), tuple(raw.get("let") or ()), "let")
        for name, src in (lets or {}).items():
            if not isinstance(name, str) or not NAME.match(name) or name in ("level", "vocab"):
                self.error(doc, loc + ("let", name), f"'{name}' cannot name a let value", key=True,
                        code="reserved-name")
                continue
            c = self.expr(doc, src, loc + ("let", name), scope)
            scope.names[name] = c.type if c is not None else ANY
            if c is not None:
                out.lets.append((name, c))
        if "region" in raw:
            out.region = self.numbers(doc, raw["region"], loc + ("region",), scope, 4, "region")
        if "inset" in raw:
            if isinstance(raw["inset"], str):  # an expression: a number or a list of 2 or 4 numbers
                out.inset = self.expr(doc, raw["inset"], loc + ("inset",), scope)
            else:
                out.inset = self.inset(doc, raw["inset"], loc + ("inset",))
        if "background" in raw:
            out.background = self.typed(doc, raw["background"], loc + ("background",), scope, "color", "background")
        for key in ("title", "caption"):
            if key in raw:
                setattr(out, key, self.template(doc, raw[key], loc + (key,), scope))
        if "use" in raw:
            for other in ("frame", "marks", "guides", "layers", "panels", "tiles"):
                if other in raw:
                    self.error(doc, loc + (other,), f"a node that uses a component cannot also have '{other}' "
                                                    f"(put it in a layer next to the component)", key=True,
                                                            code="scene-shape")
            out.use = self.use(doc, raw, loc, scope, depth)
            return out
        if "with" in raw:
            self.error(doc, loc + ("with",), "'with' gives a component's parameters; add 'use: COMPONENT'", key=True,
                    code="scene-shape")
        if "frame" in raw:
            out.frame = self.frame(doc, raw["frame"], loc + ("frame",), scope)
        for i, g in enumerate(self.seq(doc, raw, "guides", loc)):
            cg = self.guide(doc, g, loc + ("guides", i), scope)
            if cg is not None:
                out.guides.append(cg)
        for i, m in enumerate(self.seq(doc, raw, "marks", loc)):
            cm = self.mark(doc, m, loc + ("marks", i), scope)
            if cm is not None:
                out.marks.append(cm)
        for i, child in enumerate(self.seq(doc, raw, "layers", loc)):
            cn = self.node(doc, child, loc + ("layers", i), scope, depth + 1)
            if cn is not None:
                out.layers.append(cn)
        if "panels" in raw:
            out.panels = self.panels(doc, raw["panels"], loc + ("panels",), scope, depth)
        if "tiles" in raw:
            out.tiles = self.tiles(doc, raw["tiles"], loc + ("tiles",), scope, depth)
        return out

    def seq(self, doc, raw: dict, key: str, loc: tuple) -> list:
        v = raw.get(key)
        if v is None:
            return []
        if not isinstance(v, list):
            self.error(doc, loc + (key,), f"'{key}' takes a list", code="scene-shape")
            return []
        return v

    def numbers(self, doc, raw, loc: tuple, scope: Scope, n: int, what: str) -> list[Compiled] | None:
        if not isinstance(raw, list) or len(raw) != n:
            self.error(doc, loc, f"{what} takes a list of {n} numbers", code="scene-shape")
            return None
        out = [self.typed(doc, v, loc + (i,), scope, "number", f"{what}[{i}]") for i, v in enumerate(raw)]
        return None if any(c is None for c in out) else out

    def inset(self, doc, raw, loc: tuple) -> list[float] | None:
        vals = [raw] * 4 if isinstance(raw, (int, float)) and not isinstance(raw, bool) else raw
        if not isinstance(vals, list) or len(vals) not in (2, 4) or \
                not all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 2048 for v in vals):
            self.error(doc, loc, "inset takes pixels: one number, [vertical, horizontal] or [top, right, bottom, "
                                 "left]", code="scene-shape")
            return None
        if len(vals) == 2:
            vals = [vals[0], vals[1], vals[0], vals[1]]
        return [float(v) for v in vals]

    # -- frames -------------------------------------------------------------------------------------------------
    def frame(self, doc, raw, loc: tuple, scope: Scope) -> CFrame | None:
        if isinstance(raw, str) and raw in FRAME_KEYS:
            raw = {raw: {}}
        if not isinstance(raw, dict) or len(raw) != 1:
            self.error(doc, loc, f"a frame is one of {', '.join(FRAME_KEYS)}, written as {{KIND: {{...}}}}",
                    code="scene-shape")
            return None
        (kind, body), = raw.items()
        if kind not in FRAME_KEYS:
            self.error(doc, loc + (kind,), f"unknown frame '{kind}' (known: {', '.join(FRAME_KEYS)})", key=True,
                    code="unknown-kind")
            return None
        body = self.mapping(doc, body, loc + (kind,), FRAME_KEYS[kind], f"a {kind} frame")
        if body is None:
            return None
        here = loc + (kind,)
        out = CFrame(kind, where_text=str(doc.key_pos(here)))
        if kind == "cartesian":
            for ch in ("x", "y"):
                if ch not in body:
                    self.error(doc, here, f"a cartesian frame needs an '{ch}' scale", code="missing-key")
                    continue
                s = self.scale(doc, body[ch], here + (ch,), scope)
                if s is not None:
                    out.scales[ch] = s
        elif kind == "polar":
            for ch, default in (("theta", "[0, 360]"), ("r", "[0, 1]")):
                src = body.get(ch, {"linear": default, "nice": False})
                s = self.scale(doc, src, here + (ch,), scope)
                if s is not None:
                    out.scales[ch] = s
            for key in ("start", "inner", "sweep"):
                if key in body:
                    c = self.typed(doc, body[key], here + (key,), scope, "number", f"polar '{key}'")
                    if c is not None:
                        out.exprs[key] = c
        elif kind == "plane":
            for ch in ("x", "y"):
                if ch not in body:
                    self.error(doc, here, f"a plane frame needs an '{ch}' range [lo, hi]", code="missing-key")
                    continue
                c = self.typed(doc, body[ch], here + (ch,), scope, "nums", f"plane '{ch}'")
                if c is not None:
                    out.exprs[ch] = c
        elif kind == "grid":
            for key in ("rows", "cols"):
                if key not in body:
                    self.error(doc, here, f"a grid frame needs '{key}'", code="missing-key")
                    continue
                c = self.typed(doc, body[key], here + (key,), scope, "integer", f"grid '{key}'")
                if c is not None:
                    out.exprs[key] = c
        elif kind == "camera":
            for key in ("azimuth", "elevation", "distance"):
                if key in body:
                    c = self.typed(doc, body[key], here + (key,), scope, "number", f"camera '{key}'")
                    if c is not None:
                        out.exprs[key] = c
            if "bounds" not in body:
                self.error(doc, here, "a camera frame needs 'bounds': [[x0, y0, z0], [x1, y1, z1]] (the world box "
                                      "the picture is fitted to)", code="missing-key")
            else:
                c = self.expr(doc, body["bounds"], here + ("bounds",), scope)
                if c is not None:
                    out.exprs["bounds"] = c
        elif kind == "geo" and "bounds" in body:
            c = self.typed(doc, body["bounds"], here + ("bounds",), scope, "nums", "geo 'bounds'")
            if c is not None:
                out.exprs["bounds"] = c
        out.flags = self.options(doc, body, here, FRAME_FLAGS.get(kind, {}), kind, scope)
        return out

    def scale(self, doc, raw, loc: tuple, scope: Scope) -> CScale | None:
        raw = self.mapping(doc, raw, loc, SCALE_KEYS, "a scale")
        if raw is None:
            return None
        kinds = [k for k in SCALE_KINDS if k in raw]
        if len(kinds) != 1:
            self.error(doc, loc, "a scale names exactly one of linear: [lo, hi], log: [lo, hi] or band: LIST",
                    code="scene-shape")
            return None
        kind = kinds[0]
        want = "list" if kind == "band" else "nums"
        domain = self.typed(doc, raw[kind], loc + (kind,), scope, want, f"the {kind} scale's domain")
        if domain is None:
            return None
        s = CScale(kind, domain, self.options(doc, raw, loc, SCALE_OPTIONS, "scale", scope))
        if "padding" in raw:
            s.padding = self.typed(doc, raw["padding"], loc + ("padding",), scope, "number", "band padding")
        return s

    # -- marks --------------------------------------------------------------------------------------------------
    def mark(self, doc, raw, loc: tuple, scope: Scope) -> CMark | None:
        if not isinstance(raw, dict) or len(raw) != 1:
            self.error(doc, loc, f"a mark is written as {{KIND: {{channels}}}} with KIND one of "
                                 f"{', '.join(sorted(MARKS))}", code="scene-shape")
            return None
        (kind, body), = raw.items()
        spec = MARKS.get(kind)
        if spec is None:
            self.error(doc, loc + (kind,), f"unknown mark '{kind}' (known: {', '.join(sorted(MARKS))})", key=True,
                    code="unknown-kind")
            return None
        here = loc + (kind,)
        allowed = tuple(spec.channels) + tuple(spec.options) + MARK_META
        body = self.mapping(doc, body, here, allowed, f"a {kind} mark")
        if body is None:
            return None
        out = CMark(kind, {}, {}, where_text=str(doc.pos(here)))
        inner = scope
        if "each" in body:
            each = self.typed(doc, body["each"], here + ("each",), scope, "list", "'each'")
            if each is None:
                return None
            out.each = each
            out.as_name = self.name(doc, body, "as", here, "it")
            out.index_name = self.name(doc, body, "index", here, None)
            elem = each.type.elem if isinstance(each.type, ListT) else ANY
            extra = {out.as_name: elem}
            if out.index_name:
                extra[out.index_name] = INT
            inner = scope.child(**extra)
        elif "as" in body or "index" in body:
            self.error(doc, here, "'as' and 'index' name the items of 'each'; this mark has no 'each'",
                    code="scene-shape")
        for key, ch in spec.channels.items():
            if key not in body:
                if ch.required:
                    self.error(doc, here, f"a {kind} mark needs '{key}'", code="missing-key")
                continue
            c = self.typed(doc, body[key], here + (key,), inner, ch.kind, f"'{key}'")
            if c is not None:
                out.channels[key] = c
        out.options = self.options(doc, body, here, {**{k: words(v) for k, v in spec.options.items()},
                                                     "clear": CLEAR_OPTION}, kind, scope)
        if kind == "svg" and "d" in out.channels:
            self.svg_data(doc, body["d"], out.channels["d"], here + ("d",))
        if kind in ("icon", "object") and "name" in out.channels:
            self.asset_name(doc, body["name"], out.channels["name"], here + ("name",), kind)
        if "where" in body:
            out.where = self.typed(doc, body["where"], here + ("where",), inner, "boolean", "'where'")
        if "bind" in body:
            if body["bind"] is False or body["bind"] == "false":
                out.bind_items = False
            else:
                out.bind = self.expr(doc, body["bind"], here + ("bind",), inner)
        if "group" in body:
            out.group = self.name(doc, body, "group", here, None)
        return out

    def svg_data(self, doc, raw, c: Compiled, loc: tuple) -> None:
        """Path data written as a string literal is parsed now, so a mistake in it is an error at its position."""
        if not (isinstance(raw, str) and len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\""):
            return
        try:
            value = c.fn({"$budget": None})
        except Exception:  # noqa: BLE001 - not a plain literal after all: checked when drawn
            return
        try:
            svg_commands(value)
        except EvalError as exc:
            self.error(doc, loc, str(exc), code="value-type")

    def asset_name(self, doc, raw, c: Compiled, loc: tuple, kind: str) -> None:
        """An asset named by a string literal is looked up now: an unknown name is an error at its position, with
        the near names (a computed name is looked up when drawn)."""
        if not (isinstance(raw, str) and len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\""):
            return
        try:
            value = c.fn({"$budget": None})
        except Exception:  # noqa: BLE001 - not a plain literal after all: looked up when drawn
            return
        try:
            find_asset("mono" if kind == "icon" else "colour", value)
        except EvalError as exc:
            self.error(doc, loc, str(exc), code="unknown-asset")

    # -- guides -------------------------------------------------------------------------------------------------
    def guide(self, doc, raw, loc: tuple, scope: Scope) -> CGuide | None:
        if not isinstance(raw, dict) or len(raw) != 1:
            self.error(doc, loc, f"a guide is written as {{KIND: {{...}}}} with KIND one of {', '.join(GUIDES)}",
                    code="scene-shape")
            return None
        (kind, body), = raw.items()
        spec = GUIDES.get(kind)
        if spec is None:
            self.error(doc, loc + (kind,), f"unknown guide '{kind}' (known: {', '.join(GUIDES)})", key=True,
                    code="unknown-kind")
            return None
        here = loc + (kind,)
        allowed = tuple(spec.exprs) + tuple(spec.texts) + tuple(spec.options) + \
            (("each", "as") if spec.each else ()) + (("columns",) if kind == "table" else ())
        body = self.mapping(doc, body, here, allowed, f"a {kind} guide")
        if body is None:
            return None
        out = CGuide(kind, {}, {}, {}, where_text=str(doc.key_pos(here)))
        inner = scope
        if spec.each:
            if "each" not in body:
                self.error(doc, here, f"a {kind} guide needs 'each' (the list of entries)", code="missing-key")
                return None
            each = self.typed(doc, body["each"], here + ("each",), scope, "list", "'each'")
            if each is None:
                return None
            out.each = each
            out.as_name = self.name(doc, body, "as", here, "it")
            inner = scope.child(**{out.as_name: each.type.elem if isinstance(each.type, ListT) else ANY})
        for key, (kind_, required) in spec.exprs.items():
            if key not in body:
                if required:
                    self.error(doc, here, f"a {kind} guide needs '{key}'", code="missing-key")
                continue
            use_scope = inner if key in spec.per_entry else scope
            c = self.typed(doc, body[key], here + (key,), use_scope, kind_, f"'{key}'")
            if c is not None:
                out.exprs[key] = c
        for key in spec.texts:
            if key in body:
                out.texts[key] = self.template(doc, body[key], here + (key,), scope)
        out.options = self.options(doc, body, here, {k: words(v) for k, v in spec.options.items()}, kind, scope)
        if kind == "table":
            cols = body.get("columns")
            if not isinstance(cols, list) or not cols:
                self.error(doc, here + ("columns",), "a table needs 'columns': a list of {header, text, fill?}",
                        code="missing-key")
                return None
            for i, col in enumerate(cols):
                cl = here + ("columns", i)
                col = self.mapping(doc, col, cl, ("header", "text", "fill", "color", "weight", "width"), "a column")
                if col is None:
                    continue
                entry: dict[str, Any] = {"header": self.template(doc, col.get("header", ""), cl + ("header",),
                                                                 scope)}
                if "text" not in col:
                    self.error(doc, cl, "a table column needs 'text' (an expression over the row)", code="missing-key")
                    continue
                entry["text"] = self.typed(doc, col["text"], cl + ("text",), inner, "shown", "'text'")
                for key in ("fill", "color"):
                    if key in col:
                        entry[key] = self.typed(doc, col[key], cl + (key,), inner, "color", f"'{key}'")
                entry.update(self.options(doc, col, cl, COLUMN_OPTIONS, "column", scope))
                out.columns.append(entry)
        return out

    # -- panels -------------------------------------------------------------------------------------------------
    def panels(self, doc, raw, loc: tuple, scope: Scope, depth: int) -> CPanels | None:
        raw = self.mapping(doc, raw, loc, PANEL_KEYS, "panels")
        if raw is None:
            return None
        cols = self.typed(doc, raw["cols"], loc + ("cols",), scope, "integer", "'cols'") if "cols" in raw else None
        out = CPanels(cols, self.options(doc, raw, loc, PANEL_OPTIONS, "panels", scope), where_text=str(doc.pos(loc)))
        if ("each" in raw) == ("items" in raw):
            self.error(doc, loc, "panels take either 'each' + 'panel' (one panel per item) or 'items' (a list of "
                                 "nodes)", code="scene-shape")
            return None
        if "each" in raw:
            each = self.typed(doc, raw["each"], loc + ("each",), scope, "list", "'each'")
            if each is None:
                return None
            out.each = each
            out.as_name = self.name(doc, raw, "as", loc, "it")
            out.index_name = self.name(doc, raw, "index", loc, None)
            extra = {out.as_name: each.type.elem if isinstance(each.type, ListT) else ANY}
            if out.index_name:
                extra[out.index_name] = INT
            if "panel" not in raw:
                self.error(doc, loc, "panels with 'each' need 'panel': the node drawn for each item",
                        code="scene-shape")
                return None
            out.panel = self.node(doc, raw["panel"], loc + ("panel",), scope.child(**extra), depth + 1)
        else:
            items = raw["items"]
            if not isinstance(items, list) or not items:
                self.error(doc, loc + ("items",), "panels 'items' takes a list of nodes", code="scene-shape")
                return None
            most = out.options["max"]
            if most.fixed and len(items) > most.constant:  # else checked when drawn
                self.error(doc, loc + ("items",), f"{len(items)} panels (at most {most.constant})", code="bound")
            for i, child in enumerate(items):
                cn = self.node(doc, child, loc + ("items", i), scope, depth + 1)
                if cn is not None:
                    out.items.append(cn)
        return out

    # -- tiles --------------------------------------------------------------------------------------------------
    def tiles(self, doc, raw, loc: tuple, scope: Scope, depth: int) -> CTiles | None:
        raw = self.mapping(doc, raw, loc, TILE_KEYS, "tiles")
        if raw is None:
            return None
        missing = [k for k in ("rows", "cols", "each", "source", "scene") if k not in raw]
        if missing:
            self.error(doc, loc, f"tiles need {', '.join(missing)} (rows, cols, each: one record per slot, source: "
                                 f"the tile a slot shows, scene: the node that is cut)", code="missing-key")
            return None
        rows = self.typed(doc, raw["rows"], loc + ("rows",), scope, "integer", "'rows'")
        cols = self.typed(doc, raw["cols"], loc + ("cols",), scope, "integer", "'cols'")
        each = self.typed(doc, raw["each"], loc + ("each",), scope, "list", "'each'")
        if rows is None or cols is None or each is None:
            return None
        as_name = self.name(doc, raw, "as", loc, "it")
        inner = scope.child(**{as_name: each.type.elem if isinstance(each.type, ListT) else ANY})
        source = self.typed(doc, raw["source"], loc + ("source",), inner, "integer", "'source'")
        turn = self.typed(doc, raw["turn"], loc + ("turn",), inner, "integer", "'turn'") if "turn" in raw else None
        label = self.typed(doc, raw["label"], loc + ("label",), inner, "shown", "'label'") if "label" in raw else None
        slot_cols = (self.typed(doc, raw["slot_cols"], loc + ("slot_cols",), scope, "integer", "'slot_cols'")
                     if "slot_cols" in raw else None)
        options = self.options(doc, raw, loc, TILE_OPTIONS, "tiles", scope)
        scene = self.node(doc, raw["scene"], loc + ("scene",), scope, depth + 1)
        if source is None or scene is None or any(k in raw and v is None for k, v in
                                                  (("turn", turn), ("label", label), ("slot_cols", slot_cols))):
            return None
        return CTiles(rows, cols, each, source, turn, scene, as_name, label, slot_cols, options, str(doc.pos(loc)))

    # -- components ---------------------------------------------------------------------------------------------
    def use(self, doc, raw: dict, loc: tuple, scope: Scope, depth: int) -> CUse | None:
        from .component import compile_use

        return compile_use(self, doc, raw, loc, scope, depth)


def _const(value) -> Compiled:
    return Compiled(STR, lambda env: value, repr(value))


def _is_pos(t: Type | None) -> bool:
    """A point's coordinate: a number, or a category of a band scale (x = attribute in a radar's polar frame)."""
    return t is not None and (is_numeric(t) or t == STR)


def _kind_problem(kind: str, t: Type) -> str | None:
    if t == ANY:
        return None
    ok = {
        "number": is_numeric(t),
        "integer": t == INT,
        "boolean": t == BOOL,
        "string": t == STR,
        "color": t == STR,
        "palette": t == STR,
        "shown": t in (STR, INT, FLOAT, BOOL),
        "pos": t in (INT, FLOAT, STR),
        "list": isinstance(t, ListT),
        "nums": isinstance(t, ListT) and is_numeric(t.elem),
        "points": isinstance(t, ListT) and (
            t.elem == ANY or (isinstance(t.elem, RecordT) and _is_pos(t.elem.field("x"))
                              and _is_pos(t.elem.field("y")))
            or (isinstance(t.elem, ListT) and is_numeric(t.elem.elem))),
        "points3": isinstance(t, ListT) and (
            t.elem == ANY or (isinstance(t.elem, RecordT) and all(is_numeric(t.elem.field(k) or BOOL) for k in "xyz"))
            or (isinstance(t.elem, ListT) and is_numeric(t.elem.elem))),
        "any": True,
    }.get(kind)
    if ok is None:
        raise ValueError(f"unknown channel kind {kind}")
    if ok:
        return None
    want = {
        "number": "a number", "integer": "an integer", "boolean": "a boolean", "string": "a string", "color": "a "
        "colour (a name such as red, a theme role such as ink, or '#rrggbb')", "palette": "a palette name ("
        + ", ".join(PALETTES) + ")", "shown": "a string or a number",
        "pos": "a number or a category", "list": "a list", "nums": "a list of numbers",
        "points": "a list of points (records with x and y, or [x, y] pairs)",
        "points3": "a list of 3-D points (records with x, y and z, or [x, y, z] triples)",
    }[kind]
    return f"must be {want}, got {t}"


def accepts_kind(kind: str, t: Type) -> bool:
    return _kind_problem(kind, t) is None


__all__ = ["SceneCompiler", "CNode", "CTiles", "CMark", "CGuide", "CFrame", "CScale", "CPanels", "CUse", "accepts_kind"]
