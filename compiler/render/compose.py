"""Evaluate a compiled scene tree (codegen/scene.py) into pixels: boxes, frames, guides, marks, layers, panels and
components.

Drawing is deferred: every mark and guide becomes an operation with a z value, and operations run in (z, order of
declaration) order once the whole tree is evaluated, so `z` can lift a mark over marks declared after it. What a
mark drew is bound to its state object in the render map (witnesses), grouped for the no-overlap rule, and its
strokes are kept for the rule that text must not be crossed.

Every run-time error names a position in the YAML: the composer knows which node, frame, guide, mark or component
use it is evaluating (`at`), and each deferred operation remembers the one that made it, so an error raised by the
render layer (a frame's bounds, a scale's domain, a palette) without a position of its own gets that one.
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

import numpy as np
import skia

from ..codegen.scene import CFrame, CGuide, CMark, CNode, CScale, CUse, option_values
from ..errors import EvalError, has_position, located
from ..expr.compile import Budget, run
from ..expr.lib_place import segment_hits_box
from ..expr.template import Template
from . import guides as G
from ..spec.geo import WORLD
from .frames import (BandScale, CanvasFrame, CartesianFrame, Frame, GeoFrame, GridFrame, LinearScale, LogScale,
                     PlaneFrame, PolarFrame, device_px)
from .marks import MARKS, Ctx, Drawn, RenderRejected
from .painter import Painter
from .work import (CHAR_STEPS, CURVE_POINT_STEPS, MARK_STEPS, MAX_MARKS, PIXELS_PER_STEP, POINT_STEPS,
                   SEGMENT_STEPS, STROKE_STEPS, TEXT_STEPS)

MAX_PANELS = 256
TITLE_PX = 30.0
CAPTION_PX = 22.0


@dataclass
class Composer:
    painter: Painter
    paths: dict[int, str]
    ops: list = field(default_factory=list)  # (z, seq, draw)
    texts: list = field(default_factory=list)  # (box, item id) of text that must stay clear of strokes
    strokes: list = field(default_factory=list)  # (segment, item id)
    decisions: dict = field(default_factory=dict)
    drawn: int = 0
    unbound: int = 0
    _index: tuple | None = None  # the strokes as arrays, for crossing checks (rebuilt when strokes grow)
    keep_strokes: bool = True  # False when no text of the scene asks to stay clear of strokes
    unbinding: int = 0  # > 0 while a tiles node draws its uncut sub-scene: its marks bind nothing
    here: str = ""  # position of the node, frame, guide, mark or use being evaluated ("grammars/x.yaml:12:7")
    budget: Budget | None = None  # the scene's evaluation budget: drawing is charged to it (render/work.py)

    def charge(self, steps: int, what: str) -> None:
        if self.budget is not None:
            self.budget.charge_work(steps, what)

    def op(self, z: float, fn, where: str | None = None) -> None:
        """Defer a drawing operation; an error it raises names `where` (by default what is being evaluated now)."""
        self.ops.append((z, len(self.ops), fn, where or self.here))

    def finish(self) -> None:
        run_ops(sorted(self.ops, key=lambda o: (o[0], o[1])))
        self.check_text_clear()

    @contextmanager
    def at(self, where: str):
        """Evaluate a part of the scene declared at `where`: an EvalError without a position gets this one."""
        saved = self.here
        self.here = where or saved
        try:
            yield
        except EvalError as exc:
            raise _placed(exc, where or saved) from None
        finally:
            self.here = saved

    # -- nodes --------------------------------------------------------------------------------------------------
    def node(self, cn: CNode, env: dict, box: tuple, depth: int = 0, parent_frame: Frame | None = None,
             record: bool = False) -> None:
        with self.at(cn.where_text):
            self._node(cn, env, box, depth, parent_frame, record)

    def _node(self, cn: CNode, env: dict, box: tuple, depth: int, parent_frame: Frame | None, record: bool) -> None:
        env = dict(env)
        for name, c in cn.lets:
            env[name] = run(c, env)
            if record and _plain(env[name]):
                self.decisions[name] = env[name]
        if cn.region is not None:
            fx0, fy0, fx1, fy1 = (float(run(c, env)) for c in cn.region)
            x0, y0, x1, y1 = box
            w, h = x1 - x0, y1 - y0
            box = (x0 + fx0 * w, y0 + fy0 * h, x0 + fx1 * w, y0 + fy1 * h)
        if cn.inset is not None:
            t, r, b, l_ = cn.inset if isinstance(cn.inset, list) else _inset(run(cn.inset, env))
            box = (box[0] + l_, box[1] + t, box[2] - r, box[3] - b)
        if box[2] - box[0] < 4 or box[3] - box[1] < 4:
            raise RenderRejected(f"a scene node's box is only {box[2] - box[0]:.0f} × {box[3] - box[1]:.0f} px: "
                                 f"too small")
        p = self.painter
        if cn.background is not None:
            rgb = p.theme.resolve(run(cn.background, env))
            if rgb is not None:
                b_ = box
                self.op(-3, lambda: p.rect(*b_, rgb))
        if cn.title is not None:
            s = cn.title.render(env).strip()
            if s:
                b_ = box
                size = G._fit_size(p, s, 15.0, b_[2] - b_[0] - 4, True)
                # bind s and size now: the caption below reuses the names before the ops run
                self.op(0, lambda b_=b_, s=s, size=size: p.text((b_[0] + b_[2]) / 2, b_[1] + TITLE_PX / 2, s, size,
                                                                  bold=True))
                box = (box[0], box[1] + TITLE_PX, box[2], box[3])
        if cn.caption is not None:
            s = cn.caption.render(env).strip()
            if s:
                b_ = box
                size = G._fit_size(p, s, 12.0, b_[2] - b_[0] - 4)
                self.op(0, lambda b_=b_, s=s, size=size: p.text((b_[0] + b_[2]) / 2, b_[3] - CAPTION_PX / 2, s, size))
                box = (box[0], box[1], box[2], box[3] - CAPTION_PX)
        if cn.use is not None:
            # a component without a frame of its own draws in its caller's frame when it shares the box (a layer)
            self.use(cn.use, env, box, depth, record, parent_frame)
            return
        frame_spec = cn.frame
        scales = {}
        if frame_spec is not None:
            with self.at(frame_spec.where_text):
                scales = self.scales(frame_spec, env)
        guides = []
        for cg in cn.guides:
            with self.at(cg.where_text):
                guides.append(self.guide_input(cg, env))
        where = {id(g): cg.where_text for g, cg in zip(guides, cn.guides)}
        kind = frame_spec.kind if frame_spec is not None else (parent_frame.kind if parent_frame else "canvas")
        # Legends and ramps take the outer strips, axes the inner ones, so tick labels sit next to the plot.
        for g in sorted(guides, key=lambda g: g.kind == "axis"):
            if g.kind == "table":
                continue
            with self.at(where[id(g)]):
                r = G.reserve(p, g, kind, scales)
            if r is None:
                continue
            side, px = r
            box, g.reserved_box = _take(box, side, px)
        if any(g.kind == "axis" for g in guides) and kind == "cartesian":
            sides = {G.side_of(g) for g in guides if g.kind == "axis"}
            box = (box[0] + (0 if "left" in sides else 12), box[1] + (0 if "top" in sides else 10),
                   box[2] - (0 if "right" in sides else 14), box[3] - (0 if "bottom" in sides else 6))
        if frame_spec is not None:
            with self.at(frame_spec.where_text):
                frame = self.frame(frame_spec, scales, env, box)
            frame.where = frame_spec.where_text  # for the operations it defers (a camera's batch of 3-D marks)
        elif parent_frame is not None and parent_frame.box == box:
            frame = parent_frame
        else:
            frame = CanvasFrame(box)
        for g in guides:
            self.op(-1, lambda g=g, frame=frame, box=box: G.draw(p, g, frame, box, self.bind_plain), where[id(g)])
        for cm in cn.marks:
            with self.at(cm.where_text):
                self.mark(cm, env, frame)
        for child in cn.layers:
            self.node(child, env, box, depth + 1, frame)
        if cn.panels is not None:
            with self.at(cn.panels.where_text):
                self.panels(cn.panels, env, box, depth)
        if cn.tiles is not None:
            with self.at(cn.tiles.where_text):
                self.tiles(cn.tiles, env, box, depth)

    def use(self, cu: CUse, env: dict, box: tuple, depth: int, record: bool = False,
            parent_frame: Frame | None = None) -> None:
        with self.at(cu.where_text):
            self._use(cu, env, box, depth, record, parent_frame)

    def _use(self, cu: CUse, env: dict, box: tuple, depth: int, record: bool, parent_frame: Frame | None) -> None:
        args = {}
        for name, c in cu.args.items():
            v = c.render(env).strip() if isinstance(c, Template) else run(c, env)
            limit = cu.limits.get(name)
            if limit is not None and isinstance(v, list) and len(v) > limit:
                raise EvalError(f"component '{cu.component}' draws at most {limit} {name}, got {len(v)} "
                                f"({cu.where_text})")
            args[name] = v
        inner = {"level": env.get("level"), "vocab": env.get("vocab"), "canvas": env.get("canvas"),
                 "$budget": env["$budget"], "$caller": env, **args}
        if "$rng" in env:
            inner["$rng"] = env["$rng"]
        if cu.fonts is not None or "$fonts" in env:  # a component's font classes, else its caller's
            inner["$fonts"] = cu.fonts if cu.fonts is not None else env["$fonts"]
        for rname, c, where in cu.requires:
            if not run(c, inner):
                raise EvalError(f"component '{cu.component}' requires {rname}: `{c.source}` is false for the "
                                f"arguments given at {cu.where_text} (the requirement is at {where})")
        self.node(cu.body, inner, box, depth + 1, parent_frame, record=record)

    def panels(self, cp, env: dict, box: tuple, depth: int) -> None:
        if cp.each is not None:
            items = run(cp.each, env)
            nodes = [cp.panel] * len(items)
        else:
            items = [None] * len(cp.items)
            nodes = cp.items
        n = len(nodes)
        if n == 0:
            return
        opts = option_values(cp.options, env)
        if n > min(opts["max"], MAX_PANELS):
            raise EvalError(f"{n} panels to draw (at most {min(opts['max'], MAX_PANELS)})")
        cols = run(cp.cols, env) if cp.cols is not None else math.ceil(math.sqrt(n))
        if not isinstance(cols, int) or cols < 1:
            raise EvalError(f"panels need cols ≥ 1, got {cols!r}")
        cols = min(cols, n)
        rows = math.ceil(n / cols)
        x0, y0, x1, y1 = box
        gap = opts["gap"]
        w = (x1 - x0 - gap * (cols - 1)) / cols
        h = (y1 - y0 - gap * (rows - 1)) / rows
        for i, (node, item) in enumerate(zip(nodes, items)):
            r, c = divmod(i, cols)
            in_row = min(cols, n - r * cols)
            left = x0 + (x1 - x0 - (in_row * w + (in_row - 1) * gap)) / 2  # a short last row is centred
            sub = (left + c * (w + gap), y0 + r * (h + gap), left + c * (w + gap) + w, y0 + r * (h + gap) + h)
            e = env
            if cp.each is not None:
                e = dict(env)
                e[cp.as_name] = item
                if cp.index_name:
                    e[cp.index_name] = i
            self.node(node, e, sub, depth + 1)

    def tiles(self, ct, env: dict, box: tuple, depth: int) -> None:
        """Draw the sub-scene into a picture, then show it cut into square tiles (rows × cols), each slot showing
        the tile its record names, turned by quarter turns, in rows of `slot_cols` with a gap between slots. The
        sub-scene's own marks bind nothing (their boxes would be where the tiles were cut from); each slot binds
        its record to the slot's box."""
        rows, cols = run(ct.rows, env), run(ct.cols, env)
        if not (isinstance(rows, int) and isinstance(cols, int) and 1 <= rows <= 16 and 1 <= cols <= 16):
            raise EvalError(f"tiles at {ct.where_text} need rows and cols in 1..16, got {rows!r} × {cols!r}")
        items = run(ct.each, env)
        scols = run(ct.slot_cols, env) if ct.slot_cols is not None else cols
        if not isinstance(scols, int) or scols < 1:
            raise EvalError(f"tiles at {ct.where_text}: slot_cols must be a positive integer, got {scols!r}")
        if len(items) > 256:
            raise EvalError(f"tiles at {ct.where_text}: {len(items)} slot records (at most 256, one per slot)")
        if not items and ct.slot_cols is not None:  # a row of candidates that this instance does not show
            return
        if ct.slot_cols is None and len(items) != rows * cols:
            raise EvalError(f"tiles at {ct.where_text}: {len(items)} slot records for a {rows} × {cols} grid "
                            f"(one per slot, row by row)")
        e = dict(env)
        slots = []
        for item in items:
            e[ct.as_name] = item
            src = run(ct.source, e)
            turn = run(ct.turn, e) if ct.turn is not None else 0
            label = str(run(ct.label, e)) if ct.label is not None else ""
            if not isinstance(src, int) or not -1 <= src < rows * cols:
                raise EvalError(f"tiles at {ct.where_text}: a slot's source is a tile index in 0..{rows * cols - 1}"
                                f" or -1 (empty), got {src!r}")
            if not isinstance(turn, int):
                raise EvalError(f"tiles at {ct.where_text}: a slot's turn is a whole number of quarter turns, "
                                f"got {turn!r}")
            slots.append((item, src, turn % 4, label))
        gap = option_values(ct.options, env)["gap"]
        srows = math.ceil(len(items) / scols)
        x0, y0, x1, y1 = box
        s = min((x1 - x0 - gap * (scols - 1)) / scols, (y1 - y0 - gap * (srows - 1)) / srows)  # square: they turn
        if s < 8:
            raise RenderRejected(f"tiles of {s:.0f} px: too small")
        left = x0 + (x1 - x0 - (scols * s + gap * (scols - 1))) / 2
        top = y0 + (y1 - y0 - (srows * s + gap * (srows - 1))) / 2
        sub = (left, top, left + cols * s, top + rows * s)  # the uncut sub-scene's box (where the cut grid is)
        first = len(self.ops)
        self.node(ct.scene, env, sub, depth + 1)
        inner = sorted(self.ops[first:], key=lambda o: (o[0], o[1]))
        del self.ops[first:]
        p = self.painter

        def draw() -> None:
            recorder = skia.PictureRecorder()
            canvas = recorder.beginRecording(skia.Rect.MakeLTRB(-4096, -4096, 8192, 8192))
            saved, strokes = p.canvas, len(self.strokes)
            p.canvas, self.unbinding = canvas, self.unbinding + 1
            try:
                run_ops(inner)
            finally:
                p.canvas, self.unbinding = saved, self.unbinding - 1
                del self.strokes[strokes:]  # strokes of the uncut scene are not where the tiles put them
            picture = recorder.finishRecordingAsPicture()
            line = p.theme.resolve("ink")
            for k, (item, src, turn, label) in enumerate(slots):
                r, c = divmod(k, scols)
                sx, sy = left + c * (s + gap), top + r * (s + gap)
                rect = skia.Rect.MakeLTRB(sx, sy, sx + s, sy + s)
                if src < 0:
                    p.canvas.drawRect(rect, _paint(p.theme.resolve("paper")))
                    p.canvas.drawRect(rect, _paint(p.theme.resolve("muted"), 1.5, [6.0, 4.0]))
                else:
                    tr, tc = divmod(src, cols)
                    p.canvas.save()
                    p.canvas.clipRect(rect, doAntiAlias=True)
                    p.canvas.translate(sx + s / 2, sy + s / 2)
                    p.canvas.rotate(90.0 * turn)
                    p.canvas.translate(-(left + tc * s + s / 2), -(top + tr * s + s / 2))
                    p.canvas.drawPicture(picture)
                    p.canvas.restore()
                    p.canvas.drawRect(rect, _paint(line, 1.5))
                p.marks += 1
                if label:  # a badge in the slot's top-left corner, never turned with the tile
                    size = max(10.0, min(14.0, s / 6))
                    bw = p.text_width(label, size, True) + 8
                    bh = size + 6
                    p.canvas.drawRect(skia.Rect.MakeXYWH(sx + 2, sy + 2, bw, bh), _paint(p.theme.resolve("paper")))
                    p.canvas.drawRect(skia.Rect.MakeXYWH(sx + 2, sy + 2, bw, bh), _paint(line, 1.0))
                    p.text(sx + 2 + bw / 2, sy + 2 + bh / 2, label, size, bold=True)
                if item is not None and id(item) in self.paths:
                    p.bind(item, (sx, sy, sx + s, sy + s))
                    self.painter.render_map[self.paths[id(item)]].setdefault(
                        "geometry", {"slot": [r, c], "source": src, "turn": turn})

        self.op(0.0, draw)

    # -- frames -------------------------------------------------------------------------------------------------
    def scales(self, cf: CFrame, env: dict) -> dict:
        out = {}
        for ch, cs in cf.scales.items():
            out[ch] = _scale(cs, env)
        if cf.kind == "plane":  # a plane's ranges act as linear scales for the axes reserving their room
            for ch in ("x", "y"):
                rng = run(cf.exprs[ch], env) if ch in cf.exprs else []
                if len(rng) == 2 and rng[0] != rng[1]:
                    out[ch] = PlaneFrame.axis_scale(*sorted(map(float, rng)))
        return out

    def frame(self, cf: CFrame, scales: dict, env: dict, box: tuple) -> Frame:
        ex = {k: run(c, env) for k, c in cf.exprs.items()}
        flags = option_values(cf.flags, env)
        if cf.kind == "canvas":
            return CanvasFrame(box)
        if cf.kind == "cartesian":
            return CartesianFrame(box, scales["x"], scales["y"], flags["y_down"])
        if cf.kind == "plane":
            for ch in ("x", "y"):
                if len(ex[ch]) != 2:
                    raise EvalError(f"a plane frame's {ch} range is [lo, hi], got {ex[ch]}")
            return PlaneFrame(box, tuple(ex["x"]), tuple(ex["y"]))
        if cf.kind == "polar":
            return PolarFrame(box, scales["theta"], scales["r"], float(ex.get("start", -90.0)),
                              flags["clockwise"], float(ex.get("inner", 0.0)),
                              float(ex.get("sweep", 360.0)))
        if cf.kind == "grid":
            return GridFrame(box, ex["rows"], ex["cols"], flags["hex"])
        if cf.kind == "camera":
            from .camera import CameraFrame

            return CameraFrame(box, flags["projection"], ex)
        if cf.kind == "geo":
            return GeoFrame(box, flags["projection"], ex.get("bounds", WORLD))
        raise EvalError(f"unknown frame {cf.kind}")  # pragma: no cover - compile time rejects it

    # -- guides -------------------------------------------------------------------------------------------------
    def guide_input(self, cg: CGuide, env: dict) -> G.GuideInput:
        spec = G.GUIDES[cg.kind]
        values = {k: run(c, env) for k, c in cg.exprs.items() if k not in spec.per_entry}
        texts = {k: t.render(env).strip() for k, t in cg.texts.items()}
        g = G.GuideInput(cg.kind, values, texts, option_values(cg.options, env))
        if cg.each is not None:
            items = run(cg.each, env)
            e = dict(env)
            for item in items:
                e[cg.as_name] = item
                if cg.kind == "table":
                    g.entries.append([{k: run(c, e) for k, c in col.items() if k in ("text", "fill", "color")
                                       and c is not None} for col in cg.columns])
                else:
                    g.entries.append({k: run(cg.exprs[k], e) for k in spec.per_entry if k in cg.exprs})
                g.items.append(item)
        if cg.kind == "table":
            g.columns = [{"header_text": col["header"].render(env).strip() if col["header"] else "",
                          "weight": col["weight"].value(env), "width": col["width"].value(env)}
                         for col in cg.columns]
        return g

    def bind_plain(self, item, box) -> None:
        if item is not None and id(item) in self.paths and not self.unbinding:
            self.painter.bind(item, box)

    # -- marks --------------------------------------------------------------------------------------------------
    def mark(self, cm: CMark, env: dict, frame: Frame) -> None:
        spec = MARKS[cm.kind]
        # The mark's options are evaluated once, in the node's env (not per item); from here on the mark carries
        # their values, which every draw function (and the camera's batch) reads as cm.options.
        cm = replace(cm, options=option_values(cm.options, env))
        if cm.each is not None:
            items = run(cm.each, env)
        else:
            items = [None]
        e = dict(env)
        channels = list(cm.channels.items())
        fns = [(k, c.fn) for k, c in channels]
        ctx = Ctx(self.painter, frame, cm.options.get("sizes", "px"), self.keep_strokes, env.get("$fonts"))
        defaults = {k: ch.default for k, ch in spec.channels.items() if ch.default is not None and k not in cm.channels}
        for i, item in enumerate(items):
            if cm.each is not None:
                e[cm.as_name] = item
                if cm.index_name:
                    e[cm.index_name] = i
            if cm.where is not None and not run(cm.where, e):
                continue
            values = dict(defaults)
            try:
                for k, f in fns:
                    values[k] = f(e)
            except Exception:  # noqa: BLE001 - evaluated again one by one, so the error names its expression
                for k, c in channels:
                    values[k] = run(c, e)
            if cm.bind is not None:
                obj = run(cm.bind, e)
            elif cm.bind_items and cm.kind not in ("text", "text3"):
                obj = item
            else:
                obj = None
            self.drawn += 1
            if self.drawn > MAX_MARKS:
                raise EvalError(f"{cm.kind} mark at {cm.where_text}: the scene draws more than {MAX_MARKS} marks "
                                f"(this mark's item {i + 1} of {len(items)} is mark {self.drawn})")
            if spec.batch is not None:  # a 3-D mark: its frame draws all of them together (camera.py)
                if not hasattr(frame, "batch"):
                    raise EvalError(f"a {cm.kind} mark at {cm.where_text} draws only in a camera frame")
                frame.batch(self, cm, values, obj, item)
                continue
            z = float(values.get("z", 0.0))
            self.op(z, lambda cm=cm, values=values, obj=obj, item=item, ctx=ctx:
                    self.draw(cm, values, obj, item, ctx))

    def draw(self, cm: CMark, values: dict, obj, item, ctx: Ctx) -> None:
        spec = MARKS[cm.kind]
        try:
            self.charge(_mark_steps(cm.kind, values), "drawing the scene")
            options = cm.options
            if values.get("spots") is not None:
                values = self.first_clear_spot(cm, values, item, ctx)
                if values.pop("$crossed", False):
                    # `clear: prefer` found no spot clear of strokes: the text knocks the strokes out behind it
                    # (a halo in the background colour), so no axis or rim runs through its letters.
                    options = {**options, "halo": True}
            drawn: Drawn = spec.draw(ctx, values, options)
            check_drawn(drawn)
            self.charge(self.covered(drawn.bbox) // PIXELS_PER_STEP, "drawing the scene")
        except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
            raise EvalError(f"{cm.kind} mark at {cm.where_text}: {type(exc).__name__}: {exc}") from None
        except EvalError as exc:
            raise EvalError(f"{cm.kind} mark at {cm.where_text}: {exc}") from None
        key = id(item) if item is not None else id(values)
        for seg in drawn.segments:
            self.strokes.append((seg, key))
        if cm.options["clear"] is True and drawn.text_box is not None:
            self.texts.append((drawn.text_box, key, cm.where_text))
        p = self.painter
        if cm.group is not None:
            p.group_sites.setdefault(cm.group, cm.where_text)
        if self.unbinding:
            obj = None
        bound = obj is not None and id(obj) in self.paths
        if bound:
            before = p.render_map.get(self.paths[id(obj)]) or {}
            p.bind(obj, drawn.bbox, cm.group, drawn.circle)
            entry = p.render_map[self.paths[id(obj)]]
            entry.update({k: before[k] for k in ("mark", "geometry") if k in before})  # the first mark's stay
            entry.setdefault("mark", cm.kind)
            if drawn.geometry and "geometry" not in entry:
                entry["geometry"] = _scaled(drawn.geometry, p.scale)
        elif cm.group is not None:
            self.unbound += 1
            k = p.scale
            box = tuple(round(v * k, 2) for v in drawn.bbox)
            circle = tuple(v * k for v in drawn.circle) if drawn.circle else None
            p.no_overlap_groups.setdefault(cm.group, []).append((f"{cm.kind} mark at {cm.where_text} #{self.unbound}",
                                                                 box, circle))

    def covered(self, box: tuple) -> int:
        """Device pixels of the canvas a box (logical units) covers: what filling or sampling it costs."""
        p = self.painter
        w = max(0.0, min(box[2], p.width) - max(box[0], 0.0))
        h = max(0.0, min(box[3], p.height) - max(box[1], 0.0))
        return int(w * h * p.scale * p.scale)

    def first_clear_spot(self, cm: CMark, values: dict, item, ctx: Ctx) -> dict:
        """Label placement: the first of (x, y) and the `spots` where the text is inside the canvas, crossed by no
        stroke drawn so far for another item (when `clear`), and touching no member of its group drawn so far."""
        from .marks import points_of

        p = self.painter
        key = id(item) if item is not None else id(values)
        others = p.no_overlap_groups.get(cm.group, []) if cm.group else []
        k = p.scale
        candidates = [(values["x"], values["y"])] + points_of(values["spots"], "spots")
        sides = [None] + [_spot_side(s) for s in values["spots"]]
        # The text is measured once (drawn into a throwaway picture); at another anchor its box is the same box
        # moved by the difference of the anchors' pixels.
        recorder = skia.PictureRecorder()
        dry = Ctx(_DryPainter(p, recorder), ctx.frame, ctx.sizes)
        first = MARKS[cm.kind].draw(dry, values, cm.options).bbox
        ax, ay = ctx.frame.point(values["x"], values["y"])
        fallback, fewest = None, None
        for (x, y), side in zip(candidates, sides):
            trial = {**values, "x": x, "y": y}
            bx, by = ctx.frame.point(x, y)
            box = (first[0] + bx - ax, first[1] + by - ay, first[2] + bx - ax, first[3] + by - ay)
            if side is not None:
                # A spot with a direction (ux, uy): the text's box lies on that side of the spot, touching it.
                ux, uy = side[0], (-side[1] if ctx.frame.y_up else side[1])
                w, h = box[2] - box[0], box[3] - box[1]
                px, py = ctx.frame.point(x, y)
                sx = px + _num0(values.get("dx")) - (box[0] + box[2]) / 2
                sy = py + _num0(values.get("dy")) - (box[1] + box[3]) / 2
                sx += w / 2 if ux > 0.3 else -w / 2 if ux < -0.3 else 0.0
                sy += h / 2 if uy > 0.3 else -h / 2 if uy < -0.3 else 0.0
                trial["dx"] = _num0(trial.get("dx")) + sx
                trial["dy"] = _num0(trial.get("dy")) + sy
                box = (box[0] + sx, box[1] + sy, box[2] + sx, box[3] + sy)
            x0, y0, x1, y1 = box
            if x0 < 0 or y0 < 0 or x1 > p.width or y1 > p.height:
                continue
            scaled = tuple(v * k for v in box)
            if any(_boxes_touch(scaled, b, c) for _, b, c in others):
                continue
            inner = (x0 + 0.5, y0 + 0.5, x1 - 0.5, y1 - 0.5)
            if cm.options["clear"] and self.crosses(inner, key):
                if cm.options["clear"] == "prefer":
                    crossings = self.crossings(inner, key)  # the spot crossed by the fewest strokes is the fallback
                    if fewest is None or crossings < fewest:
                        fallback, fewest = {**trial, "$crossed": True}, crossings
                continue
            return trial
        if fallback is not None:  # `clear: prefer`: no spot is clear of strokes; the first legible one will do
            return fallback
        raise RenderRejected(f"the text of the mark at {cm.where_text} finds no clear spot among "
                             f"{len(candidates)}: crowded")

    def crosses(self, box: tuple, key) -> bool:
        """Is the inside of the box crossed by a stroke drawn so far for another item? The segments' own boxes
        rule out most of them at once (numpy); the few left are clipped exactly."""
        n = len(self.strokes)
        if n == 0:
            return False
        self.charge(n * STROKE_STEPS // 8 + 1, "checking text against strokes")  # one vectorised test per stroke
        if self._index is None or self._index[0] != n:
            self.charge(n * STROKE_STEPS, "checking text against strokes")  # the arrays are rebuilt from the list
            segs = np.array([seg for seg, _ in self.strokes], dtype=np.float64)
            lo = np.minimum(segs[:, :2], segs[:, 2:])
            hi = np.maximum(segs[:, :2], segs[:, 2:])
            self._index = (n, segs, lo, hi, [k for _, k in self.strokes])
        _, segs, lo, hi, keys = self._index
        x0, y0, x1, y1 = box
        near = np.nonzero((lo[:, 0] < x1) & (hi[:, 0] > x0) & (lo[:, 1] < y1) & (hi[:, 1] > y0))[0]
        return any(keys[i] != key and _segment_hits_box(*segs[i], box) for i in near.tolist())

    def crossings(self, box: tuple, key) -> int:
        """How many strokes drawn so far for other items cross the inside of the box."""
        x0, y0, x1, y1 = box
        self.charge(len(self.strokes) * STROKE_STEPS, "checking text against strokes")
        return sum(1 for seg, k in self.strokes
                   if k != key and min(seg[0], seg[2]) < x1 and max(seg[0], seg[2]) > x0
                   and min(seg[1], seg[3]) < y1 and max(seg[1], seg[3]) > y0 and _segment_hits_box(*seg, box))

    def check_text_clear(self) -> None:
        for box, key, where in self.texts:
            x0, y0, x1, y1 = box
            try:
                crossed = self.crosses((x0 + 0.5, y0 + 0.5, x1 - 0.5, y1 - 0.5), key)
            except EvalError as exc:
                raise EvalError(f"text mark at {where}: {exc}") from None
            if crossed:
                raise RenderRejected(f"text of the mark at {where} is crossed by a stroke: crossed")


class _DryPainter:
    """A painter whose canvas records into a throwaway picture: marks can be measured without drawing."""

    def __init__(self, painter: Painter, recorder):
        self.theme, self.scale, self.width, self.height = painter.theme, painter.scale, painter.width, painter.height
        self.canvas = recorder.beginRecording(skia.Rect.MakeWH(painter.width, painter.height))
        self.marks = 0
        self.backdrop = None  # a dry run measures; it draws nothing that contrast could be checked on

    def text_width(self, *a, **kw):  # pragma: no cover - used by marks that measure
        return Painter.text_width(self, *a, **kw)

    def font(self, *a, **kw):
        return Painter.font(self, *a, **kw)


def run_ops(ops) -> None:
    """Run deferred drawing operations (z, seq, fn, where) in the order given; an EvalError without a position
    names the part of the scene that deferred the operation."""
    for _, _, fn, where in ops:
        try:
            fn()
        except EvalError as exc:
            raise _placed(exc, where) from None


def _placed(exc: EvalError, where: str) -> EvalError:
    """The error itself when it names a position (or nothing is known), else the same kind of error naming `where`."""
    message = str(exc)
    if not where or has_position(message):
        return exc
    return type(exc)(located(message, where))


def _paint(rgb, stroke: float | None = None, dash=None) -> skia.Paint:
    from .marks import paint

    return paint(rgb, 1.0, stroke, dash)


def _spot_side(spot) -> tuple[float, float] | None:
    """The direction (ux, uy) a spot record names for its text, or None (the text is centred on the spot)."""
    if isinstance(spot, dict) and ("ux" in spot or "uy" in spot):
        return float(spot.get("ux", 0.0)), float(spot.get("uy", 0.0))
    return None


def _num0(v) -> float:
    return float(v) if v is not None else 0.0


def _boxes_touch(a, b, circle=None, gap: float = 1.0) -> bool:
    return a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap


def _inset(v) -> list[float]:
    """An inset expression's value: pixels, [vertical, horizontal] or [top, right, bottom, left]."""
    vals = [v] * 4 if isinstance(v, (int, float)) and not isinstance(v, bool) else v
    if not isinstance(vals, list) or len(vals) not in (2, 4) or \
            not all(isinstance(x, (int, float)) and not isinstance(x, bool) and 0 <= x <= 2048 for x in vals):
        raise EvalError(f"inset takes pixels: one number, [vertical, horizontal] or [top, right, bottom, left]; "
                        f"got {v!r}")
    return [float(x) for x in (vals * 2 if len(vals) == 2 else vals)]


def _plain(v) -> bool:
    if isinstance(v, (int, float, str, bool)) or v is None:
        return True
    if isinstance(v, list) and len(v) <= 64:
        return all(isinstance(x, (int, float, str, bool)) for x in v)
    return False


def _scale(cs: CScale, env: dict):
    dom = run(cs.domain, env)
    if cs.kind == "band":
        padding = float(run(cs.padding, env)) if cs.padding is not None else 0.2
        return BandScale(dom, padding)
    if not dom:
        raise EvalError(f"a {cs.kind} scale's domain is empty")
    lo, hi = min(dom), max(dom)
    if cs.kind == "log":
        return LogScale(lo, hi)
    opts = option_values(cs.options, env)
    if opts["zero"]:
        lo, hi = min(lo, 0), max(hi, 0)
    return LinearScale(lo, hi, opts["nice"], opts["ticks"])


def _take(box: tuple, side: str, px: float) -> tuple[tuple, tuple]:
    """Split px off one side of a box: (the rest, the strip)."""
    x0, y0, x1, y1 = box
    if side == "left":
        return (x0 + px, y0, x1, y1), (x0, y0, x0 + px, y1)
    if side == "right":
        return (x0, y0, x1 - px, y1), (x1 - px, y0, x1, y1)
    if side == "top":
        return (x0, y0 + px, x1, y1), (x0, y0, x1, y0 + px)
    if side == "bottom":
        return (x0, y0, x1, y1 - px), (x0, y1 - px, x1, y1)
    return (x0 + px, y0 + px, x1 - px, y1 - px), box  # "all": a margin around (polar rim labels)


def _scaled(geometry: dict, k: float) -> dict:
    out = {}
    for key, v in geometry.items():
        if key in ("start", "sweep", "size", "lines", "cell"):
            out[key] = v
        elif isinstance(v, list) and v and isinstance(v[0], (list, tuple)):
            out[key] = [[round(a * k, 2) for a in pt] for pt in v]
        elif isinstance(v, list):
            out[key] = [round(a * k, 2) for a in v]
        elif isinstance(v, (int, float)):
            out[key] = round(v * k, 2)
        else:
            out[key] = v
    return out


def _segment_hits_box(ax, ay, bx, by, box) -> bool:
    """Does the segment pass through the inside of the box (nothing for an empty box)?"""
    if box[2] <= box[0] or box[3] <= box[1]:
        return False
    return segment_hits_box((ax, ay), (bx, by), box, pad=0.0)


def _asks_clear(node: CNode | None) -> bool:
    """Does any text mark of the scene (components and panels included) ask to stay clear of strokes?"""
    if node is None:
        return False
    if any(not m.options["clear"].fixed or m.options["clear"].constant for m in node.marks):
        return True
    if node.use is not None and _asks_clear(node.use.body):
        return True
    if node.tiles is not None and _asks_clear(node.tiles.scene):
        return True
    if node.panels is not None and (_asks_clear(node.panels.panel) or any(_asks_clear(n) for n in node.panels.items)):
        return True
    return any(_asks_clear(n) for n in node.layers)


def _mark_steps(kind: str, values: dict) -> int:
    """What drawing one 2-D mark costs before its pixels (render/work.py): a base, its points or segments, its
    characters."""
    steps = MARK_STEPS
    for key in ("points", "segments", "spots"):
        v = values.get(key)
        if isinstance(v, list):
            steps += len(v) * (CURVE_POINT_STEPS if kind == "path" and key == "points" else
                               SEGMENT_STEPS if key == "segments" else POINT_STEPS)
    if "text" in values:
        text = values["text"]
        steps += TEXT_STEPS + (len(text) * CHAR_STEPS if isinstance(text, str) else 0)
    return steps


def check_drawn(drawn: Drawn) -> None:
    """What a mark drew lies at finite pixels near the canvas (frames.MAX_DEVICE_PX): its box goes into the render
    map, the legibility checks and the raster edits, which turn it into whole pixels."""
    device_px(drawn.bbox, "the mark's box")
    if drawn.circle is not None:
        device_px(drawn.circle, "the mark's circle")
    if drawn.text_box is not None:
        device_px(drawn.text_box, "the text's box")


def render_composed(scene: CNode, painter: Painter, paths: dict[int, str], env: dict) -> dict:
    comp = Composer(painter, paths, keep_strokes=_asks_clear(scene), budget=env.get("$budget"))
    comp.node(scene, env, (0.0, 0.0, float(painter.width), float(painter.height)), record=True)
    comp.finish()
    return comp.decisions


__all__ = ["render_composed", "Composer"]
