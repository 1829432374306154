"""Grid operators: boards, tile grids and digit grids.

A *cell* is any record with int fields `row` and `col` (row 0 on top, col 0 on the left), so pieces on a board, tiles
of a match grid and digits of a sudoku share one vocabulary: neighbours, lines (rows, columns, boxes), runs,
connected regions and the moves of chess-style pieces. Every function charges the step budget for the cells it
touches, and positions are checked (two cells on one square are an error, not a silent pick).
"""
from __future__ import annotations

from ..errors import EvalError
from .builtins import _charge, _fail, _hashable, _list_arg, _sort_cost, builtin
from .compile import MAX_LIST, Compiled
from .types import ANY, BOOL, INT, STR, ListT, RecordT, Type, accepts, record

MAX_SIDE = 40  # boards larger than this are refused: no scene draws them legibly
SQUARE = record(row=INT, col=INT)

ORTHOGONAL = ((-1, 0), (1, 0), (0, -1), (0, 1))
DIAGONAL = ((-1, -1), (-1, 1), (1, -1), (1, 1))
KNIGHT = ((-2, -1), (-2, 1), (-1, -2), (-1, 2), (1, -2), (1, 2), (2, -1), (2, 1))
# kind → (steps, slides): a sliding piece repeats its step until the edge or a blocker
PIECES = {
    "rook": (ORTHOGONAL, True),
    "bishop": (DIAGONAL, True),
    "queen": (ORTHOGONAL + DIAGONAL, True),
    "king": (ORTHOGONAL + DIAGONAL, False),
    "knight": (KNIGHT, False),
}


def is_cell(t: Type) -> bool:
    return t == ANY or (isinstance(t, RecordT) and t.field("row") == INT and t.field("col") == INT)


def _cells_arg(ck, node, fname: str, what: str):
    c, elem = _list_arg(ck, node, f"{what} of {fname}()")
    if c is None:
        return None, None
    if not is_cell(elem):
        ck.error(node, f"{fname}() needs cells: records with integer fields row and col, got {elem}", code="type-mismatch")
        return None, None
    return c, elem


def _cell_arg(ck, node, fname: str, what: str):
    c = ck.compile(node)
    if not is_cell(c.type):
        ck.error(node, f"{what} of {fname}() must be a cell (a record with integer row and col), got {c.type}",
                code="type-mismatch")
        return None
    return c


def _by_position(cells: list, fname: str) -> dict[tuple[int, int], dict]:
    where: dict[tuple[int, int], dict] = {}
    for x in cells:
        pos = (x["row"], x["col"])
        if pos in where:
            raise EvalError(f"{fname}(): two cells at row {pos[0]}, col {pos[1]}")
        where[pos] = x
    return where


# -- neighbourhoods ---------------------------------------------------------------------------------------------
def _neighbors(name: str, offsets: tuple, doc: str):
    @builtin(name, f"{name}(cells, cell)", 2, doc=doc)
    def typer(ck, node, args):
        c, elem = _cells_arg(ck, args[0], name, "the first argument")
        center = _cell_arg(ck, args[1], name, "the second argument")
        if c is None or center is None:
            return _fail(ck)
        cf, pf = c.fn, center.fn

        def impl(env):
            cells, at = cf(env), pf(env)
            _charge(env, len(cells))
            around = {(at["row"] + dr, at["col"] + dc) for dr, dc in offsets}
            return [x for x in cells if (x["row"], x["col"]) in around]

        return Compiled(ListT(elem), impl)


_neighbors("neighbors4", ORTHOGONAL, "the cells one step up, down, left or right of a cell, in list order")
_neighbors("neighbors8", ORTHOGONAL + DIAGONAL, "the cells touching a cell by a side or a corner, in list order")


# -- lines: rows, columns, boxes --------------------------------------------------------------------------------
def _grouped(cells: list, group, order) -> list[list]:
    groups: dict = {}
    for x in cells:
        groups.setdefault(group(x), []).append(x)
    return [sorted(groups[k], key=order) for k in sorted(groups)]


def _lines(name: str, doc: str, group, order):
    @builtin(name, f"{name}(cells)", 1, doc=doc)
    def typer(ck, node, args):
        c, elem = _cells_arg(ck, args[0], name, "the argument")
        if c is None:
            return _fail(ck)
        cf = c.fn

        def impl(env):
            cells = cf(env)
            _charge(env, _sort_cost(len(cells)))  # grouped, then each group sorted
            _by_position(cells, name)
            return _grouped(cells, group, order)

        return Compiled(ListT(ListT(elem)), impl)


_lines("grid_rows", "the rows of a grid, top to bottom, each a list of its cells from left to right",
       lambda x: x["row"], lambda x: x["col"])
_lines("grid_cols", "the columns of a grid, left to right, each a list of its cells from top to bottom",
       lambda x: x["col"], lambda x: x["row"])


@builtin("grid_boxes", "grid_boxes(cells, box_rows, box_cols)", 3,
         doc="the boxes of box_rows × box_cols cells (as in sudoku), in reading order, each in reading order")
def _grid_boxes(ck, node, args):
    c, elem = _cells_arg(ck, args[0], "grid_boxes", "the first argument")
    h = ck.expect(args[1], INT, "the box height of grid_boxes()")
    w = ck.expect(args[2], INT, "the box width of grid_boxes()")
    if c is None:
        return _fail(ck)
    cf, hf, wf = c.fn, h.fn, w.fn

    def impl(env):
        cells, bh, bw = cf(env), hf(env), wf(env)
        if bh < 1 or bw < 1:
            raise EvalError(f"grid_boxes(): boxes of {bh} × {bw} cells")
        _charge(env, _sort_cost(len(cells)))
        _by_position(cells, "grid_boxes")
        return _grouped(cells, lambda x: (x["row"] // bh, x["col"] // bw), lambda x: (x["row"], x["col"]))

    return Compiled(ListT(ListT(elem)), impl)


# -- runs and regions -------------------------------------------------------------------------------------------
@builtin("runs", "runs(list, x -> key)", 2,
         doc="maximal stretches of neighbouring items with equal keys, in order (a row of tiles → its colour runs)")
def _runs(ck, node, args):
    c, elem = _list_arg(ck, args[0], "the first argument of runs()")
    if c is None:
        return _fail(ck)
    _, key = ck.lambda_of(args[1], elem, "the second argument of runs()") or (None, None)
    if key is None:
        return _fail(ck)
    xf = c.fn

    def impl(env):
        xs = xf(env)
        _charge(env, len(xs))
        out: list[list] = []
        last = object()
        for x in xs:
            k = _hashable(key(env, x), env["$budget"])
            if out and k == last:
                out[-1].append(x)
            else:
                out.append([x])
            last = k
        return out

    return Compiled(ListT(ListT(elem)), impl)


def _flood(env, where: dict, start: tuple[int, int], keys: dict) -> set[tuple[int, int]]:
    want = keys[start]
    todo, found = [start], {start}
    budget = env["$budget"]
    while todo:
        r, c = todo.pop()
        budget.charge(1)  # per cell as the fill reaches it (four neighbours looked at)
        for dr, dc in ORTHOGONAL:
            nxt = (r + dr, c + dc)
            if nxt in where and nxt not in found and keys[nxt] == want:
                found.add(nxt)
                todo.append(nxt)
    return found


def _keyed(env, cells: list, key, fname: str):
    where = _by_position(cells, fname)
    keys = {pos: _hashable(key(env, x), env["$budget"]) for pos, x in where.items()}
    return where, keys


@builtin("region", "region(cells, cell, x -> key)", 3,
         doc="the cells joined to a cell through side-neighbours with the same key (flood fill), in list order")
def _region(ck, node, args):
    c, elem = _cells_arg(ck, args[0], "region", "the first argument")
    start = _cell_arg(ck, args[1], "region", "the second argument")
    if c is None or start is None:
        return _fail(ck)
    _, key = ck.lambda_of(args[2], elem, "the third argument of region()") or (None, None)
    if key is None:
        return _fail(ck)
    cf, sf = c.fn, start.fn

    def impl(env):
        cells, at = cf(env), sf(env)
        _charge(env, len(cells))
        where, keys = _keyed(env, cells, key, "region")
        pos = (at["row"], at["col"])
        if pos not in where:
            raise EvalError(f"region(): no cell at row {pos[0]}, col {pos[1]}")
        inside = _flood(env, where, pos, keys)
        return [x for x in cells if (x["row"], x["col"]) in inside]

    return Compiled(ListT(elem), impl)


@builtin("regions", "regions(cells, x -> key)", 2,
         doc="every maximal side-connected group of cells with one key, ordered by first cell; cells in list order")
def _regions(ck, node, args):
    c, elem = _cells_arg(ck, args[0], "regions", "the first argument")
    if c is None:
        return _fail(ck)
    _, key = ck.lambda_of(args[1], elem, "the second argument of regions()") or (None, None)
    if key is None:
        return _fail(ck)
    cf = c.fn

    def impl(env):
        cells = cf(env)
        _charge(env, len(cells))
        where, keys = _keyed(env, cells, key, "regions")
        label: dict[tuple[int, int], int] = {}
        count = 0
        for x in cells:
            pos = (x["row"], x["col"])
            if pos not in label:
                for p in _flood(env, where, pos, keys):
                    label[p] = count
                count += 1
        out: list[list] = [[] for _ in range(count)]
        for x in cells:
            out[label[(x["row"], x["col"])]].append(x)
        return out

    return Compiled(ListT(ListT(elem)), impl)


# -- pieces -----------------------------------------------------------------------------------------------------
@builtin("piece_moves", "piece_moves(kind, pieces, piece, rows, cols[, x -> bool])", 5, 6,
         doc="squares {row, col} a rook/bishop/queen/king/knight on `piece`'s square can move to on a rows × cols "
             "board: other pieces block (only the knight jumps) and their squares are excluded, unless the "
             "optional predicate says the piece there may be captured")
def _piece_moves(ck, node, args):
    kind = ck.expect(args[0], STR, "the kind of piece_moves()")
    c, elem = _cells_arg(ck, args[1], "piece_moves", "the pieces")
    mover = _cell_arg(ck, args[2], "piece_moves", "the moving piece")
    rows = ck.expect(args[3], INT, "the rows of piece_moves()")
    cols = ck.expect(args[4], INT, "the columns of piece_moves()")
    if c is None or mover is None:
        return _fail(ck)
    capture = None
    if len(args) == 6:
        res = ck.lambda_of(args[5], elem, "the capture rule of piece_moves()")
        if res is None:
            return _fail(ck)
        t, capture = res
        if not accepts(BOOL, t):
            return ck.error(args[5], f"the capture rule of piece_moves() must return boolean, got {t}",
                    code="type-mismatch")
    kf, cf, mf, rf, colf = kind.fn, c.fn, mover.fn, rows.fn, cols.fn

    def impl(env):
        k, pieces, me, n_rows, n_cols = kf(env), cf(env), mf(env), rf(env), colf(env)
        if k not in PIECES:
            raise EvalError(f"piece_moves(): unknown kind '{k}' (known: {', '.join(PIECES)})")
        if not (1 <= n_rows <= MAX_SIDE and 1 <= n_cols <= MAX_SIDE):
            raise EvalError(f"piece_moves(): a board of {n_rows} × {n_cols} (allowed 1..{MAX_SIDE} each)")
        start = (me["row"], me["col"])
        if not (0 <= start[0] < n_rows and 0 <= start[1] < n_cols):
            raise EvalError(f"piece_moves(): the piece at row {start[0]}, col {start[1]} is off the board")
        # Every direction slides at most across the board: charged before the walk, which it bounds.
        _charge(env, len(pieces) + len(PIECES[k][0]) * max(n_rows, n_cols))
        others = _by_position([x for x in pieces if (x["row"], x["col"]) != start], "piece_moves")
        steps, slides = PIECES[k]
        out = []
        for dr, dc in steps:
            r, c_ = start
            while True:
                r, c_ = r + dr, c_ + dc
                if not (0 <= r < n_rows and 0 <= c_ < n_cols):
                    break
                blocker = others.get((r, c_))
                if blocker is not None:
                    if capture is not None and capture(env, blocker):
                        out.append({"row": r, "col": c_})
                    break
                out.append({"row": r, "col": c_})
                if not slides:
                    break
        if len(out) > MAX_LIST:  # pragma: no cover - a 40 × 40 board has far fewer squares
            raise EvalError("piece_moves(): too many squares")
        return out

    return Compiled(ListT(SQUARE), impl)


@builtin("grid_walk", "grid_walk(rows, cols, row, col, k)", 5, random=True,
         doc="a random path of k orthogonal steps from (row, col) that never revisits a square: k + 1 cells "
             "{row, col}, the start first (a sliding puzzle's gap walk, a snake, a route)")
def _grid_walk(ck, node, args):
    fs = [ck.expect(a, INT, f"argument {i + 1} of grid_walk()").fn for i, a in enumerate(args)]

    def impl(env):
        from .builtins import _rng

        rows, cols, row, col, k = (f(env) for f in fs)
        if not (1 <= rows <= MAX_SIDE and 1 <= cols <= MAX_SIDE):
            raise EvalError(f"grid_walk(): a {rows} × {cols} grid (sides 1..{MAX_SIDE})")
        if not (0 <= row < rows and 0 <= col < cols):
            raise EvalError(f"grid_walk(): the start ({row}, {col}) is not on the {rows} × {cols} grid")
        if not 0 <= k < rows * cols:
            raise EvalError(f"grid_walk(): {k} steps on a {rows} × {cols} grid (0..{rows * cols - 1})")
        rng = _rng(env)
        # Random depth-first search with backtracking, bounded: uniform over the first step's options at each
        # square, so every self-avoiding walk of length k can come out. Dead ends back up one square.
        for _attempt in range(64):
            path, seen, options = [(row, col)], {(row, col)}, []
            options.append(rng.shuffle([d for d in ORTHOGONAL]))
            tries = 0
            while len(path) <= k and path and tries < 50 * (k + 1):
                tries += 1
                _charge(env, 1)
                if not options[-1]:
                    seen.discard(path.pop())
                    options.pop()
                    continue
                dr, dc = options[-1].pop()
                r, c = path[-1][0] + dr, path[-1][1] + dc
                if 0 <= r < rows and 0 <= c < cols and (r, c) not in seen:
                    path.append((r, c))
                    seen.add((r, c))
                    options.append(rng.shuffle([d for d in ORTHOGONAL]))
            if len(path) == k + 1:
                return [{"row": r, "col": c} for r, c in path]
        raise EvalError(f"grid_walk(): no walk of {k} steps from ({row}, {col}) on a {rows} × {cols} grid")

    return Compiled(ListT(SQUARE), impl)
