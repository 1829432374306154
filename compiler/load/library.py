"""Find and load every authoring file of a taxonomy root: taxonomy/, grammars/, programs/, contracts/."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Diagnostics, Position
from .models import ComponentSpec, ContractSpec, GrammarSpec, ProgramSpec, TaxonomySpec, VocabSpec
from .validate_model import validate
from .yaml_source import SourceDoc, read_yaml


@dataclass
class Loaded:
    """A spec and the document it came from (for positions)."""

    spec: object
    doc: SourceDoc


@dataclass
class Library:
    root: Path
    taxonomy: Loaded | None = None
    vocab: dict[str, list] = field(default_factory=dict)
    vocab_doc: SourceDoc | None = None
    grammars: dict[str, Loaded] = field(default_factory=dict)
    programs: dict[str, Loaded] = field(default_factory=dict)
    contracts: dict[str, Loaded] = field(default_factory=dict)
    components: dict[str, Loaded] = field(default_factory=dict)


_LINK_OUTSIDE = "symbolic link leads outside the taxonomy root (or nowhere); it is not followed"
_LINKED_FOLDER = "symbolic link to a folder is not followed (link single files, inside the taxonomy root)"


def _yaml_files(folder: Path, root: Path, rel, diags: Diagnostics) -> list[Path]:
    """The YAML files under a folder of the root, in path order, never leaving the root.

    A symbolic link to a file is read only if its target lies inside the root (a library may link one file into two
    places); a link that leaves the root, dangles or loops is an error and nothing is read through it, so a library
    cannot make the compiler read (and echo in its errors) a file outside it. Linked folders are not descended
    into (no loops, no second copy of a subtree): each is an error."""
    if folder.is_symlink() or not folder.is_dir():
        if folder.is_symlink():
            diags.error(Position(rel(folder), 1, 1), _LINKED_FOLDER)
        return []
    found: list[Path] = []
    def unreadable(exc: OSError) -> None:
        diags.error(Position(rel(Path(exc.filename)), 1, 1), f"cannot read folder: {exc.strerror or exc}")

    for here, dirs, files in os.walk(folder, onerror=unreadable, followlinks=False):
        base = Path(here)
        for d in sorted(dirs):
            if (base / d).is_symlink():
                diags.error(Position(rel(base / d), 1, 1), _LINKED_FOLDER)
        for name in files:
            p = base / name
            if p.suffix not in (".yaml", ".yml"):
                continue
            if p.is_symlink() and not _inside(p, root):
                diags.error(Position(rel(p), 1, 1), _LINK_OUTSIDE)
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
        diags.error(Position(rel(path), 1, 1), _LINK_OUTSIDE)
        return None
    return path.exists()


def load_library(root: Path, diags: Diagnostics) -> Library:
    root = Path(root)
    lib = Library(root)
    if not root.is_dir():
        diags.error(Position(str(root), 1, 1), "taxonomy root is not a folder")
        return lib

    def rel(p: Path) -> str:
        try:
            return str(p.relative_to(Path.cwd()))
        except ValueError:
            return str(p)

    real_root = root.resolve()
    tax_dir = root / "taxonomy"
    tax_path = tax_dir / "taxonomy.yaml"
    linked_dir = tax_dir.is_symlink()
    if linked_dir:
        diags.error(Position(rel(tax_dir), 1, 1), _LINKED_FOLDER)
    elif (index := _index_file(tax_path, real_root, rel, diags)) is False:
        diags.error(Position(rel(tax_path), 1, 1), "missing taxonomy index (taxonomy/taxonomy.yaml)")
    elif index:
        doc = read_yaml(tax_path, rel(tax_path), diags)
        if doc is not None:
            spec = validate(TaxonomySpec, doc, diags)
            if spec is not None:
                lib.taxonomy = Loaded(spec, doc)

    vocab_path = root / "taxonomy" / "vocab.yaml"
    if not linked_dir and _index_file(vocab_path, real_root, rel, diags):
        doc = read_yaml(vocab_path, rel(vocab_path), diags)
        if doc is not None:
            spec = validate(VocabSpec, doc, diags)
            if spec is not None:
                lib.vocab = spec.vocab
                lib.vocab_doc = doc

    for kind, folder, model, id_key, table in (
        ("contract", "contracts", ContractSpec, "contract", lib.contracts),
        ("component", "components", ComponentSpec, "component", lib.components),
        ("grammar", "grammars", GrammarSpec, "grammar", lib.grammars),
        ("task", "programs", ProgramSpec, "task", lib.programs),
    ):
        for path in _yaml_files(root / folder, real_root, rel, diags):
            doc = read_yaml(path, rel(path), diags)
            if doc is None:
                continue
            spec = validate(model, doc, diags)
            if spec is None:
                continue
            ident = getattr(spec, id_key)
            if ident in table:
                first = table[ident].doc
                diags.error(doc.pos((id_key,)), f"duplicate {kind} id '{ident}' (first defined at {first.pos((id_key,))})")
                continue
            table[ident] = Loaded(spec, doc)
    return lib
