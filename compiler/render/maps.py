"""The map mark: `map_region` draws a vendored shape (spec/geo.py) by id, its longitude/latitude points placed by
the frame it is drawn in. In a geo frame the points are projected and the drawing is clipped to the frame's bounds
(a map of Europe cuts Russia at its edge; the mark's box, the witness of a bound region, covers the parts that
show)."""
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
    clip = ctx.frame.map_box if isinstance(ctx.frame, GeoFrame) else None
    path = skia.Path()
    path.setFillType(skia.PathFillType.kEvenOdd)  # holes (Lesotho in South Africa) stay holes
    rings: list[list[tuple[float, float]]] = []
    boxes: list[tuple[float, float, float, float]] = []  # each part's box, within the bounds
    for poly in polygons:
        for k, ring in enumerate(poly):
            pts = [(x + dx, y + dy) for x, y in (ctx.frame.point(lon, lat) for lon, lat in ring)]
            path.addPoly([skia.Point(*p) for p in pts], True)
            rings.append(pts)
            if k:
                continue  # a hole lies within its outer ring
            b = (min(p[0] for p in pts), min(p[1] for p in pts), max(p[0] for p in pts), max(p[1] for p in pts))
            if clip is not None:
                b = (max(b[0], clip[0]), max(b[1], clip[1]), min(b[2], clip[2]), min(b[3], clip[3]))
            if b[2] > b[0] and b[3] > b[1]:
                boxes.append(b)
    if not boxes:
        # wholly outside the bounds (a world's countries drawn behind a map of one continent): nothing shows, and
        # its box is an empty one at the corner of the bounds (a region bound as a witness there is too small)
        corner = (clip or ctx.frame.box)[:2]
        return Drawn((*corner, *corner), geometry={"region": rid})
    box = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
    if clip is not None:
        ctx.canvas.save()
        ctx.canvas.clipRect(skia.Rect.MakeLTRB(*clip), skia.ClipOp.kIntersect, True)
    ctx.fill_and_stroke(v, path, default_fill=ctx.theme.color(ctx.theme.series))
    if clip is not None:
        ctx.canvas.restore()
    segments = [s for r in rings for s in _segments_of(r, True)] if v.get("stroke") is not None and ctx.strokes else []
    return Drawn(box, segments=segments, geometry={"region": rid})
