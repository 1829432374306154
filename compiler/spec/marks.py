"""The marks of the scene language: each mark's channels (name, value kind, required, default), its constant
options (allowed values, the first is the default), a one-line summary, and whether a 3-D camera frame draws it in
a batch. Skia-free: the type checker (codegen/scene.py) checks a scene against this table, the renderer
(render/marks.py, render/marks3d.py) binds one draw function to each name, and tests/test_layers.py checks that
every mark declared here is drawn there.

Positions (`x`, `y`, `x2`, `y2`, `points`) are in frame units; sizes (`r`, `size`, `width`, ...) are pixels unless
the mark says `sizes: frame`. Channel kinds (the type words of docs/AUTHORING.md): pos (number or category), number,
integer, string, shown (anything shown as text: a string, number or boolean), color, palette, boolean, points,
points3, nums (a list of numbers), list, any.
"""
from __future__ import annotations

from dataclasses import dataclass

from .geo import SETS


@dataclass(frozen=True)
class Channel:
    kind: str  # pos (number or category), number, integer, string, shown (anything shown as text), color, boolean, ...
    required: bool = False
    default: object = None


@dataclass(frozen=True)
class MarkSpec:
    name: str
    channels: dict[str, Channel]
    options: dict[str, tuple]  # word options: name → allowed words (first is the default); spec.options.words
    summary: str
    batch: str | None = None  # "solid" / "overlay": a 3-D mark its frame draws in one batch (render/camera.py)


# Channels every mark has.
COMMON = {
    "fill": Channel("color"), "stroke": Channel("color"), "stroke_width": Channel("number", default=1.0),
    "opacity": Channel("number", default=1.0), "z": Channel("number", default=0.0),
    "dx": Channel("number", default=0.0), "dy": Channel("number", default=0.0),
}
COMMON_OPTIONS = {"sizes": ("px", "frame")}

MARKS: dict[str, MarkSpec] = {}


def _declare(name: str, channels: dict, options: dict | None = None, summary: str = "", batch: str | None = None):
    MARKS[name] = MarkSpec(name, {**COMMON, **channels}, {**COMMON_OPTIONS, **(options or {})}, summary, batch)


SECTOR_CHANNELS = {
    "x": Channel("pos", True), "y": Channel("pos"), "x2": Channel("pos"), "y2": Channel("pos"),
    "r": Channel("number"), "r_inner": Channel("number"), "start": Channel("number"), "end": Channel("number"),
}
SOLID_OPTIONS = {"occluded": ("allow", "redraw")}

_declare("rect", {"x": Channel("pos", True), "y": Channel("pos", True), "x2": Channel("pos"), "y2": Channel("pos"),
                  "width": Channel("number"), "height": Channel("number"), "corner": Channel("number", default=0.0),
                  "dash": Channel("nums")},
         options={"anchor": ("corner", "center")},
         summary="a box: from (x, y) to (x2, y2), a category's band, or width × height at (x, y); corner radius")

_declare("circle", {"x": Channel("pos", True), "y": Channel("pos", True), "r": Channel("number", default=5.0),
                    "dash": Channel("nums")},
         summary="a disc of radius r around (x, y)")

_declare("ellipse", {"x": Channel("pos", True), "y": Channel("pos", True), "rx": Channel("number", True),
                     "ry": Channel("number", True), "rotate": Channel("number", default=0.0)},
         summary="an ellipse with radii rx, ry around (x, y), turned by rotate degrees")

_declare("wedge", SECTOR_CHANNELS,
         summary="a pie or ring sector: in a polar frame from angle x to x2 and radius y to y2; elsewhere around "
                 "(x, y) with r, r_inner and start/end degrees")

_declare("arc", {**SECTOR_CHANNELS, "dash": Channel("nums")}, options={"arrow": ("none", "end", "start", "both")},
         summary="an open circular arc, same geometry channels as wedge (the outer radius), optional arrowheads")

_declare("ellipse_arc", {"x": Channel("pos", True), "y": Channel("pos", True), "rx": Channel("number", True),
                         "ry": Channel("number", True), "rotate": Channel("number", default=0.0),
                         "start": Channel("number", default=0.0), "end": Channel("number", default=360.0),
                         "dash": Channel("nums"), "head": Channel("number")},
         options={"arrow": ("none", "end", "start", "both")},
         summary="an open arc of the ellipse with radii rx, ry around (x, y) turned by rotate degrees, from angle "
                 "start to end (degrees of the ellipse's own parameter, measured as `arc`'s), optional arrowheads")

_declare("segments", {"segments": Channel("any", True), "dash": Channel("nums")},
         options={"cap": ("butt", "round")},
         summary="many straight segments drawn as one stroke: `segments` is a list of [x, y, x2, y2] (or records with "
                 "x, y, x2, y2) in frame units — grid lines, ticks, walls, hatching")

_declare("line", {"x": Channel("pos", True), "y": Channel("pos", True), "x2": Channel("pos", True),
                  "y2": Channel("pos", True), "dash": Channel("nums"), "trim": Channel("number", default=0.0),
                  "trim2": Channel("number", default=0.0), "offset": Channel("number", default=0.0),
                  "head": Channel("number")},
         options={"arrow": ("none", "end", "start", "both"), "cap": ("butt", "round")},
         summary="a straight segment from (x, y) to (x2, y2); dash [on, off], arrowheads at either end; `trim` / "
                 "`trim2` shorten it by pixels at the start / end (edges that stop at a node's rim), `offset` shifts "
                 "it sideways by pixels (to the right of its direction: two-way arrows stay apart)")

_declare("polyline", {"points": Channel("points", True), "dash": Channel("nums"), "head": Channel("number")},
         options={"arrow": ("none", "end", "start", "both"), "cap": ("butt", "round")},
         summary="a stroke through points in order")

_declare("polygon", {"points": Channel("points", True), "dash": Channel("nums")},
         summary="a closed polygon through points (fill and/or stroke)")

_declare("path", {"points": Channel("points", True), "dash": Channel("nums")},
         options={"curve": ("catmull", "bezier"), "closed": (False, True), "arrow": ("none", "end", "start", "both")},
         summary="a smooth curve: a Catmull-Rom spline through the points, or cubic Béziers (controls given)")

_declare("svg", {"d": Channel("string", True), "x": Channel("pos", True), "y": Channel("pos", True),
                 "x2": Channel("pos", True), "y2": Channel("pos", True), "flip": Channel("boolean", default=False),
                 "dash": Channel("nums")},
         summary="SVG path data `d` (M L H V C S Q T A Z, absolute or relative) written in a 100 × 100 view box "
                 "(y down) and fitted into the box from (x, y) to (x2, y2) in frame units; `flip` mirrors it left to "
                 "right (a sprite that faces the other way); filled and/or stroked")

_declare("text", {"x": Channel("pos", True), "y": Channel("pos", True), "text": Channel("shown", True),
                  "size": Channel("number", default=13.0), "rotate": Channel("number", default=0.0),
                  "fit": Channel("number"), "wrap": Channel("number"), "height": Channel("number"),
                  "color": Channel("color"), "spots": Channel("points")},
         options={"anchor": ("middle", "start", "end"), "baseline": ("middle", "top", "bottom"),
                  "weight": ("normal", "bold"), "halo": (False, True)},
         summary="text at (x, y): size, weight, anchor, baseline, rotation; `fit` shrinks it to a width, `wrap` "
                 "breaks it into lines of a width (and `height` shrinks the block to fit); `spots` lists other "
                 "anchor points to try, in order, when the text at (x, y) would be crossed (`clear`), touch its "
                 "`group` or leave the canvas")

_declare("glyph", {"x": Channel("pos", True), "y": Channel("pos", True), "shape": Channel("string", True),
                   "size": Channel("number", default=10.0), "angle": Channel("number", default=0.0)},
         summary="a shape glyph (circle, square, triangle, diamond, pentagon, hexagon, star) or a pictogram "
                 "(house, tree, car, ...) of radius `size` at (x, y); fill is the colour, stroke the outline")

ASSET_CHANNELS = {"name": Channel("string", True), "x": Channel("pos", True), "y": Channel("pos", True),
                  "size": Channel("number", default=12.0), "rotate": Channel("number", default=0.0),
                  "flip": Channel("boolean", default=False)}

_declare("icon", ASSET_CHANNELS,
         summary="a monochrome icon of the asset library (docs/assets.md; `icons(tag)` lists names) by `name`, "
                 "filled with `fill` (default: the theme's ink) and outlined by `stroke`, in a square of half-side "
                 "`size` centred at (x, y) (as a glyph's radius); turned clockwise by `rotate` degrees, mirrored "
                 "left to right by `flip`")

_declare("object", ASSET_CHANNELS,
         summary="a coloured object of the asset library (docs/assets.md; `objects(tag)` lists names) by `name`, "
                 "in its own colours (fill and stroke are not used), in a square of half-side `size` centred at "
                 "(x, y); turned clockwise by `rotate` degrees, mirrored left to right by `flip`")

_declare("angle", {"x": Channel("pos", True), "y": Channel("pos", True), "from": Channel("number", True),
                   "to": Channel("number", True), "r": Channel("number", default=18.0)},
         options={"square": (True, False)},
         summary="the arc marking an angle at vertex (x, y) between directions `from` and `to` (frame degrees, "
                 "counter-clockwise in y-up frames); a right angle is drawn as a small square")

_declare("cell", {"x": Channel("integer", True), "y": Channel("integer", True), "inset": Channel("number", default=0.0),
                  "corner": Channel("number", default=0.0)},
         summary="the cell at column x, row y of a grid frame (a square, or a hexagon in a hex grid), inset by px")

_declare("map_region", {"id": Channel("string", True)}, options={"set": SETS},
         summary="a vendored map region drawn by id (a country's ISO alpha-3 code such as 'FRA', a US state's FIPS "
                 "code) from the set `set` (compiler/assets/geo; `map_regions()` lists them), its longitude/latitude "
                 "points placed by the frame (a geo frame projects them and clips to its box); fill and stroke")

# -- 3-D marks: a camera frame draws them together (render/marks3d.py, render/camera.py) --------------------
_declare("box", {"x": Channel("number", True), "y": Channel("number", True), "z": Channel("number", default=0.0),
                 "dx": Channel("number", default=1.0), "dy": Channel("number", default=1.0),
                 "dz": Channel("number", default=1.0)},
         options=SOLID_OPTIONS, batch="solid",
         summary="an axis-aligned box from corner (x, y, z) with sizes dx, dy, dz (world units, default 1)")

_declare("prism", {"points": Channel("points", True), "z": Channel("number", default=0.0),
                   "height": Channel("number", True)},
         options=SOLID_OPTIONS, batch="solid",
         summary="a vertical prism over a base polygon (points in x, y) from z up by height")

_declare("cylinder", {"x": Channel("number", True), "y": Channel("number", True), "z": Channel("number", default=0.0),
                      "r": Channel("number", default=0.5), "height": Channel("number", default=1.0)},
         options=SOLID_OPTIONS, batch="solid",
         summary="an upright cylinder with axis at (x, y), radius r, from z up by height (world units)")

_declare("sphere", {"x": Channel("number", True), "y": Channel("number", True), "z": Channel("number", default=0.0),
                    "r": Channel("number", default=0.5)},
         options=SOLID_OPTIONS, batch="solid",
         summary="a sphere of radius r centred at (x, y, z) (world units; z: r rests it on the ground), 32 × 16 facets")

_declare("cone", {"x": Channel("number", True), "y": Channel("number", True), "z": Channel("number", default=0.0),
                  "r": Channel("number", default=0.5), "height": Channel("number", default=1.0)},
         options=SOLID_OPTIONS, batch="solid",
         summary="an upright cone with axis at (x, y), base radius r at z, apex height above (32 side facets)")

_declare("torus", {"x": Channel("number", True), "y": Channel("number", True), "z": Channel("number", default=0.0),
                   "r": Channel("number", default=0.5), "r_inner": Channel("number", default=0.25)},
         options=SOLID_OPTIONS, batch="solid",
         summary="a ring lying flat around the vertical axis through (x, y), its tube centred at height z: outer "
                 "radius r, hole radius r_inner < r (tube radius (r − r_inner)/2), 32 × 12 facets")

_declare("pyramid", {"x": Channel("number", True), "y": Channel("number", True), "z": Channel("number", default=0.0),
                     "size": Channel("number", default=1.0), "height": Channel("number", default=1.0)},
         options=SOLID_OPTIONS, batch="solid",
         summary="a square pyramid: base of side `size` centred at (x, y) at z, apex height above (world units)")

_declare("face", {"points3": Channel("points3", True)},
         options=SOLID_OPTIONS, batch="solid",
         summary="one flat polygon through 3-D points (records with x, y, z), seen from both sides")

_TEXT = MARKS["text"]
_declare("text3", {**{k: c for k, c in _TEXT.channels.items() if k not in COMMON or k in ("dx", "dy")},
                   "x": Channel("number", True), "y": Channel("number", True), "z": Channel("number", default=0.0)},
         options={k: o for k, o in _TEXT.options.items() if k != "sizes"}, batch="overlay",
         summary="text at world point (x, y, z), drawn over the 3-D solids of its camera frame; channels and "
                 "options as `text`, dx/dy are pixel offsets")
