"""The library rewrite to one type vocabulary (issue 25): a component parameter's `kind` written in an earlier word
(`int`, `str`, `bool`, `text`, `num`, `float`) becomes the canonical word (`integer`, `string`, `boolean`,
`template`, `number`), the words the loader now takes (an old word is error old-type-word, naming the new one). Kept
so the rewrite can be rerun on an author's own library (it changes nothing twice) and checked:

    python bench/rewrite_values.py [ROOT] [--check]     # --check: exit 1 if anything would change

Only the value of `params.NAME.kind` in components/*.yaml is rewritten, found by the YAML loader's positions (so a
`kind:` inside a scene expression or a comment is never touched); every other byte of the file stays as it is.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from compiler.errors import Diagnostics  # noqa: E402
from compiler.load.models import OLD_TYPE_WORDS  # noqa: E402
from compiler.load.yaml_source import parse_yaml  # noqa: E402
from bench.rewrite_driver import run  # noqa: E402


def rewrite(text: str, display: str) -> tuple[str, int]:
    diags = Diagnostics()
    doc = parse_yaml(text, display, diags)
    if doc is None or not isinstance(doc.data, dict) or not isinstance(doc.data.get("params"), dict):
        return text, 0
    lines = text.split("\n")
    edits = []  # (line index, column index, old word, new word)
    for name, param in doc.data["params"].items():
        if isinstance(param, dict) and isinstance(param.get("kind"), str) and param["kind"] in OLD_TYPE_WORDS:
            pos = doc.pos(("params", name, "kind"))
            edits.append((pos.line - 1, pos.col - 1, param["kind"], OLD_TYPE_WORDS[param["kind"]]))
    for line, col, old, new in sorted(edits, reverse=True):  # right to left: earlier columns stay valid
        src = lines[line]
        if src[col:col + len(old)] != old:  # a quoted word: the position is the quote's
            col = src.index(old, col)
        lines[line] = src[:col] + new + src[col + len(old):]
    return "\n".join(lines), len(edits)


def main(argv: list[str]) -> int:
    return run(argv, ("components",), rewrite, "parameter kinds")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
