"""Placement operators: where marks go, as plain data.

A render-time expression calls these to decide positions that no answer depends on (where a graph's nodes sit, how a
tree is layered, where labels fit); marks then draw at the returned coordinates. Results are lists of records of
floats in a *unit frame* — [0, 1] × [0, 1], x to the right, y downward, as in the image — unless an operator says
otherwise (`maze_walls` works in cell units), so the frame that draws them decides the size and aspect. Coordinates
are rounded to 6 decimals: tidy traces, and far below a pixel at any canvas size.

The random operators (`spring_layout`, `scatter_layout`) draw from `$rng`, the render stream, and raise
`PlacementFailed` when no attempt meets their rule: the renderer redraws from the render stream, as it does for a
layout's RenderRejected. The pixel layouts of compiler/render/layouts_graph.py and layouts.py call the algorithms
here (`embed_graph`, `layer_forest`, `maze_open_pairs`, `nice_axis`), so there is one implementation of each.

Every operator charges the step budget for the work it does (the spring embedding for iterations × n² pair forces)
before doing it, so a huge request ends as an EvalError, never as a hang.
"""
from __future__ import annotations

import math
from typing import Callable

from ..errors import EvalError
from .builtins import _charge, _fail, _list_arg, _rng, builtin
from .compile import Compiled
# lib_graph may still be loading when this module is (it imports builtins, which imports every lib_* module), so
# its names are read when called, not copied at import time.
from . import lib_graph
from .types import ANY, BOOL, FLOAT, INT, ListT, RecordT, has_xy, is_numeric, record

MAX_SPRING_NODES = 200  # the spring embedding is O(iterations · n²) per try
MAX_ITEMS = 2_000  # every other placement operator
DIGITS = 6
SPRING_ITERATIONS = 60
SPRING_TRIES = 10  # spring embeddings tried (from different random starts) before the ring fallback
RING_TRIES = 6
SCATTER_TRIES_PER_POINT = 100
SCATTER_AREA_PER_POINT = 0.6  # × gap²: below this much free area per point, rejection sampling is hopeless

XY = record(x=FLOAT, y=FLOAT)
SEGMENT = record(x=FLOAT, y=FLOAT, x2=FLOAT, y2=FLOAT)


class PlacementFailed(EvalError):
    """No placement met the operator's rule this time; the renderer redraws from the render stream (counted as a
    render rejection) rather than failing the instance."""


# -- plane geometry shared with the pixel layouts ---------------------------------------------------------------
def segment_point_distance(ax: float, ay: float, bx: float, by: float, px: float, py: float) -> float:
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length2))
    return math.sqrt((ax + t * dx - px) ** 2 + (ay + t * dy - py) ** 2)


def segments_cross(p, q, r, s) -> bool:
    """Proper crossing of segments pq and rs (touching at shared endpoints does not count)."""
    def orient(a, b, c):
        v = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
        return (v > 1e-9) - (v < -1e-9)

    return orient(p, q, r) * orient(p, q, s) < 0 and orient(r, s, p) * orient(r, s, q) < 0


def segment_hits_box(a, b, box, pad: float = 1.0) -> bool:
    """Does segment ab pass through the box (x0, y0, x1, y1) grown by pad (Liang–Barsky clipping)?"""
    x0, y0, x1, y1 = box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad
    dx, dy = b[0] - a[0], b[1] - a[1]
    lo, hi = 0.0, 1.0
    for p_, q_ in ((-dx, a[0] - x0), (dx, x1 - a[0]), (-dy, a[1] - y0), (dy, y1 - a[1])):
        if abs(p_) < 1e-12:
            if q_ < 0:
                return False
            continue
        t = q_ / p_
        if p_ < 0:
            lo = max(lo, t)
        else:
            hi = min(hi, t)
        if lo > hi:
            return False
    return True


# -- node-link embedding ----------------------------------------------------------------------------------------
def layout_problem(pos: dict[int, tuple[float, float]], pairs: list[tuple[int, int]], min_dist: float,
                   clearance: float) -> str | None:
    """The legibility rule of a node-link picture, in whatever units pos is in: no two centres closer than
    min_dist, no edge within clearance of a centre it does not join. None when it holds, else what breaks it."""
    ids = sorted(pos)
    for i, u in enumerate(ids):
        for v in ids[i + 1:]:
            if math.dist(pos[u], pos[v]) < min_dist:
                return f"nodes {u} and {v} overlap"
    for a, b in pairs:
        (ax, ay), (bx, by) = pos[a], pos[b]
        for v in ids:
            if v != a and v != b and segment_point_distance(ax, ay, bx, by, *pos[v]) < clearance:
                return f"edge {a}–{b} passes through node {v}"
    return None


def count_crossings(pos, pairs) -> int:
    n = 0
    for i, (a, b) in enumerate(pairs):
        for c, d in pairs[i + 1:]:
            if len({a, b, c, d}) == 4 and segments_cross(pos[a], pos[b], pos[c], pos[d]):
                n += 1
    return n


def spring(n: int, pairs: list[tuple[int, int]], rng, iterations: int = SPRING_ITERATIONS) -> list[list[float]]:
    """Fruchterman–Reingold in the unit square from a random start, with a weak pull to the centre so separate
    components stay in view. Plain floats only: the same start gives the same positions on any machine."""
    xs = [rng.random() for _ in range(n)]
    ys = [rng.random() for _ in range(n)]
    k2 = 1.0 / n  # squared ideal edge length
    k = math.sqrt(k2)
    step = 0.12
    for _ in range(iterations):
        fx, fy = [0.0] * n, [0.0] * n
        for i in range(n):
            xi, yi = xs[i], ys[i]
            sx = sy = 0.0
            for j in range(i + 1, n):
                dx, dy = xi - xs[j], yi - ys[j]
                f = k2 / (dx * dx + dy * dy or 1e-8)  # repulsion k²/d along the unit vector (dx, dy)/d
                sx += dx * f
                sy += dy * f
                fx[j] -= dx * f
                fy[j] -= dy * f
            fx[i] += sx
            fy[i] += sy
        for a, b in pairs:
            dx, dy = xs[a] - xs[b], ys[a] - ys[b]
            f = math.sqrt(dx * dx + dy * dy) / k  # attraction d²/k along the unit vector
            fx[a] -= dx * f
            fy[a] -= dy * f
            fx[b] += dx * f
            fy[b] += dy * f
        for i in range(n):
            gx, gy = fx[i] - (xs[i] - 0.5) * 0.6, fy[i] - (ys[i] - 0.5) * 0.6
            d = math.sqrt(gx * gx + gy * gy) or 1e-9
            move = min(d, step) / d
            xs[i] += gx * move
            ys[i] += gy * move
        step *= 0.95
    return [[x, y] for x, y in zip(xs, ys)]


def ring(n: int, rng) -> list[list[float]]:
    """n points on the circle of radius 0.5 around (0.5, 0.5), turned and ordered at random."""
    turn = rng.random() * 2 * math.pi
    order = rng.shuffle(list(range(n)))
    pos = [[0.0, 0.0] for _ in range(n)]
    for slot, i in enumerate(order):
        a = turn + 2 * math.pi * slot / n
        pos[i] = [0.5 + 0.5 * math.cos(a), 0.5 + 0.5 * math.sin(a)]
    return pos


def fit_to_box(unit: list[list[float]], box: tuple[float, float, float, float],
               digits: int) -> list[tuple[float, float]]:
    """Stretch positions to fill the box (x0, y0, x1, y1), rounded to `digits` decimals; a flat axis is centred."""
    x0, y0, x1, y1 = box
    xs, ys = [q[0] for q in unit], [q[1] for q in unit]
    lo_x, hi_x, lo_y, hi_y = min(xs), max(xs), min(ys), max(ys)
    sx = (x1 - x0) / (hi_x - lo_x) if hi_x > lo_x else 0.0
    sy = (y1 - y0) / (hi_y - lo_y) if hi_y > lo_y else 0.0
    return [(round(x0 + (x - lo_x) * sx if sx else (x0 + x1) / 2, digits),
             round(y0 + (y - lo_y) * sy if sy else (y0 + y1) / 2, digits)) for x, y in unit]


def _no_charge(steps: int) -> None:
    pass


def embed_graph(n: int, pairs: list[tuple[int, int]], rng, fit: Callable[[list], list], min_dist: float,
                clearance: float, charge: Callable[[int], None] = _no_charge) -> tuple[list | None, str]:
    """Positions for nodes 0..n-1 joined by `pairs` that pass layout_problem(min_dist, clearance) after `fit`: the
    spring embedding with the fewest edge crossings among the legible ones tried (stopping at a crossing-free one
    or the third legible one), else the first legible ring. Returns (positions, 'spring' or 'ring'), or
    (None, what broke the last ring) when nothing passes. `charge` is told the work of each step before it runs."""
    m = len(pairs)
    check_cost = n * (n - 1) // 2 + m * n
    best, best_crossings = None, None
    legible = 0
    for _ in range(SPRING_TRIES):
        charge(SPRING_ITERATIONS * (n * (n - 1) // 2 + m + n) + check_cost)
        pts = fit(spring(n, pairs, rng))
        pos = dict(enumerate(pts))
        if layout_problem(pos, pairs, min_dist, clearance) is not None:
            continue
        legible += 1
        charge(m * (m - 1) // 2)
        crossings = count_crossings(pos, pairs)
        if best_crossings is None or crossings < best_crossings:
            best, best_crossings = pts, crossings
        if crossings == 0 or legible >= 3:
            break
    if best is not None:
        return best, "spring"
    last = ""
    for _ in range(RING_TRIES):
        charge(n + check_cost)
        pts = fit(ring(n, rng))
        last = layout_problem(dict(enumerate(pts)), pairs, min_dist, clearance) or ""
        if not last:
            return pts, "ring"
    return None, last


# -- layered trees ----------------------------------------------------------------------------------------------
def layer_forest(kids: dict[int, list[int]], roots: list[int], n: int,
                 what: str) -> tuple[dict[int, int], dict[int, float], int]:
    """Layered placement of nodes 0..n-1 given each node's children (in drawing order) and the roots: returns
    (depth, slot, leaves) where leaves take slots 0, 1, … from left to right and a parent sits midway over its first
    and last child, so subtrees occupy disjoint slot ranges and no two links cross. `what` starts the messages."""
    depth: dict[int, int] = {}
    xslot: dict[int, float] = {}
    leaves = 0

    def visit(root: int) -> None:
        # Iterative post-order walk: leaves take the next slot, a parent sits midway over its first and last child.
        nonlocal leaves
        stack = [(root, 0, False)]
        while stack:
            i, d, done = stack.pop()
            if done:
                ks = kids[i]
                xslot[i] = (xslot[ks[0]] + xslot[ks[-1]]) / 2 if ks else float(leaves)
                leaves += 0 if ks else 1
                continue
            if i in depth:
                raise EvalError(f"{what}: the parent links form a cycle")
            depth[i] = d
            stack.append((i, d, True))
            stack.extend((k, d + 1, False) for k in reversed(kids[i]))

    for r in roots:
        visit(r)
    if len(depth) != n:
        raise EvalError(f"{what}: some nodes are not below any root (the parent links form a cycle)")
    return depth, xslot, leaves


# -- mazes ------------------------------------------------------------------------------------------------------
def maze_open_pairs(rows: int, cols: int, passages: list[dict]) -> set[tuple[int, int]]:
    """The passages as (smaller, larger) cell-id pairs, after checking the grid size and that each passage joins
    two neighbouring cells (ids row * cols + col)."""
    if not (1 <= rows <= lib_graph.MAX_GRID_SIDE and 1 <= cols <= lib_graph.MAX_GRID_SIDE):
        raise EvalError(f"maze of {rows} × {cols} cells (allowed 1..{lib_graph.MAX_GRID_SIDE} each)")
    open_pairs = set()
    for e in passages:
        a, b = sorted((e["a"], e["b"]))
        if not (0 <= a and b < rows * cols) or not ((b - a == 1 and b % cols != 0) or b - a == cols):
            raise EvalError(f"passage {e['a']}–{e['b']} does not join two neighbouring cells of the "
                            f"{rows} × {cols} maze")
        open_pairs.add((a, b))
    return open_pairs


def wall_runs(rows: int, cols: int, open_pairs: set[tuple[int, int]]) -> list[dict]:
    """Every wall of the maze, outer border included, merged into maximal straight runs in cell units: horizontal
    runs first (top to bottom, then left to right), then vertical ones (left to right, then top to bottom)."""
    out: list[dict] = []

    def flush(run_start, end, fixed, horizontal):
        if run_start is None:
            return
        if horizontal:
            out.append({"x": float(run_start), "y": float(fixed), "x2": float(end), "y2": float(fixed)})
        else:
            out.append({"x": float(fixed), "y": float(run_start), "x2": float(fixed), "y2": float(end)})

    for y in range(rows + 1):  # the line between row y-1 and row y
        start = None
        for c in range(cols):
            wall = y in (0, rows) or ((y - 1) * cols + c, y * cols + c) not in open_pairs
            if wall and start is None:
                start = c
            elif not wall:
                flush(start, c, y, True)
                start = None
        flush(start, cols, y, True)
    for x in range(cols + 1):  # the line between col x-1 and col x
        start = None
        for r in range(rows):
            wall = x in (0, cols) or (r * cols + x - 1, r * cols + x) not in open_pairs
            if wall and start is None:
                start = r
            elif not wall:
                flush(start, r, x, False)
                start = None
        flush(start, rows, x, False)
    return out


# -- axes -------------------------------------------------------------------------------------------------------
def nice_axis(lo: float, hi: float, max_ticks: int = 6) -> tuple[float, float, float]:
    """Round axis bounds and a 1/2/5 × 10^k tick step covering [lo, hi]."""
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / max_ticks
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    return math.floor(lo / step) * step, math.ceil(hi / step) * step, step


# -- argument checks --------------------------------------------------------------------------------------------
def _count(v: int, fname: str, what: str, limit: int = MAX_ITEMS) -> int:
    if not 0 <= v <= limit:
        raise EvalError(f"{fname}(): {v} {what} (allowed 0..{limit})")
    return v


def _finite(v: float, fname: str, what: str, lo: float | None = None) -> float:
    if not math.isfinite(v) or (lo is not None and v < lo):
        bound = f" ≥ {lo}" if lo is not None else ""
        raise EvalError(f"{fname}(): {what} must be a finite number{bound}, got {v}")
    return float(v)


def _xy_list_arg(ck, node, fname: str, what: str):
    c, elem = _list_arg(ck, node, f"{what} of {fname}()")
    if c is None:
        return None
    if elem != ANY and not has_xy(elem):
        ck.error(node, f"{what} of {fname}() must be records with numeric x and y fields, got {elem}",
                code="type-mismatch")
        return None
    return c


def _segments_arg(ck, node, fname: str):
    c, elem = _list_arg(ck, node, f"the segments of {fname}()")
    if c is None:
        return None
    if elem != ANY and not (isinstance(elem, RecordT) and all(
            is_numeric(elem.field(k) or BOOL) for k in ("x", "y", "x2", "y2"))):
        ck.error(node, f"the segments of {fname}() must be records with numeric x, y, x2, y2 fields, got {elem}",
                code="type-mismatch")
        return None
    return c


def _r(v: float) -> float:
    return round(v, DIGITS)


# -- spring_layout ----------------------------------------------------------------------------------------------
@builtin("spring_layout", "spring_layout(n, edges, gap)", 3, random=True,
         doc="positions {x, y} in the unit frame for nodes 0..n-1 joined by edges {a, b}: no two nodes closer than "
             "gap, no edge within gap / 2 of a node it does not join; spring embeddings from the render stream, "
             "then a ring; the frame's corners are reached, so inset it by the node radius")
def _spring_layout(ck, node, args):
    n = ck.expect(args[0], INT, "the node count of spring_layout()")
    e = lib_graph._edges_arg(ck, args[1], "spring_layout")
    g = ck.expect(args[2], FLOAT, "the gap of spring_layout()")
    if e is None:
        return _fail(ck)
    nf, ef, gf = n.fn, e.fn, g.fn

    def impl(env):
        count = _count(nf(env), "spring_layout", "nodes", MAX_SPRING_NODES)
        edges, gap = ef(env), _finite(gf(env), "spring_layout", "the gap", 0.0)
        _charge(env, len(edges))
        pairs = []
        for x in edges:
            a, b = x["a"], x["b"]
            for v in (a, b):
                if not 0 <= v < count:
                    raise EvalError(f"spring_layout(): edge {a}–{b} names node {v}, but the nodes are 0..{count - 1}")
            if a == b:
                raise EvalError(f"spring_layout(): edge {a}–{b} is a loop; edges join two different nodes")
            pairs.append((a, b))
        if count == 0:
            return []
        # Discs of diameter gap around the centres are disjoint and lie in the frame grown by gap / 2 on each side.
        if count * math.pi * gap * gap / 4 > (1 + gap) ** 2:
            raise PlacementFailed(f"spring_layout(): the unit frame cannot hold {count} nodes {gap} apart")
        rng = _rng(env)
        pts, method = embed_graph(count, pairs, rng, lambda unit: fit_to_box(unit, (0.0, 0.0, 1.0, 1.0), DIGITS),
                                  gap, gap / 2, lambda steps: _charge(env, steps))
        if pts is None:
            raise PlacementFailed(f"spring_layout(): no placement of {count} nodes and {len(pairs)} edges keeps "
                                  f"every two nodes {gap} apart and every edge {gap / 2} clear of the nodes it does "
                                  f"not join (last try: {method})")
        return [{"x": x, "y": y} for x, y in pts]

    return Compiled(ListT(XY), impl)


# -- tree_layout ------------------------------------------------------------------------------------------------
@builtin("tree_layout", "tree_layout(ids, parents)", 2,
         doc="layered placement {x, y, depth} of a rooted tree given parallel lists of node ids and parent ids "
             "(negative for a root): root on top, one band per depth, leaves in list order across, each parent "
             "midway over its children, no links crossing; aligned with ids")
def _tree_layout(ck, node, args):
    i = ck.expect(args[0], ListT(INT), "the node ids of tree_layout()")
    p = ck.expect(args[1], ListT(INT), "the parents of tree_layout()")
    idf, pf = i.fn, p.fn

    def impl(env):
        ids, parents = idf(env), pf(env)
        _count(len(ids), "tree_layout", "nodes")
        if len(ids) != len(parents):
            raise EvalError(f"tree_layout(): {len(ids)} node ids but {len(parents)} parents; the lists are parallel")
        _charge(env, 3 * len(ids))
        index: dict[int, int] = {}
        for k, v in enumerate(ids):
            if v in index:
                raise EvalError(f"tree_layout(): node id {v} appears twice")
            index[v] = k
        kids: dict[int, list[int]] = {k: [] for k in range(len(ids))}
        roots = []
        for k, (v, up) in enumerate(zip(ids, parents)):
            if up < 0:
                roots.append(k)
            elif up not in index:
                raise EvalError(f"tree_layout(): node {v} names parent {up}, which is not among the ids")
            else:
                kids[index[up]].append(k)
        if not ids:
            return []
        depth, slot, leaves = layer_forest(kids, roots, len(ids), "tree_layout()")
        bands = max(depth.values()) + 1
        # Band centres on both axes: leaves share the width, depths share the height, nothing touches the frame.
        return [{"x": _r((slot[k] + 0.5) / leaves), "y": _r((depth[k] + 0.5) / bands), "depth": depth[k]}
                for k in range(len(ids))]

    return Compiled(ListT(record(x=FLOAT, y=FLOAT, depth=INT)), impl)


# -- scatter_layout ---------------------------------------------------------------------------------------------
@builtin("scatter_layout", "scatter_layout(n, gap, margin)", 3, random=True,
         doc="n points {x, y} in the unit frame, at least gap apart and at least margin from its edges "
             "(rejection-sampled from the render stream, a bounded number of tries)")
def _scatter_layout(ck, node, args):
    n = ck.expect(args[0], INT, "the point count of scatter_layout()")
    g = ck.expect(args[1], FLOAT, "the gap of scatter_layout()")
    m = ck.expect(args[2], FLOAT, "the margin of scatter_layout()")
    nf, gf, mf = n.fn, g.fn, m.fn

    def impl(env):
        count = _count(nf(env), "scatter_layout", "points")
        gap = _finite(gf(env), "scatter_layout", "the gap", 0.0)
        margin = _finite(mf(env), "scatter_layout", "the margin", 0.0)
        if margin > 0.5 and count:
            raise PlacementFailed(f"scatter_layout(): a margin of {margin} leaves no room inside the unit frame")
        side = 1 - 2 * margin
        if count > 1 and count * gap * gap * SCATTER_AREA_PER_POINT > side * side:
            raise PlacementFailed(f"scatter_layout(): the area inside the margin ({side:g} × {side:g}) cannot hold "
                                  f"{count} points {gap} apart")
        rng = _rng(env)
        # Points are bucketed by cells of side gap, so a candidate is compared with its 3 × 3 block of cells only.
        cell = max(gap, 1e-3)
        buckets: dict[tuple[int, int], list[tuple[float, float]]] = {}
        pts: list[dict] = []
        limit = SCATTER_TRIES_PER_POINT * (count + 1)
        tries = 0
        while len(pts) < count:
            tries += 1
            if tries > limit:
                raise PlacementFailed(f"scatter_layout(): placed {len(pts)} of {count} points {gap} apart in "
                                      f"{limit} tries")
            # Clamped after rounding, so a margin with more than 6 decimals is still kept.
            x, y = (min(1 - margin, max(margin, _r(rng.uniform(margin, 1 - margin)))) for _ in range(2))
            cx, cy = int(x // cell), int(y // cell)
            near = [q for dx in (-1, 0, 1) for dy in (-1, 0, 1) for q in buckets.get((cx + dx, cy + dy), ())]
            _charge(env, 1 + len(near))
            if all(math.hypot(x - qx, y - qy) >= gap for qx, qy in near):
                buckets.setdefault((cx, cy), []).append((x, y))
                pts.append({"x": x, "y": y})
        return pts

    return Compiled(ListT(XY), impl)


# -- grid_layout, ring_layout -----------------------------------------------------------------------------------
@builtin("grid_layout", "grid_layout(n, cols)", 2,
         doc="centres {x, y, row, col} of n cells in rows of cols, filling the unit frame, the last row centred")
def _grid_layout(ck, node, args):
    n = ck.expect(args[0], INT, "the cell count of grid_layout()")
    c = ck.expect(args[1], INT, "the columns of grid_layout()")
    nf, cf = n.fn, c.fn

    def impl(env):
        count, cols = _count(nf(env), "grid_layout", "cells"), cf(env)
        if not 1 <= cols <= MAX_ITEMS:
            raise EvalError(f"grid_layout(): {cols} columns (allowed 1..{MAX_ITEMS})")
        _charge(env, count)
        rows = -(-count // cols)
        out = []
        for k in range(count):
            row, col = divmod(k, cols)
            in_row = min(cols, count - row * cols)
            shift = (cols - in_row) / 2  # a short last row sits in the middle
            out.append({"x": _r((col + shift + 0.5) / cols), "y": _r((row + 0.5) / rows), "row": row, "col": col})
        return out

    return Compiled(ListT(record(x=FLOAT, y=FLOAT, row=INT, col=INT)), impl)


@builtin("ring_layout", "ring_layout(n, start_deg)", 2,
         doc="n points {x, y, angle} evenly on the circle of radius 0.5 around the frame's centre, the first at "
             "start_deg (0 = right; angles grow clockwise on the image, since y points down)")
def _ring_layout(ck, node, args):
    n = ck.expect(args[0], INT, "the point count of ring_layout()")
    s = ck.expect(args[1], FLOAT, "the start angle of ring_layout()")
    nf, sf = n.fn, s.fn

    def impl(env):
        count, start = _count(nf(env), "ring_layout", "points"), _finite(sf(env), "ring_layout", "the angle")
        _charge(env, count)
        out = []
        for k in range(count):
            deg = (start + 360.0 * k / count) % 360.0
            a = math.radians(deg)
            out.append({"x": _r(0.5 + 0.5 * math.cos(a)), "y": _r(0.5 + 0.5 * math.sin(a)), "angle": _r(deg) % 360.0})  # 359.9999999 rounds to 0
        return out

    return Compiled(ListT(record(x=FLOAT, y=FLOAT, angle=FLOAT)), impl)


# -- maze_walls -------------------------------------------------------------------------------------------------
@builtin("maze_walls", "maze_walls(rows, cols, passages)", 3,
         doc="the walls {x, y, x2, y2} of a rows × cols maze whose open passages {a, b} join cells "
             "row * cols + col, in cell units (x = col, y = row), outer border included, merged into maximal "
             "straight runs")
def _maze_walls(ck, node, args):
    r = ck.expect(args[0], INT, "the rows of maze_walls()")
    c = ck.expect(args[1], INT, "the columns of maze_walls()")
    p = lib_graph._edges_arg(ck, args[2], "maze_walls")
    if p is None:
        return _fail(ck)
    rf, cf, pf = r.fn, c.fn, p.fn

    def impl(env):
        rows, cols, passages = rf(env), cf(env), pf(env)
        _charge(env, len(passages))
        open_pairs = maze_open_pairs(rows, cols, passages)
        _charge(env, 2 * (rows + 1) * (cols + 1))
        return wall_runs(rows, cols, open_pairs)

    return Compiled(ListT(SEGMENT), impl)


# -- label_spots ------------------------------------------------------------------------------------------------
# Directions tried around an anchor, diagonals first (a label there clears the lines through the anchor that run
# along the axes), as the coordinate_plane component orders its label spots.
SPOT_DIRECTIONS = [(math.cos(math.radians(a)), -math.sin(math.radians(a))) for a in (45, 135, 225, 315, 90, 0, 180,
                                                                                      270)]


def _spot_box(x, y, reach, ux, uy, hw, hh) -> tuple[float, float, float, float]:
    """The label box beside an anchor in direction (ux, uy), its near side `reach` from the anchor."""
    cx = x + reach + hw if ux > 0.3 else x - reach - hw if ux < -0.3 else x
    cy = y + reach + hh if uy > 0.3 else y - reach - hh if uy < -0.3 else y
    return cx - hw, cy - hh, cx + hw, cy + hh


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def choose_label_spots(points: list[tuple[float, float]], radius: float, hw: float, hh: float,
                       segments: list[tuple[float, float, float, float]], charge=_no_charge) -> list[tuple]:
    """Greedy, in point order: each label takes the cheapest of 8 directions × 2 distances from its anchor, where a
    collision with another anchor's dot or a label already placed costs 100, a segment through the box 20, leaving
    the unit frame 50, the farther distance 15, and the direction order breaks ties. Returns the label boxes."""
    dots = [(x - radius, y - radius, x + radius, y + radius) for x, y in points]
    placed: list[tuple] = []
    for i, (x, y) in enumerate(points):
        charge(len(SPOT_DIRECTIONS) * 2 * (len(points) + len(placed) + len(segments)))
        best, best_cost = None, None
        for far, reach in ((0, radius), (1, radius + hh)):
            for k, (ux, uy) in enumerate(SPOT_DIRECTIONS):
                box = _spot_box(x, y, reach, ux, uy, hw, hh)
                cost = 15 * far + k * 0.01
                cost += 100 * sum(_overlap(box, d) for j, d in enumerate(dots) if j != i)
                cost += 100 * sum(_overlap(box, q) for q in placed)
                cost += 20 * sum(segment_hits_box((s[0], s[1]), (s[2], s[3]), box, 0.0) for s in segments)
                if not (0 <= box[0] and box[2] <= 1 and 0 <= box[1] and box[3] <= 1):
                    cost += 50
                if best_cost is None or cost < best_cost:
                    best, best_cost = box, cost
        assert best is not None  # the first spot tried is the best so far
        placed.append(best)
    return placed


@builtin("label_spots", "label_spots(points, radius, half_w, half_h[, segments])", 4, 5,
         doc="for each anchor point {x, y} (unit frame) the centre {x, y} of a label box of half-size half_w × half_h "
             "beside it, clear of its dot (radius), of the other dots, of the labels before it and of the segments "
             "{x, y, x2, y2} where possible (greedy over 8 directions, diagonals first)")
def _label_spots(ck, node, args):
    p = _xy_list_arg(ck, args[0], "label_spots", "the points")
    sizes = [ck.expect(a, FLOAT, f"the {w} of label_spots()") for a, w in zip(args[1:4], ("radius", "half width",
                                                                                          "half height"))]
    s = _segments_arg(ck, args[4], "label_spots") if len(args) > 4 else None
    if p is None or (len(args) > 4 and s is None):
        return _fail(ck)
    pf, (rf, wf, hf) = p.fn, (c.fn for c in sizes)
    sf = s.fn if s is not None else (lambda env: [])

    def impl(env):
        pts, segs = pf(env), sf(env)
        _count(len(pts), "label_spots", "points")
        _count(len(segs), "label_spots", "segments")
        radius = _finite(rf(env), "label_spots", "the radius", 0.0)
        hw = _finite(wf(env), "label_spots", "the half width", 0.0)
        hh = _finite(hf(env), "label_spots", "the half height", 0.0)
        boxes = choose_label_spots([(q["x"], q["y"]) for q in pts], radius, hw, hh,
                                   [(q["x"], q["y"], q["x2"], q["y2"]) for q in segs], lambda k: _charge(env, k))
        return [{"x": _r((b[0] + b[2]) / 2), "y": _r((b[1] + b[3]) / 2)} for b in boxes]

    return Compiled(ListT(XY), impl)


# -- nice_ticks -------------------------------------------------------------------------------------------------
@builtin("nice_ticks", "nice_ticks(lo, hi[, max_ticks])", 2, 3,
         doc="round axis bounds {lo, hi, step, ticks} covering [lo, hi] with a 1, 2, 2.5 or 5 × 10^k step and at "
             "most about max_ticks steps (default 6); the axes of the charts use the same rule")
def _nice_ticks(ck, node, args):
    lo = ck.expect(args[0], FLOAT, "the low end of nice_ticks()")
    hi = ck.expect(args[1], FLOAT, "the high end of nice_ticks()")
    mt = ck.expect(args[2], INT, "the tick count of nice_ticks()") if len(args) > 2 else None
    lf, hf = lo.fn, hi.fn
    mf = mt.fn if mt is not None else (lambda env: 6)

    def impl(env):
        a, b = _finite(lf(env), "nice_ticks", "lo"), _finite(hf(env), "nice_ticks", "hi")
        most = mf(env)
        if not 1 <= most <= MAX_ITEMS:
            raise EvalError(f"nice_ticks(): {most} ticks (allowed 1..{MAX_ITEMS})")
        if not math.isfinite(b - a):
            raise EvalError(f"nice_ticks(): the range {a}..{b} is too wide")
        try:
            top, bottom, step = nice_axis(a, b, most)
        except (ValueError, OverflowError):  # a range too narrow for its magnitude: lo + 1 == lo
            raise EvalError(f"nice_ticks(): no tick step for the range {a}..{b}") from None
        count = int(round((bottom - top) / step)) + 1
        _charge(env, count)
        env["$budget"].charge_bytes(count)
        # Ticks as multiples of the step, rounded, so 0.1 steps read 0.3 and not 0.30000000000000004.
        return {"lo": float(round(top, 10)), "hi": float(round(bottom, 10)), "step": float(round(step, 10)),
                "ticks": [float(round(top + k * step, 10)) for k in range(count)]}

    return Compiled(record(lo=FLOAT, hi=FLOAT, step=FLOAT, ticks=ListT(FLOAT)), impl)
