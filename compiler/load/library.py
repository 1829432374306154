"""Find and load every authoring file of a taxonomy root: taxonomy/, grammars/, programs/, contracts/."""
from __future__ import annotations

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


def _yaml_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())


def load_library(root: Path, diags: Diagnostics) -> Library:
    root = Path(root)
    lib = Library(root)
    if not root.is_dir():
        diags.error(Position(str(root)), "taxonomy root is not a folder")
        return lib

    def rel(p: Path) -> str:
        try:
            return str(p.relative_to(Path.cwd()))
        except ValueError:
            return str(p)

    tax_path = root / "taxonomy" / "taxonomy.yaml"
    if not tax_path.is_file():
        diags.error(Position(rel(tax_path)), "missing taxonomy index (taxonomy/taxonomy.yaml)")
    else:
        doc = read_yaml(tax_path, rel(tax_path), diags)
        if doc is not None:
            spec = validate(TaxonomySpec, doc, diags)
            if spec is not None:
                lib.taxonomy = Loaded(spec, doc)

    vocab_path = root / "taxonomy" / "vocab.yaml"
    if vocab_path.is_file():
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
        for path in _yaml_files(root / folder):
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
