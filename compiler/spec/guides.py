"""The guides of the scene language (axis, legend, ramp, table): their expression keys (value kind, required), text
keys (templates), word options (allowed words, the first is the default; spec.options.words), whether they take `each`. Skia-free:
the type checker (codegen/scene.py) checks a scene against this table; render/guides.py draws them."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GuideKind:
    name: str
    exprs: dict[str, tuple[str, bool]]  # key → (channel kind, required)
    texts: tuple[str, ...]
    options: dict[str, tuple]
    each: bool = False
    per_entry: frozenset = frozenset()  # exprs evaluated once per entry of `each`
    summary: str = ""


GUIDES: dict[str, GuideKind] = {
    "axis": GuideKind("axis", {"values": ("list", False), "size": ("number", False)}, ("title", "prefix", "suffix"),
                      {"scale": ("x", "y"), "side": ("auto", "bottom", "top", "left", "right"),
                       "grid": (False, True), "labels": (True, False), "line": (True, False),
                       "shape": ("circle", "polygon")},
                      summary="ticks and labels of a frame's x or y scale (polar: rim labels / radial rings)"),
    "legend": GuideKind("legend", {"label": ("shown", True), "color": ("color", True), "size": ("number", False)},
                        ("title",), {"side": ("right", "top", "bottom", "left"),
                                     "shape": ("square", "circle", "line")},
                        each=True, per_entry=frozenset({"label", "color"}),
                        summary="categorical swatches, one per entry of `each`, with labels"),
    "ramp": GuideKind("ramp", {"domain": ("nums", True), "palette": ("palette", False), "size": ("number", False)},
                      ("title",), {"side": ("right", "bottom")},
                      summary="a sequential colour ramp from a palette over [lo, hi], with ticks"),
    "table": GuideKind("table", {"size": ("number", False), "header_fill": ("color", False)}, (),
                       {"header": (True, False), "lines": ("rows", "grid", "none")},
                       each=True, summary="a table: a header and one row per entry, cell text fitted"),
}
