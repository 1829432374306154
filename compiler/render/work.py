"""What drawing costs, in the steps of the evaluation budget (expr/compile.py `Budget`).

A scene's render draws on the same budget as its expressions, and so on the same total as the sample's states and
programs (sample/state.py SampleWork): a step of drawing is priced at about the CPU time of an expression step
(0.2-0.4 µs), so a scene ends in bounded work however many marks, points, pixels or solids its YAML asks for. The
prices were measured on crafted scenes (thousands of small and canvas-sized marks, polygons of 1,000 points, texts of
2,000 characters; grids, rows and piles of boxes) at 1.5-4.5 steps per µs; each is charged before the work it pays
for where the amount is known in advance (marks, points, characters, faces, pairs of solids, visibility crossings),
and right after it where only the drawing tells (pixels covered). The bundled library's heaviest scene spends about
111,000 steps (three_d.cube_stack at level 9) of the 2,000,000 one scene may.

Marks per scene are bounded as well: MAX_MARKS marks in all, MAX_SOLIDS 3-D solids in one camera frame (ordering
solids for painting compares every pair whose screen boxes overlap, so its work grows faster than their number).
"""
from __future__ import annotations

MAX_MARKS = 20_000  # marks one scene may draw (each item of an `each` is one mark)
MAX_SOLIDS = 1_000  # 3-D solids (box, prism, cylinder, face) one camera frame may hold

MARK_STEPS = 64  # any 2-D mark: evaluating its geometry, one skia path, binding (about 6-20 µs)
TEXT_STEPS = 128  # a text mark besides: its face, metrics and measure (about 50 µs with the base)
POINT_STEPS = 16  # each point of a polygon, polyline or spot
SEGMENT_STEPS = 48  # each segment of `segments` (one stroke of many pieces: skia strokes each piece's outline)
CURVE_POINT_STEPS = 48  # each point of a smooth `path`: eight sampled points per piece for its box and strokes
CHAR_STEPS = 1  # each character of a text (shaped and drawn: about 0.15 µs)
PIXELS_PER_STEP = 2048  # device pixels a mark's box covers on the canvas (fill, stroke, readability sampling)

SOLID_STEPS = 384  # a 3-D solid: built, checked, prepared for the order (silhouette, vertices, its slot)
FACE_STEPS = 16  # each face of a solid: culled, projected, painted as a skia path
POINT3_STEPS = 4  # each point of a face
CANDIDATE_STEPS = 1  # each pair of solids the order's array work looks at (screen boxes overlapping along u)
PAIR_STEPS = 8  # each pair whose silhouettes overlap: an edge of the order, in Python
VOTE_STEPS = 80  # each such pair that no world axis separates: face planes tried one by one (space._plane_vote)
CROSSINGS_PER_STEP = 2  # crossings of face edges with rows of visibility cells (space._spans_flat)
STROKE_STEPS = 1  # each stroke a `clear` text is tested against; each pair the no-overlap check compares
