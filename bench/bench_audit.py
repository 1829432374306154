"""Time `tessera audit` on a dataset: a cold run (every image decoded and hashed) and a warm rerun (the hashes read
from the cache in the report folder). The goal: the recipe build (~9,000 rows) in a few minutes on 2 cores cold, and
well under a minute warm.

    python -m compiler.cli build taxonomy/builds/trace_recipe.yaml --out /tmp/recipe --workers 1
    python bench/bench_audit.py /tmp/recipe [--out /tmp/recipe-audit]
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from compiler.validate.audit import run_audit  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset")
    ap.add_argument("--out", help="report folder (default: a temporary one, removed afterwards)")
    args = ap.parse_args()
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="bench-audit-"))
    shutil.rmtree(out / "cache", ignore_errors=True)  # a cold start
    try:
        timings = []
        for label in ("cold", "warm"):
            start = time.perf_counter()
            result = run_audit(Path(args.dataset), out)
            seconds = time.perf_counter() - start
            reading = result.report["reading"]
            timings.append(seconds)
            print(f"{label}: {seconds:6.1f} s for {result.report['headline']['rows']} rows "
                  f"({reading['decoded_images']} images decoded, {reading['cached_shards']}/{reading['shards']} "
                  f"shards from the cache); {len(result.violations)} threshold(s) exceeded")
    finally:
        if not args.out:
            shutil.rmtree(out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
