"""The one command-line driver of the library rewrite tools (bench/rewrite_*.py): walk the YAML files of some
library folders under ROOT (default: this checkout), rewrite each with the tool's function, and with `--check`
write nothing and exit 1 when anything would change — so each tool's output can be committed and checked fresh."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parent.parent


def run(argv: list[str], folders: tuple[str, ...], rewrite: Callable[[str, str], tuple[str, int]], what: str) -> int:
    """`rewrite(text, relative path) -> (new text, count)`; prints "rewrote N WHAT in M files"."""
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    root = Path(args[0]) if args else REPO
    total = files = 0
    for folder in folders:
        for path in sorted((root / folder).rglob("*.yaml")):
            new, n = rewrite(path.read_text(), str(path.relative_to(root)))
            if n:
                files += 1
                total += n
                if not check:
                    path.write_text(new)
    print(f"{'would rewrite' if check else 'rewrote'} {total} {what} in {files} files")
    return 1 if check and total else 0
