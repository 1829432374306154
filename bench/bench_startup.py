"""How fast a `tessera` command starts: list, sample of one task, and compile of the whole library, with a warm
compile cache and a cold one, on the bundled library and on a synthetic library three times its size. Prints a
table of CPU seconds (user + system of the child process) and wall seconds, the minimum and median of --runs runs
of each; asserts nothing.

    python bench/bench_startup.py                 # this checkout, 5 runs each
    python bench/bench_startup.py --runs 3 --scale 1 3
    python bench/bench_startup.py --root /tmp/before   # another checkout's library and code (its own .venv's tessera)

The synthetic library copies the bundled one under new ids (grammar `charts.bar_chart` becomes
`charts.bar_chart_c1`, its tasks `charts.bar_chart_c1.*`), so every copy is a distinct task that compiles, and the
taxonomy's `domain.*` patterns take them in. Targets (the 2-core machine): list < 0.3 s, sample cold < 1 s,
compile < 1 s warm and < 2 s cold at today's size; list and sample flat as the library grows, cold compile at most
linear.
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
LIBRARY_DIRS = ("taxonomy", "grammars", "programs", "contracts", "components")
TASK = "charts.bar_chart.extremum_label"


def synthetic_library(src: Path, dest: Path, copies: int) -> int:
    """`copies` × the library at src, under new grammar and task ids; returns the number of tasks."""
    for d in LIBRARY_DIRS:
        shutil.copytree(src / d, dest / d)
    for k in range(1, copies):
        for path in sorted((src / "grammars").rglob("*.yaml")):
            text = path.read_text()
            text = re.sub(r"^grammar: (\S+)", lambda m: f"grammar: {m.group(1)}_c{k}", text, count=1, flags=re.M)
            out = dest / "grammars" / path.relative_to(src / "grammars")
            out.with_name(f"{out.stem}_c{k}.yaml").write_text(text)
        for path in sorted((src / "programs").rglob("*.yaml")):
            text = path.read_text()
            grammar = re.search(r"^grammar: (\S+)", text, flags=re.M).group(1)
            text = re.sub(r"^grammar: (\S+)", f"grammar: {grammar}_c{k}", text, count=1, flags=re.M)
            text = re.sub(r"^task: " + re.escape(grammar) + r"\.", f"task: {grammar}_c{k}.", text, count=1,
                          flags=re.M)
            out = dest / "programs" / path.relative_to(src / "programs")
            out.with_name(f"{out.stem}_c{k}.yaml").write_text(text)
    return len(list((dest / "programs").rglob("*.yaml")))


def timed(cmd: list[str], env: dict, cwd: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run of a command as a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{r.stderr[-3000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--scale", type=int, nargs="+", default=[1, 3], help="library sizes, in copies of the bundled one")
    ap.add_argument("--root", type=Path, default=HERE, help="a checkout (its library, and its .venv's tessera)")
    args = ap.parse_args()
    tessera = args.root / ".venv" / "bin" / "tessera"
    if not tessera.exists():
        raise SystemExit(f"{tessera} not found: run `make demo` (or pip install -e .) in {args.root}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="tessera-bench-startup-") as tmp:
        for scale in args.scale:
            lib = Path(tmp) / f"lib{scale}"
            n = synthetic_library(args.root, lib, scale)
            cache = Path(tmp) / f"cache{scale}"
            env = {**os.environ, "TESSERA_CACHE_DIR": str(cache)}
            env.pop("TESSERA_NO_CACHE", None)
            nocache = {**env, "TESSERA_NO_CACHE": "1"}
            base = [str(tessera), "--root", str(lib)]
            sample = base + ["sample", TASK, "--seed", "7", "--out", str(Path(tmp) / "s")]
            timed(base + ["compile"], env, lib)  # fill the cache
            cases = [
                ("list, warm cache", base + ["list"], env, None),
                ("sample one task, warm cache", sample, env, None),
                ("sample one task, no cache", sample, nocache, None),
                ("compile, warm cache", base + ["compile"], env, None),
                ("compile, cold (empty cache)", base + ["compile"], env, cache),
                ("compile, no cache", base + ["compile"], nocache, None),
            ]
            for name, cmd, e, wipe in cases:
                cpu, wall = [], []
                for _ in range(args.runs):
                    if wipe is not None:
                        shutil.rmtree(wipe, ignore_errors=True)
                    c, w = timed(cmd, e, lib)
                    cpu.append(c)
                    wall.append(w)
                rows.append((f"{scale}× ({n} tasks)", name, min(cpu), statistics.median(cpu), min(wall),
                             statistics.median(wall)))
                print(f"{rows[-1][0]:>16}  {name:<30} cpu min {min(cpu):6.2f} s  median {statistics.median(cpu):6.2f} s"
                      f"   wall min {min(wall):6.2f} s  median {statistics.median(wall):6.2f} s", file=sys.stderr)
    print(f"\n| library | command | CPU s (min) | CPU s (median) | wall s (min) | wall s (median) |")
    print("|---|---|---|---|---|---|")
    for lib, name, cmin, cmed, wmin, wmed in rows:
        print(f"| {lib} | {name} | {cmin:.2f} | {cmed:.2f} | {wmin:.2f} | {wmed:.2f} |")


if __name__ == "__main__":
    main()
