"""Rendering through the scene language, measured: instances/s per task on the same seeds and levels, for the
grammars re-expressed as components and for the new composed scene types. Prints a table; asserts nothing.

    python bench/bench_scene.py                       # this checkout
    python bench/bench_scene.py --root /tmp/before    # another checkout (e.g. `git worktree add /tmp/before
                                                      # db432af`, the last commit with closed layouts only)

Run both and compare: the same task ids, the same seeds (0..N-1) and levels (seed % 10).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from checkout import load_tessera  # bench/checkout.py

TASKS = (
    # re-expressed (closed layout before, component after)
    "charts.bar_chart.extremum_label", "charts.line_chart.largest_change", "charts.scatter_plot.count_above",
    "icons.shape_field.relation", "icons.shape_grid.row_extreme", "icons.icon_field.count_either",
    "graphs.weighted_graph.cheapest_route", "graphs.digraph.arrow_count", "graphs.rooted_tree.height",
    "graphs.maze.dead_ends", "symbolic.clock_row.elapsed_minutes", "symbolic.spinner.probability_option",
    "symbolic.balance_equation.total_weight", "puzzles.sudoku.missing_digit", "games.chess.move_count",
    "puzzles.tiles.longest_run", "geometry.lattice_polygon.perimeter", "geometry.angle_figure.missing_angle",
)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    ap.add_argument("--count", type=int, default=60)
    ap.add_argument("--repeat", type=int, default=3, help="runs per task; the fastest is shown (shared machines)")
    ap.add_argument("--new", action="store_true", help="also every task on a grammar with a composed scene")
    args = ap.parse_args()
    root = Path(args.root).resolve()
    load_tessera(root)  # that checkout's code as well as its library
    from tessera.taxonomy import compile_taxonomy
    from tessera.trace.instance import generate

    tax = compile_taxonomy(root)
    tasks = [t for t in TASKS if t in tax.tasks]
    missing = [t for t in TASKS if t not in tax.tasks]
    if args.new:
        tasks += sorted(t for t, task in tax.tasks.items() if getattr(task.grammar, "scene", None) is not None
                        and t not in tasks)
    print(f"root {root}: {len(tax.grammars)} grammars, {len(tax.tasks)} tasks; {args.count} instances per task, "
          f"best of {args.repeat} runs")
    print(f"{'task':46} {'how':>9} {'inst/s':>8} {'ms/inst':>8}")
    rates = []
    for tid in tasks:
        task = tax.tasks[tid]
        for s in range(3):
            generate(task, s, 5, vocab=tax.vocab)  # warm caches (fonts, parsers)
        runs = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            for s in range(args.count):
                generate(task, s, s % 10, vocab=tax.vocab)
            runs.append((time.perf_counter() - t0) / args.count)
        dt = min(runs)
        how = "scene" if getattr(task.grammar, "scene", None) is not None else "layout"
        rates.append(1 / dt)
        print(f"{tid:46} {how:>9} {1 / dt:8.1f} {dt * 1000:8.2f}")
    if rates:
        print(f"median {statistics.median(rates):.1f} inst/s over {len(rates)} tasks")
    for t in missing:
        print(f"{t:46} {'absent':>9}")


if __name__ == "__main__":
    main()
