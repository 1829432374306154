"""Board layouts: chess-style boards with pieces, sudoku-like digit grids, and match-style tile grids.

Every cell or piece a board draws is bound to its state record, so a witness can name any square (a blank sudoku
cell, a marked tile) and get its pixels. Which squares are dark, where boxes begin and what a marked cell is are
fixed by the state and by the rules written here, never by the render stream; the render stream only picks the
board's shades.
"""
from __future__ import annotations

from dataclasses import dataclass

import skia

from ..errors import EvalError
from ..expr.types import BOOL, INT, STR
from ..load.models import Expr, Model
from .layouts import _fit, layout
from .painter import Painter

MAX_SIDE = 40

# (light, dark) square shades: render-only, each pair clearly light vs dark
BOARD_SHADES = [((240, 217, 181), (181, 136, 99)), ((238, 238, 210), (118, 150, 86)),
                ((225, 230, 235), (128, 150, 170))]
PIECE_LETTERS = {"king": "K", "queen": "Q", "rook": "R", "bishop": "B", "knight": "N", "pawn": "P"}
WHITE_PIECE = (250, 250, 244)


@dataclass
class BoardFrame:
    """Pixel geometry of a rows × cols board: top-left corner and the side of one square cell."""
    x0: float
    y0: float
    cell: float
    rows: int
    cols: int

    def box(self, row: int, col: int, inset: float = 0.0) -> tuple[float, float, float, float]:
        x, y = self.x0 + col * self.cell, self.y0 + row * self.cell
        return x + inset, y + inset, x + self.cell - inset, y + self.cell - inset

    def center(self, row: int, col: int) -> tuple[float, float]:
        return self.x0 + (col + 0.5) * self.cell, self.y0 + (row + 0.5) * self.cell


def board_frame(p: Painter, rows: int, cols: int, what: str, left: float = 30, top: float = 30,
                bottom: float = 12) -> BoardFrame:
    """Fit a board of square cells into the canvas, leaving room for coordinate labels; checks the size."""
    if not (1 <= rows <= MAX_SIDE and 1 <= cols <= MAX_SIDE):
        raise EvalError(f"{what} of {rows} × {cols} cells (allowed 1..{MAX_SIDE} each)")
    right = 12
    cell = min((p.width - left - right) / cols, (p.height - top - bottom) / rows)
    x0 = left + (p.width - left - right - cell * cols) / 2
    y0 = top + (p.height - top - bottom - cell * rows) / 2
    return BoardFrame(x0, y0, cell, rows, cols)


def cell_of(it: dict, row: str, col: str, f: BoardFrame, what: str) -> tuple[int, int]:
    r, c = it[row], it[col]
    if not (0 <= r < f.rows and 0 <= c < f.cols):
        raise EvalError(f"{what}: item at cell ({r}, {c}) lies outside the {f.rows} × {f.cols} board")
    return r, c


def number_labels(p: Painter, f: BoardFrame) -> None:
    size = max(9.0, min(13.0, f.cell * 0.4))
    for r in range(f.rows):
        p.text(f.x0 - 12, f.y0 + (r + 0.5) * f.cell, str(r + 1), size)
    for c in range(f.cols):
        p.text(f.x0 + (c + 0.5) * f.cell, f.y0 - 12, str(c + 1), size)


def _grid_lines(p: Painter, f: BoardFrame, width: float = 1.2) -> None:
    for r in range(f.rows + 1):
        p.line(f.x0, f.y0 + r * f.cell, f.x0 + f.cols * f.cell, f.y0 + r * f.cell, p.theme.ink, width)
    for c in range(f.cols + 1):
        p.line(f.x0 + c * f.cell, f.y0, f.x0 + c * f.cell, f.y0 + f.rows * f.cell, p.theme.ink, width)


def _ink_on(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    """Ink or white, whichever reads better on a fill."""
    luminance = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]
    return (25, 25, 30) if luminance > 140 else (255, 255, 255)


def square_name(row: int, col: int, rows: int) -> str:
    """Chess-style name of a square: file letter from the left, rank number from the bottom ("C3")."""
    return f"{chr(65 + col)}{rows - row}"


# -- checker_board ----------------------------------------------------------------------------------------------
class CheckerBoard(Model):
    items: Expr
    rows: Expr
    cols: Expr
    row: str
    col: str
    piece: str
    side: str
    coords: bool = True


@layout("checker_board", CheckerBoard, {"row": (INT,), "col": (INT,), "piece": (STR,), "side": (STR,)},
        exprs={"rows": INT, "cols": INT},
        summary="a chess-style board of light and dark squares (top-left light; dark where row + col is odd) with "
                "pieces drawn as lettered discs (king K, queen Q, rook R, bishop B, knight N, pawn P, or a short "
                "text) in the side's colour (white, black or a colour name); coords label files A.. along the "
                "bottom and ranks 1.. from the bottom up")
def draw_checker_board(p: Painter, prm: CheckerBoard, items: list[dict], text: dict, rng, rows: int,
                       cols: int) -> dict:
    f = board_frame(p, rows, cols, "checker_board", left=30 if prm.coords else 12, top=12,
                    bottom=30 if prm.coords else 12)
    shades = rng.below(len(BOARD_SHADES))
    light, dark = BOARD_SHADES[shades]
    for r in range(rows):
        for c in range(cols):
            p.rect(*f.box(r, c), dark if (r + c) % 2 else light)
    p.rect(f.x0, f.y0, f.x0 + cols * f.cell, f.y0 + rows * f.cell, None, p.theme.ink, 1.5)
    if prm.coords:
        size = max(9.0, min(13.0, f.cell * 0.36))
        for r in range(rows):
            p.text(f.x0 - 12, f.y0 + (r + 0.5) * f.cell, str(rows - r), size)
        for c in range(cols):
            p.text(f.x0 + (c + 0.5) * f.cell, f.y0 + rows * f.cell + 13, chr(65 + c), size)
    radius = f.cell * 0.36
    for it in items:
        r, c = cell_of(it, prm.row, prm.col, f, "checker_board")
        kind, side = it[prm.piece], it[prm.side]
        label = PIECE_LETTERS.get(kind, kind)
        if not 1 <= len(label) <= 2:
            raise EvalError(f"checker_board: piece '{kind}' is neither a chess piece name nor a 1–2 letter label")
        fill = WHITE_PIECE if side == "white" else p.theme.color(side)
        cx, cy = f.center(r, c)
        p.circle(cx, cy, radius, fill, p.theme.ink, 1.6, obj=it, group="pieces")
        p.text(cx, cy, label, _fit(p, label, radius * 1.15, radius * 1.5), _ink_on(fill), bold=True)
    return {"board_shades": shades}


# -- digit_grid -------------------------------------------------------------------------------------------------
class DigitGrid(Model):
    items: Expr
    rows: Expr
    cols: Expr
    box_rows: Expr = "0"
    box_cols: Expr = "0"
    row: str
    col: str
    value: str
    shown: str | None = None
    marked: str | None = None
    coords: bool = True


@layout("digit_grid", DigitGrid, {"row": (INT,), "col": (INT,), "value": (INT, STR), "shown": (BOOL,),
                                  "marked": (BOOL,)},
        exprs={"rows": INT, "cols": INT, "box_rows": INT, "box_cols": INT},
        summary="a sudoku-like grid: one item per cell, its value drawn when `shown` (blank otherwise), thick "
                "lines around boxes of box_rows × box_cols cells (0: none), `marked` cells shaded; every cell is "
                "bound, blank or not; coords number rows and columns from 1 at the top left")
def draw_digit_grid(p: Painter, prm: DigitGrid, items: list[dict], text: dict, rng, rows: int, cols: int,
                    box_rows: int, box_cols: int) -> dict:
    f = board_frame(p, rows, cols, "digit_grid", left=30 if prm.coords else 12, top=30 if prm.coords else 12)
    if box_rows < 0 or box_cols < 0 or (box_rows and rows % box_rows) or (box_cols and cols % box_cols):
        raise EvalError(f"digit_grid: boxes of {box_rows} × {box_cols} do not tile a {rows} × {cols} grid")
    shade = rng.choice([(255, 236, 150), (190, 225, 250), (200, 240, 200)])
    size = f.cell * 0.55
    for it in items:
        r, c = cell_of(it, prm.row, prm.col, f, "digit_grid")
        if prm.marked and it[prm.marked]:
            p.rect(*f.box(r, c), shade)
        p.bind(it, f.box(r, c, inset=2.0), "cells")
        if prm.shown is None or it[prm.shown]:
            cx, cy = f.center(r, c)
            p.text(cx, cy, str(it[prm.value]), size, bold=False)
    _grid_lines(p, f, 1.0)
    for r in range(0, rows + 1, box_rows or rows):
        p.line(f.x0, f.y0 + r * f.cell, f.x0 + cols * f.cell, f.y0 + r * f.cell, p.theme.ink, 3.0)
    for c in range(0, cols + 1, box_cols or cols):
        p.line(f.x0 + c * f.cell, f.y0, f.x0 + c * f.cell, f.y0 + rows * f.cell, p.theme.ink, 3.0)
    if prm.coords:
        number_labels(p, f)
    return {"marked_shade": list(shade)}


# -- tile_grid --------------------------------------------------------------------------------------------------
class TileGrid(Model):
    items: Expr
    rows: Expr
    cols: Expr
    row: str
    col: str
    color: str
    marked: str | None = None
    coords: bool = True


@layout("tile_grid", TileGrid, {"row": (INT,), "col": (INT,), "color": (STR,), "marked": (BOOL,)},
        exprs={"rows": INT, "cols": INT},
        summary="a match-style grid of rounded coloured tiles with gaps between them; a `marked` tile carries a "
                "white ring; coords number rows and columns from 1 at the top left")
def draw_tile_grid(p: Painter, prm: TileGrid, items: list[dict], text: dict, rng, rows: int, cols: int) -> dict:
    f = board_frame(p, rows, cols, "tile_grid", left=30 if prm.coords else 12, top=30 if prm.coords else 12)
    gap = max(2.0, f.cell * rng.choice([0.06, 0.08, 0.1]))
    corner = f.cell * 0.18
    for it in items:
        r, c = cell_of(it, prm.row, prm.col, f, "tile_grid")
        x0, y0, x1, y1 = f.box(r, c, inset=gap / 2)
        rect = skia.RRect.MakeRectXY(skia.Rect.MakeLTRB(x0, y0, x1, y1), corner, corner)
        p.canvas.drawRRect(rect, p._paint(p.theme.color(it[prm.color])))
        p.canvas.drawRRect(rect, p._paint(p.theme.ink, True, 1.0))
        p.marks += 1
        p.bind(it, (x0, y0, x1, y1), "tiles")
        if prm.marked and it[prm.marked]:
            cx, cy = f.center(r, c)
            p.circle(cx, cy, f.cell * 0.2, (255, 255, 255), p.theme.ink, 2.5)
    if prm.coords:
        number_labels(p, f)
    return {"tile_gap": round(gap, 2)}
