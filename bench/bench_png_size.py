"""Bytes per instance of a recipe-like build, plain (`variety: none`) and `variety: strong`, beside the reference
library's encoding at equal pixels, with the CPU time spent encoding pictures (PNGs; from 0.10 strong pictures are
JPEG files). Prints tables; asserts nothing (the
goal: strong at most 3× the reference per instance, plain at most 1×).

The reference library writes Pillow's default PNG (zlib level 6, libpng-style adaptive filters) of noise-free
drawings; its own pictures are not ours, so its figure here is an estimate at equal pixels: our plain pixels saved
through Pillow's default encoder (`Image.save(buf, 'PNG')`), per instance. Each task runs `--seeds` seeds (level
seed % 10) at each setting; the same (task, seed) pair gives the reference figure for both settings.

    python bench/bench_png_size.py                         # every task, 3 seeds
    python bench/bench_png_size.py --seeds 1 --domain charts
    python bench/bench_png_size.py --root /path/to/other/checkout   # its code and library (e.g. a worktree at
                                                                    # 1006101, the encoding before 0.9)

`--root` imports `tessera` from that checkout's compiler/ (a link to it in a temporary folder, ahead of the
installed package), so two checkouts compare under one interpreter. Encode times are CPU seconds of this process
(time.process_time) per instance, every encode_png call counted (rejected renders encode nothing).
"""
from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path


def _import_from(root: Path) -> None:
    """Make `import tessera` load root/compiler (an editable install maps it elsewhere, after sys.path)."""
    shim = Path(tempfile.mkdtemp(prefix="tessera-bench-"))
    (shim / "tessera").symlink_to(root / "compiler", target_is_directory=True)
    sys.path.insert(0, str(shim))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--domain", default=None, help="only this domain's tasks")
    args = ap.parse_args()
    root = Path(args.root).resolve()
    _import_from(root)
    import numpy as np
    from PIL import Image

    import tessera
    from tessera.render import scene
    from tessera.render.png import decode_png_rgb
    from tessera.taxonomy import compile_taxonomy
    from tessera.trace.instance import generate

    encode, spent = scene.encode_png, [0.0]

    def timed(*a, **k):
        t0 = time.process_time()
        try:
            return encode(*a, **k)
        finally:
            spent[0] += time.process_time() - t0

    scene.encode_png = timed  # render_scene looks it up in its module at call time
    from tessera.render import raster
    if hasattr(raster, "encode_jpeg"):  # from 0.10 strong pictures are JPEG files, written by the raster edits
        encode_jpeg = raster.encode_jpeg

        def timed_jpeg(*a, **k):
            t0 = time.process_time()
            try:
                return encode_jpeg(*a, **k)
            finally:
                spent[0] += time.process_time() - t0

        raster.encode_jpeg = timed_jpeg
    tax = compile_taxonomy(root)
    tasks = sorted(t for t in tax.tasks if args.domain in (None, t.split(".")[0]))
    print(f"tessera {tessera.__version__} from {root / 'compiler'}: {len(tasks)} tasks × {args.seeds} seeds, "
          f"variety none and strong")
    sizes: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))  # domain → column → bytes
    ms: dict[str, list[float]] = defaultdict(list)
    for tid in tasks:
        domain = tid.split(".")[0]
        for seed in range(args.seeds):
            for variety in ("none", "strong"):
                spent[0] = 0.0
                inst = generate(tax.tasks[tid], seed, seed % 10, vocab=tax.vocab, variety=variety)
                ms[variety].append(spent[0] * 1e3)
                sizes[domain][variety].append(len(inst.png))
                if variety == "none":  # the reference-style encoding of the same plain pixels
                    buf = io.BytesIO()
                    Image.fromarray(np.ascontiguousarray(decode_png_rgb(inst.png))).save(buf, "PNG")
                    sizes[domain]["ref"].append(len(buf.getvalue()))
    everything: dict[str, list[int]] = defaultdict(list)
    for cols in sizes.values():
        for k, v in cols.items():
            everything[k] += v
    rows = sorted(sizes.items()) + [("all", everything)]
    print("\nbytes per instance (kB = 1000 bytes); ref = Pillow's default PNG of the plain pixels, per instance")
    print(f"{'domain':14} {'n':>5} {'ref mean':>9} {'ref med':>8} {'none mean':>10} {'none med':>9} {'none/ref':>9} "
          f"{'strong mean':>12} {'strong med':>11} {'strong/ref':>11}")
    for name, cols in rows:
        ref, none, strong = (np.array(cols[k], dtype=np.float64) for k in ("ref", "none", "strong"))
        print(f"{name:14} {len(none):5} {ref.mean() / 1e3:9.1f} {np.median(ref) / 1e3:8.1f} {none.mean() / 1e3:10.1f} "
              f"{np.median(none) / 1e3:9.1f} {none.mean() / ref.mean():8.2f}× {strong.mean() / 1e3:12.1f} "
              f"{np.median(strong) / 1e3:11.1f} {strong.mean() / ref.mean():10.2f}×")
    print("\npicture encoding (PNG, and from 0.10 strong's JPEG files), CPU ms per instance: " + ", ".join(
        f"{v} mean {statistics.fmean(ms[v]):.2f} median {statistics.median(ms[v]):.2f}" for v in ("none", "strong")))


if __name__ == "__main__":
    main()
