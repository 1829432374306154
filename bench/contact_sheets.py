"""Contact sheets of the asset library and the 3-D solids, drawn through the real marks (docs/assets.md links them).

    python bench/contact_sheets.py            # writes docs/assets-icons.png, docs/assets-objects.png, docs/solids.png
    python bench/contact_sheets.py --check    # exit 1 when a committed sheet differs from what the marks draw now

Each sheet is one probe grammar compiled in a throwaway library and rendered by the ordinary pipeline (variety off),
so a sheet shows exactly what a task's `icon` / `object` / solid marks draw. The asset sample is deterministic: every
k-th name of the sorted set (k = count // SAMPLE), so a reviewer sees the whole alphabet, not one tag.
"""
from __future__ import annotations

import sys
import tempfile
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tessera.render.png import encode_png
from tessera.spec.assets import asset_names
from tessera.taxonomy import compile_taxonomy
from tessera.trace.instance import generate

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = 200
COLS = 14
CELL = 84  # a cell: the asset at half-side 26 px above a one-line name label (10 px, the legibility floor)

TAXONOMY = "taxonomy: contact-sheets\nversion: 1\ndomains:\n  probe:\n    summary: contact sheets\n    tasks: ['probe.*']\n"
CONTRACT = "contract: integer_exact\nsummary: an integer\ntype: integer\n"


def _render(grammar: str) -> bytes:
    """PNG bytes of the probe grammar's picture (seed 0, level 0, no variety)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for d in ("taxonomy", "grammars/probe", "programs/probe/sheet", "contracts", "components"):
            (root / d).mkdir(parents=True)
        (root / "taxonomy/taxonomy.yaml").write_text(TAXONOMY)
        (root / "contracts/integer_exact.yaml").write_text(CONTRACT)
        (root / "grammars/probe/sheet.yaml").write_text(grammar)
        (root / "programs/probe/sheet/count.yaml").write_text(
            "task: probe.sheet.count\ngrammar: probe.sheet\nsummary: the number of cells\noperations: [count]\n"
            "bucket: counting\nanswer: {value: len(cells), contract: integer_exact}\nwitness: {scalar: len(cells)}\n"
            "prompt: How many cells?\n")
        tax = compile_taxonomy(root)
        inst = generate(tax.tasks["probe.sheet.count"], 0, 0, vocab=tax.vocab, variety="none")
        return encode_png(inst.rgb)


def asset_sheet(kind: str) -> bytes:
    names = asset_names(kind)
    step = max(1, len(names) // SAMPLE)
    picked = names[::step][:SAMPLE]
    rows = -(-len(picked) // COLS)
    every = "icons()" if kind == "mono" else "objects()"
    mark = ("icon: {each: cells, as: c, index: i, name: c.n, x: x_of(i), y: y_of(i), size: 26, fill: \"'#1d3557'\"}"
            if kind == "mono" else "object: {each: cells, as: c, index: i, name: c.n, x: x_of(i), y: y_of(i), size: 26}")
    return _render(textwrap.dedent(f"""\
        grammar: probe.sheet
        summary: Contact sheet of {len(picked)} {'icons' if kind == 'mono' else 'objects'}, every {step}th name of the set.
        functions:
          x_of: "i -> {CELL // 2} + (i % {COLS}) * {CELL}"
          y_of: "i -> {CELL // 2 - 6} + (i // {COLS}) * {CELL}"
        state:
          names: "{every}"
          cells: "[{{n: names[k * {step}], label: names[k * {step}][:14]}} for k in range({len(picked)})]"
        render:
          canvas: {{width: {COLS * CELL}, height: {rows * CELL}}}
          scene:
            frame: {{canvas: {{}}}}
            marks:
              - {mark}
              - text: {{each: cells, as: c, index: i, x: x_of(i), y: y_of(i) + 33, text: c.label, size: 10, color: muted}}
        """))


def solids_sheet() -> bytes:
    """One of each solid (sphere, cone, torus, pyramid, box and cylinder) on a floor, seen from above at 35°."""
    return _render(textwrap.dedent("""\
        grammar: probe.sheet
        summary: The 3-D solids, one of each, on a floor.
        state:
          cells: "['sphere', 'cone', 'torus', 'pyramid', 'box', 'cylinder']"
        render:
          canvas: {width: 900, height: 300}
          scene:
            layers:
              - frame:
                  camera: {projection: orthographic, azimuth: 20, elevation: 32, bounds: "[[0, 0, 0], [12, 2, 1.6]]"}
                marks:
                  - polygon: {points: "[[0, 0], [12, 0], [12, 2], [0, 2]]", fill: light, stroke: muted, z: -1}
                  - sphere: {x: 1, y: 1, z: 0.7, r: 0.7, fill: "'#e63946'"}
                  - cone: {x: 3, y: 1, z: 0, r: 0.7, height: 1.5, fill: "'#2a9d8f'"}
                  - torus: {x: 5, y: 1, z: 0.25, r: 0.65, r_inner: 0.25, fill: "'#e9c46a'"}
                  - pyramid: {x: 7, y: 1, z: 0, size: 1.3, height: 1.4, fill: "'#8d5fd3'"}
                  - box: {x: 8.4, y: 0.4, dx: 1.2, dy: 1.2, dz: 1.2, fill: "'#457b9d'"}
                  - cylinder: {x: 11, y: 1, r: 0.6, height: 1.3, fill: "'#f4a261'"}
        """))


SHEETS = {"docs/assets-icons.png": lambda: asset_sheet("mono"),
          "docs/assets-objects.png": lambda: asset_sheet("colour"),
          "docs/solids.png": solids_sheet}


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for rel, draw in SHEETS.items():
        png, path = draw(), ROOT / rel
        if check:
            if not path.exists() or path.read_bytes() != png:
                stale.append(rel)
        else:
            path.write_bytes(png)
            print(f"wrote {rel} ({len(png):,} bytes)")
    for rel in stale:
        print(f"stale: {rel} (run python bench/contact_sheets.py)")
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
