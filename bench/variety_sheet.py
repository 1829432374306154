"""A contact sheet: one instance (same state, answer and label) under several render seeds with variety.

    python bench/variety_sheet.py TASK SEED OUT.png [strong|mild] [count]

The state, query and prompt streams stay as the seed derives them; only the render stream changes, so every tile
shows the same question with the same answer in another theme, face, style and background.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import skia

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tessera.sample.rng import derive_seed
from tessera.taxonomy import compile_taxonomy
from tessera.trace.instance import generate


def sheet(task_id: str, seed: int, variety: str = "strong", count: int = 12, cols: int = 5) -> tuple[bytes, list]:
    tax = compile_taxonomy(Path(__file__).resolve().parents[1])
    task = tax.tasks[task_id]
    tiles, notes = [], []
    base = generate(task, seed, 3, vocab=tax.vocab)
    for k in range(count):
        render_seed = derive_seed(seed, task_id, "render") if k == 0 else derive_seed(seed + 1000 * k, task_id, "render")
        inst = generate(task, seed, 3, vocab=tax.vocab, stream_seeds={"render": render_seed},
                        variety="none" if k == 0 else variety)
        assert inst.answer == base.answer and inst.label == base.label, "variety changed the answer"
        theme = inst.trace["render"]["decisions"]["theme"]
        notes.append((theme.get("name", "classic"), theme.get("face"), theme.get("texture", "plain")))
        tiles.append(inst.rgb[..., :3])
    h = max(t.shape[0] for t in tiles)
    w = max(t.shape[1] for t in tiles)
    rows = (len(tiles) + cols - 1) // cols
    pad = 6
    grid = np.full((rows * (h + pad) + pad, cols * (w + pad) + pad, 3), 90, np.uint8)
    for i, t in enumerate(tiles):
        r, c = divmod(i, cols)
        grid[pad + r * (h + pad): pad + r * (h + pad) + t.shape[0], pad + c * (w + pad): pad + c * (w + pad) + t.shape[1]] = t
    rgba = np.dstack([grid, np.full(grid.shape[:2], 255, np.uint8)])
    img = skia.Image.fromarray(np.ascontiguousarray(rgba), skia.ColorType.kRGBA_8888_ColorType)
    return bytes(img.encodeToData()), notes


if __name__ == "__main__":
    task_id, seed, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    variety = sys.argv[4] if len(sys.argv) > 4 else "strong"
    count = int(sys.argv[5]) if len(sys.argv) > 5 else 12
    png, notes = sheet(task_id, seed, variety, count)
    Path(out).write_bytes(png)
    for i, n in enumerate(notes):
        print(i, *n)
