"""Drawing cost of the asset marks against today's pictograms: CPU microseconds per draw of a `glyph` pictogram, an
`icon` (a mono asset) and an `object` (a coloured asset), through the marks' draw functions on a 400 × 400 canvas at
the same half-side, each asset parsed once first (as a process does: icon_path / object_picture are cached), then
drawn N times at scattered points. Also the one-off cost of parsing every asset (first use in a process).
Prints a table; asserts nothing.

    python bench/bench_icons.py [--count 2000] [--size 16]
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from compiler.render import marks as M  # noqa: E402
from compiler.render.frames import CanvasFrame  # noqa: E402
from compiler.render.painter import Painter  # noqa: E402
from compiler.render.pictograms import PICTOGRAMS  # noqa: E402
from compiler.render.theme import pick_theme  # noqa: E402
from compiler.spec.assets import asset_names  # noqa: E402


class _Rng(random.Random):
    def below(self, n: int) -> int:
        return self.randrange(n)


def _per_draw(fn, names: list[str], count: int, size: float, key: str) -> float:
    theme = pick_theme(_Rng(0), "none")
    painter = Painter(400, 400, theme, {})
    ctx = M.Ctx(painter, CanvasFrame((0.0, 0.0, 400.0, 400.0)))
    rng = random.Random(1)
    for name in names:  # parse once (what the first instance of a process pays)
        fn(ctx, {key: name, "x": 200, "y": 200, "size": size, "fill": "blue"}, {})
    best = float("inf")
    for _ in range(3):
        vs = [{key: names[i % len(names)], "x": rng.uniform(40, 360), "y": rng.uniform(40, 360), "size": size,
               "fill": "blue", "rotate": rng.choice((0, 0, 30)), "angle": 0.0} for i in range(count)]
        start = time.process_time()
        for v in vs:
            fn(ctx, v, {})
        best = min(best, (time.process_time() - start) / count)
    return best * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--size", type=float, default=16.0)
    args = ap.parse_args()
    icons = asset_names("mono")
    objects = asset_names("colour")
    start = time.process_time()
    for n in icons:
        M.icon_path(n)
    parse_icons = time.process_time() - start
    start = time.process_time()
    for n in objects:
        M.object_picture(n)
    parse_objects = time.process_time() - start
    rng = random.Random(2)
    sample_icons, sample_objects = rng.sample(icons, 200), rng.sample(objects, 200)
    rows = [("glyph pictogram (14 kinds)", _per_draw(M.draw_glyph, list(PICTOGRAMS), args.count, args.size, "shape")),
            ("icon (200 game-icons)", _per_draw(M.draw_icon, sample_icons, args.count, args.size, "name")),
            ("object (200 twemoji)", _per_draw(M.draw_object, sample_objects, args.count, args.size, "name"))]
    print(f"half-side {args.size:g} px, {args.count} draws, best of 3, CPU µs per draw")
    for label, us in rows:
        print(f"  {label:<28} {us:8.1f}")
    print(f"first use (parse) of every asset: {len(icons)} icons {parse_icons:.2f} s "
          f"({parse_icons / len(icons) * 1e3:.2f} ms each), {len(objects)} objects {parse_objects:.2f} s "
          f"({parse_objects / len(objects) * 1e3:.2f} ms each)")


if __name__ == "__main__":
    main()
