"""Render a state through its grammar's scene, then check legibility of the answer-bearing marks."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..codegen.grammar import CompiledGrammar
from ..expr.compile import Budget
from ..expr.lib_place import PlacementFailed
from ..expr.stack import with_headroom
from .backgrounds import MIN_MARK_CONTRAST, MIN_TEXT_RATIO, mark_is_hidden, text_is_hidden
from .compose import render_composed
from .painter import Painter
from .png import encode_png
from .raster import apply_edits_to_file, draw_edits, keep_colour_words, strength_for
from .theme import pick_theme
from .work import STROKE_STEPS

MIN_MARK_PX = 2.0
GAP_PX = 1.0  # answer-bearing marks of one group keep at least this much clear space between them


from .marks import RenderRejected  # noqa: E402  (re-exported: trace/loop.py catches it)


@dataclass
class RenderResult:
    png: bytes  # the picture's file: a PNG, or a JPEG under variety strong (render.png.image_format tells which)
    render_map: dict[str, dict]
    decisions: dict
    rgb: np.ndarray  # the pixels the file holds (height × width × 4 RGBA, or × 3 RGB after raster edits; a
    # JPEG's decoded pixels), kept for gates and hashes


def render_scene(grammar: CompiledGrammar, state: dict, level: int, vocab: dict, rng, paths: dict[int, str],
                 scale: float = 1.0, budget: Budget | None = None, variety: str = "none") -> RenderResult:
    """`variety` (none, mild, strong) widens the theme, samples the canvas within the grammar's declared ranges
    and applies raster edits; every choice comes from `rng` and is returned in the decisions. With "none" nothing
    extra is drawn from the stream, so the picture is the plain one, byte for byte."""
    drawn = draw_scene(grammar, state, level, vocab, rng, paths, scale, budget, variety)
    file = drawn.file if drawn.file is not None else encode_png(drawn.rgb, drawn.noisy)
    return RenderResult(file, drawn.render_map, drawn.decisions, drawn.rgb)


@dataclass
class DrawnScene:
    rgb: np.ndarray  # numpy pixels, as RenderResult.rgb
    render_map: dict[str, dict]
    decisions: dict
    noisy: bool  # per-pixel noise among the raster edits (the PNG is written for it)
    file: bytes | None = None  # the picture's file when the raster edits wrote one (a JPEG: the file edit)


@with_headroom
def draw_scene(grammar: CompiledGrammar, state: dict, level: int, vocab: dict, rng, paths: dict[int, str],
               scale: float = 1.0, budget: Budget | None = None, variety: str = "none", zoom: int = 1,
               check: bool = True) -> DrawnScene:
    """The pixels of render_scene, before the PNG. `zoom` multiplies the pixel scale the render stream gives (after
    the canvas pick, with no cap) and `check` false skips the legibility checks: together they redraw an accepted
    picture at k times its resolution from the same stream (tools.zoom), whose pixel tolerances must not judge it
    again."""
    if grammar.scene is None:
        raise ValueError(f"grammar '{grammar.id}' has no scene to draw")
    theme = pick_theme(rng, variety)
    width, height, canvas = grammar.width, grammar.height, None
    if variety != "none" and "canvas" not in state:  # a state that sets its own canvas keeps it
        width, height, scale, canvas = pick_canvas(grammar, rng, variety, scale)
    budget = budget if budget is not None else Budget()
    env = {**state, "level": level, "vocab": vocab, "$budget": budget, "$rng": rng}
    if grammar.fonts is not None:
        env["$fonts"] = grammar.fonts
    if theme.ramp is not None:
        env["$theme"] = theme  # ramp() in the scene takes the theme's ramp family
    env.setdefault("canvas", {"width": width, "height": height})
    painter = Painter(width, height, theme, paths, scale * zoom)
    try:
        decisions = render_composed(grammar.scene, painter, paths, env)
    except PlacementFailed as exc:
        # A placement operator found no legible arrangement from this render stream: draw again.
        raise RenderRejected(f"{exc}: placement") from None
    if check:
        _check_legibility(painter, budget)
    rgb = painter.pixels()
    if painter.backdrop is not None and check:  # themes and textures (variety): contrast before the raster edits
        _check_contrast(painter, rgb)
    render_map = painter.render_map
    extra, noisy, file = {}, False, None
    if variety != "none":
        edits = keep_colour_words(draw_edits(rng, strength_for(variety, grammar.raster_strength), grammar.raster_skip),
                                  theme.palette())
        rgb, render_map, file = apply_edits_to_file(rgb, render_map, edits, theme.background, check)
        extra, noisy = {"canvas": canvas, "raster": edits}, any(e["edit"] == "gauss" for e in edits)
    return DrawnScene(rgb, render_map, {"theme": theme.to_trace(), "marks": painter.marks, **decisions, **extra},
                      noisy, file)


# How much of a grammar's declared canvas range each variety uses (mild: half of it, around the plain canvas).
RANGE_SHARE = {"mild": 0.5, "strong": 1.0}


def pick_canvas(grammar: CompiledGrammar, rng, variety: str, scale: float) -> tuple[int, int, float, dict | None]:
    """The canvas (logical width, height) and pixel scale for one render, within the grammar's declared ranges;
    a grammar that declares none keeps its fixed canvas and draws nothing from the stream."""
    if grammar.canvas_scale is None and grammar.canvas_aspect is None:
        return grammar.width, grammar.height, scale, None
    share = RANGE_SHARE[variety]

    def within(bounds: tuple[float, float], centre: float) -> float:
        lo, hi = bounds
        mid = min(hi, max(lo, centre))  # shrink the range towards the plain value, kept inside the range
        return round(rng.uniform(mid + (lo - mid) * share, mid + (hi - mid) * share), 4)

    width, height = grammar.width, grammar.height
    aspect = None
    if grammar.canvas_aspect is not None:
        aspect = within(grammar.canvas_aspect, width / height)
        area = width * height  # same area, so marks keep their size and the layout its density
        # within the bounds a declared canvas has (load.models.Canvas: 64..2048 a side)
        width = min(2048, max(64, round(math.sqrt(area * aspect))))
        height = min(2048, max(64, round(math.sqrt(area / aspect))))
    factor = within(grammar.canvas_scale, 1.0) if grammar.canvas_scale is not None else 1.0
    pixel_scale = min(4.0, max(0.25, scale * factor))
    return width, height, pixel_scale, {"width": width, "height": height, "aspect": aspect, "scale": factor,
                                        "pixel_scale": pixel_scale}


def _check_legibility(p: Painter, budget: Budget) -> None:
    for path, entry in p.render_map.items():
        x0, y0, x1, y1 = entry["bbox"]
        if x0 < -0.5 or y0 < -0.5 or x1 > p.pixel_width + 0.5 or y1 > p.pixel_height + 0.5:
            raise RenderRejected(f"{path} falls outside the canvas")
        if x1 - x0 < MIN_MARK_PX or y1 - y0 < MIN_MARK_PX:
            raise RenderRejected(f"{path} is smaller than {MIN_MARK_PX} px")
    for group, marks in p.no_overlap_groups.items():
        marks = sorted(marks, key=lambda m: m[1][0])
        what = f"checking that the marks of group '{group}' (the first at {p.group_sites.get(group, '?')}) keep apart"
        for i, (pa, a, ca) in enumerate(marks):
            budget.charge_work(STROKE_STEPS, what)
            for pb, b, cb in marks[i + 1:]:
                if b[0] >= a[2] + GAP_PX:
                    break  # sorted by left edge: nothing further right can touch a
                budget.charge_work(STROKE_STEPS, what)
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
    if p.backdrop is None:  # the classic look (variety none) is not re-checked
        return
    for path, entry in p.render_map.items():
        if mark_is_hidden(rgb, p.backdrop, entry["bbox"]):
            raise RenderRejected(f"{path} does not stand {MIN_MARK_CONTRAST:g} clear of the background (as it "
                                 f"would on white): contrast")
