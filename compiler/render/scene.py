"""Render a state through its grammar's scene, then check legibility of the answer-bearing marks."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..codegen.grammar import CompiledGrammar
from ..expr.compile import Budget
from ..expr.lib_place import PlacementFailed
from .backgrounds import MIN_MARK_CONTRAST, MIN_TEXT_RATIO, mark_is_hidden, text_is_hidden
from .compose import render_composed
from .painter import Painter
from .png import encode_png
from .theme import pick_theme

MIN_MARK_PX = 2.0
GAP_PX = 1.0  # answer-bearing marks of one group keep at least this much clear space between them


from .marks import RenderRejected  # noqa: E402  (re-exported: trace/instance.py catches it)


@dataclass
class RenderResult:
    png: bytes
    render_map: dict[str, dict]
    decisions: dict
    rgb: object = None  # the pixels the PNG encodes (numpy, height × width × 4, RGBA), kept for gates and hashes


def render_scene(grammar: CompiledGrammar, state: dict, level: int, vocab: dict, rng, paths: dict[int, str],
                 scale: float = 1.0, budget: Budget | None = None, variety: str = "none") -> RenderResult:
    theme = pick_theme(rng, variety)
    env = {**state, "level": level, "vocab": vocab, "$budget": budget if budget is not None else Budget(),
           "$rng": rng}
    if grammar.fonts is not None:
        env["$fonts"] = grammar.fonts
    env.setdefault("canvas", {"width": grammar.width, "height": grammar.height})
    painter = Painter(grammar.width, grammar.height, theme, paths, scale)
    try:
        decisions = render_composed(grammar.scene, painter, paths, env)
    except PlacementFailed as exc:
        # A placement operator found no legible arrangement from this render stream: draw again.
        raise RenderRejected(f"{exc}: placement") from None
    _check_legibility(painter)
    rgb = painter.pixels()
    if painter.backdrop is not None:
        _check_contrast(painter, rgb)
    return RenderResult(encode_png(rgb), painter.render_map,
                        {"theme": theme.to_trace(), "marks": painter.marks, **decisions}, rgb)


def _check_legibility(p: Painter) -> None:
    for path, entry in p.render_map.items():
        x0, y0, x1, y1 = entry["bbox"]
        if x0 < -0.5 or y0 < -0.5 or x1 > p.pixel_width + 0.5 or y1 > p.pixel_height + 0.5:
            raise RenderRejected(f"{path} falls outside the canvas")
        if x1 - x0 < MIN_MARK_PX or y1 - y0 < MIN_MARK_PX:
            raise RenderRejected(f"{path} is smaller than {MIN_MARK_PX} px")
    for group, marks in p.no_overlap_groups.items():
        marks = sorted(marks, key=lambda m: m[1][0])
        for i, (pa, a, ca) in enumerate(marks):
            for pb, b, cb in marks[i + 1:]:
                if b[0] >= a[2] + GAP_PX:
                    break  # sorted by left edge: nothing further right can touch a
                if ca and cb:
                    touching = math.hypot(ca[0] - cb[0], ca[1] - cb[1]) < ca[2] + cb[2] + GAP_PX
                else:
                    touching = a[0] < b[2] + GAP_PX and b[0] < a[2] + GAP_PX and a[1] < b[3] + GAP_PX and \
                        b[1] < a[3] + GAP_PX
                if touching:
                    raise RenderRejected(f"{pa} and {pb} overlap")


def _check_contrast(p: Painter, rgb) -> None:
    """With variety: every answer-bearing mark and every text must stand clear of what is behind it (the theme's
    background and texture for marks, whatever was drawn under it for text), measured on the pixels."""
    for text, ratio in p.text_contrast:
        if text_is_hidden(ratio):
            raise RenderRejected(f"text '{text[:30]}' has contrast ratio {ratio:.2f} < {MIN_TEXT_RATIO:g} against "
                                 f"what is behind it: contrast")
    for path, entry in p.render_map.items():
        if mark_is_hidden(rgb, p.backdrop, entry["bbox"]):
            raise RenderRejected(f"{path} does not stand {MIN_MARK_CONTRAST:g} clear of the background (as it "
                                 f"would on white): contrast")
