"""Board geometry shared by the grid layouts still written in Python (icon_grid): fitting a board of square cells
into the canvas, checking an item's cell, numbering rows and columns.

The board layouts themselves (checker_board, digit_grid, tile_grid) are components now (components/*.yaml), drawn
in a `grid` frame with `cell` marks.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import EvalError
from .painter import Painter

MAX_SIDE = 40


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
