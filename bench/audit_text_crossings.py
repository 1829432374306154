"""Text crossed by strokes, audited: renders every grammar (via one task each) at a few levels and seeds and lists
the text marks whose box a stroke of another item runs through — whether or not the mark asks to be `clear`.
Texts that place themselves (`spots`) or carry a halo (which knocks strokes out behind the letters) are skipped.
Strokes are counted whatever their depth, so a line hidden under a filled disc shows up too (e.g. tree edges under
their nodes): read the list, then look at the pictures.

    python bench/audit_text_crossings.py [--seeds N] [--grammar PREFIX]
"""
from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

import skia

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import tessera.render.compose as compose  # noqa: E402
from tessera.render.marks import MARKS  # noqa: E402
from tessera.taxonomy import compile_taxonomy  # noqa: E402
from tessera.trace.instance import generate  # noqa: E402


def instrument(found: list) -> None:
    """Record every text mark's box while drawing, and test them against the strokes once all are drawn."""
    compose._asks_clear = lambda node: True  # keep every scene's strokes
    draw, check = compose.Composer.draw, compose.Composer.check_text_clear

    def draw_and_note(self, cm, values, obj, item, ctx):
        draw(self, cm, values, obj, item, ctx)
        if cm.kind != "text" or values.get("spots") is not None or cm.options.get("halo"):
            return
        dry = compose.Ctx(compose._DryPainter(self.painter, skia.PictureRecorder()), ctx.frame, ctx.sizes)
        box = MARKS["text"].draw(dry, values, cm.options).bbox
        key = id(item) if item is not None else id(values)
        self.__dict__.setdefault("_noted", []).append((box, key, cm.where_text, str(values.get("text"))[:12]))

    def check_all(self):
        for (x0, y0, x1, y1), key, where, text in self.__dict__.get("_noted", []):
            inner = (x0 + 1, y0 + 1, x1 - 1, y1 - 1)
            if inner[2] > inner[0] and inner[3] > inner[1] and self.crosses(inner, key):
                found.append((where, text))
        return check(self)

    compose.Composer.draw, compose.Composer.check_text_clear = draw_and_note, check_all


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--grammar", default="")
    args = ap.parse_args()
    found: list = []
    instrument(found)
    tax = compile_taxonomy(ROOT)
    seen, flagged = set(), 0
    for tid in sorted(tax.tasks):
        grammar = tid.rsplit(".", 1)[0]
        if grammar in seen or not grammar.startswith(args.grammar):
            continue
        seen.add(grammar)
        found.clear()
        for level in (0, 5, 9):
            for seed in range(args.seeds):
                generate(tax.tasks[tid], seed, level, vocab=tax.vocab)
        if found:
            flagged += 1
            where = collections.Counter(w for w, _ in found).most_common(3)
            print(f"{grammar:32} {len(found):4d} crossed text(s) in {3 * args.seeds} renders: {where}, "
                  f"e.g. {found[0][1]!r}")
    print(f"\n{flagged} grammar(s) draw text that a stroke crosses")
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
