"""Cost of the camera frame's 3-D geometry (compiler/render/space.py) on cube stacks of 27, 100 and 300 cubes, with
an isometric and a perspective camera on a 600 × 600 canvas: projection + fit, paint order, face projection, and the
occlusion-aware visibility buffer. Best of a few runs, in milliseconds. Prints figures; asserts nothing.

    python bench/bench_space.py
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tessera.render.space import (  # noqa: E402
    Camera, Solid, box_corners, box_faces, fit, paint_order, project_faces, visibility,
)

CANVAS = (0.0, 0.0, 600.0, 600.0)
STACKS = {27: (3, 3, 3), 100: (5, 5, 4), 300: (10, 10, 3)}
REPEATS = 5


def cubes(nx: int, ny: int, nz: int) -> list[Solid]:
    return [Solid(f"c{x}_{y}_{z}", box_faces(x, y, z, 1, 1, 1))
            for z in range(nz) for y in range(ny) for x in range(nx)]


def one_run(solids: list[Solid], camera: Camera, hi: tuple) -> dict[str, float]:
    t0 = time.perf_counter()
    fit_ = fit([camera.project(*c) for c in box_corners((0, 0, 0), hi)], CANVAS, 12.0)
    t1 = time.perf_counter()
    order = paint_order(solids, camera)
    t2 = time.perf_counter()
    projected = project_faces(order, camera, fit_)
    t3 = time.perf_counter()
    visibility(projected, CANVAS)
    t4 = time.perf_counter()
    return {"fit": t1 - t0, "order": t2 - t1, "project": t3 - t2, "visibility": t4 - t3, "total": t4 - t0}


def main() -> int:
    stages = ("fit", "order", "project", "visibility", "total")
    print(f"{'scene':28}" + "".join(f"{s:>12}" for s in stages) + "   (ms, best of 5)")
    for n, dims in STACKS.items():
        solids = cubes(*dims)
        centre = tuple(d / 2 for d in dims)
        cams = {"isometric": Camera(),
                "perspective": Camera("perspective", azimuth=30, elevation=30, distance=3 * max(dims), target=centre)}
        for name, cam in cams.items():
            best = {s: float("inf") for s in stages}
            for _ in range(REPEATS):
                for s, v in one_run(solids, cam, dims).items():
                    best[s] = min(best[s], v)
            label = f"{n} cubes {'×'.join(map(str, dims))} {name}"
            print(f"{label:28}" + "".join(f"{best[s] * 1000:12.2f}" for s in stages))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
