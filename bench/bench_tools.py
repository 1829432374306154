"""The cost of a zoom call (tessera.tools): a 128 × 128 box redrawn at k = 2 and 4, on a few grammars, with variety
none and strong. Each call runs in a fresh session (no redraw to reuse), as a sample's first zoom does. Prints, per
row, the median over seeds of the whole call (redraw of the picture at k×, cut, PNG of the box) and of the redraw
alone, next to drawing the shown picture once; a crop of the same box for comparison. Asserts nothing.

    python bench/bench_tools.py [--seeds 5]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tessera.taxonomy import compile_taxonomy  # noqa: E402
from tessera.tools.session import ToolSession  # noqa: E402
from tessera.trace.instance import generate, object_paths  # noqa: E402

TASKS = ("charts.bar_chart.extremum_label", "charts.stacked_bars.fruit_total", "graphs.weighted_graph.cheapest_route",
         "symbolic.clock_row.read_time", "three_d.cube_stack.cuboid_fill", "illustrations.room.count_kind")
BOX = (64, 64, 192, 192)


def ms(fn, repeat: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def shown_render_ms(inst) -> float:
    """Drawing the shown picture once from its render inputs (the cost a zoom at k = 1 would have)."""
    from tessera.render.scene import draw_scene

    r = inst.render_inputs
    state = inst.trace["state"]
    return ms(lambda: draw_scene(inst.task.grammar, state, r.level, r.vocab, r.rng.copy(), object_paths(state),
                                 r.scale, None, r.variety, check=False))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args()
    tax = compile_taxonomy(ROOT)
    tasks = [t for t in TASKS if t in tax.tasks] or sorted(tax.tasks)[:4]
    call = '{{"name": "{}", "box": [{}, {}, {}, {}]{}}}'
    print(f"zoom of a {BOX[2] - BOX[0]} × {BOX[3] - BOX[1]} box: median ms over {args.seeds} seeds (fresh session "
          f"per call)")
    print(f"{'task':44} {'variety':8} {'canvas':>10} {'shown':>7} {'crop':>6} "
          f"{'zoom k=2':>9} {'redraw':>7} {'zoom k=4':>9} {'redraw':>7}")
    overall = {2: [], 4: []}
    for task_id in tasks:
        task = tax.task(task_id)
        for variety in ("none", "strong"):
            rows = {"shown": [], "crop": [], 2: [], "r2": [], 4: [], "r4": []}
            size = None
            for seed in range(args.seeds):
                inst = generate(task, seed, 2, None, tax.vocab, variety=variety)
                size = f"{inst.trace['render']['width']}×{inst.trace['render']['height']}"
                rows["shown"].append(shown_render_ms(inst))
                rows["crop"].append(ms(lambda: ToolSession(inst).call(call.format("crop", *BOX, ""))))
                for k in (2, 4):
                    result = []
                    rows[k].append(ms(lambda: result.append(ToolSession(inst).call(
                        call.format("zoom", *BOX, f', "scale": {k}')))))
                    assert result[0].png is not None, result[0].text
                    rows[f"r{k}"].append(ms(lambda: ToolSession(inst).redraw(k)))
                    overall[k].append(rows[k][-1])
            med = {key: statistics.median(v) for key, v in rows.items()}
            print(f"{task_id:44} {variety:8} {size:>10} {med['shown']:7.1f} {med['crop']:6.1f} "
                  f"{med[2]:9.1f} {med['r2']:7.1f} {med[4]:9.1f} {med['r4']:7.1f}")
    print(f"all rows: zoom k=2 median {statistics.median(overall[2]):.1f} ms (max {max(overall[2]):.1f}), "
          f"k=4 median {statistics.median(overall[4]):.1f} ms (max {max(overall[4]):.1f})")


if __name__ == "__main__":
    main()
