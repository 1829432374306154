"""Precompute, per vendored asset set, the tables that let a task draw assets a viewer can tell apart:

    python bench/asset_tables.py [--check] [--set game-icons]

Renders every asset of compiler/assets/<set>/icons.json.gz once, through the renderer's own parsed asset
(render/marks.py: `icon_path` / `object_picture`), at SIDE × SIDE pixels: the view box's square fitted to the image,
a mono icon as its coverage (0 paper, 1 ink), a coloured object as premultiplied RGBA (0..1: a white object still differs from an empty image by its
shape). From those images:

  near       pairs of near-identical assets: the RMS pixel distance of their images under NEAR (picked by looking
             at pairs around it: under 0.10 they share a silhouette and differ in a detail a
             viewer misses at icon size: a card's suit or digit, a logic gate's bubble, an emoji face's mouth), with the distance (3 digits).
  turn90, turn180, mirror
             per asset, the RMS distance between its image and the image turned 90° clockwise, 180°, and mirrored
             left to right (about the view box's centre, as the `icon` / `object` marks turn and flip it); an asset
             is rotation-safe when turn90 and turn180 are both at least TURN (a viewer can tell the turned asset
             from the upright one), mirror-safe when mirror is at least TURN.
  synonyms   per asset, the words a person may say for it: its label (the words of its name), the labels of its
             upstream aliases (Iconify's old names: 'bear-face' for 'bear'), the head noun of a name whose other
             words are only colour or size words ('apple' for 'red-apple'), and the kinds of KINDS ('cup' for a mug).

and writes compiler/assets/<set>/tables.json.gz (gzip with mtime 0, sorted JSON: the same assets give the same bytes),
which compiler/spec/assets.py reads for the `distinct_sample`, `rotation_safe`, `mirror_safe` and `asset_synonyms`
builtins (expr/lib_assets.py). `--check` writes nothing and exits 1 when a table differs from what the assets give
(idempotent: a second run changes nothing). The whole library takes about 6 s on one core.
"""
from __future__ import annotations

import argparse
import gzip
import io
import json
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tessera.spec.assets import ICON_FILE, TABLE_FILE, asset_sets  # noqa: E402

SIDE = 32  # pixels per side of the rendered asset
NEAR = 0.10  # RMS distance under which two assets of a set are near-identical
TURN = 0.15  # RMS distance at or over which a turned / mirrored asset differs visibly from itself (crossed bones,
#             a cog: 0.09-0.11, the same to the eye when turned)
DIGITS = 3
# words that only colour or size a thing: 'red-apple' is an apple, 'large-blue-diamond' a diamond
MODIFIERS = frozenset("red orange yellow green blue purple brown black white grey gray pink light dark small large "
                      "big little".split())
# kinds a person names differently: a name with the word on the left is also called each word on the right
KINDS = {"mug": ["cup"], "teacup": ["cup"], "automobile": ["car"], "puppy": ["dog"], "kitten": ["cat"],
         "taxi": ["car", "cab"], "bicycle": ["bike"], "motorcycle": ["motorbike"], "aeroplane": ["plane"],
         "airplane": ["plane"], "rabbit": ["bunny"], "telephone": ["phone"]}


def words(name: str) -> list[str]:
    return [w for w in re.split(r"[^a-z0-9]+", name.split(":")[-1].lower()) if w]


def label(name: str) -> str:
    return " ".join(words(name))


def render_set(kind: str, names: list[str]) -> np.ndarray:
    """The images of a set's assets, (n, SIDE, SIDE, channels) float32 in 0..1: ink coverage or premultiplied RGBA."""
    import skia

    from tessera.render.marks import icon_path, object_picture

    out = []
    for name in names:
        surf = skia.Surface(SIDE, SIDE)
        canvas = surf.getCanvas()
        canvas.clear(skia.ColorWHITE)
        if kind == "mono":
            path, side = icon_path(name)
            canvas.save()
            canvas.scale(SIDE / side, SIDE / side)
            canvas.drawPath(path, skia.Paint(Color=skia.ColorBLACK, AntiAlias=True))
            canvas.restore()
            px = surf.makeImageSnapshot().toarray()[:, :, :1]
            out.append(1.0 - px.astype(np.float32) / 255.0)
        else:
            canvas.clear(skia.ColorTRANSPARENT)
            pic, side, _ = object_picture(name)
            canvas.drawPicture(pic, skia.Matrix.Scale(SIDE / side, SIDE / side), None)
            # premultiplied colour and alpha: a white object differs from an empty image by its shape
            px = surf.makeImageSnapshot().toarray()  # skia's N32 order (BGRA here): the order does not matter
            out.append(px.astype(np.float32) / 255.0)
    return np.stack(out)


def rms(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sqrt(((a - b) ** 2).reshape(len(a), -1).mean(axis=1))


def turn_distances(imgs: np.ndarray) -> dict[str, list[float]]:
    """Per asset, its distance from itself turned 90° clockwise, 180°, and mirrored left to right."""
    r90 = np.rot90(imgs, k=-1, axes=(1, 2))
    r180 = np.rot90(imgs, k=2, axes=(1, 2))
    mir = imgs[:, :, ::-1, :]
    return {key: [round(float(d), DIGITS) for d in rms(imgs, other)]
            for key, other in (("turn90", r90), ("turn180", r180), ("mirror", mir))}


def near_pairs(names: list[str], imgs: np.ndarray) -> list[list]:
    """The pairs (a, b, distance), a < b by name order, whose RMS distance is under NEAR (by the Gram matrix: the
    whole set in one product)."""
    flat = imgs.reshape(len(imgs), -1).astype(np.float64)
    sq = (flat ** 2).sum(axis=1)
    out = []
    for i0 in range(0, len(flat), 512):
        block = flat[i0:i0 + 512]
        d2 = np.maximum(sq[i0:i0 + 512, None] + sq[None, :] - 2 * block @ flat.T, 0.0) / flat.shape[1]
        for i, j in zip(*np.nonzero(d2 < NEAR ** 2)):
            a = i0 + int(i)
            if a < j:
                out.append([names[a], names[int(j)], round(float(np.sqrt(d2[i, j])), DIGITS)])
    return sorted(out)


def synonyms(name: str, aliases_of: dict[str, list[str]]) -> list[str]:
    ws = words(name)
    said = [label(name)] + [label(a) for a in aliases_of.get(name, [])]
    if len(ws) > 1 and all(w in MODIFIERS for w in ws[:-1]):
        said.append(ws[-1])
    for w in ws:
        said += KINDS.get(w, [])
    return sorted(set(said) - {""})


def build_table(kind: str, data: dict) -> dict:
    names = sorted(data["icons"])
    imgs = render_set(kind, names)
    aliases_of: dict[str, list[str]] = {}
    for alias, target in sorted(data["aliases"].items()):
        aliases_of.setdefault(target, []).append(alias)
    rows = turn_distances(imgs)
    return {"side": SIDE, "near_under": NEAR, "turn_at_least": TURN, "names": names,
            **rows, "near": near_pairs(names, imgs),
            "synonyms": {n: s for n in names if (s := synonyms(n, aliases_of)) != [label(n)]}}


def encode(table: dict) -> bytes:
    raw = json.dumps(table, separators=(",", ":"), ensure_ascii=False, sort_keys=True).encode()
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=9, mtime=0, filename="") as f:
        f.write(raw)
    return buf.getvalue()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 when a table is stale")
    ap.add_argument("--set", action="append", help="only this set (repeatable); default every set")
    args = ap.parse_args(argv)
    stale = 0
    for s in asset_sets():
        if args.set and s.set not in args.set:
            continue
        data = json.loads(gzip.decompress((s.folder / ICON_FILE).read_bytes()))
        table = build_table(s.kind, data)
        blob, path = encode(table), s.folder / TABLE_FILE
        same = path.exists() and gzip.decompress(path.read_bytes()) == gzip.decompress(blob)
        print(f"{s.set}: {len(table['names'])} assets, {len(table['near'])} near-identical pairs, "
              f"{sum(min(a, b) >= TURN for a, b in zip(table['turn90'], table['turn180']))} rotation-safe, "
              f"{sum(m >= TURN for m in table['mirror'])} mirror-safe, {len(table['synonyms'])} with synonyms"
              f"{'' if same else (' — STALE' if args.check else ' — written')}")
        if not same:
            stale += 1
            if not args.check:
                path.write_bytes(blob)
    return 1 if (args.check and stale) else 0


if __name__ == "__main__":
    raise SystemExit(main())
