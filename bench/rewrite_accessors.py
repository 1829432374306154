"""The library rewrite that introduced field accessors (issue 25): every lambda that only reads one field of its
parameter, `b -> b.value`, becomes the accessor `.value`, in grammars, programs and components. Kept so the rewrite
can be rerun on an author's own library (it changes nothing twice) and checked: the rewritten library compiles to
the same task identities and the same image bytes (tests/test_scene_equivalence.py).

    python bench/rewrite_accessors.py [ROOT] [--check]     # --check: exit 1 if anything would change

Two forms are rewritten, by text, leaving every other byte of the file as it is:
- a whole YAML scalar `b -> b.value` (plain or quoted) becomes `.value`, quoted as it was;
- inside an expression, `b -> b.value` directly followed by `,` `)` `]` `}` or the end of the expression (where a
  lambda's body must end) becomes `.value`.
A field named like a YAML special float (`inf`, `nan`) is left alone: `.inf` would read as infinity.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.rewrite_driver import run  # noqa: E402

DIRS = ("grammars", "programs", "components")
SPECIAL = {"inf", "nan"}
INLINE = re.compile(r"(?<![\w.])([A-Za-z_]\w*) -> \1\.([A-Za-z_]\w*)(?=\s*[,)\]}\"']|\s*$)", re.M)


def rewrite(text: str) -> tuple[str, int]:
    count = 0

    def repl(m: re.Match) -> str:
        nonlocal count
        if m.group(2).lower() in SPECIAL:
            return m.group(0)
        count += 1
        return "." + m.group(2)

    return INLINE.sub(repl, text), count


def main(argv: list[str]) -> int:
    return run(argv, DIRS, lambda text, _path: rewrite(text), "accessor lambdas")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
