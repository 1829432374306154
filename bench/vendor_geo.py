"""Vendor the map shapes of the `geo` frame (compiler/assets/geo/) from the npm packages that publish them.

    npm pack world-atlas@2.0.2 us-atlas@3.0.1 countries-list@3.4.1 i18n-iso-countries@7.14.0
    (extract each with `tar xzf X.tgz --one-top-level`)
    python bench/vendor_geo.py /tmp/geo            # write compiler/assets/geo/
    python bench/vendor_geo.py /tmp/geo --check    # exit 1 when the vendored files differ from what it would write

What it writes (idempotent): the TopoJSON files as published (countries-110m.json, states-10m.json), their licence
files, `countries-110m.csv` (the region table: ISO 3166-1 numeric id of the shape, its alpha-3 code, name as in the
shapes, continent) and `manifest.csv` (one line per set: set, file, object, source package and version, licence,
attribution). Continents come from countries-list (alpha-2 → continent) joined through i18n-iso-countries (numeric →
alpha-2); the three shapes Natural Earth draws without an ISO code get Natural Earth's own ADM0_A3 code.
"""
from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "compiler" / "assets" / "geo"
PACKAGES = {"world-atlas": "2.0.2", "us-atlas": "3.0.1", "countries-list": "3.4.1", "i18n-iso-countries": "7.14.0"}
# Shapes with no ISO 3166-1 id in Natural Earth: its ADM0_A3 code and continent
NO_ISO = {"Kosovo": ("KOS", "Europe"), "N. Cyprus": ("CYN", "Asia"), "Somaliland": ("SOL", "Africa")}
MANIFEST = [
    ("countries", "countries-110m.json", "countries", "npm world-atlas@2.0.2", "ISC (package); data public domain",
     "Made with Natural Earth (public domain); TopoJSON by Mike Bostock (world-atlas, ISC); continents from "
     "countries-list (MIT), ISO codes from i18n-iso-countries (MIT)"),
    ("us-states", "states-10m.json", "states", "npm us-atlas@3.0.1", "ISC (package); data public domain",
     "US Census Bureau cartographic boundaries (public domain); TopoJSON by Mike Bostock (us-atlas, ISC)"),
]


def _pkg(root: Path, name: str) -> Path:
    return root / f"{name}-{PACKAGES[name]}" / "package"


def _csv(rows: list[tuple]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue()


def build(root: Path) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    world, us = _pkg(root, "world-atlas"), _pkg(root, "us-atlas")
    out["countries-110m.json"] = (world / "countries-110m.json").read_bytes()
    out["states-10m.json"] = (us / "states-10m.json").read_bytes()
    out["LICENSE-world-atlas"] = (world / "LICENSE").read_bytes()
    out["LICENSE-us-atlas"] = (us / "LICENSE").read_bytes()
    out["LICENSE-countries-list"] = (_pkg(root, "countries-list") / "LICENSE").read_bytes()
    i18n = _pkg(root, "i18n-iso-countries")
    lic = next(p for p in sorted(i18n.iterdir()) if p.name.upper().startswith("LICEN"))
    out["LICENSE-i18n-iso-countries"] = lic.read_bytes()
    codes = json.loads((i18n / "codes.json").read_text())
    by_numeric = {c[2]: (c[0], c[1]) for c in codes}
    cl = _pkg(root, "countries-list")
    countries = json.loads((cl / "countries.min.json").read_text())
    continents = json.loads((cl / "continents.min.json").read_text())
    topo = json.loads(out["countries-110m.json"])
    rows: list[tuple] = [("index", "numeric", "id", "name", "continent")]
    for i, g in enumerate(topo["objects"]["countries"]["geometries"]):
        name = g["properties"]["name"]
        if g.get("id") is None:
            a3, continent = NO_ISO[name]
            rows.append((i, "", a3, name, continent))
            continue
        a2, a3 = by_numeric[g["id"]]
        rows.append((i, g["id"], a3, name, continents[countries[a2]["continent"]]))
    out["countries-110m.csv"] = _csv(rows).encode()
    out["manifest.csv"] = _csv([("set", "file", "object", "source", "licence", "attribution"), *MANIFEST]).encode()
    return out


def main(argv: list[str]) -> int:
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    files = build(Path(args[0]))
    stale = [n for n, b in files.items() if not (OUT / n).exists() or (OUT / n).read_bytes() != b]
    if check:
        for n in stale:
            print(f"stale: compiler/assets/geo/{n}")
        return 1 if stale else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for n in stale:
        (OUT / n).write_bytes(files[n])
    print(f"wrote {len(stale)} of {len(files)} files to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
