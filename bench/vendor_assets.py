"""Vendor an Iconify JSON icon set (the npm package `@iconify-json/<set>`) under compiler/assets/<set>/.

    npm pack @iconify-json/game-icons && tar xzf iconify-json-game-icons-*.tgz   # → package/
    python bench/vendor_assets.py package/ --kind mono [--check]

Writes what the loader (compiler/spec/assets.py) reads and nothing else:
  icons.json.gz  {"width", "height", "icons": {name: body}, "aliases": {alias: name}, "categories": {tag: [names]}}
                 (gzip with mtime 0: the same package gives the same bytes). A mono set's body is the path data `d`
                 of its one `<path fill="currentColor">` (recoloured when drawn); a colour set's body is the SVG
                 markup inside <svg> (its own colours). Hidden icons (kept upstream for old names) are left out,
                 and so are skin-tone variants (`--drop-skin-tones`, on by default): five near-identical copies of
                 a person differ by one colour, which no visual task should hinge on.
  LICENSE.txt    the licence of the set as its package declares it (title, SPDX id, URL, author) — the npm
                 packages carry no licence text of their own, only these fields in info.json.
and prints the manifest line to add (or check) in compiler/assets/manifest.yaml. `--check` writes nothing and exits 1
when the vendored files differ from what the package would give (idempotent: a second run changes nothing).
"""
from __future__ import annotations

import argparse
import gzip
import io
import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ASSETS = Path(__file__).resolve().parent.parent / "compiler" / "assets"


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def mono_path(name: str, body: str) -> str:
    root = ET.fromstring(f"<svg>{body}</svg>")
    kids = list(root)
    if len(kids) != 1 or kids[0].tag != "path" or kids[0].get("fill") not in ("currentColor", None):
        raise SystemExit(f"{name}: a mono icon must be one <path fill='currentColor'>, got {body[:80]!r}")
    return kids[0].attrib["d"]


def build(package: Path, kind: str, drop_skin_tones: bool) -> tuple[str, bytes, bytes, dict]:
    data = json.loads((package / "icons.json").read_text())
    info = json.loads((package / "info.json").read_text())
    meta_path = package / "metadata.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    pkg = json.loads((package / "package.json").read_text())
    prefix = data["prefix"]

    def keep(name: str, icon: dict) -> bool:
        return not icon.get("hidden") and not (drop_skin_tones and "skin-tone" in name)

    icons = {n: (mono_path(n, ic["body"]) if kind == "mono" else ic["body"])
             for n, ic in sorted(data["icons"].items()) if keep(n, ic)}
    aliases = {a: t["parent"] for a, t in sorted(data.get("aliases", {}).items())
               if t.get("parent") in icons and not (set(t) - {"parent"}) and a not in icons}
    categories = {slug(c): sorted(n for n in names if n in icons)
                  for c, names in sorted((meta.get("categories") or {}).items())}
    out = {"width": data.get("width", 16), "height": data.get("height", 16), "icons": icons, "aliases": aliases,
           "categories": {c: ns for c, ns in categories.items() if ns}}
    raw = json.dumps(out, separators=(",", ":"), ensure_ascii=False, sort_keys=True).encode()
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=9, mtime=0, filename="") as f:
        f.write(raw)
    lic, author = info["license"], info["author"]
    licence = (f"{info['name']} ({pkg['name']} {pkg['version']}), icon set by {author['name']} ({author['url']}).\n\n"
               f"Licence: {lic['title']} (SPDX: {lic['spdx']})\n{lic['url']}\n\n"
               f"These files are a stripped copy of the npm package's icons.json (its icon data, aliases and "
               f"categories, re-encoded by bench/vendor_assets.py). The package carries no licence text of its "
               f"own; the licence above is the one its info.json declares, and its full text is at the URL.\n")
    line = {"set": prefix, "kind": kind, "title": info["name"], "source": f"npm {pkg['name']}@{pkg['version']}",
            "licence": lic["spdx"], "licence_url": lic["url"],
            "attribution": f"{info['name']} by {author['name']} ({author['url']}), {lic['title']}",
            "count": len(icons)}
    return prefix, buf.getvalue(), licence.encode(), line


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("package", type=Path, help="the unpacked npm package folder (holds icons.json, info.json)")
    ap.add_argument("--kind", choices=("mono", "colour"), required=True)
    ap.add_argument("--keep-skin-tones", action="store_true")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if the vendored files differ")
    args = ap.parse_args(argv)
    prefix, icons, licence, line = build(args.package, args.kind, not args.keep_skin_tones)
    folder = ASSETS / prefix
    files = {folder / "icons.json.gz": icons, folder / "LICENSE.txt": licence}
    stale = [p for p, b in files.items() if not p.exists() or p.read_bytes() != b]
    if args.check:
        for p in stale:
            print(f"stale: {p}")
        return 1 if stale else 0
    folder.mkdir(parents=True, exist_ok=True)
    for p in stale:
        p.write_bytes(files[p])
        print(f"wrote {p} ({len(files[p])} bytes)")
    print("manifest line:\n" + json.dumps(line, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
