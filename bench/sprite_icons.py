"""Give every `vocab.sprites` entry of taxonomy/vocab.yaml an `icon` field: the game-icons asset a scene may draw the
kind as (the `icon` mark, recoloured by fill so colour words stay true), '' where none fits. Idempotent; `--check`
exits 1 when the file would change. Issue 26 item 4 (rooms drawn with real icons)."""
from __future__ import annotations

import re
import sys
from pathlib import Path

VOCAB = Path(__file__).resolve().parent.parent / "taxonomy" / "vocab.yaml"
ICONS = {"cat": "cat", "dog": "sitting-dog", "ball": "beach-ball", "book": "book-cover", "cup": "coffee-cup",
         # the street (no mono bicycle: it stays a sprite)
         "car": "city-car", "bus": "bus", "house": "house", "shop": "shop", "tree": "oak", "pine": "pine-tree",
         "person": "person"}
NOTE = ("  # `icon`: the game-icons asset a scene may draw the kind as ('' for none): the `icon` mark, recoloured by fill\n"
        "  # (colour words stay true), a square of side max(w, h) on the same base, centred on the same x.\n")
# an entry's head up to its `icon` field (written or not): rewriting replaces the value, so a name added to ICONS
# reaches entries written before it (the old pattern skipped every entry that had an `icon` already)
ENTRY = re.compile(r"^(    - \{kind: (\w+), family: \w+, plural: \w+, w: [\d.]+, h: [\d.]+, )(icon: '[\w-]*', )?", re.M)


def rewrite(text: str) -> str:
    text = ENTRY.sub(lambda m: f"{m.group(1)}icon: '{ICONS.get(m.group(2), '')}', ", text)
    if NOTE not in text:
        text = text.replace("  sprites:\n", NOTE + "  sprites:\n", 1)
    return text


def main(argv: list[str]) -> int:
    old = VOCAB.read_text(encoding="utf-8")
    new = rewrite(old)
    if "--check" in argv:
        return int(new != old)
    VOCAB.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
