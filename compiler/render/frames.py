"""Frames: the coordinate systems marks are placed in.

A frame owns a pixel box (logical canvas units, y down) and maps the values a mark gives for `x` and `y` into it.
Every frame speaks the same two channels, so one mark kind works in all of them: in a cartesian frame x and y go
through scales (linear, log, band); in a plane frame they are geometry units with y up and equal aspect; in a polar
frame x is the angle channel and y the radius channel; in a grid frame x is the column and y the row (cell (r, c)
is the unit square [c, c+1] × [r, r+1], rows counted downwards), with hexagonal cells when asked; the canvas frame
is the box's own pixels. Sizes written in frame units (`sizes: frame` on a mark) are turned into pixels by
`length`. Angles given to marks are in the frame's own sense (`angle`): clockwise in y-down frames, counter-clockwise
in y-up frames, so a geometry program's 30° is drawn as 30° anticlockwise from east.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import EvalError
from ..expr.lib_place import nice_axis
from ..spec.geo import PROJECTIONS

Box = tuple[float, float, float, float]


def nice_ticks(lo: float, hi: float, max_ticks: int = 6) -> tuple[float, float, float]:
    """Round bounds and a 1/2/2.5/5 × 10^k step covering [lo, hi] (the rule of `nice_ticks()` in expressions)."""
    return nice_axis(lo, hi, max_ticks)


def tick_text(v) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, int):
        return str(v)
    if abs(v - round(v)) < 1e-9 and abs(v) < 1e15:
        return str(int(round(v)))
    return f"{v:.6g}"


def _number(v, what: str) -> float:
    t = type(v)
    if t is float:
        if v - v == 0.0:  # finite (inf - inf and NaN - NaN are NaN)
            return v
    elif t is int:
        return float(v)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise EvalError(f"{what} must be a number, got {v!r}")
    if not math.isfinite(v):
        raise EvalError(f"{what} must be finite, got {v!r}")
    return float(v)


# -- scales -----------------------------------------------------------------------------------------------------
class Scale:
    """Maps a domain value to a fraction in [0, 1] of the axis (outside values extrapolate)."""

    kind = "scale"
    categorical = False

    def fraction(self, v) -> float:  # pragma: no cover - overridden
        raise NotImplementedError

    def ticks(self) -> list[tuple[float, object]]:  # (fraction, value)
        return []


def _span(lo: float, hi: float, what: str) -> None:
    """A range that positions divide by: its width must be a finite, positive float (not [-1e308, 1e308], whose
    width overflows, nor [1e300, 1e300 + 1], whose ends are one float)."""
    if not (math.isfinite(hi - lo) and hi - lo > 0):
        raise EvalError(f"{what} [{lo:g}, {hi:g}] has no finite, positive width as a float")


class LinearScale(Scale):
    kind = "linear"

    def __init__(self, lo: float, hi: float, nice: bool = True, max_ticks: int = 6):
        lo, hi = _number(lo, "a linear scale's lower bound"), _number(hi, "a linear scale's upper bound")
        if hi < lo:
            lo, hi = hi, lo
        # (a domain of one value widens by 1 below: not where adding 1 changes nothing)
        if not math.isfinite(hi - lo) or (hi == lo and lo + 1 == lo):
            _span(lo, hi, "a linear scale's domain")
        if nice:
            lo, hi, step = nice_ticks(lo, hi, max_ticks)
        else:
            if hi == lo:
                hi = lo + 1
            step = nice_ticks(lo, hi, max_ticks)[2]
        _span(lo, hi, "a linear scale's domain")
        self.lo, self.hi, self.step = lo, hi, step

    def fraction(self, v) -> float:
        return (_number(v, "a position on a linear scale") - self.lo) / (self.hi - self.lo)

    def ticks(self) -> list[tuple[float, object]]:
        first = math.ceil(self.lo / self.step - 1e-9)
        last = math.floor(self.hi / self.step + 1e-9)
        out: list[tuple[float, object]] = []
        for k in range(first, last + 1):
            v = k * self.step
            v = int(round(v)) if abs(v - round(v)) < 1e-9 else round(v, 10)
            out.append((self.fraction(v), v))
        return out


class LogScale(Scale):
    kind = "log"

    def __init__(self, lo: float, hi: float):
        lo, hi = _number(lo, "a log scale's lower bound"), _number(hi, "a log scale's upper bound")
        if lo <= 0 or hi <= 0:
            raise EvalError(f"a log scale needs positive bounds, got [{lo:g}, {hi:g}]")
        self.lo = 10 ** math.floor(math.log10(min(lo, hi)) + 1e-9)
        self.hi = 10 ** math.ceil(math.log10(max(lo, hi)) - 1e-9)
        if self.hi <= self.lo:
            self.hi = self.lo * 10

    def fraction(self, v) -> float:
        v = _number(v, "a position on a log scale")
        if v <= 0:
            raise EvalError(f"a log scale cannot place {v:g} (only positive values)")
        return (math.log10(v) - math.log10(self.lo)) / (math.log10(self.hi) - math.log10(self.lo))

    def ticks(self) -> list[tuple[float, object]]:
        out, v = [], self.lo
        while v <= self.hi * (1 + 1e-9):
            value = int(round(v)) if v >= 1 else v
            out.append((self.fraction(v), value))
            v *= 10
        return out


class BandScale(Scale):
    """Categories in order, each owning an equal band; a value maps to its band's centre."""

    kind = "band"
    categorical = True

    def __init__(self, categories: list, padding: float = 0.2):
        if not categories:
            raise EvalError("a band scale needs at least one category")
        self.categories = list(categories)
        self.index: dict[object, int] = {}
        for i, c in enumerate(self.categories):
            if isinstance(c, (list, dict)):
                raise EvalError(f"band categories must be strings or numbers, got {c!r}")
            self.index.setdefault(c, i)
        if not 0 <= padding < 1:
            raise EvalError(f"band padding must be in [0, 1), got {padding}")
        self.padding = padding

    @property
    def band(self) -> float:
        return 1.0 / len(self.categories)

    def band_of(self, v) -> tuple[float, float]:
        """The fractions where the category's bar starts and ends (padding taken off both sides)."""
        i = self.index.get(v)
        if i is None:
            raise EvalError(f"{v!r} is not a category of this band scale "
                            f"({', '.join(map(str, self.categories[:8]))}{', …' if len(self.categories) > 8 else ''})")
        pad = self.band * self.padding / 2
        return i * self.band + pad, (i + 1) * self.band - pad

    def fraction(self, v) -> float:
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v not in self.index:
            return v * self.band  # a numeric position between bands (0 = first band's start)
        a, b = self.band_of(v)
        return (a + b) / 2

    def ticks(self) -> list[tuple[float, object]]:
        return [((i + 0.5) * self.band, c) for i, c in enumerate(self.categories)]


# A mark's pixel coordinates (canvas units, before the pixel scale) stay within this distance of the canvas origin:
# a canvas is at most 2,048 a side, and the library's marks stay within about 1,000. Past it a coordinate is an error,
# not a mark drawn far away: skia draws in 32-bit floats (1e39 is already infinite there), and boxes become whole
# pixels in the render map, the legibility checks and the raster edits.
MAX_DEVICE_PX = 1_000_000.0


def device_px(v, what: str):
    """v (a pixel coordinate or a tuple of them) when it is finite and within ±MAX_DEVICE_PX, else an EvalError."""
    for c in (v if isinstance(v, tuple) else (v,)):
        if not -MAX_DEVICE_PX <= c <= MAX_DEVICE_PX:  # False for NaN too
            raise EvalError(f"{what} lands at {c:g} px; a mark's pixel coordinates and sizes must stay within "
                            f"±{MAX_DEVICE_PX:,.0f} px")
    return v


# -- frames -----------------------------------------------------------------------------------------------------
@dataclass
class Frame:
    box: Box
    kind = "canvas"
    y_up = False
    where = ""  # the frame's position in the YAML (set by the composer), named by errors of what it defers

    @property
    def width(self) -> float:
        return self.box[2] - self.box[0]

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]

    def point(self, x, y) -> tuple[float, float]:
        return device_px((self.box[0] + _number(x, "x"), self.box[1] + _number(y, "y")), "the point")

    def span_x(self, x, x2=None) -> tuple[float, float]:
        a = self.point(x, 0)[0]
        return (a, a) if x2 is None else (a, self.point(x2, 0)[0])

    def span_y(self, y, y2=None) -> tuple[float, float]:
        a = self.point(0, y)[1]
        return (a, a) if y2 is None else (a, self.point(0, y2)[1])

    def length(self, v) -> float:
        return device_px(_number(v, "a length"), "a length")

    def angle(self, deg: float) -> float:
        """A frame angle (degrees) as a screen angle (clockwise from east, y down)."""
        return -deg if self.y_up else deg

    def scale(self, channel: str) -> Scale | None:
        return None


class CanvasFrame(Frame):
    kind = "canvas"


class CartesianFrame(Frame):
    kind = "cartesian"

    def __init__(self, box: Box, x: Scale, y: Scale, y_down: bool = False):
        super().__init__(box)
        self.x, self.y = x, y
        # Categorical y reads top to bottom (like a table); numeric y grows upwards.
        self.y_up = not (y_down or y.categorical)

    def scale(self, channel: str) -> Scale | None:
        return {"x": self.x, "y": self.y}.get(channel)

    def _px(self, f: float) -> float:
        return device_px(self.box[0] + f * self.width, "x")

    def _py(self, f: float) -> float:
        return device_px(self.box[3] - f * self.height if self.y_up else self.box[1] + f * self.height, "y")

    def point(self, x, y) -> tuple[float, float]:
        return self._px(self.x.fraction(x)), self._py(self.y.fraction(y))

    def span_x(self, x, x2=None) -> tuple[float, float]:
        if x2 is None and isinstance(self.x, BandScale) and x in self.x.index:
            a, b = self.x.band_of(x)
            return self._px(a), self._px(b)
        a = self._px(self.x.fraction(x))
        return (a, a) if x2 is None else (a, self._px(self.x.fraction(x2)))

    def span_y(self, y, y2=None) -> tuple[float, float]:
        if y2 is None and isinstance(self.y, BandScale) and y in self.y.index:
            a, b = self.y.band_of(y)
            return self._py(a), self._py(b)
        a = self._py(self.y.fraction(y))
        return (a, a) if y2 is None else (a, self._py(self.y.fraction(y2)))

    def length(self, v) -> float:
        # Only meaningful when both scales are linear; uses x's pixels per unit.
        if not isinstance(self.x, LinearScale):
            raise EvalError("sizes in frame units need a linear x scale")
        return device_px(_number(v, "a length") * self.width / (self.x.hi - self.x.lo), "a length")


class PlaneFrame(Frame):
    """Geometry units with y up and equal aspect, centred in the box."""

    kind = "plane"
    y_up = True

    def __init__(self, box: Box, x: tuple[float, float], y: tuple[float, float]):
        super().__init__(box)
        (x0, x1), (y0, y1) = sorted(map(float, x)), sorted(map(float, y))
        if x1 <= x0 or y1 <= y0:
            raise EvalError(f"a plane frame needs increasing ranges, got x {x} and y {y}")
        _span(x0, x1, "a plane frame's x range")
        _span(y0, y1, "a plane frame's y range")
        self.x0, self.x1, self.y0, self.y1 = x0, x1, y0, y1
        self.unit = min(self.width / (x1 - x0), self.height / (y1 - y0))
        self.ox = box[0] + (self.width - self.unit * (x1 - x0)) / 2
        self.oy = box[3] - (self.height - self.unit * (y1 - y0)) / 2

    def point(self, x, y) -> tuple[float, float]:
        return device_px((self.ox + (_number(x, "x") - self.x0) * self.unit,
                          self.oy - (_number(y, "y") - self.y0) * self.unit), "the point")

    def length(self, v) -> float:
        return device_px(_number(v, "a length") * self.unit, "a length")

    def scale(self, channel: str) -> Scale | None:
        lo, hi = (self.x0, self.x1) if channel == "x" else (self.y0, self.y1)
        return self.axis_scale(lo, hi)

    @staticmethod
    def axis_scale(lo: float, hi: float) -> "LinearScale":
        """The scale an axis guide reads along one of a plane's ranges (also before the frame is fitted)."""
        _span(lo, hi, "a plane frame's range")
        return LinearScale(lo, hi, nice=False, max_ticks=max(2, min(20, int(hi - lo))))


def sector_extent(start: float, sweep: float) -> tuple[float, float, float, float]:
    """The box of a unit-radius sector (with its centre) from screen angle `start` over `sweep` degrees."""
    lo, hi = sorted((start, start + sweep))
    angles = [lo, hi] + [k * 90.0 for k in range(math.ceil(lo / 90 - 1e-9), math.floor(hi / 90 + 1e-9) + 1)]
    xs = [0.0] + [math.cos(math.radians(a)) for a in angles]
    ys = [0.0] + [math.sin(math.radians(a)) for a in angles]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    return x0, y0, max(x1, x0 + 1e-3), max(y1, y0 + 1e-3)


class PolarFrame(Frame):
    """x is the angle channel, y the radius channel; the circle is centred in the box."""

    kind = "polar"

    def __init__(self, box: Box, theta: Scale, r: Scale, start: float = -90.0, clockwise: bool = True,
                 inner: float = 0.0, sweep: float = 360.0):
        super().__init__(box)
        if not 0 <= inner < 1:
            raise EvalError(f"a polar frame's inner radius is a fraction in [0, 1), got {inner}")
        if not 0 < sweep <= 360:
            raise EvalError(f"a polar frame's sweep must be in (0, 360] degrees, got {sweep}")
        self.theta, self.r = theta, r
        self.start, self.clockwise, self.inner, self.sweep = start, clockwise, inner, sweep
        self.cx, self.cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        self.radius = min(self.width, self.height) / 2
        if sweep < 360:  # a partial dial (gauge, protractor, quarter): fit the sector's own extent, centred
            x0, y0, x1, y1 = sector_extent(start, sweep if clockwise else -sweep)
            self.radius = min(self.width / (x1 - x0), self.height / (y1 - y0))
            self.cx = (box[0] + box[2]) / 2 - self.radius * (x0 + x1) / 2
            self.cy = (box[1] + box[3]) / 2 - self.radius * (y0 + y1) / 2

    def scale(self, channel: str) -> Scale | None:
        return {"x": self.theta, "y": self.r}.get(channel)

    def screen_angle(self, x) -> float:
        f = self.theta.fraction(x)
        a = self.start + (1 if self.clockwise else -1) * f * self.sweep
        if not math.isfinite(a):
            raise EvalError(f"the angle of {x!r} is {a:g} degrees, not a finite number")
        return a

    def radial(self, y) -> float:
        f = self.r.fraction(y)
        return device_px(self.radius * (self.inner + (1 - self.inner) * f), "the radius")

    def point(self, x, y) -> tuple[float, float]:
        a = math.radians(self.screen_angle(x))
        rr = self.radial(y)
        return self.cx + rr * math.cos(a), self.cy + rr * math.sin(a)

    def length(self, v) -> float:
        return device_px(_number(v, "a length") * self.radius * (1 - self.inner) / max(1e-9, self._r_span()),
                         "a length")

    def _r_span(self) -> float:
        return (self.r.hi - self.r.lo) if isinstance(self.r, LinearScale) else 1.0

    def angle(self, deg: float) -> float:
        return deg


SQRT3 = math.sqrt(3)


class GridFrame(Frame):
    """rows × cols square (or hexagonal) cells, as large as fit, centred; x = column, y = row, rows downwards."""

    kind = "grid"

    def __init__(self, box: Box, rows: int, cols: int, hex_cells: bool = False):
        super().__init__(box)
        if not (1 <= rows <= 60 and 1 <= cols <= 60):
            raise EvalError(f"a grid frame of {rows} × {cols} cells (allowed 1..60 each)")
        self.rows, self.cols, self.hex = rows, cols, hex_cells
        if hex_cells:
            # Pointy-top hexagons in offset rows: odd rows shift right by half a cell; rows are √3/2 apart.
            w_units, h_units = cols + 0.5, (rows - 1) * SQRT3 / 2 + 2 / SQRT3
        else:
            w_units, h_units = cols, rows
        self.cell = min(self.width / w_units, self.height / h_units)
        self.ox = box[0] + (self.width - self.cell * w_units) / 2
        self.oy = box[1] + (self.height - self.cell * h_units) / 2

    def point(self, x, y) -> tuple[float, float]:
        x, y = _number(x, "a column"), _number(y, "a row")
        if not self.hex:
            return device_px((self.ox + x * self.cell, self.oy + y * self.cell), "the point")
        row = math.floor(y)
        shift = 0.5 if row % 2 else 0.0
        top = 1 / SQRT3  # centre of row 0 sits half a hexagon's height below the top
        return device_px((self.ox + (x + shift) * self.cell, self.oy + (top + (y - 0.5) * SQRT3 / 2) * self.cell),
                         "the point")

    def cell_polygon(self, col: int, row: int) -> list[tuple[float, float]]:
        if not self.hex:
            x0, y0 = self.point(col, row)
            c = self.cell
            return [(x0, y0), (x0 + c, y0), (x0 + c, y0 + c), (x0, y0 + c)]
        cx, cy = self.point(col + 0.5, row + 0.5)
        r = self.cell / SQRT3
        return [(cx + r * math.cos(math.radians(-90 + 60 * k)), cy + r * math.sin(math.radians(-90 + 60 * k)))
                for k in range(6)]

    def length(self, v) -> float:
        return device_px(_number(v, "a length") * self.cell, "a length")

    def scale(self, channel: str) -> Scale | None:
        n = self.cols if channel == "x" else self.rows
        return BandScale(list(range(n)), 0.0)


class GeoFrame(Frame):
    """A map: x is longitude and y latitude in degrees, projected (spec/geo.py PROJECTIONS) and fitted into the box
    at one scale both ways, centred, north up. `bounds` [lon0, lat0, lon1, lat1] is the part of the globe shown;
    every projection is cylindrical, so its projected corners bound it. A length in frame units is degrees of
    longitude (as long at every latitude: the projections keep meridians straight and evenly spaced)."""

    kind = "geo"
    y_up = True

    def __init__(self, box: Box, projection: str, bounds):
        super().__init__(box)
        if not isinstance(bounds, (list, tuple)) or len(bounds) != 4:
            raise EvalError(f"a geo frame's bounds are [lon0, lat0, lon1, lat1], got {bounds!r}")
        lon0, lat0, lon1, lat1 = (_number(v, "a geo frame's bound") for v in bounds)
        if not (lon0 < lon1 and -90 <= lat0 < lat1 <= 90):
            raise EvalError(f"a geo frame's bounds [lon0, lat0, lon1, lat1] need lon0 < lon1 and "
                            f"-90 <= lat0 < lat1 <= 90, got {list(bounds)}")
        self.project = PROJECTIONS[projection]
        self.projection = projection
        (x0, y0), (x1, y1) = self.project(lon0, lat0), self.project(lon1, lat1)
        _span(x0, x1, "a geo frame's projected longitudes")
        _span(y0, y1, "a geo frame's projected latitudes")
        self.bounds = (lon0, lat0, lon1, lat1)
        self.unit = min(self.width / (x1 - x0), self.height / (y1 - y0))  # pixels per projected unit
        self.ox = box[0] + (self.width - self.unit * (x1 - x0)) / 2 - x0 * self.unit
        self.oy = box[3] - (self.height - self.unit * (y1 - y0)) / 2 + y0 * self.unit

    @property
    def map_box(self) -> Box:
        """The pixels of the bounds (centred in the box; the fit leaves a margin on two sides)."""
        lon0, lat0, lon1, lat1 = self.bounds
        (x0, y1), (x1, y0) = self.point(lon0, lat0), self.point(lon1, lat1)
        return x0, y0, x1, y1

    def point(self, x, y) -> tuple[float, float]:
        px, py = self.project(_number(x, "a longitude"), _number(y, "a latitude"))
        return device_px((self.ox + px * self.unit, self.oy - py * self.unit), "the point")

    def length(self, v) -> float:
        return device_px(math.radians(_number(v, "a length")) * self.unit, "a length")


def along(frame: Frame, channel: str, v) -> float:
    """The pixel coordinate of value v along one channel's axis (x: a pixel x, y: a pixel y)."""
    if isinstance(frame, CartesianFrame):
        if channel == "x":
            return frame._px(frame.x.fraction(v))
        return frame._py(frame.y.fraction(v))
    if isinstance(frame, GridFrame):
        px, py = frame.point(v + 0.5, v + 0.5) if not frame.hex else frame.point(v + 0.5, 0.5)
        if frame.hex and channel == "y":
            py = frame.point(0.5, v + 0.5)[1]
        return px if channel == "x" else py
    px, py = frame.point(v, v) if channel == "x" else frame.point(0, v)
    return px if channel == "x" else py
