"""The camera frame: a 3-D world (x right, y forward, z up) seen through a camera of render/space.py.

The frame is fitted to the projected corners of its `bounds` (never to the objects that happen to exist), so the
same world box gives the same scale and placement whatever is drawn in it. 2-D marks keep working: `point(x, y)` is
the ground point (x, y, 0), so text on the floor, floor lines and polygons draw as in any other frame; `point3` is
the pixel of any world point.

3-D marks (compiler/render/marks3d.py) are not drawn one by one: each registers with the frame (`batch`), and the
frame schedules ONE deferred operation that orders every solid with `space.paint_order`, paints the faces (fill ×
the face's shade, an ink outline), measures what is left visible of each (`space.visibility`) and binds to the
render map only the objects at least VISIBLE_MIN visible, with the visible part's box. The faces stay arrays from
the order on (their points projected at once by `space.project_px`, the visibility measured on the same arrays by
`space.visibility_flat`), so the batch costs a few array operations rather than Python work per face and pixel.
3-D overlays (`text3`) are drawn right after the solids, in the same operation.
"""
from __future__ import annotations

import math

import numpy as np
import skia

from ..errors import EvalError
from .frames import MAX_DEVICE_PX, Frame, _number, device_px
from .marks import MARKS, Ctx, RenderRejected, paint
from .space import (ISO_AZIMUTH, ISO_ELEVATION, Camera, OrderCharge, Solid, box_corners, face_points, fit,
                    paint_order, project_px, visibility_flat)
from .work import (CANDIDATE_STEPS, CROSSINGS_PER_STEP, FACE_STEPS, MAX_SOLIDS, PAIR_STEPS, PIXELS_PER_STEP,
                   POINT3_STEPS, SOLID_STEPS, VOTE_STEPS)

VISIBLE_MIN = 0.25  # an object less visible than this is no witness: it stays out of the render map
FIT_MARGIN = 6.0  # pixels kept clear around the projected bounds
RESOLUTION = 2.0  # visibility cells per pixel


class CameraFrame(Frame):
    kind = "camera"
    y_up = False

    def __init__(self, box, projection: str, exprs: dict):
        super().__init__(box)
        lo, hi = _bounds(exprs.get("bounds"))
        self.lo, self.hi = lo, hi
        target = tuple((a + b) / 2 for a, b in zip(lo, hi))
        azimuth = _number(exprs.get("azimuth", ISO_AZIMUTH), "camera azimuth")
        elevation = _number(exprs.get("elevation", ISO_ELEVATION), "camera elevation")
        distance = exprs.get("distance")
        try:
            self.camera = Camera(projection, azimuth, elevation,
                                 None if distance is None else _number(distance, "camera distance"), target)
            self.fit = fit([self.camera.project(*c) for c in box_corners(lo, hi)], box, FIT_MARGIN)
        except ValueError as exc:
            raise EvalError(f"camera frame: {exc}") from None
        self.entries: list[tuple] = []  # (mark, values, bound object, item) registered by 3-D marks
        self.solids = 0  # how many of the entries are solids (bounded by work.MAX_SOLIDS)
        self.scheduled = False

    # -- positions ------------------------------------------------------------------------------------------------
    def point3(self, x, y, z) -> tuple[float, float]:
        """The pixel of world point (x, y, z)."""
        try:
            u, v, _ = self.camera.project(_number(x, "x"), _number(y, "y"), _number(z, "z"))
        except ValueError as exc:
            raise EvalError(f"camera frame: {exc}") from None
        return device_px(self.fit.to_px(u, v), "the point")

    def point(self, x, y) -> tuple[float, float]:
        """2-D marks draw on the ground: (x, y) is the world point (x, y, 0)."""
        return self.point3(x, y, 0.0)

    def length(self, v) -> float:
        return device_px(_number(v, "a length") * self.fit.scale, "a length")

    # -- the batch of 3-D marks -----------------------------------------------------------------------------------
    def batch(self, comp, cm, values: dict, obj, item) -> None:
        """Register one 3-D mark; the first registration schedules the one operation that draws them all."""
        if MARKS[cm.kind].batch == "solid":
            self.solids += 1
            if self.solids > MAX_SOLIDS:
                raise EvalError(f"{cm.kind} mark at {cm.where_text}: a camera frame holds at most {MAX_SOLIDS} solids "
                                f"(this one is solid {self.solids})")
        self.entries.append((cm, values, obj, item))
        if not self.scheduled:
            self.scheduled = True
            comp.op(0.0, lambda: self.draw_batch(comp), self.where)

    def draw_batch(self, comp) -> None:
        p = comp.painter
        ctx = Ctx(p, self)
        solids: list[Solid] = []
        styles: list[tuple] = []
        owners: list[tuple] = []
        overlays: list[tuple] = []
        for cm, values, obj, item in self.entries:
            spec = MARKS[cm.kind]
            if spec.batch != "solid":
                overlays.append((cm, values, obj, item))
                continue
            try:
                shape = spec.draw(ctx, values, cm.options)
                comp.charge(SOLID_STEPS + sum(FACE_STEPS + POINT3_STEPS * len(f.points) for f in shape.faces),
                            "drawing the 3-D solids")
                solid = Solid(len(solids), tuple(shape.faces))
                self._check_px(solid)
                style = _style(ctx, values)
            except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
                raise EvalError(f"{cm.kind} mark at {cm.where_text}: {type(exc).__name__}: {exc}") from None
            except EvalError as exc:
                raise EvalError(f"{cm.kind} mark at {cm.where_text}: {exc}") from None
            solids.append(solid)
            owners.append((cm, obj, shape))
            styles.append(style)
        if solids:
            # Ordering, painting and measuring work on all the solids together: what runs out is named by the first
            # solid mark (and how many solids there are).
            first = owners[0][0]
            what = f"drawing {len(solids)} 3-D solids"
            try:
                order = paint_order(solids, self.camera, OrderCharge(
                    lambda n: comp.charge(n * CANDIDATE_STEPS, what), lambda n: comp.charge(n * PAIR_STEPS, what),
                    lambda n: comp.charge(n * VOTE_STEPS, what)))
                pts, counts = face_points(order)
                px = project_px(pts, self.camera, self.fit)
                comp.charge(_covered(px, counts, p) // PIXELS_PER_STEP, what)
                self._paint_faces(p, order, px, counts, solids, styles, owners)
                p.marks += len(solids)
                vis = visibility_flat([pf.id for pf in order], px, counts,
                                      (0.0, 0.0, float(p.width), float(p.height)), RESOLUTION,
                                      lambda n: comp.charge(n // CROSSINGS_PER_STEP, what))
            except ValueError as exc:
                raise EvalError(f"{first.kind} mark at {first.where_text}: camera frame: {exc}") from None
            except EvalError as exc:
                raise EvalError(f"{first.kind} mark at {first.where_text}: {exc}") from None
            self._bind(comp, solids, owners, vis)
        for cm, values, obj, item in overlays:
            comp.draw(cm, values, obj, item, Ctx(p, self, cm.options.get("sizes", "px"), comp.keep_strokes))

    def _check_px(self, solid: Solid) -> None:
        """Every corner of the solid is a finite world point whose pixel lies within frames.MAX_DEVICE_PX (the order,
        the paint and the visibility cells all work on these numbers)."""
        verts = solid._verts
        if not np.isfinite(verts).all():
            raise EvalError(f"a corner of the solid is not a finite point: {verts[~np.isfinite(verts).all(axis=1)][0]}")
        try:
            px = project_px(verts, self.camera, self.fit)
        except ValueError as exc:
            raise EvalError(f"camera frame: {exc}") from None
        bad = ~(np.abs(px) <= MAX_DEVICE_PX).all(axis=1)
        if bad.any():
            k = int(np.argmax(bad))
            device_px(tuple(px[k].tolist()), f"the corner {tuple(verts[k].tolist())}")

    def _paint_faces(self, p, order, px, counts, solids, styles, owners) -> None:
        """Paint the faces in order: fill × the face's shade, then the ink outline. One path per face, drawn once or
        twice; shades and shaded colours are looked up once per normal and fill, not worked out per face."""
        # Smooth solids: which of their faces the camera sees (those paint_order kept: it culls with faces_camera),
        # and how many side facets they have.
        facing: dict[int, tuple[set[str], int]] = {
            sid: (set(), sum(f.tag.startswith("side") for f in solids[sid].faces))
            for sid, (_, _, shape) in enumerate(owners) if shape.smooth}
        # Curved solids of facets (sphere, cone, torus): the tags of their facets the camera sees.
        meshes: dict[int, set[str]] = {sid: set() for sid, (_, _, shape) in enumerate(owners) if shape.mesh}
        for sid, face in order:
            if sid in facing:
                facing[sid][0].add(face.tag)
            elif sid in meshes:
                meshes[sid].add(face.tag)
        canvas = p.canvas
        flat = px.tolist()
        shades: dict[tuple, float] = {}
        colours: dict[tuple, tuple] = {}
        at = 0
        for pf, c in zip(order, counts.tolist()):
            poly = flat[at:at + c]
            at += c
            sid, face = pf
            fill, stroke, width, opacity = styles[sid]
            path = skia.Path()  # the path addPoly(points, close=True) makes, without a skia.Point per vertex
            if c:
                path.moveTo(*poly[0])
                for x, y in poly[1:]:
                    path.lineTo(x, y)
                path.close()
            facet = sid in facing and face.tag.startswith("side") or sid in meshes
            if fill is not None:
                key = (face.normal, face.two_sided)
                k = shades.get(key)
                if k is None:
                    k = shades[key] = face.shade()
                shaded = colours.get((fill, k))
                if shaded is None:
                    shaded = colours[(fill, k)] = tuple(max(0, min(255, round(ch * k))) for ch in fill)
                canvas.drawPath(path, paint(shaded, opacity))
                if facet:  # its own colour over the facet's edges hides the seams between neighbours
                    canvas.drawPath(path, paint(shaded, opacity, 1.0))
            if stroke is not None and width > 0:
                if sid in meshes:
                    outline = _mesh_outline(owners[sid][2].mesh[face.tag], poly, meshes[sid])
                else:
                    outline = _facet_outline(face.tag, poly, *facing[sid]) if facet else path
                canvas.drawPath(outline, paint(stroke, opacity, width))

    def _bind(self, comp, solids, owners, vis) -> None:
        """Bind each object drawn by solids to the visible part of them (all its solids together)."""
        p = comp.painter
        per_obj: dict[int, list[int]] = {}
        for sid, (cm, obj, _) in enumerate(owners):
            if obj is not None and id(obj) in comp.paths:
                per_obj.setdefault(id(obj), []).append(sid)
        for sids in per_obj.values():
            cm, obj, _ = owners[sids[0]]
            infos = [vis.get(s) for s in sids]
            total = sum(i.total_px for i in infos if i is not None)
            shown = sum(i.visible_px for i in infos if i is not None)
            fraction = shown / total if total > 0 else 0.0
            if fraction < VISIBLE_MIN:
                if any(owners[s][0].options.get("occluded") == "redraw" for s in sids):
                    raise RenderRejected(f"{comp.paths[id(obj)]} is only {100 * fraction:.0f}% visible: hidden")
                continue
            boxes = [i.bbox for i in infos if i is not None and i.bbox is not None]
            bbox = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
                    max(b[3] for b in boxes))
            p.bind(obj, bbox)
            entry = p.render_map[comp.paths[id(obj)]]
            entry.setdefault("mark", cm.kind)
            geometry = {"visible": round(fraction, 4)}
            if all(owners[s][2].box is not None for s in sids):
                lo = [min(owners[s][2].box[0][a] for s in sids) for a in range(3)]
                hi = [max(owners[s][2].box[1][a] for s in sids) for a in range(3)]
                k = p.scale
                geometry["corners"] = [[round(c * k, 2) for c in self.point3(*pt)] for pt in box_corners(lo, hi)]
            entry.setdefault("geometry", geometry)


def _covered(px: np.ndarray, counts: np.ndarray, p) -> int:
    """Device pixels of the canvas the faces' boxes cover (painting fills each of them)."""
    if not len(counts):
        return 0
    starts = np.cumsum(counts) - counts
    keep = counts > 0
    starts = starts[keep]
    x0 = np.clip(np.minimum.reduceat(px[:, 0], starts), 0, p.width)
    x1 = np.clip(np.maximum.reduceat(px[:, 0], starts), 0, p.width)
    y0 = np.clip(np.minimum.reduceat(px[:, 1], starts), 0, p.height)
    y1 = np.clip(np.maximum.reduceat(px[:, 1], starts), 0, p.height)
    return int(((x1 - x0) * (y1 - y0)).sum() * p.scale * p.scale)


def _facet_outline(tag: str, poly, facing: set, sides: int) -> "skia.Path":
    """The ink lines of one facet of a smooth side (cylinder_faces' side{i}: bottom edge a→b, then up b→b', across
    b'→a', down a'→a): the bottom and top rims always, a vertical edge only where the neighbouring facet is turned
    away (the silhouette), so the curved side is not drawn as stripes."""
    path = skia.Path()
    pts = [skia.Point(x, y) for x, y in poly]
    if len(pts) != 4:
        path.addPoly(pts, True)
        return path
    i = int(tag[4:])
    edges = [(0, 1), (2, 3)]
    if f"side{(i - 1) % sides}" not in facing:
        edges.append((3, 0))
    if f"side{(i + 1) % sides}" not in facing:
        edges.append((1, 2))
    for a, b in edges:
        path.moveTo(pts[a])
        path.lineTo(pts[b])
    return path


def _mesh_outline(edges: list, poly, shown: set) -> "skia.Path":
    """The ink lines of one facet of a curved solid: its edges marked True by space.mesh_edges (creases, open edges),
    and those whose neighbouring facet is turned away (not in `shown`): the silhouette."""
    path = skia.Path()
    n = len(poly)
    for i, edge in enumerate(edges):
        if edge is True or edge not in shown:
            path.moveTo(*poly[i])
            path.lineTo(*poly[(i + 1) % n])
    return path


def _bounds(v) -> tuple[tuple[float, ...], tuple[float, ...]]:
    ok = isinstance(v, list) and len(v) == 2 and all(isinstance(c, list) and len(c) == 3 for c in v)
    if not ok:
        raise EvalError(f"a camera frame's bounds are [[x0, y0, z0], [x1, y1, z1]], got {v!r}")
    lo = tuple(_number(c, "a bound") for c in v[0])
    hi = tuple(_number(c, "a bound") for c in v[1])
    if any(b < a for a, b in zip(lo, hi)) or all(b == a for a, b in zip(lo, hi)):
        raise EvalError(f"a camera frame's bounds need lo ≤ hi on every axis and some extent, got {v!r}")
    return lo, hi


def _style(ctx: Ctx, v: dict):
    fill = ctx.color(v["fill"]) if v.get("fill") is not None else ctx.theme.color(ctx.theme.series)
    stroke = ctx.color(v["stroke"]) if v.get("stroke") is not None else ctx.theme.ink  # 'none': unpainted
    width = _number(v.get("stroke_width", 1.0), "stroke_width")
    opacity = _number(v.get("opacity", 1.0), "opacity")
    if not math.isfinite(width) or width < 0:
        raise EvalError(f"stroke_width must be ≥ 0, got {width}")
    return fill, stroke, width, opacity
