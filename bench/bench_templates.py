"""Cost of the largest templates the bounds allow (compiler/expr/template.py): compile (the token pass, jinja's parse
and our type check), first render (jinja's code generation) and a later render, in milliseconds, best of a few runs;
then the cost of refusing what is over the bounds (300 `+` terms, 2,000 nested brackets, 9 nested ifs). Before the
bounds, 300 `+` terms took 48 s to render or raised RecursionError. Prints figures; asserts nothing.

    python bench/bench_templates.py
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tessera.errors import Diagnostics, Position  # noqa: E402
from tessera.expr.template import MAX_NESTING, MAX_OPERATORS, MAX_TEMPLATE, compile_template  # noqa: E402
from tessera.expr.types import INT, STR, ListT  # noqa: E402

REPEATS = 5
NAMES = {"n": INT, "words": ListT(STR)}
VALUES = {"n": 3, "words": ["alpha", "beta", "gamma"]}


def filled(tag: str) -> str:
    return tag * (MAX_TEMPLATE // len(tag))


TAG_SUM = "{{ " + " + ".join(["n"] * (MAX_OPERATORS + 1)) + " }}"
TAG_DEEP = "{{ " + "(" * MAX_NESTING + "n" + ")" * MAX_NESTING + " }}"
TAG_FILTERS = "{{ words | join(', ') | upper | lower | title | capitalize | trim }}"
CASES = {
    f"{MAX_OPERATORS}-operator sums": filled(TAG_SUM),
    f"{MAX_NESTING}-deep brackets": filled(TAG_DEEP),
    f"{MAX_NESTING} nested ifs": "{% if n %}" * MAX_NESTING + TAG_DEEP * 150 + "{% endif %}" * MAX_NESTING,
    "filter chains": filled(TAG_FILTERS),
}
REFUSED = {
    "300 + terms": "{{ " + " + ".join(["n"] * 300) + " }}",
    "1,990 brackets": "{{ " + "(" * 1990 + "n" + ")" * 1990 + " }}",
    "9 nested ifs": "{% if n %}" * 9 + "x" + "{% endif %}" * 9,
}


def compile_(source: str):
    d = Diagnostics()
    return compile_template(source, NAMES, lambda line, col: Position("b", line, col), d), d


def main() -> int:
    print(f"{'template (≤ ' + str(MAX_TEMPLATE) + ' chars)':34}{'chars':>7}{'compile':>10}{'1st render':>12}"
          f"{'render':>10}   (ms, best of {REPEATS})")
    for name, source in CASES.items():
        best = [float("inf")] * 3
        for _ in range(REPEATS):
            t0 = time.perf_counter()
            t, d = compile_(source)
            t1 = time.perf_counter()
            assert t is not None, [str(x) for x in d.items]
            t.render(VALUES)
            t2 = time.perf_counter()
            t.render(VALUES)
            t3 = time.perf_counter()
            best = [min(b, v) for b, v in zip(best, (t1 - t0, t2 - t1, t3 - t2))]
        print(f"{name:34}{len(source):7}" + "".join(f"{b * 1000:{w}.2f}" for b, w in zip(best, (10, 12, 10))))
    print()
    for name, source in REFUSED.items():
        t0 = time.perf_counter()
        t, d = compile_(source)
        ms = (time.perf_counter() - t0) * 1000
        print(f"refused {name:26}{ms:8.2f} ms  {d.items[0].message}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
