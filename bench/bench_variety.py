"""The cost of visual variety: instances/s per task with `variety: none` and `strong` (and `mild` with --mild), on
the same seeds and levels, with the share of each instance's time spent encoding the PNG and in the raster edits.
Prints a table and the overall ratio; asserts nothing (the goal: strong costs at most 2× none). Times are CPU
seconds of this process (time.process_time: the work is single-threaded), so a busy shared machine skews them
less than wall time would. Each task runs `--rounds` times, the settings taking turns, and each setting keeps its
fastest round: a virtual machine's speed drifts by 20 % over minutes, and one setting measured after the other
would carry the drift into the ratio.

    python bench/bench_variety.py                 # the default task mix, 40 instances per task per setting
    python bench/bench_variety.py --count 100 --mild --rounds 5
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from checkout import load_tessera  # bench/checkout.py

TASKS = (
    "charts.bar_chart.extremum_label", "charts.line_chart.largest_change", "charts.scatter_plot.count_above",
    "icons.shape_field.relation", "icons.icon_field.count_either", "graphs.weighted_graph.cheapest_route",
    "symbolic.clock_row.elapsed_minutes", "games.chess.move_count", "pages.data_table.cell_lookup",
    "geometry.lattice_polygon.perimeter", "three_d.cube_stack.total_cubes",
)


class Timer:
    """Wraps a function and adds its wall time to `seconds` (to split an instance's time by stage)."""

    def __init__(self, fn):
        self.fn, self.seconds = fn, 0.0

    def __call__(self, *a, **k):
        t0 = time.process_time()
        try:
            return self.fn(*a, **k)
        finally:
            self.seconds += time.process_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--mild", action="store_true", help="also measure variety: mild")
    ap.add_argument("--rounds", type=int, default=3, help="rounds per task; each setting keeps its fastest")
    args = ap.parse_args()
    root = Path(args.root).resolve()
    load_tessera(root)  # that checkout's code as well as its library
    from tessera.render import scene
    from tessera.taxonomy import compile_taxonomy
    from tessera.trace.instance import generate

    # render_scene looks both up in its module at call time; from 0.10 the edits end by writing strong's JPEG file
    # (apply_edits_to_file), so edit% holds that file's encoding and png% only PNGs
    edit_name = "apply_edits_to_file" if hasattr(scene, "apply_edits_to_file") else "apply_edits"
    png, edits = Timer(scene.encode_png), Timer(getattr(scene, edit_name))
    scene.encode_png = png
    setattr(scene, edit_name, edits)
    tax = compile_taxonomy(root)
    settings = ["none", "mild", "strong"] if args.mild else ["none", "strong"]
    tasks = [t for t in TASKS if t in tax.tasks]
    print(f"{len(tasks)} tasks, {args.count} instances per task per setting (seeds 0..{args.count - 1}, "
          f"level seed % 10), fastest of {max(1, args.rounds)} rounds")
    print(f"{'task':40} " + " ".join(f"{v + ' inst/s':>13} {'png%':>5} {'edit%':>5}" for v in settings)
          + f" {'strong/none':>11}")
    totals = {v: [0.0, 0.0, 0.0] for v in settings}  # seconds, png seconds, edit seconds
    for tid in tasks:
        task = tax.tasks[tid]
        for v in settings:
            generate(task, 0, 5, vocab=tax.vocab, variety=v)  # warm caches (fonts, parsers, grids)
        best: dict[str, tuple[float, float, float]] = {}  # setting → its fastest round (seconds, png, edits)
        for _ in range(max(1, args.rounds)):
            for v in settings:
                png.seconds = edits.seconds = 0.0
                t0 = time.process_time()
                for s in range(args.count):
                    generate(task, s, s % 10, vocab=tax.vocab, variety=v)
                dt = time.process_time() - t0
                if v not in best or dt < best[v][0]:
                    best[v] = (dt, png.seconds, edits.seconds)
        cells, per = [], {}
        for v in settings:
            dt, png_s, edit_s = best[v]
            per[v] = dt
            for i, x in enumerate(best[v]):
                totals[v][i] += x
            cells.append(f"{args.count / dt:13.1f} {png_s / dt:5.0%} {edit_s / dt:5.0%}")
        print(f"{tid:40} " + " ".join(cells) + f" {per['strong'] / per['none']:10.2f}×")
    n = args.count * len(tasks)
    print(f"{'all':40} " + " ".join(f"{n / t[0]:13.1f} {t[1] / t[0]:5.0%} {t[2] / t[0]:5.0%}"
                                    for t in totals.values())
          + f" {totals['strong'][0] / totals['none'][0]:10.2f}×")


if __name__ == "__main__":
    main()
