"""Byte identity of the three_d domain across two checkouts: hashes the PNG and the canonical JSON of the answer,
prompt, label, witness and trace of every three_d task × seeds 0..N-1 (level seed % 10) × variety none and strong,
and writes them to a JSON file; with --against, compares with a file written by another checkout and fails on any
difference. Written for the 3-D paint-order and visibility rework, which must not change a byte: visibility decides
which objects are witnesses (render-map boxes, bindings), so the JSON is hashed as well as the picture.

    git archive 1006101 | tar -x -C /tmp/before                         # the checkout to compare with
    python bench/check_threed_bytes.py --root /tmp/before --out /tmp/before.json
    python bench/check_threed_bytes.py --out /tmp/after.json --against /tmp/before.json

`--root` loads the `tessera` package from that checkout's compiler/ folder (not the one this environment installed
in editable mode), and its YAML library, so one environment can hash both.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from checkout import load_tessera  # bench/checkout.py: the code of --root, not this checkout


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    ap.add_argument("--count", type=int, default=30, help="seeds 0..count-1 per task and variety")
    ap.add_argument("--varieties", default="none,strong")
    ap.add_argument("--out", required=True)
    ap.add_argument("--against", help="a file written by this script from another checkout: fail on any difference")
    args = ap.parse_args()
    root = Path(args.root).resolve()
    load_tessera(root)
    from tessera.taxonomy import compile_taxonomy
    from tessera.trace.instance import generate

    import tessera
    assert Path(tessera.__file__).resolve().parent == root / "compiler", tessera.__file__
    tax = compile_taxonomy(root)
    tasks = sorted(t for t in tax.tasks if t.startswith("three_d."))
    out: dict[str, dict[str, str]] = {}
    for tid in tasks:
        task = tax.tasks[tid]
        for variety in args.varieties.split(","):
            for seed in range(args.count):
                inst = generate(task, seed, seed % 10, vocab=tax.vocab, variety=variety)
                doc = json.dumps({"answer": inst.answer, "prompt": inst.prompt, "label": inst.label,
                                  "witness": inst.witness, "trace": inst.trace}, sort_keys=True, default=repr)
                out[f"{tid}/{variety}/{seed}"] = {"png": hashlib.sha256(inst.png).hexdigest(),
                                                   "json": hashlib.sha256(doc.encode()).hexdigest()}
        print(f"{tid}: {args.count * len(args.varieties.split(','))} instances", flush=True)
    Path(args.out).write_text(json.dumps(out, indent=1, sort_keys=True))
    print(f"{len(out)} instances hashed from {root}")
    if args.against:
        before = json.loads(Path(args.against).read_text())
        diff = sorted(k for k in set(before) | set(out) if before.get(k) != out.get(k))
        for k in diff[:20]:
            print("DIFFERS", k, before.get(k), out.get(k))
        print(f"compared {len(set(before) & set(out))} instances: {len(diff)} differ")
        sys.exit(1 if diff else 0)


if __name__ == "__main__":
    main()
