"""Shared scene-layer additions made while re-expressing layouts as components (charts, shapes, icons)."""
from __future__ import annotations

from tests.test_lib_icons import render_grammar


def test_text_reads_its_size_in_frame_units_with_sizes_frame(library_copy):
    """`sizes: frame` on a text mark reads `size` in frame units, like every other mark's sizes: half a cell of a
    2 × 2 grid on a 200 px canvas is a 50 px font (times the theme's font scale)."""
    res, _ = render_grammar(library_copy, "grammars/shapes/t_text_size.yaml", """
        grammar: shapes.t_text_size
        summary: one big letter
        state:
          cells: "[{v: 'A'}, {v: 'B'}]"
        render:
          canvas: {width: 200, height: 200}
          scene:
            frame: {grid: {rows: 2, cols: 2}}
            marks:
              - text: {each: cells, as: c, index: i, bind: c, x: i + 0.5, y: 0.5, text: c.v, size: 0.5, sizes: frame}
        """)
    for path in ("cells[0]", "cells[1]"):
        entry = res.render_map[path]
        assert 47 <= entry["geometry"]["size"] <= 53, entry
        x0, y0, x1, y1 = entry["bbox"]
        assert 40 <= y1 - y0 <= 70
