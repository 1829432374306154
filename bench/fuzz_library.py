"""Deeper runs of the library fuzz (tests/test_fuzz.py runs 250 cases in the suite): N seeded mutations of the bundled
library, each compiled in-process through the CLI; prints runs and failures per mutation kind and the first failures.

    .venv/bin/python bench/fuzz_library.py                 # 2000 cases, seed 9
    .venv/bin/python bench/fuzz_library.py --cases 500 --seed 3 --kind odd_scalar --kind truncate
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.test_fuzz import DOMAINS, MUTATIONS, fuzz  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=9)
    ap.add_argument("--kind", action="append", choices=sorted(MUTATIONS), help="only these mutations (repeatable)")
    ap.add_argument("--domain", action="append", choices=DOMAINS, help="only these domains (repeatable)")
    ap.add_argument("--show", type=int, default=5, help="failures to print in full")
    args = ap.parse_args()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        report = fuzz(Path(tmp), args.cases, args.seed, tuple(args.domain or DOMAINS), args.kind)
    seconds = time.perf_counter() - t0
    print(report.table())
    slowest = max(report.cases, key=lambda c: c.seconds)
    print(f"\n{len(report.cases)} runs, {len(report.failures)} failures, {seconds:.1f} s "
          f"({seconds / max(1, len(report.cases)) * 1000:.0f} ms a case; slowest {slowest.seconds:.2f} s: "
          f"{slowest.kind} on {slowest.file})")
    for c in sorted(report.cases, key=lambda c: -c.seconds)[:3]:
        print(f"  slow: case {c.index} {c.kind} on {c.file}: {c.seconds:.2f} s (exit {c.code})")
    for c in report.failures[:args.show]:
        print(f"\n-- case {c.index}: {c.kind} on {c.file} (exit {c.code})\n{c.problem}")
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
