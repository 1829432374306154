"""Icon layouts: pictograms scattered in a field, placed on a grid, or grouped in panels (sequences, options).

Pictograms come from the mark family in pictograms.py. A panel shows `count` copies of one pictogram in one colour,
size and rotation; panels are the unit of sequence-completion and odd-one-out tasks, so each panel (and each
lettered option) is bound to its state record and a witness can point at the right option.
"""
from __future__ import annotations

from pydantic import Field

from ..errors import EvalError
from ..expr.types import FLOAT, INT, STR
from ..load.models import Expr, Model
from . import layouts_board as board  # attribute access at draw time: safe whichever module loads first
from .layouts import _num, layout
from .painter import Painter
from .pictograms import pictogram

# size words → radius as a fraction of the canvas's shorter side (fields) or of the slot (grids, panels)
FIELD_SIZES = {"small": 0.038, "medium": 0.05, "large": 0.064}
SLOT_SIZES = {"small": 0.6, "medium": 0.8, "large": 1.0}
MAX_COUNT = 12  # pictograms in one panel


def _size(v, table: dict, what: str) -> float:
    if isinstance(v, str):
        if v not in table:
            raise EvalError(f"{what}: unknown size word '{v}' (known: {', '.join(table)})")
        return table[v]
    return _num(v, f"{what} size")


# -- icon_field -------------------------------------------------------------------------------------------------
class IconField(Model):
    items: Expr
    x: str
    y: str
    icon: str
    color: str
    size: str | None = None
    angle: str | None = None


@layout("icon_field", IconField, {"x": (INT, FLOAT), "y": (INT, FLOAT), "icon": (STR,), "color": (STR,),
                                  "size": (INT, FLOAT, STR), "angle": (INT, FLOAT)},
        summary="pictograms at unit-square coordinates (x right, y down); size is a radius fraction of the "
                "shorter side or small/medium/large; angle turns the pictogram clockwise in degrees")
def draw_icon_field(p: Painter, prm: IconField, items: list[dict], text: dict, rng) -> dict:
    unit = min(p.width, p.height)
    j = p.theme.jitter
    for it in items:
        cx = _num(it[prm.x], "x") * p.width + (rng.uniform(-j, j) if j else 0.0)
        cy = _num(it[prm.y], "y") * p.height + (rng.uniform(-j, j) if j else 0.0)
        r = _size(it[prm.size] if prm.size else "medium", FIELD_SIZES, "icon_field") * unit
        angle = _num(it[prm.angle], "angle") if prm.angle else 0.0
        pictogram(p, it[prm.icon], cx, cy, r, p.theme.color(it[prm.color]), angle, obj=it, group="icons")
    return {}


# -- icon_grid --------------------------------------------------------------------------------------------------
class IconGrid(Model):
    items: Expr
    rows: Expr
    cols: Expr
    row: str
    col: str
    icon: str
    color: str
    angle: str | None = None
    coords: bool = True


@layout("icon_grid", IconGrid, {"row": (INT,), "col": (INT,), "icon": (STR,), "color": (STR,),
                                "angle": (INT, FLOAT)},
        exprs={"rows": INT, "cols": INT},
        summary="a rows × cols grid of cells, each item a pictogram in cell (row, col), 0-based, row 0 on top; "
                "coords number rows and columns from 1")
def draw_icon_grid(p: Painter, prm: IconGrid, items: list[dict], text: dict, rng, rows: int, cols: int) -> dict:
    f = board.board_frame(p, rows, cols, "icon_grid", left=30 if prm.coords else 12, top=30 if prm.coords else 12)
    for r in range(rows + 1):
        p.line(f.x0, f.y0 + r * f.cell, f.x0 + cols * f.cell, f.y0 + r * f.cell, p.theme.grid, 1.2)
    for c in range(cols + 1):
        p.line(f.x0 + c * f.cell, f.y0, f.x0 + c * f.cell, f.y0 + rows * f.cell, p.theme.grid, 1.2)
    if prm.coords:
        board.number_labels(p, f)
    fill_ratio = rng.choice([0.36, 0.39, 0.42])
    for it in items:
        r, c = board.cell_of(it, prm.row, prm.col, f, "icon_grid")
        cx, cy = f.center(r, c)
        angle = _num(it[prm.angle], "angle") if prm.angle else 0.0
        pictogram(p, it[prm.icon], cx, cy, f.cell * fill_ratio, p.theme.color(it[prm.color]), angle, obj=it,
                  group="icons")
    return {"fill_ratio": fill_ratio}


# -- panel_row --------------------------------------------------------------------------------------------------
class PanelRow(Model):
    items: Expr
    options: Expr = "0"
    blank: bool = False
    wrap: int = Field(0, ge=0, le=26)
    icon: str
    color: str
    count: str | None = None
    size: str | None = None
    angle: str | None = None


def arrangement(count: int) -> tuple[int, int]:
    """(columns, rows) of the slots a panel uses for `count` pictograms: 1, 2, then 2×2, 3×2, 3×3 and 4×3."""
    for cols, rows in ((1, 1), (2, 1), (2, 2), (3, 2), (3, 3), (4, 3)):
        if count <= cols * rows:
            return cols, rows
    raise EvalError(f"panel_row: a panel of {count} pictograms (allowed 1..{MAX_COUNT})")


@layout("panel_row", PanelRow, {"icon": (STR,), "color": (STR,), "count": (INT,), "size": (STR, INT, FLOAT),
                                "angle": (INT, FLOAT)},
        exprs={"options": INT},
        summary="panels each holding `count` copies of one pictogram (colour, size word, clockwise angle); the "
                "last `options` items are options lettered A, B, ... in rows of at most `wrap` (0: one row) below "
                "the sequence; with `blank`, a '?' panel follows the sequence. Pictogram size never depends on the "
                "count, so size reads across panels")
def draw_panel_row(p: Painter, prm: PanelRow, items: list[dict], text: dict, rng, options: int) -> dict:
    if not 0 <= options <= min(len(items), 26):
        raise EvalError(f"panel_row: {options} options among {len(items)} panels")
    counts = [it[prm.count] if prm.count else 1 for it in items]
    for n in counts:
        if not 1 <= n <= MAX_COUNT:
            raise EvalError(f"panel_row: a panel of {n} pictograms (allowed 1..{MAX_COUNT})")
    sequence, choices = items[:len(items) - options], items[len(items) - options:]
    per_row = prm.wrap or max(len(choices), 1)
    # rows of (panels, lettered): the sequence (with its '?' as None), then the options in chunks
    rows: list[tuple[list, bool]] = []
    if sequence:
        rows.append((list(sequence) + ([None] if prm.blank else []), False))
    rows += [(list(choices[i:i + per_row]), True) for i in range(0, len(choices), per_row)]
    margin, gap, label_h, row_gap = 16.0, 12.0, 22.0, 16.0
    widest = max(len(r) for r, _ in rows)
    extra_h = sum(label_h for _, lettered in rows if lettered) + row_gap * (len(rows) - 1)
    side = min((p.width - 2 * margin - gap * (widest - 1)) / widest,
               (p.height - 2 * margin - extra_h) / len(rows))
    if side < 40:
        raise EvalError(f"panel_row: {widest} panels in a row do not fit a {p.width} × {p.height} canvas legibly")
    cols_n, rows_n = map(max, zip(*(arrangement(n) for n in counts)))
    slot = (side - 12) / max(cols_n, rows_n)
    radius = slot * 0.42
    panel_fill = rng.choice([(255, 255, 255), (248, 248, 250), (250, 248, 240)])

    def draw_panel(it, x0, y0):
        p.rect(x0, y0, x0 + side, y0 + side, panel_fill, p.theme.ink, 1.5)
        p.bind(it, (x0, y0, x0 + side, y0 + side), "panels")
        n = it[prm.count] if prm.count else 1
        c_n, r_n = arrangement(n)
        scale = _size(it[prm.size], SLOT_SIZES, "panel_row") if prm.size else SLOT_SIZES["large"]
        angle = _num(it[prm.angle], "angle") if prm.angle else 0.0
        fill = p.theme.color(it[prm.color])
        ox = x0 + (side - c_n * slot) / 2
        oy = y0 + (side - r_n * slot) / 2
        for i in range(n):
            r_i, c_i = divmod(i, c_n)
            in_row = min(c_n, n - r_i * c_n)  # a short last row is centred
            cx = ox + (c_i + 0.5 + (c_n - in_row) / 2) * slot
            pictogram(p, it[prm.icon], cx, oy + (r_i + 0.5) * slot, radius * scale, fill, angle)

    y = (p.height - side * len(rows) - extra_h) / 2
    letter = 0
    for panels, lettered in rows:
        x = (p.width - (len(panels) * side + (len(panels) - 1) * gap)) / 2
        for it in panels:
            if it is None:
                p.rect(x, y, x + side, y + side, None, p.theme.ink, 1.5)
                p.text(x + side / 2, y + side / 2, "?", side * 0.45, bold=True)
            else:
                draw_panel(it, x, y)
            if lettered:
                p.text(x + side / 2, y + side + label_h / 2 + 2, chr(65 + letter), 15, bold=True)
                letter += 1
            x += side + gap
        y += side + row_gap + (label_h if lettered else 0)
    return {"panel_side": round(side, 2), "slots": max(cols_n, rows_n)}
