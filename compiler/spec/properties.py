"""Every key of the scene language as one row: name, value kind, how the YAML value is read (its form), required,
default, listed words and a description. Marks and guides come from their registries (spec.marks, spec.guides);
the keys of scene nodes, frames, scales, panels, tiles and table columns are declared here. The reference pages
(compiler/reference.py → docs/reference/) and the JSON Schemas (compiler/schema/) are written from these rows, and
tests/test_reference.py checks that every key the scene compiler (codegen/scene.py) accepts is one of them.

Whether a key takes an expression is decided by ONE function, `takes_expression`, from the row's form: a rule of
the language, not a per-key note in the docs. Skia-free, like the rest of spec."""
from __future__ import annotations

from dataclasses import dataclass

from .geo import PROJECTION_WORDS
from .guides import GUIDES, GuideKind
from .marks import COMMON, MARKS, MarkSpec

# The value kinds of channels and keys (spec.marks.Channel.kind, spec.guides exprs): what a value must evaluate to,
# and the JSON types a YAML value of that kind may have (an expression is written as a string, a constant as itself).
EXPR_JSON = ("string", "number", "boolean")
VALUE_KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "pos": ("a number, or a category of a band scale (frame units)", ("number", "string")),
    "number": ("a number", ("number", "string")),
    "integer": ("an integer", ("integer", "string")),
    "string": ("a string", EXPR_JSON),
    "shown": ("anything shown as text: a string, number or boolean", EXPR_JSON),
    "palette": ("a palette name (a bare listed name, or an expression giving one)", ("string",)),
    "color": ("a colour: a colour word, '#rrggbb' or a theme role", ("string",)),
    "boolean": ("a boolean", ("boolean", "string")),
    "points": ("a list of points: [x, y] pairs or records with x and y", ("string",)),
    "points3": ("a list of 3-D points: records with x, y and z", ("string",)),
    "nums": ("a list of numbers", ("string",)),
    "list": ("a list", ("string",)),
    "any": ("any value", EXPR_JSON),
}

# How a key's YAML value is read. Only `expression` takes an expression (takes_expression); the rest are read as
# written.
FORMS: dict[str, str] = {
    "expression": "an expression over the names in scope; a YAML number or boolean is that constant, and a bare "
                  "colour word in a colour channel is that colour",
    "expressions": "a list of expressions, one per item",
    "template": "a jinja template: literal text with {{ expr }} holes",
    "word": "one of the listed words (YAML booleans for true/false options), or an expression giving one, worked out "
            "once per node",
    "number": "a YAML number within the stated bounds, or an expression giving one, worked out once per node",
    "name": "a lowercase name that the key binds (or names)",
    "node": "a scene node",
    "nodes": "a list of scene nodes",
    "marks": "a list of marks, each {KIND: {channels}}",
    "guides": "a list of guides, each {KIND: {...}}",
    "frame": "a frame: {KIND: {...}} (or the bare KIND when it has no keys)",
    "scale": "a scale: a mapping naming exactly one of linear, log or band",
    "panels": "panels: a mapping (see Panels)",
    "tiles": "tiles: a mapping (see Tiles)",
    "columns": "a list of table columns (see Table columns)",
    "lets": "a mapping of new names to expressions, each in scope for the ones after it",
    "arguments": "a mapping of component parameters to values (expressions, or templates for template parameters)",
    "bind": "an expression (the scene object the mark is bound to) or false (not bound)",
    "inset": "pixels as a YAML number, [vertical, horizontal] or [top, right, bottom, left]; or an expression (a "
             "string) giving the same",
    "reserved": "accepted and not read",
}


@dataclass(frozen=True)
class Property:
    name: str
    type: str  # a VALUE_KINDS word, or what the form holds ("list of nodes", "word", ...)
    form: str  # a FORMS key
    required: bool = False
    default: object = None
    words: tuple = ()  # the listed words of a `word` form (the first is the default)
    description: str = ""
    bounds: tuple[float, float] | None = None  # a `number` form's [lo, hi]


def takes_expression(p: Property) -> bool:
    """Whether the key's value is an expression over the names in scope (else it is read as written)."""
    return p.form in ("expression", "expressions", "bind", "inset", "word", "number")


def expression_column(p: Property) -> str:
    """The reference tables' "Expression?" cell: yes, template (a jinja template with {{ }} holes) or no."""
    if takes_expression(p):
        return "yes"
    return "template" if p.form == "template" else "no"


def _p(name, type_, form, required=False, default=None, description="", words=(), bounds=None) -> Property:
    if form == "word" and default is None and words:
        default = words[0]
    return Property(name, type_, form, required, default, tuple(words), description, bounds)


# -- marks and guides: from their registries ------------------------------------------------------------------------
_COMMON_CHANNELS = {
    "fill": "fill colour (none when unset)", "stroke": "outline colour (none when unset)",
    "stroke_width": "outline width in pixels", "opacity": "0 (invisible) to 1 (opaque)",
    "z": "drawing order: larger z is drawn later, over smaller", "dx": "shift right by this many pixels",
    "dy": "shift down by this many pixels",
}
_COMMON_OPTION_TEXT = {"sizes": "`px`: sizes are pixels; `frame`: sizes are frame units"}

MARK_META: tuple[Property, ...] = (
    _p("each", "list", "expression", description="draw the mark once per item of this list"),
    _p("as", "name", "name", default="it", description="the name of the current item of `each`"),
    _p("index", "name", "name", description="a name for the item's 0-based position in `each`"),
    _p("where", "boolean", "expression", description="draw only where this holds (per item of `each`)"),
    _p("bind", "any", "bind", description="the state object this mark shows (for render maps, tools and "
                                          "witnesses); false: not bound"),
    _p("group", "name", "name", description="a group name: texts are kept clear of their group's other marks"),
    _p("clear", "word", "word", words=(False, True, "prefer"),
       description="text: move to a spot clear of strokes (true), or prefer one when it exists (prefer)"),
    _p("key", "any", "reserved", description="reserved"),
)


def mark_properties(spec: MarkSpec) -> list[Property]:
    """A mark's channels (expressions), options (words) and the keys every mark takes."""
    out = [Property(name, ch.kind, "expression", ch.required, ch.default,
                    description=_COMMON_CHANNELS[name] if COMMON.get(name) is ch else "")
           for name, ch in spec.channels.items()]
    out += [_p(name, "word", "word", words=words, description=_COMMON_OPTION_TEXT.get(name, ""))
            for name, words in spec.options.items()]
    return out + list(MARK_META)


GUIDE_EACH: tuple[Property, ...] = (
    _p("each", "list", "expression", True, description="the entries, one swatch or row each"),
    _p("as", "name", "name", default="it", description="the name of the current entry"),
)
GUIDE_TEXT = {"title": "a heading", "prefix": "text before every tick label", "suffix": "text after every tick label"}
TABLE_COLUMN: tuple[Property, ...] = (
    _p("header", "string", "template", default="", description="the column's header"),
    _p("text", "shown", "expression", True, description="the cell's text, over the row (`as`)"),
    _p("fill", "color", "expression", description="the cell's background"),
    _p("color", "color", "expression", description="the cell's text colour"),
    _p("weight", "word", "word", words=("normal", "bold"), description="the cell's font weight"),
    _p("width", "number", "number", default=1.0, bounds=(0.05, 20.0),
       description="relative width of the column"),
)


def guide_properties(spec: GuideKind) -> list[Property]:
    out = [Property(name, kind, "expression", required,
                    description="per entry of `each`" if name in spec.per_entry else "")
           for name, (kind, required) in spec.exprs.items()]
    out += [_p(name, "string", "template", description=GUIDE_TEXT.get(name, "")) for name in spec.texts]
    out += [_p(name, "word", "word", words=words) for name, words in spec.options.items()]
    if spec.each:
        out += list(GUIDE_EACH)
    if spec.name == "table":
        out.append(_p("columns", "list of columns", "columns", True, description="the table's columns"))
    return out


# -- scene nodes, frames, scales, panels, tiles: declared here ---------------------------------------------------
NODE: tuple[Property, ...] = (
    _p("let", "mapping", "lets", description="named values for this node and the nodes inside it"),
    _p("region", "list of 4 numbers", "expressions",
       description="[x0, y0, x1, y1]: the part of the parent's box this node draws in (fractions, y down)"),
    _p("inset", "number or list", "inset", description="a margin inside the region, in pixels"),
    _p("frame", "frame", "frame", description="the coordinate frame of the marks and guides (see Frames)"),
    _p("background", "color", "expression", description="fill of the node's box"),
    _p("title", "string", "template", description="a heading over the node"),
    _p("caption", "string", "template", description="a line under the node"),
    _p("guides", "list of guides", "guides", description="axes, legends, ramps and tables"),
    _p("marks", "list of marks", "marks", description="what is drawn, in order"),
    _p("layers", "list of nodes", "nodes", description="child nodes drawn over this one, sharing its box"),
    _p("panels", "panels", "panels", description="child nodes laid out in a grid (see Panels)"),
    _p("tiles", "tiles", "tiles", description="a node cut into tiles and shown shuffled or turned (see Tiles)"),
    _p("use", "name", "name", description="a component (components/NAME.yaml) drawn here"),
    _p("with", "mapping", "arguments", description="the component's parameters"),
)

FRAMES: dict[str, tuple[Property, ...]] = {
    "canvas": (),
    "cartesian": (
        _p("x", "scale", "scale", True, description="the horizontal scale"),
        _p("y", "scale", "scale", True, description="the vertical scale"),
        _p("y_down", "word", "word", words=(False, True), description="y grows downward"),
    ),
    "plane": (
        _p("x", "nums", "expression", True, description="[lo, hi]: the x range shown, in equal units with y"),
        _p("y", "nums", "expression", True, description="[lo, hi]: the y range shown"),
    ),
    "polar": (
        _p("theta", "scale", "scale", default="{linear: '[0, 360]', nice: false}",
           description="the angle scale, over the sweep"),
        _p("r", "scale", "scale", default="{linear: '[0, 1]', nice: false}", description="the radius scale"),
        _p("start", "number", "expression", description="the angle of theta's low end, in degrees"),
        _p("clockwise", "word", "word", words=(True, False), description="theta grows clockwise"),
        _p("inner", "number", "expression", description="the inner radius, as a fraction of the outer (a ring)"),
        _p("sweep", "number", "expression", description="degrees the theta scale spans"),
    ),
    "grid": (
        _p("rows", "integer", "expression", True, description="number of rows of cells"),
        _p("cols", "integer", "expression", True, description="number of columns of cells"),
        _p("hex", "word", "word", words=(False, True), description="hexagonal cells (offset rows)"),
    ),
    "camera": (
        _p("projection", "word", "word", words=("isometric", "orthographic", "perspective"),
           description="how 3-D points are projected"),
        _p("azimuth", "number", "expression", description="turn of the view about the vertical axis, in degrees"),
        _p("elevation", "number", "expression", description="height of the view above the ground plane, in degrees"),
        _p("distance", "number", "expression", description="distance of a perspective eye from the centre"),
        _p("bounds", "list", "expression", True,
           description="[[x0, y0, z0], [x1, y1, z1]]: the world box the picture is fitted to"),
    ),
    "geo": (
        _p("projection", "word", "word", words=PROJECTION_WORDS,
           description="how longitude/latitude become the plane: equirectangular, mercator (conformal) or "
                       "equal_area (Lambert cylindrical: equal areas stay equal)"),
        _p("bounds", "nums", "expression", default="[-180, -90, 180, 90]",
           description="[lon0, lat0, lon1, lat1]: the part of the globe fitted to the box (equal scale both ways)"),
    ),
}
FRAME_SUMMARY = {
    "canvas": "pixels of the node's box, y down (the default)",
    "cartesian": "x and y scales (linear, log or band) over the box",
    "plane": "equal units on both axes (a geometry figure), y up",
    "polar": "angle theta and radius r around the box's centre",
    "grid": "rows × cols cells (x = column, y = row); `cell` marks fill them",
    "camera": "a 3-D view of world coordinates; the 3-D marks draw in it",
    "geo": "a map: x is longitude, y latitude (degrees), projected and fitted to the box; `map_region` marks draw "
           "vendored shapes in it",
}

SCALE: tuple[Property, ...] = (
    _p("linear", "nums", "expression", description="[lo, hi]: a linear scale's domain (exactly one of linear, log, "
                                                   "band)"),
    _p("log", "nums", "expression", description="[lo, hi]: a logarithmic scale's domain"),
    _p("band", "list", "expression", description="the categories of a band scale, in order"),
    _p("nice", "word", "word", words=(True, False), description="round the domain out to tick steps"),
    _p("zero", "word", "word", words=(False, True), description="extend the domain to include 0"),
    _p("ticks", "integer", "number", default=6, bounds=(2, 30), description="about how many ticks"),
    _p("padding", "number", "expression", description="band scale: the gap between bands, as a fraction"),
)

PANELS: tuple[Property, ...] = (
    _p("each", "list", "expression", description="one panel per item (with `panel`; or give `items`)"),
    _p("as", "name", "name", default="it", description="the name of the current item"),
    _p("index", "name", "name", description="a name for the item's 0-based position"),
    _p("cols", "integer", "expression", description="panels per row (default: a near-square grid)"),
    _p("gap", "number", "number", default=8.0, bounds=(0.0, 400.0), description="pixels between panels"),
    _p("panel", "node", "node", description="the node drawn for each item of `each`"),
    _p("items", "list of nodes", "nodes", description="the panels as a list of nodes (instead of each + panel)"),
    _p("max", "integer", "number", default=64, bounds=(1, 256), description="the most panels drawn"),
)

TILES: tuple[Property, ...] = (
    _p("rows", "integer", "expression", True, description="rows of tiles the scene is cut into"),
    _p("cols", "integer", "expression", True, description="columns of tiles"),
    _p("each", "list", "expression", True, description="one record per slot shown"),
    _p("as", "name", "name", default="it", description="the name of the current slot record"),
    _p("source", "integer", "expression", True, description="per slot: the tile it shows (row * cols + col)"),
    _p("turn", "integer", "expression", description="per slot: quarter turns of its tile"),
    _p("label", "shown", "expression", description="per slot: a label drawn on it"),
    _p("slot_cols", "integer", "expression", description="slots per row (default: cols)"),
    _p("gap", "number", "number", default=4.0, bounds=(0.0, 64.0), description="pixels between slots"),
    _p("scene", "node", "node", True, description="the node that is cut into tiles"),
)


def all_mark_properties() -> dict[str, list[Property]]:
    return {name: mark_properties(MARKS[name]) for name in sorted(MARKS)}


def all_guide_properties() -> dict[str, list[Property]]:
    return {name: guide_properties(GUIDES[name]) for name in GUIDES}
