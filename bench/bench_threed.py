"""The cost of the three_d domain: per task, milliseconds of CPU per instance, the pixels of one picture, and the
cost per megapixel (µs/MP), so tasks with larger canvases can be compared with smaller ones. Prints a table and the
domain's median; asserts nothing. Times are CPU seconds of this process (time.process_time: the work is
single-threaded, and a shared machine skews wall time far more); each task runs `--rounds` times over the same seeds
and levels and keeps its fastest round.

    python bench/bench_threed.py                          # this checkout: every three_d task, 20 seeds, 3 rounds
    python bench/bench_threed.py --only cube_stack        # tasks whose id contains this
    python bench/bench_threed.py --variety strong --count 40

Comparing two checkouts (e.g. before and after a change to compiler/render/space.py or camera.py):

    git archive 1006101 | tar -x -C /tmp/before           # or `git worktree add /tmp/before 1006101`
    python bench/bench_threed.py --root /tmp/before       # the old code and its YAML library
    python bench/bench_threed.py                          # this checkout

`--root` loads the `tessera` package from that checkout's compiler/ folder (not the editable install of this
environment), so one environment runs both; run them one after the other on the same machine, with the same
--count, --rounds and --variety: the same task ids, seeds 0..count-1 and levels seed % 10.
"""
from __future__ import annotations

import argparse
import statistics
import struct
import sys
import time
from pathlib import Path

from checkout import load_tessera  # bench/checkout.py: the code of --root, not this checkout


def png_pixels(png: bytes) -> int:
    """Width × height from the PNG's IHDR chunk (the first chunk, at bytes 16..24)."""
    w, h = struct.unpack(">II", png[16:24])
    return w * h


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    ap.add_argument("--count", type=int, default=20, help="instances per task per round (seeds 0..count-1)")
    ap.add_argument("--rounds", type=int, default=3, help="runs per task; the fastest is shown (shared machines)")
    ap.add_argument("--variety", default="none", choices=("none", "mild", "strong"))
    ap.add_argument("--only", default="", help="only tasks whose id contains this")
    args = ap.parse_args()
    root = Path(args.root).resolve()
    load_tessera(root)
    from tessera.taxonomy import compile_taxonomy
    from tessera.trace.instance import generate

    tax = compile_taxonomy(root)
    tasks = sorted(t for t in tax.tasks if t.startswith("three_d.") and args.only in t)
    print(f"root {root}: {len(tasks)} three_d tasks, {args.count} instances each (seeds 0..{args.count - 1}, level "
          f"seed % 10), variety {args.variety}, fastest of {max(1, args.rounds)} rounds, CPU time")
    print(f"{'task':38} {'ms/inst':>8} {'Mpx/inst':>9} {'µs/Mpx':>9}")
    per_task, per_mp = [], []
    for tid in tasks:
        task = tax.tasks[tid]
        generate(task, 0, 5, vocab=tax.vocab, variety=args.variety)  # warm caches (fonts, parsers)
        best, pixels = None, 0
        for _ in range(max(1, args.rounds)):
            pixels = 0
            t0 = time.process_time()
            for s in range(args.count):
                pixels += png_pixels(generate(task, s, s % 10, vocab=tax.vocab, variety=args.variety).png)
            dt = time.process_time() - t0
            best = dt if best is None else min(best, dt)
        ms = best / args.count * 1000
        mp = pixels / args.count / 1e6
        per_task.append(ms)
        per_mp.append(ms * 1000 / mp)
        print(f"{tid:38} {ms:8.2f} {mp:9.3f} {ms * 1000 / mp:9.0f}", flush=True)
    if per_task:
        print(f"median {statistics.median(per_task):.2f} ms/inst, {statistics.median(per_mp):.0f} µs/Mpx over "
              f"{len(per_task)} tasks; mean {statistics.mean(per_task):.2f} ms/inst")


if __name__ == "__main__":
    main()
