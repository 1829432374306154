"""Find and read every authoring file of a taxonomy root (taxonomy/, grammars/, programs/, contracts/,
components/) into headers; parse a file's whole document only when a later stage needs it.

A header is what the cross-file checks and `tessera list` read: a file's id, what it references, its summary and the
positions of those keys. It is plain JSON-able data, so it is kept in the compile cache (tessera.cache) keyed by the
file's bytes: a process that finds every header there reads no YAML at all. A `Unit` holds a header and parses its
document (`.spec`, `.doc`) on first use, from the very bytes its header was made from.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from ..cache import Cache, code_key, key
from ..codes import CODES
from ..errors import Diagnostic, Diagnostics, Position


SpecT = TypeVar("SpecT", covariant=True)


class Loaded(Protocol[SpecT]):
    """What the compilers read of an authoring file: its spec (the file's model: GrammarSpec, ContractSpec, ...) and
    the document it came from (for positions). A file just parsed (Parsed) and a library Unit (parsed on first use)
    are both one; `Loaded[ContractSpec]` says which model the reader expects."""

    @property
    def spec(self) -> SpecT: ...

    @property
    def doc(self) -> Any: ...  # SourceDoc


@dataclass
class Parsed:
    """A spec and the document it came from."""

    spec: Any
    doc: Any  # SourceDoc


class Unit:
    """One authoring file: its header, and its document parsed on demand (a Loaded: `.spec`, `.doc`)."""

    __slots__ = ("kind", "path", "display", "raw", "header", "_loaded")

    def __init__(self, kind: str, path: Path, display: str, raw: bytes, header: dict, loaded: Parsed | None = None):
        self.kind, self.path, self.display, self.raw, self.header = kind, path, display, raw, header
        self._loaded = loaded

    @property
    def sha(self) -> str:
        return hashlib.sha256(self.raw).hexdigest()

    @property
    def loaded(self) -> Parsed:
        if self._loaded is None:
            diags = Diagnostics()
            loaded = _parse(self.kind, self.raw, self.display, diags)
            if loaded is None:  # its header was made from these bytes, so they parsed then: only a changed parser
                from ..errors import CompileFailed

                raise CompileFailed(diags)
            self._loaded = loaded
        return self._loaded

    @property
    def spec(self) -> Any:
        return self.loaded.spec

    @property
    def doc(self) -> Any:
        return self.loaded.doc

    def pos(self, name: str) -> Position:
        """The position a header recorded for one of its keys (see _header)."""
        line, col = self.header["pos"][name]
        return Position(self.display, line, col)


@dataclass
class Library:
    root: Path
    taxonomy: Unit | None = None
    vocab: dict[str, list] = field(default_factory=dict)
    vocab_unit: Unit | None = None
    grammars: dict[str, Unit] = field(default_factory=dict)
    programs: dict[str, Unit] = field(default_factory=dict)
    contracts: dict[str, Unit] = field(default_factory=dict)
    components: dict[str, Unit] = field(default_factory=dict)

    def display(self, p: Path) -> str:
        try:
            return str(p.relative_to(Path.cwd()))
        except ValueError:
            return str(p)


_LINK_OUTSIDE = "symbolic link leads outside the taxonomy root (or nowhere); it is not followed"
_LINKED_FOLDER = "symbolic link to a folder is not followed (link single files, inside the taxonomy root)"

# Each kind of file: the model (load/models.py) its document is validated against, and the folder of the kinds that
# are one file each (the taxonomy index and the vocabulary have fixed paths).
MODELS = {"contract": "ContractSpec", "component": "ComponentSpec", "grammar": "GrammarSpec", "task": "ProgramSpec",
          "taxonomy": "TaxonomySpec", "vocab": "VocabSpec"}
FOLDERS = {"contract": "contracts", "component": "components", "grammar": "grammars", "task": "programs"}


def _yaml_files(folder: Path, root: Path, rel, diags: Diagnostics) -> list[Path]:
    """The YAML files under a folder of the root, in path order, never leaving the root.

    A symbolic link to a file is read only if its target lies inside the root (a library may link one file into two
    places); a link that leaves the root, dangles or loops is an error and nothing is read through it, so a library
    cannot make the compiler read (and echo in its errors) a file outside it. Linked folders are not descended
    into (no loops, no second copy of a subtree): each is an error."""
    if folder.is_symlink() or not folder.is_dir():
        if folder.is_symlink():
            diags.error(Position(rel(folder), 1, 1), _LINKED_FOLDER, code="file-access")
        return []
    found: list[Path] = []
    def unreadable(exc: OSError) -> None:
        diags.error(Position(rel(Path(exc.filename)), 1, 1), f"cannot read folder: {exc.strerror or exc}",
                code="file-access")

    for here, dirs, files in os.walk(folder, onerror=unreadable, followlinks=False):
        base = Path(here)
        for d in sorted(dirs):
            if (base / d).is_symlink():
                diags.error(Position(rel(base / d), 1, 1), _LINKED_FOLDER, code="file-access")
        for name in files:
            p = base / name
            if p.suffix not in (".yaml", ".yml"):
                continue
            if p.is_symlink() and not _inside(p, root):
                diags.error(Position(rel(p), 1, 1), _LINK_OUTSIDE, code="file-access")
                continue
            found.append(p)
    return sorted(found)


def _inside(link: Path, root: Path) -> bool:
    """Whether a symbolic link resolves to something that exists inside the (resolved) root."""
    try:
        target = link.resolve(strict=True)
    except (OSError, RuntimeError):  # dangling, a loop, or unreadable
        return False
    return target.is_relative_to(root)


def _index_file(path: Path, root: Path, rel, diags: Diagnostics) -> bool | None:
    """Whether taxonomy.yaml / vocab.yaml exists; None (reported) if it is a link that leaves the root."""
    if path.is_symlink() and not _inside(path, root):
        diags.error(Position(rel(path), 1, 1), _LINK_OUTSIDE, code="file-access")
        return None
    return path.exists()


# -- one file: bytes → (header, diagnostics), cached by content ---------------------------------------------------
def _parse(kind: str, raw: bytes, display: str, diags: Diagnostics) -> Parsed | None:
    from . import models
    from .validate_model import validate
    from .yaml_source import decode, parse_yaml

    text = decode(raw, display, diags)
    doc = parse_yaml(text, display, diags) if text is not None else None
    if doc is None:
        return None
    spec = validate(getattr(models, MODELS[kind]), doc, diags)
    return Parsed(spec, doc) if spec is not None else None


def _where(doc, loc: tuple) -> list[int]:
    p = doc.pos(loc)
    return [p.line, p.col]


def _header(kind: str, loaded: Parsed) -> dict:
    """The JSON-able part of a file that the cross-file checks, `list` and the summaries read."""
    spec, doc = loaded.spec, loaded.doc
    if kind == "task":
        return {"id": spec.task, "grammar": spec.grammar, "contract": spec.answer.contract, "summary": spec.summary,
                "operations": list(spec.operations), "bucket": spec.bucket, "query": dict(spec.query),
                "pos": {"id": _where(doc, ("task",)), "grammar": _where(doc, ("grammar",)),
                        "contract": _where(doc, ("answer", "contract"))}}
    if kind == "grammar":
        # the inputs' defaults: a task that leaves an input out has it as a query variable of one value (TaskInfo)
        defaults = {name: i.default for name, i in spec.inputs.items()
                    if not isinstance(i, str) and i.default is not None}
        return {"id": spec.grammar, "summary": spec.summary, "defaults": defaults,
                "pos": {"id": _where(doc, ("grammar",))}}
    if kind == "contract":
        return {"id": spec.contract, "type": spec.type, "summary": spec.summary,
                "pos": {"id": _where(doc, ("contract",))}}
    if kind == "component":
        return {"id": spec.component, "summary": spec.summary, "pos": {"id": _where(doc, ("component",))}}
    if kind == "taxonomy":
        return {"id": spec.taxonomy, "version": spec.version,
                "domains": {name: [[pattern, *_where(doc, ("domains", name, "tasks", i))]
                                   for i, pattern in enumerate(dom.tasks)] for name, dom in spec.domains.items()},
                "pos": {}}
    if kind == "vocab":
        return {"id": None, "vocab": spec.vocab, "pos": {}}
    raise ValueError(kind)


def _diag_rows(items: list[Diagnostic]) -> list[list]:
    return [[d.pos.path, d.pos.line, d.pos.col, d.message, d.severity, d.code] for d in items]


def diags_from_rows(rows) -> list[Diagnostic] | None:
    """Diagnostics back from a cache entry's rows, or None if the rows are not well formed."""
    out = []
    if not isinstance(rows, list):
        return None
    for r in rows:
        if not (isinstance(r, list) and len(r) == 6 and isinstance(r[0], str) and type(r[1]) is int
                and type(r[2]) is int and isinstance(r[3], str) and r[4] in ("error", "warning") and r[5] in CODES):
            return None
        out.append(Diagnostic(Position(r[0], r[1], r[2]), r[3], r[4], r[5]))
    return out


def _well_formed(kind: str, header) -> bool:
    """A cached header has the fields its kind's readers use (a foreign or stale entry is a miss)."""
    if not (isinstance(header, dict) and isinstance(header.get("pos"), dict)):
        return False
    need = {"task": ("id", "grammar", "contract", "summary", "operations", "bucket", "query"),
            "grammar": ("id", "summary", "defaults"), "contract": ("id", "type", "summary"), "component": ("id", "summary"),
            "taxonomy": ("id", "version", "domains"), "vocab": ("vocab",)}[kind]
    if not all(k in header for k in need) or not all(
            isinstance(v, list) and len(v) == 2 and all(type(x) is int for x in v) for v in header["pos"].values()):
        return False
    text = ("summary", "grammar", "contract", "type", "bucket")
    if not all(isinstance(header[k], str) for k in text if k in header):
        return False
    if kind == "task":
        return (isinstance(header["operations"], list) and all(isinstance(o, str) for o in header["operations"])
                and isinstance(header["query"], dict) and all(p in header["pos"] for p in ("id", "grammar", "contract")))
    if kind == "taxonomy":
        return isinstance(header["domains"], dict) and all(
            isinstance(v, list) and all(isinstance(r, list) and len(r) == 3 and isinstance(r[0], str) and
                                        type(r[1]) is int and type(r[2]) is int for r in v)
            for v in header["domains"].values())
    if kind == "vocab":
        return isinstance(header["vocab"], dict) and all(isinstance(v, list) for v in header["vocab"].values())
    if kind == "grammar" and not isinstance(header["defaults"], dict):
        return False
    return isinstance(header["id"], str) and "id" in header["pos"]


def _unit_entry(kind: str, display: str, raw: bytes,
                cache: Cache) -> tuple[dict | None, list[Diagnostic], Parsed | None]:
    """One file's header and diagnostics: from the cache when these bytes were read before, else parsed now (and
    stored), in which case the parsed document comes back too."""
    k = key("load", code_key(), kind, display, raw)
    entry = cache.get("load", k) if cache.enabled else None
    if isinstance(entry, dict) and (entry.get("header") is None or _well_formed(kind, entry.get("header"))):
        rows = diags_from_rows(entry.get("diagnostics"))
        if rows is not None:
            return entry["header"], rows, None
    mine = Diagnostics()
    loaded = _parse(kind, raw, display, mine)
    header = _header(kind, loaded) if loaded is not None else None
    if cache.enabled:
        cache.put("load", k, {"header": header, "diagnostics": _diag_rows(mine.items)})
    return header, mine.items, loaded


def _read_all(files: list[tuple[str, Path, str]], cache: Cache, diags: Diagnostics) -> list[Unit | None]:
    """Every file's unit (None for a file that fails to load), its diagnostics added to `diags` in file order.

    The whole set is also stored as one entry keyed by every file's name and bytes, so an unchanged library costs
    one cache read however many files it has; a changed one falls back to the entries of single files."""
    from .yaml_source import read_bounded

    raws: list[bytes | None] = []
    read_diags: list[list[Diagnostic]] = []
    for kind, path, display in files:
        d = Diagnostics()
        raws.append(read_bounded(path, display, d))  # unreadable files are reported here and never cached
        read_diags.append(d.items)
    names = [[kind, display, hashlib.sha256(raw).hexdigest() if raw is not None else None]
             for (kind, _, display), raw in zip(files, raws)]
    scan_key = key("scan", code_key(), names)
    entry = cache.get("scan", scan_key) if cache.enabled else None
    results = _scan_results(entry, files) if entry is not None else None
    fresh = results is None
    if results is None:
        results = []
        for (kind, _, display), raw in zip(files, raws):
            results.append(_unit_entry(kind, display, raw, cache) if raw is not None else (None, [], None))
    units: list[Unit | None] = []
    for (kind, path, display), raw, rd, (header, rows, loaded) in zip(files, raws, read_diags, results):
        diags.items.extend(rd)
        diags.items.extend(rows)
        units.append(Unit(kind, path, display, raw, header, loaded) if header is not None and raw is not None
                     else None)
    if fresh and cache.enabled:
        cache.put("scan", scan_key, [[h, _diag_rows(rows)] for h, rows, _ in results])
        cache.flush()
    return units


def _scan_results(entry, files) -> list | None:
    if not (isinstance(entry, list) and len(entry) == len(files)):
        return None
    out = []
    for (kind, _, _), item in zip(files, entry):
        if not (isinstance(item, list) and len(item) == 2):
            return None
        header, rows = item
        rows = diags_from_rows(rows)
        if rows is None or not (header is None or _well_formed(kind, header)):
            return None
        out.append((header, rows, None))
    return out


def load_library(root: Path, diags: Diagnostics, cache: Cache | None = None) -> Library:
    root = Path(root)
    cache = cache if cache is not None else Cache(None)
    lib = Library(root)
    if not root.is_dir():
        diags.error(Position(str(root), 1, 1), "taxonomy root is not a folder", code="file-access")
        return lib
    rel = lib.display

    real_root = root.resolve()
    tax_dir = root / "taxonomy"
    tax_path = tax_dir / "taxonomy.yaml"
    linked_dir = tax_dir.is_symlink()
    files: list[tuple[str, Path, str]] = []
    if linked_dir:
        diags.error(Position(rel(tax_dir), 1, 1), _LINKED_FOLDER, code="file-access")
    elif (index := _index_file(tax_path, real_root, rel, diags)) is False:
        diags.error(Position(rel(tax_path), 1, 1), "missing taxonomy index (taxonomy/taxonomy.yaml)",
                code="taxonomy-listing")
    elif index:
        files.append(("taxonomy", tax_path, rel(tax_path)))
    vocab_path = root / "taxonomy" / "vocab.yaml"
    if not linked_dir and _index_file(vocab_path, real_root, rel, diags):
        files.append(("vocab", vocab_path, rel(vocab_path)))
    for kind in FOLDERS:
        files.extend((kind, path, rel(path)) for path in _yaml_files(root / FOLDERS[kind], real_root, rel, diags))
    units = _read_all(files, cache, diags)
    tables = {"contract": lib.contracts, "component": lib.components, "grammar": lib.grammars, "task": lib.programs}
    for (kind, _, _), unit in zip(files, units):
        if unit is None:
            continue
        if kind == "taxonomy":
            lib.taxonomy = unit
        elif kind == "vocab":
            lib.vocab = unit.header["vocab"]
            lib.vocab_unit = unit
        else:
            table = tables[kind]
            ident = unit.header["id"]
            if ident in table:
                diags.error(unit.pos("id"), f"duplicate {kind} id '{ident}' (first defined at {table[ident].pos('id')})",
                        code="duplicate-id")
                continue
            table[ident] = unit
    return lib
