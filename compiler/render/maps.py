"""The map mark: `map_region` draws a vendored shape (spec/geo.py) by id, its longitude/latitude points placed by the
frame it is drawn in. In a geo frame the points are projected and the drawing is clipped to the frame's box (a map of
Europe cuts Russia at its edge; the mark's box, the witness of a bound region, is the part that shows)."""
from __future__ import annotations

import skia

from ..errors import EvalError
from ..spec.geo import region_set
from .frames import GeoFrame
from .marks import Ctx, Drawn, _offset, _segments_of, mark


@mark("map_region")
def draw_region(ctx: Ctx, v: dict, opts: dict) -> Drawn:
    rid = v["id"]
    if not isinstance(rid, str):
        raise EvalError(f"a region's id is a string, got {rid!r}")
    polygons = region_set(opts["set"]).shape(rid)
    dx, dy = _offset(v)
    path = skia.Path()
    path.setFillType(skia.PathFillType.kEvenOdd)  # holes (Lesotho in South Africa) stay holes
    xs: list[float] = []
    ys: list[float] = []
    rings: list[list[tuple[float, float]]] = []
    for poly in polygons:
        for ring in poly:
            pts = [ctx.frame.point(lon, lat) for lon, lat in ring]
            pts = [(x + dx, y + dy) for x, y in pts]
            path.addPoly([skia.Point(*p) for p in pts], True)
            rings.append(pts)
            xs += [p[0] for p in pts]
            ys += [p[1] for p in pts]
    box = (min(xs), min(ys), max(xs), max(ys))
    clip = isinstance(ctx.frame, GeoFrame)
    if clip:
        fb = ctx.frame.box
        box = (max(box[0], fb[0]), max(box[1], fb[1]), min(box[2], fb[2]), min(box[3], fb[3]))
        if box[2] <= box[0] or box[3] <= box[1]:
            # wholly outside the bounds (a world's countries drawn behind a map of one continent): nothing shows,
            # and its box is an empty one on the frame's edge (a region bound as a witness there is too small)
            x, y = min(max(box[0], fb[0]), fb[2]), min(max(box[1], fb[1]), fb[3])
            return Drawn((x, y, x, y), geometry={"region": rid})
        ctx.canvas.save()
        ctx.canvas.clipRect(skia.Rect.MakeLTRB(*fb), skia.ClipOp.kIntersect, True)
    ctx.fill_and_stroke(v, path, default_fill=ctx.theme.color(ctx.theme.series))
    if clip:
        ctx.canvas.restore()
    segments = [s for r in rings for s in _segments_of(r, True)] if v.get("stroke") is not None and ctx.strokes else []
    return Drawn(box, segments=segments, geometry={"region": rid})
