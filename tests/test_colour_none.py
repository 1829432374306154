"""The colour word 'none' in a mark: where the mark can do without the colour (a path's or an angle's fill, a
glyph's fill) nothing is painted; where it cannot (a line's stroke, a text's colour, a pictogram's fill) the
render names the key and the mark. Before, every one of these failed inside skia's paint with
"TypeError: 'NoneType' object is not subscriptable" (the type checker found the Optional colour)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tessera.errors import SamplingFailed

from .test_scene import build, pixel, sample

STATE = 'seg: "{x: 1}"\n'


def _failure(tmp_path: Path, mark: str) -> str:
    root = build(tmp_path, STATE, f"marks:\n  - {mark}\n")
    with pytest.raises(SamplingFailed) as exc:
        sample(root)
    return str(exc.value).split(": rendering failed: ", 1)[1].replace(str(root) + "/", "")


@pytest.mark.parametrize("mark, said", [
    ("line: {x: 10, y: 20, x2: 110, y2: 20, stroke: none, bind: seg}",
     "line mark at grammars/demo/g.yaml:9:15: stroke 'none' leaves this mark nothing to draw with: give it a colour"),
    ("angle: {x: 200, y: 150, from: 0, to: 90, r: 30, stroke: none, bind: seg}",
     "angle mark at grammars/demo/g.yaml:9:16: stroke 'none' leaves this mark nothing to draw with: give it a colour"),
    ("text: {x: 300, y: 50, text: \"'A'\", color: none, bind: seg}",
     "text mark at grammars/demo/g.yaml:9:15: color 'none' leaves this mark nothing to draw with: give it a colour"),
])
def test_none_where_the_mark_needs_a_colour_is_named(tmp_path, mark, said):
    assert _failure(tmp_path, mark).startswith(said)


def test_none_fill_paints_no_fill(tmp_path):
    root = build(tmp_path, STATE, """\
        marks:
          - path: {points: "[[40, 40], [200, 40], [200, 200], [40, 200]]", closed: true, fill: none, stroke: black,
                   bind: seg}
          - angle: {x: 300, y: 150, from: 0, to: 90, r: 60, fill: none}
        """)
    _, inst = sample(root)
    assert inst.trace["render"]["render_map"]["seg"]["bbox"][0] < 40
    page = pixel(inst, 390, 290)
    assert pixel(inst, 120, 120) == page  # inside the square: the page (`fill: red` paints it red)
    assert pixel(inst, 320, 170) == page  # inside the angle's wedge (tinted by `fill: red`)
