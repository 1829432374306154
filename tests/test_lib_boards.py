"""Grid operators (compiler/expr/lib_grid.py) and the boards
domain's option and render-map guarantees."""
from __future__ import annotations

import pytest

from tessera.errors import Diagnostics, EvalError
from tessera.expr.compile import Scope, Site, compile_expr, new_env, run
from tessera.expr.types import BOOL, INT, STR, ListT, record
from tessera.sample.rng import Rng
from tessera.trace.instance import generate
from tests.tasks import OPTION_FITS as ALL_FITS  # noqa: E402
from tests.tasks import REGISTERED_IN, grammar_module  # noqa: E402
from tests.tasks.games.chess import reachable  # noqa: E402

# the option tasks of the board grammars
OPTION_FITS = {t: f for t, f in ALL_FITS.items()
               if REGISTERED_IN["option_fit", t] in (grammar_module("games.chess"), grammar_module("puzzles.tiles"))}

CELL = record(row=INT, col=INT, color=STR)
PIECE = record(row=INT, col=INT, kind=STR, side=STR)
SCOPE = Scope({"tiles": ListT(CELL), "pieces": ListT(PIECE), "xs": ListT(INT), "size": INT, "flag": BOOL})
# a 3 × 3 tile grid:   r r g
#                      b r g
#                      b b r
COLORS = ["r", "r", "g", "b", "r", "g", "b", "b", "r"]
TILES = [{"row": i // 3, "col": i % 3, "color": c} for i, c in enumerate(COLORS)]
# a 5 × 5 board: white rook at (2, 2), white knight at (2, 4), black pawn-like bishop at (0, 2), black king (4, 2)
PIECES = [
    {"row": 2, "col": 2, "kind": "rook", "side": "white"},
    {"row": 2, "col": 4, "kind": "knight", "side": "white"},
    {"row": 0, "col": 2, "kind": "bishop", "side": "black"},
    {"row": 4, "col": 2, "kind": "king", "side": "black"},
]
VALUES = {"tiles": TILES, "pieces": PIECES, "xs": [1, 1, 2, 2, 2, 1], "size": 5, "flag": True}


def ev(src: str, values: dict = VALUES):
    d = Diagnostics()
    c = compile_expr(src, SCOPE, Site(None, (), "t.yaml"), d)
    assert c is not None, [str(x) for x in d.items]
    return str(c.type), run(c, new_env(values, Rng(1)))


def errors(src: str) -> list[str]:
    d = Diagnostics()
    assert compile_expr(src, SCOPE, Site(None, (), "t.yaml"), d) is None
    return [str(x) for x in d.sorted()]


def cells(xs) -> list[tuple[int, int]]:
    return [(x["row"], x["col"]) for x in xs]


# -- neighbourhoods and lines -----------------------------------------------------------------------------------
def test_neighbors_are_cells_of_the_list_in_list_order():
    t, v = ev("neighbors4(tiles, tiles[4])")
    assert t == "list[{row: integer, col: integer, color: string}]"
    assert cells(v) == [(0, 1), (1, 0), (1, 2), (2, 1)]
    assert cells(ev("neighbors8(tiles, tiles[0])")[1]) == [(0, 1), (1, 0), (1, 1)]
    assert len(ev("neighbors8(tiles, tiles[4])")[1]) == 8
    # any record with row and col may be the centre, even one not in the list
    assert cells(ev("neighbors4(tiles, {row: 3, col: 2})")[1]) == [(2, 2)]


def test_rows_columns_and_boxes_group_and_order_cells():
    assert [[c["color"] for c in r] for r in ev("grid_rows(tiles)")[1]] == [["r", "r", "g"], ["b", "r", "g"],
                                                                            ["b", "b", "r"]]
    t, v = ev("grid_cols(tiles)")
    assert t == "list[list[{row: integer, col: integer, color: string}]]"
    assert [[c["color"] for c in col] for col in v] == [["r", "b", "b"], ["r", "r", "b"], ["g", "g", "r"]]
    sudoku = [{"row": r, "col": c, "color": str(r * 4 + c)} for r in range(4) for c in range(4)]
    boxes = ev("grid_boxes(tiles, 2, 2)", {**VALUES, "tiles": sudoku})[1]
    assert [cells(b) for b in boxes][1] == [(0, 2), (0, 3), (1, 2), (1, 3)]
    assert len(boxes) == 4 and all(len(b) == 4 for b in boxes)


def test_runs_split_at_every_change_of_key():
    assert ev("runs(xs, x -> x)")[1] == [[1, 1], [2, 2, 2], [1]]
    assert ev("map(runs(first(grid_rows(tiles)), t -> t.color), g -> len(g))")[1] == [2, 1]
    assert ev("runs(filter(xs, x -> x > 5), x -> x)")[1] == []


def test_region_flood_fills_through_sides_only():
    t, v = ev("region(tiles, tiles[0], t -> t.color)")
    assert t == "list[{row: integer, col: integer, color: string}]"
    assert cells(v) == [(0, 0), (0, 1), (1, 1)]  # (2, 2) is red too but touches (1, 1) only by a corner
    assert cells(ev("region(tiles, tiles[8], t -> t.color)")[1]) == [(2, 2)]


def test_regions_cover_every_cell_once_in_first_cell_order():
    t, v = ev("regions(tiles, t -> t.color)")
    assert t == "list[list[{row: integer, col: integer, color: string}]]"
    assert [[c["color"] for c in g] for g in v] == [["r", "r", "r"], ["g", "g"], ["b", "b", "b"], ["r"]]
    assert sorted(c for g in v for c in cells(g)) == sorted(cells(TILES))
    assert ev("len(regions(tiles, t -> 0))")[1] == 1


def test_grid_operators_refuse_two_cells_on_one_square():
    doubled = {**VALUES, "tiles": TILES + [dict(TILES[0])]}
    for src in ("regions(tiles, t -> t.color)", "grid_rows(tiles)", "region(tiles, tiles[1], t -> t.color)"):
        with pytest.raises(EvalError, match="two cells at row 0, col 0"):
            ev(src, doubled)
    with pytest.raises(EvalError, match="no cell at row 7"):
        ev("region(tiles, {row: 7, col: 0}, t -> t.color)")


# -- piece moves ------------------------------------------------------------------------------------------------
def test_sliding_pieces_stop_at_blockers_and_capture_only_when_allowed():
    t, v = ev("piece_moves('rook', pieces, pieces[0], size, size)")
    assert t == "list[{row: integer, col: integer}]"
    # up: (1,2) then the black bishop blocks; down: (3,2) then the black king; left: 2 squares; right: (2,3) then own
    assert sorted(cells(v)) == [(1, 2), (2, 0), (2, 1), (2, 3), (3, 2)]
    captures = ev("piece_moves('rook', pieces, pieces[0], size, size, x -> x.side != 'white')")[1]
    assert sorted(cells(captures)) == [(0, 2), (1, 2), (2, 0), (2, 1), (2, 3), (3, 2), (4, 2)]
    assert len(ev("piece_moves('queen', pieces, pieces[0], size, size)")[1]) == 5 + 8
    assert len(ev("piece_moves('bishop', pieces, pieces[0], size, size)")[1]) == 8


def test_knight_jumps_and_king_steps_stay_on_the_board():
    knight = ev("piece_moves('knight', pieces, pieces[1], size, size)")[1]
    # of the eight (2±2, 4±1) and (2±1, 4±2), these four are on the board
    assert sorted(cells(knight)) == [(0, 3), (1, 2), (3, 2), (4, 3)]
    king = ev("piece_moves('king', pieces, {row: 0, col: 0}, size, size)")[1]
    assert sorted(cells(king)) == [(0, 1), (1, 0), (1, 1)]
    # the moving piece's own square never blocks, and every result agrees with the oracle's own move generator
    state = {"rows": 5, "pieces": PIECES}
    for i, p in enumerate(PIECES):
        got = ev(f"piece_moves(pieces[{i}].kind, pieces, pieces[{i}], size, size, x -> x.side != pieces[{i}].side)")
        assert set(cells(got[1])) == reachable(state, p, captures=True)


def test_piece_moves_errors():
    with pytest.raises(EvalError, match="unknown kind 'pawn'"):
        ev("piece_moves('pawn', pieces, pieces[0], size, size)")
    with pytest.raises(EvalError, match="off the board"):
        ev("piece_moves('rook', pieces, pieces[0], 2, 2)")
    with pytest.raises(EvalError, match="allowed 1..40"):
        ev("piece_moves('rook', pieces, pieces[0], 41, 5)")


@pytest.mark.parametrize("src,fragment", [
    ("neighbors4(xs, tiles[0])", "needs cells: records with integer fields row and col, got integer"),
    ("region(tiles, 3, t -> t.color)", "must be a cell (a record with integer row and col), got integer"),
    ("piece_moves('rook', pieces, pieces[0], size, size, x -> x.kind)",
     "capture rule of piece_moves() must return boolean"),
    ("piece_moves(1, pieces, pieces[0], size, size)", "the kind of piece_moves() must be string, got integer"),
    ("grid_boxes(tiles, 2, 'x')", "the box width of grid_boxes() must be integer, got string"),
    ("runs(size, x -> x)", "must be a list, got integer"),
])
def test_grid_operators_are_typed(src, fragment):
    assert any(fragment in m for m in errors(src)), errors(src)


# -- the domain's tasks -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("task_id", sorted(OPTION_FITS))
def test_option_tasks_have_exactly_one_correct_option(taxonomy, task_id):
    task = taxonomy.tasks[task_id]
    for level in range(0, 10, 3):
        for seed in range(8):
            tr = generate(task, 100 + seed, level, vocab=taxonomy.vocab).trace
            fits = OPTION_FITS[task_id](tr)
            assert len(fits) == 1, (level, seed, fits)
            assert len(tr["steps"]["options"]) >= 3
            assert tr["answer"] == "ABCDEFGH"[fits[0]]


def render_map_is_clean(trace: dict) -> int:
    """Every bound mark lies inside the canvas; marks of one list (pieces, cells, tiles, panels) never overlap.
    Returns how many marks were checked."""
    w, h = trace["render"]["width"], trace["render"]["height"]
    groups: dict[str, list] = {}
    for path, entry in trace["render"]["render_map"].items():
        x0, y0, x1, y1 = entry["bbox"]
        assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h, path
        groups.setdefault(path.split("[")[0], []).append(entry["bbox"])
    for boxes in groups.values():
        boxes.sort()
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                if b[0] >= a[2]:
                    break
                assert a[3] <= b[1] or b[3] <= a[1], (a, b)
    return len(trace["render"]["render_map"])


def test_boards_render_maps_are_inside_and_apart(taxonomy):
    for task_id in ("games.chess.move_count", "puzzles.sudoku.marked_cell", "puzzles.tiles.region_size"):
        for level in (0, 9):
            for seed in range(3):
                trace = generate(taxonomy.tasks[task_id], seed, level, vocab=taxonomy.vocab).trace
                assert render_map_is_clean(trace) > 0


def test_grid_walk_is_a_self_avoiding_path_and_every_walk_can_come_out():
    def walk(seed: int, src: str):
        d = Diagnostics()
        c = compile_expr(src, Scope(SCOPE.names, allow_random=True), Site(None, (), "t.yaml"), d)
        assert c is not None, [str(x) for x in d.items]
        return str(c.type), run(c, new_env(VALUES, Rng(seed)))

    seen = set()
    for seed in range(300):
        typ, path = walk(seed, "grid_walk(3, 3, 2, 2, 3)")
        assert typ == "list[{row: integer, col: integer}]"
        steps = cells(path)
        assert steps[0] == (2, 2) and len(steps) == 4 and len(set(steps)) == 4
        assert all(0 <= r < 3 and 0 <= c < 3 for r, c in steps)
        assert all(abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1 for a, b in zip(steps, steps[1:]))
        seen.add(tuple(steps))
    assert len(seen) == 8  # every self-avoiding walk of 3 steps from a corner of a 3 × 3 grid
    hamiltonian = cells(walk(5, "grid_walk(4, 4, 3, 3, 15)")[1])  # every square once: found by backtracking
    assert len(set(hamiltonian)) == 16 and hamiltonian == cells(walk(5, "grid_walk(4, 4, 3, 3, 15)")[1])
    with pytest.raises(EvalError, match=r"grid_walk\(\): 9 steps on a 3 × 3 grid \(0..8\)"):
        walk(1, "grid_walk(3, 3, 2, 2, 9)")
    with pytest.raises(EvalError, match=r"grid_walk\(\): the start \(3, 0\) is not on the 3 × 3 grid"):
        walk(1, "grid_walk(3, 3, 3, 0, 2)")
