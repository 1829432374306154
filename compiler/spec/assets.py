"""The vendored asset library: named icons (mono: one path, recoloured by the mark's fill) and coloured objects (their
own colours), read from compiler/assets/ — a manifest line per set (manifest.yaml) and a folder per set holding
icons.json.gz and LICENSE.txt (bench/vendor_assets.py writes both from an Iconify JSON npm package).

Skia-free, like the rest of spec/: the type checker checks a literal asset name or tag here (an error at its YAML
position), the `icons()` / `objects()` builtins (expr/lib_assets.py) list names by tag, the `icon` / `object` marks
(render/marks.py) draw the body, the dataset card credits every set. Everything is read lazily and once per process:
a compile that names no asset reads nothing.

Names: an asset is named by its name in its set (`sword`, `red-apple`); where two sets of one kind hold the same name
the first set in the manifest keeps the bare name and every asset is also `SET:NAME`. An upstream alias (an old name)
resolves to its asset. Tags: a set's categories (slugged: `animals-nature`) and every word of a name (`apple` for
`red-apple`), so `objects('apple')` lists every apple; lists are sorted, so a draw from one is deterministic.
"""
from __future__ import annotations

import difflib
import gzip
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml

from ..errors import EvalError

ASSET_DIR = Path(__file__).resolve().parent.parent / "assets"
MANIFEST = ASSET_DIR / "manifest.yaml"
KINDS = {"mono": "icon", "colour": "object"}  # a set's colour kind → the mark that draws it (and the builtin's name)
ICON_FILE, LICENCE_FILE, TABLE_FILE = "icons.json.gz", "LICENSE.txt", "tables.json.gz"
SET_FIELDS = ("set", "kind", "title", "source", "licence", "licence_url", "attribution", "count")


@dataclass(frozen=True)
class AssetSet:
    """One vendored set, as its manifest line declares it."""
    set: str
    kind: str  # mono / colour
    title: str
    source: str  # where the files came from (package and version)
    licence: str  # SPDX id
    licence_url: str
    attribution: str  # the credit line every dataset card carries
    count: int

    @property
    def folder(self) -> Path:
        return ASSET_DIR / self.set


@dataclass(frozen=True)
class Asset:
    """One drawable asset: `body` is the path data `d` of a mono icon, or the SVG markup inside <svg> of a coloured
    object; `width` × `height` is its view box."""
    set: str
    name: str
    kind: str
    body: str
    width: float
    height: float


@dataclass
class _Index:
    assets: dict[str, Asset] = field(default_factory=dict)  # name and SET:NAME → asset
    aliases: dict[str, str] = field(default_factory=dict)  # old name → name
    names: list[str] = field(default_factory=list)  # the listed names, sorted (no SET:NAME duplicates)
    tags: dict[str, list[str]] = field(default_factory=dict)  # tag → sorted names


@lru_cache(maxsize=1)
def asset_sets() -> tuple[AssetSet, ...]:
    """The manifest's sets, in its order (a malformed manifest is a bug of the package, not of an author)."""
    doc = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    out = []
    for line in doc["sets"]:
        if set(line) != set(SET_FIELDS) or line["kind"] not in KINDS:
            raise ValueError(f"{MANIFEST}: a set line has the fields {', '.join(SET_FIELDS)} and kind mono or "
                             f"colour, got {line}")
        out.append(AssetSet(**{k: line[k] for k in SET_FIELDS}))
    return tuple(out)


def _words(name: str) -> list[str]:
    return [w for w in re.split(r"[^a-z0-9]+", name.lower()) if w]


@lru_cache(maxsize=None)
def _index(kind: str) -> _Index:
    idx = _Index()
    for s in asset_sets():
        if s.kind != kind:
            continue
        data = json.loads(gzip.decompress((s.folder / ICON_FILE).read_bytes()))
        w, h = float(data["width"]), float(data["height"])
        for name, body in data["icons"].items():
            a = Asset(s.set, name, kind, body, w, h)
            idx.assets[f"{s.set}:{name}"] = a
            if name not in idx.assets:
                idx.assets[name] = a
                idx.names.append(name)
                for word in _words(name):
                    idx.tags.setdefault(word, []).append(name)
            else:
                idx.names.append(f"{s.set}:{name}")
        for alias, target in data["aliases"].items():
            idx.aliases.setdefault(alias, target)
        for tag, names in data["categories"].items():
            idx.tags.setdefault(tag, []).extend(names)
    idx.names.sort()
    idx.tags = {t: sorted(set(ns)) for t, ns in sorted(idx.tags.items())}
    return idx


def asset_names(kind: str, tag: str | None = None) -> list[str]:
    """The names of the assets of a kind (mono / colour), all or those with a tag, sorted. An unknown tag is an
    EvalError listing near ones."""
    idx = _index(kind)
    if tag is None:
        return list(idx.names)
    names = idx.tags.get(tag)
    if names is None:
        raise EvalError(f"no {KINDS[kind]} has the tag '{tag}'{_near(tag, idx.tags)}")
    return list(names)


def find_asset(kind: str, name: str) -> Asset:
    """The asset of a kind with this name (or an alias of it); an unknown name is an EvalError listing near names."""
    idx = _index(kind)
    a = idx.assets.get(name) or idx.assets.get(idx.aliases.get(name, ""))
    if a is None:
        raise EvalError(f"unknown {KINDS[kind]} '{name}'{_near(name, idx.assets)}")
    return a


def _near(word: str, known) -> str:
    near = difflib.get_close_matches(word, list(known), n=5, cutoff=0.6)
    return f" (near: {', '.join(near)})" if near else " (none is near: list them with icons() or objects())"


def asset_count(kind: str) -> int:
    return len(_index(kind).names)


# -- what a viewer can tell apart: the per-set tables bench/asset_tables.py precomputes ---------------------------
# A name both kinds hold (an icon and an object called 'dog') is read as every asset it names, conservatively: it is
# near-identical to a name when any of its assets is, rotation- or mirror-safe only when all of them are, and its
# synonyms are all of theirs.
@dataclass(frozen=True)
class _Table:
    near: dict[str, frozenset[str]]  # asset name in its set → the names of the set near-identical to it
    rotation_safe: frozenset[str]  # turned 90° and 180°, it differs visibly from itself
    mirror_safe: frozenset[str]  # mirrored left to right, it differs visibly from itself
    synonyms: dict[str, tuple[str, ...]]  # the words a person may say for it, where more than its label


@lru_cache(maxsize=None)
def _table(set_name: str) -> _Table:
    data = json.loads(gzip.decompress((ASSET_DIR / set_name / TABLE_FILE).read_bytes()))
    near: dict[str, set[str]] = {}
    for a, b, _ in data["near"]:
        near.setdefault(a, set()).add(b)
        near.setdefault(b, set()).add(a)
    turn, names = data["turn_at_least"], data["names"]
    return _Table({n: frozenset(ns) for n, ns in near.items()},
                  frozenset(n for n, t90, t180 in zip(names, data["turn90"], data["turn180"]) if min(t90, t180) >= turn),
                  frozenset(n for n, m in zip(names, data["mirror"]) if m >= turn),
                  {n: tuple(s) for n, s in data["synonyms"].items()})


def assets_named(name: str) -> list[Asset]:
    """Every asset (of either kind) this name or alias names; an unknown name is an EvalError listing near names."""
    out = []
    for kind in KINDS:
        idx = _index(kind)
        a = idx.assets.get(name) or idx.assets.get(idx.aliases.get(name, ""))
        if a is not None:
            out.append(a)
    if not out:
        known = {**_index("mono").assets, **_index("colour").assets}
        raise EvalError(f"unknown icon or object '{name}'{_near(name, known)}")
    return out


def near_identical(a: str, b: str) -> bool:
    """Whether two names draw assets a viewer may not tell apart at icon size (the same asset included)."""
    return any(x.set == y.set and (x.name == y.name or y.name in _table(x.set).near.get(x.name, ()))
               for x in assets_named(a) for y in assets_named(b))


def rotation_safe(name: str) -> bool:
    return all(a.name in _table(a.set).rotation_safe for a in assets_named(name))


def mirror_safe(name: str) -> bool:
    return all(a.name in _table(a.set).mirror_safe for a in assets_named(name))


def asset_label(name: str) -> str:
    """The display name: the words of the name as written, without its set ('red apple' for 'twemoji:red-apple')."""
    assets_named(name)
    return " ".join(_words(name.split(":")[-1]))


def asset_synonyms(name: str) -> list[str]:
    """The words a person may say for the asset, sorted: its label, its upstream aliases' labels, the head noun of a
    colour- or size-qualified name, the kinds of bench/asset_tables.py's KINDS."""
    said = {asset_label(name)}
    for a in assets_named(name):
        said.add(" ".join(_words(a.name)))
        said.update(_table(a.set).synonyms.get(a.name, ()))
    return sorted(said)
