"""Layouts for graphs: node-link diagrams, layered trees and cell-wall mazes.

Node positions are not part of the state: no graph answer depends on where a node is drawn, so the layout places
nodes itself from the render stream (a spring embedding, with a ring as fallback) and keeps the first placement that
passes the legibility rule of node-link pictures: no two nodes touch, and no edge runs through a node it does not
join. Trees are layered by depth (their placement is a function of the structure), mazes are drawn on their grid.
"""
from __future__ import annotations

import math

from ..errors import EvalError
from ..expr.lib_graph import edge_type_problem
from ..expr.lib_place import (embed_graph, fit_to_box, layer_forest, layout_problem, maze_open_pairs,
                              segment_point_distance, segments_cross)
from ..expr.types import FLOAT, INT, STR, ListT, RecordT
from ..load.models import Expr, Model
from .layouts import layout
from .painter import Painter

NODE_GAP_PX = 22.0  # clear space between two node circles
EDGE_CLEARANCE_PX = 9.0  # clear space between an edge and a node circle it does not join
LABEL_TRIES = 6  # node placements tried until every weight label finds a clear spot
LIGHT_FILLS = [(255, 255, 255), (236, 242, 252), (250, 243, 228)]  # node fill when nodes carry no colour


# -- legibility -------------------------------------------------------------------------------------------------
def node_link_problem(pos: dict[int, tuple[float, float]], radius: float, pairs: list[tuple[int, int]],
                      node_gap: float = NODE_GAP_PX, clearance: float = EDGE_CLEARANCE_PX) -> str | None:
    """The legibility rule of a node-link picture in pixels (circles of `radius`, `node_gap` clear between two of
    them, `clearance` between an edge and a circle it does not join): None when it holds, else what breaks it."""
    return layout_problem(pos, pairs, 2 * radius + node_gap, radius + clearance)


def _reject(message: str):
    # scene.py imports the layout registry, so its exception is looked up when first needed.
    from .scene import RenderRejected

    return RenderRejected(message)


def _luminance(rgb) -> float:
    return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]


def _draw_node(p: Painter, obj, x: float, y: float, r: float, fill, label: str | None):
    p.circle(x, y, r, fill, p.theme.ink, 1.8, obj=obj, group="nodes")
    if label:
        ink = (255, 255, 255) if _luminance(fill) < 140 else p.theme.ink
        p.text(x, y, label, min(r * 0.95, 16.0), ink, bold=True)


def _node_fill(p: Painter, item: dict, color_field: str | None, plain):
    if color_field is None:
        return plain
    return p.theme.color(item[color_field])


# -- node placement ---------------------------------------------------------------------------------------------
def place_nodes(n: int, pairs: list[tuple[int, int]], box: tuple[float, float, float, float], radius: float,
                rng) -> tuple[list[tuple[float, float]], str]:
    """Legible positions for nodes 0..n-1 joined by `pairs` inside the pixel box: the spring embedding with the
    fewest edge crossings among the legible ones tried, else a legible ring (the algorithm is lib_place's, shared
    with spring_layout; positions are fitted to the box and rounded to 1/100 px). Raises RenderRejected otherwise."""
    pts, how = embed_graph(n, pairs, rng, lambda unit: fit_to_box(unit, box, 2), 2 * radius + NODE_GAP_PX,
                           radius + EDGE_CLEARANCE_PX)
    if pts is None:  # `how` says what broke the last ring tried
        raise _reject(f"node_link: no legible placement of {n} nodes and {len(pairs)} edges ({how}); "
                      f"fewer nodes or edges, or a larger canvas, would overlap")
    return pts, how


# -- node-link graphs -------------------------------------------------------------------------------------------
class NodeLink(Model):
    items: Expr
    edges: Expr
    id: str | None = None
    label: str | None = None
    color: str | None = None
    weight: str | None = None
    directed: bool = False


def _edges_check(t, params) -> str | None:
    problem = edge_type_problem(t)
    if problem:
        return f"must be {problem}"
    if params.weight is not None and isinstance(t, ListT) and isinstance(t.elem, RecordT):
        wt = t.elem.field(params.weight)
        if wt is None:
            return f"have no field '{params.weight}' to label them with (they have: {', '.join(t.elem.names)})"
        if wt not in (INT, FLOAT, STR):
            return f"label field '{params.weight}' must be a number or a string, got {wt}"
    return None


def _passages_check(t, params) -> str | None:
    problem = edge_type_problem(t)
    return f"must be {problem}" if problem else None


def _node_index(items: list[dict], id_field: str | None) -> dict[int, int]:
    """node id → position in the items list."""
    index: dict[int, int] = {}
    for i, it in enumerate(items):
        key = it[id_field] if id_field else i
        if key in index:
            raise EvalError(f"node id {key} is drawn twice")
        index[key] = i
    return index


def _edge_pairs(edges: list[dict], index: dict[int, int], directed: bool) -> list[tuple[int, int]]:
    pairs, seen = [], set()
    for e in edges:
        a, b = e["a"], e["b"]
        for v in (a, b):
            if v not in index:
                raise EvalError(f"edge {a}–{b} names node {v}, which is not among the drawn nodes")
        if a == b:
            raise EvalError(f"edge {a}–{b} is a loop; node_link draws edges between two different nodes")
        key = (a, b) if directed else (min(a, b), max(a, b))
        if key in seen:
            raise EvalError(f"edge {a}–{b} appears twice; node_link draws each edge once")
        seen.add(key)
        pairs.append((index[a], index[b]))
    return pairs


def _label_box(p: Painter, x, y, s: str, size: float) -> tuple[float, float, float, float]:
    w = p.text_width(s, size, bold=True)
    h = size * p.theme.font_scale
    return (x - w / 2 - 3, y - h / 2 - 2, x + w / 2 + 3, y + h / 2 + 2)


def _box_hits_circle(box, cx, cy, r) -> bool:
    nx, ny = max(box[0], min(cx, box[2])), max(box[1], min(cy, box[3]))
    return math.hypot(nx - cx, ny - cy) < r


def _boxes_touch(a, b) -> bool:
    return a[0] < b[2] + 1 and b[0] < a[2] + 1 and a[1] < b[3] + 1 and b[1] < a[3] + 1


def _segment_hits_box(seg, box) -> bool:
    x0, y0, x1, y1 = seg
    bx0, by0, bx1, by1 = box
    if any(bx0 <= x <= bx1 and by0 <= y <= by1 for x, y in ((x0, y0), (x1, y1))):
        return True
    corners = [(bx0, by0), (bx1, by0), (bx1, by1), (bx0, by1)]
    return any(segments_cross((x0, y0), (x1, y1), corners[i], corners[(i + 1) % 4]) for i in range(4))


def _place_weight_labels(p: Painter, pts, radius, segments, texts, size) -> list | None:
    """A spot along each edge for its weight label that covers no node, no other label and no other edge (a label
    on a crossing could belong to either edge); None if some edge has none (the caller tries another placement)."""
    placed: list[tuple[float, float, float, float]] = []
    spots = []
    for k, ((x0, y0, x1, y1), s) in enumerate(zip(segments, texts)):
        for t in (0.5, 0.4, 0.6, 0.32, 0.68):
            x, y = x0 + (x1 - x0) * t, y0 + (y1 - y0) * t
            box = _label_box(p, x, y, s, size)
            if box[0] < 0 or box[1] < 0 or box[2] > p.width or box[3] > p.height:
                continue
            if any(_box_hits_circle(box, cx, cy, radius + 2) for cx, cy in pts):
                continue
            if any(_boxes_touch(box, other) for other in placed):
                continue
            if any(_segment_hits_box(seg, box) for j, seg in enumerate(segments) if j != k):
                continue
            placed.append(box)
            spots.append((x, y, box))
            break
        else:
            return None
    return spots


@layout("node_link", NodeLink, {"id": (INT,), "label": (STR, INT), "color": (STR,)}, exprs={"edges": _edges_check},
        summary="nodes joined by edges (arrows when directed, weight labels when `weight` names an edge field); "
                "the layout places the nodes so none touch and no edge crosses a node it does not join")
def draw_node_link(p: Painter, prm: NodeLink, items: list[dict], text: dict, rng, edges: list[dict]) -> dict:
    n = len(items)
    index = _node_index(items, prm.id)
    pairs = _edge_pairs(edges, index, prm.directed)
    radius = 17.0 if n <= 9 else 15.0 if n <= 13 else 13.0
    margin = radius + 8
    box = (margin, margin, p.width - margin, p.height - margin)
    plain = rng.choice(LIGHT_FILLS)
    stroke = rng.choice([2.0, 2.4])
    label_size = 13.0
    paired = set(pairs) if prm.directed else set()
    for _ in range(LABEL_TRIES):
        pts, method = place_nodes(n, pairs, box, radius, rng)
        segments = [_edge_segment(pts, a, b, radius, (b, a) in paired) for a, b in pairs]
        texts = [str(e[prm.weight]) for e in edges] if prm.weight else []
        spots = _place_weight_labels(p, pts, radius, segments, texts, label_size) if prm.weight else []
        if spots is not None:
            break
    else:
        raise _reject("node_link: no placement leaves room for every weight label; labels would overlap")
    edge_ink = (70, 70, 80)
    for x0, y0, x1, y1 in segments:
        if prm.directed:
            p.arrow(x0, y0, x1, y1, edge_ink, stroke, head=12.0)
        else:
            p.line(x0, y0, x1, y1, edge_ink, stroke)
    for e, (x, y, bx) in zip(edges, spots):
        # The label is bound first, so the no-overlap group holds the label's own box (binding merges boxes).
        p.rect(bx[0], bx[1], bx[2], bx[3], p.theme.background, None)
        p.text(x, y, str(e[prm.weight]), label_size, bold=True, obj=e, group="weights")
    for e, (x0, y0, x1, y1) in zip(edges, segments):
        pad = stroke / 2 + 1
        p.bind(e, (min(x0, x1) - pad, min(y0, y1) - pad, max(x0, x1) + pad, max(y0, y1) + pad))
    for it, (x, y) in zip(items, pts):
        label = str(it[prm.label]) if prm.label else None
        _draw_node(p, it, x, y, radius, _node_fill(p, it, prm.color, plain), label)
    return {"placement": method, "radius": radius, "stroke": stroke}


def _edge_segment(pts, a: int, b: int, radius: float, paired: bool) -> tuple[float, float, float, float]:
    """The visible part of edge a–b, from circle boundary to circle boundary; arrows that have a partner in the
    other direction move to their right-hand side so the two stay apart."""
    (ax, ay), (bx, by) = pts[a], pts[b]
    d = math.hypot(bx - ax, by - ay)
    ux, uy = (bx - ax) / d, (by - ay) / d
    off = 5.0 if paired else 0.0
    nx, ny = -uy * off, ux * off
    trim = math.sqrt(max(radius * radius - off * off, 1.0))
    return (round(ax + ux * trim + nx, 2), round(ay + uy * trim + ny, 2),
            round(bx - ux * (trim + 1) + nx, 2), round(by - uy * (trim + 1) + ny, 2))


# -- layered trees ----------------------------------------------------------------------------------------------
class TreeLayout(Model):
    items: Expr
    id: str = "id"
    parent: str = "parent"
    label: str | None = None
    color: str | None = None


@layout("tree", TreeLayout, {"id": (INT,), "parent": (INT,), "label": (STR, INT), "color": (STR,)},
        summary="a rooted tree drawn in layers by depth, root on top, each parent centred over its children "
                "(a negative parent marks a root)")
def draw_tree(p: Painter, prm: TreeLayout, items: list[dict], text: dict, rng) -> dict:
    index = _node_index(items, prm.id)
    kids: dict[int, list[int]] = {i: [] for i in range(len(items))}
    roots = []
    for i, it in enumerate(items):
        parent = it[prm.parent]
        if parent < 0:
            roots.append(i)
        elif parent not in index:
            raise EvalError(f"tree node {it[prm.id]} names parent {parent}, which is not drawn")
        else:
            kids[index[parent]].append(i)
    mirror = rng.below(2) == 1  # render-only: children left-to-right in list order, or mirrored
    if mirror:
        roots.reverse()
        for ks in kids.values():
            ks.reverse()
    depth, xslot, leaves = layer_forest(kids, roots, len(items), "tree")  # shared with tree_layout()
    height = max(depth.values())
    margin_x, margin_y = 24.0, 28.0
    slot = (p.width - 2 * margin_x) / max(leaves, 1)
    layer = (p.height - 2 * margin_y) / max(height, 1)
    radius = min(18.0, slot * 0.36, layer * 0.3)
    if radius < 9:
        raise EvalError(f"tree: {leaves} leaves over {height + 1} layers do not fit in {p.width} × {p.height} px; "
                        f"bound the tree's size with a grammar constraint")
    top = margin_y + radius
    layer = (p.height - 2 * margin_y - 2 * radius) / max(height, 1)
    pts = [(round(margin_x + (xslot[i] + 0.5) * slot, 2), round(top + depth[i] * layer, 2))
           for i in range(len(items))]
    links = [(index[it[prm.parent]], i) for i, it in enumerate(items) if it[prm.parent] >= 0]
    pos = dict(enumerate(pts))
    problem = node_link_problem(pos, radius, [], node_gap=4.0)
    if problem:
        raise _reject(f"tree: {problem}")
    # Straight links when none of them grazes a node; otherwise elbow links (down, across at mid-layer, down),
    # which cannot: between two layers there are no nodes.
    style = rng.choice(["straight", "elbow"])
    if style == "straight" and node_link_problem(pos, radius, links, node_gap=4.0, clearance=4.0):
        style = "elbow"
    plain = rng.choice(LIGHT_FILLS)
    ink = (70, 70, 80)
    if style == "straight":
        for a, b in links:
            p.line(*pts[a], *pts[b], ink, 2.0)
    else:
        for i, ks in kids.items():
            if not ks:
                continue
            (px, py), mid = pts[i], pts[i][1] + layer / 2
            xs = [pts[k][0] for k in ks] + [px]
            p.line(px, py, px, mid, ink, 2.0)
            p.line(min(xs) - 1, mid, max(xs) + 1, mid, ink, 2.0)
            for k in ks:
                p.line(pts[k][0], mid, *pts[k], ink, 2.0)
    for it, (x, y) in zip(items, pts):
        label = str(it[prm.label]) if prm.label else None
        _draw_node(p, it, x, y, radius, _node_fill(p, it, prm.color, plain), label)
    return {"mirror": mirror, "links": style, "radius": round(radius, 2)}


# -- mazes ------------------------------------------------------------------------------------------------------
class MazeLayout(Model):
    items: Expr
    rows: Expr
    cols: Expr
    passages: Expr
    row: str = "row"
    col: str = "col"
    mark: str | None = None
    color: str | None = None


@layout("maze", MazeLayout, {"row": (INT,), "col": (INT,), "mark": (STR,), "color": (STR,)},
        exprs={"rows": INT, "cols": INT, "passages": _passages_check},
        summary="a rows × cols grid of cells (id row * cols + col) with a wall wherever two neighbouring cells "
                "share no passage; items are cells, drawn with their mark (text) and colour ('' for none)")
def draw_maze(p: Painter, prm: MazeLayout, items: list[dict], text: dict, rng, rows: int, cols: int,
              passages: list[dict]) -> dict:
    open_pairs = maze_open_pairs(rows, cols, passages)  # shared with maze_walls()
    margin = 14.0
    cell = min((p.width - 2 * margin) / cols, (p.height - 2 * margin) / rows)
    x0 = (p.width - cell * cols) / 2
    y0 = (p.height - cell * rows) / 2
    wall = rng.choice([3.0, 3.5, 4.0])
    for it in items:
        r, c = it[prm.row], it[prm.col]
        if not (0 <= r < rows and 0 <= c < cols):
            raise EvalError(f"cell ({r}, {c}) lies outside the {rows} × {cols} maze")
        box = (x0 + c * cell + wall / 2, y0 + r * cell + wall / 2, x0 + (c + 1) * cell - wall / 2,
               y0 + (r + 1) * cell - wall / 2)
        tint = it[prm.color] if prm.color else ""
        p.rect(*box, p.theme.color(tint) if tint else None, None, obj=it)
        mark = it[prm.mark] if prm.mark else ""
        if mark:
            ink = (255, 255, 255) if tint and _luminance(p.theme.color(tint)) < 140 else p.theme.ink
            p.text((box[0] + box[2]) / 2, (box[1] + box[3]) / 2, mark, min(cell * 0.5, 22.0), ink, bold=True)
    ink = p.theme.ink
    ext = wall / 2  # walls run on into the corners so that joints show no notch
    for r in range(rows):
        for c in range(cols):
            cid = r * cols + c
            x, y = x0 + c * cell, y0 + r * cell
            if c + 1 < cols and (cid, cid + 1) not in open_pairs:
                p.line(x + cell, y - ext, x + cell, y + cell + ext, ink, wall)
            if r + 1 < rows and (cid, cid + cols) not in open_pairs:
                p.line(x - ext, y + cell, x + cell + ext, y + cell, ink, wall)
    p.rect(x0, y0, x0 + cols * cell, y0 + rows * cell, None, ink, wall + 1)
    return {"wall": wall, "cell": round(cell, 2)}
