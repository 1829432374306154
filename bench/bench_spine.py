"""Figures for the compiler spine: compile time, YAML lines per task, generation rate per core next to the cost of
PNG encoding alone, and verifier throughput. Prints tables; asserts nothing (speed is measured, not tested)."""
from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tessera.render.png import decode_png_rgb, encode_png  # noqa: E402
from tessera.taxonomy import compile_taxonomy  # noqa: E402
from tessera.trace.instance import generate  # noqa: E402
from tessera.verify.score import score  # noqa: E402

TASKS = ("charts.bar_chart.extremum_label", "icons.shape_field.relation", "icons.shape_grid.row_extreme")


def yaml_lines(path: Path) -> int:
    return sum(1 for line in path.read_text().splitlines() if line.strip() and not line.lstrip().startswith("#"))


def main() -> None:
    runs = []
    for _ in range(5):
        t0 = time.perf_counter()
        tax = compile_taxonomy(ROOT)
        runs.append(time.perf_counter() - t0)
    n = len(tax.tasks)
    compile_s = statistics.median(runs)
    task_lines = [yaml_lines(ROOT / t.source) for t in tax.tasks.values()]
    per_grammar = {}
    for t in tax.tasks.values():
        per_grammar.setdefault(t.grammar.id, []).append(t)
    shared = [yaml_lines(ROOT / t.source) + yaml_lines(ROOT / t.grammar.source) / len(per_grammar[t.grammar.id])
              for t in tax.tasks.values()]
    print(f"taxonomy: {len(tax.domains)} domains, {len(tax.grammars)} grammars, {n} tasks")
    print(f"compile (median of 5, after imports): {compile_s * 1000:.1f} ms  = {compile_s / n * 100 * 1000:.0f} ms "
          f"per 100 tasks")
    print(f"YAML lines per task (non-blank, non-comment): median {statistics.median(task_lines)} task file alone, "
          f"median {statistics.median(shared):.1f} with its grammar shared out among its tasks")
    print()
    print(f"{'task':40} {'inst/s':>8} {'ms/inst':>8} {'png ms':>8} {'png %':>6}")
    for tid in TASKS:
        task = tax.tasks[tid]
        for s in range(3):
            generate(task, s, 5, vocab=tax.vocab)  # warm caches (fonts, parsers)
        count = 150
        t0 = time.perf_counter()
        insts = [generate(task, s, s % 10, vocab=tax.vocab) for s in range(count)]
        gen_s = (time.perf_counter() - t0) / count
        pixels = [decode_png_rgb(i.png) for i in insts]
        t0 = time.perf_counter()
        for px in pixels:
            encode_png(px)
        png_s = (time.perf_counter() - t0) / count
        print(f"{tid:40} {1 / gen_s:8.1f} {gen_s * 1000:8.2f} {png_s * 1000:8.2f} {png_s / gen_s * 100:5.0f}%")
    print()
    label = insts[0].label
    responses = [f"I looked at each bar carefully. Row {i} seems right.\n" * 8 + json.dumps({"answer": label["answer"]})
                 for i in range(2000)]
    responses += ["x" * 5000 + "{" * 3000, '{"answer": ' + "[" * 3000 + "]" * 3000 + "}"] * 50
    t0 = time.perf_counter()
    for r in responses:
        score(label, r)
    dt = time.perf_counter() - t0
    print(f"verifier: {len(responses) / dt:,.0f} responses/s on one core ({len(responses)} responses, "
          f"{sum(map(len, responses)) / len(responses):,.0f} chars on average, 5% adversarial)")


if __name__ == "__main__":
    main()
