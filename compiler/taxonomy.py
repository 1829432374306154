"""load → check → compile for a whole taxonomy root, as one call. Raises CompileFailed with every diagnostic."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .check.taxonomy import check_duplicates, check_references, resolve_taxonomy
from .codegen.contract import CompiledContract, compile_contract
from .codegen.grammar import CompiledGrammar, compile_grammar
from .codegen.task import CompiledTask, compile_task
from .errors import CompileFailed, Diagnostics, TesseraError
from .load.library import load_library



def _bundled_root() -> Path:
    """The YAML library that ships with the package: `tessera/library/` in an installed wheel, the repository
    root (which holds taxonomy/, grammars/, programs/, contracts/, components/) in a source checkout."""
    package = Path(__file__).resolve().parent
    installed = package / "library"
    return installed if (installed / "taxonomy" / "taxonomy.yaml").is_file() else package.parent


DEFAULT_ROOT = _bundled_root()


@dataclass
class Taxonomy:
    root: Path
    name: str
    version: int
    vocab: dict[str, list]
    domains: dict[str, list[str]]
    grammars: dict[str, CompiledGrammar]
    contracts: dict[str, CompiledContract]
    tasks: dict[str, CompiledTask]
    warnings: list = field(default_factory=list)
    components: dict[str, str] = field(default_factory=dict)  # name → summary (components/*.yaml)

    def task(self, task_id: str) -> CompiledTask:
        t = self.tasks.get(task_id)
        if t is None:
            from difflib import get_close_matches

            close = get_close_matches(task_id, list(self.tasks), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else "; `tessera list` shows them all"
            raise TesseraError(f"unknown task '{task_id}'{hint}")
        return t


def compile_taxonomy(root: Path | str | None = None) -> Taxonomy:
    root = Path(root) if root is not None else DEFAULT_ROOT
    diags = Diagnostics()
    lib = load_library(root, diags)
    check_references(lib, diags)
    contracts = {}
    for cid, loaded in lib.contracts.items():
        c = compile_contract(loaded, diags)
        if c is not None:
            contracts[cid] = c
    grammars = {}
    for gid, loaded in lib.grammars.items():
        g = compile_grammar(loaded, lib.vocab, diags, lib.components)
        if g is not None:
            grammars[gid] = g
    tasks = {}
    for tid, loaded in lib.programs.items():
        g = grammars.get(loaded.spec.grammar)
        c = contracts.get(loaded.spec.answer.contract)
        if g is None or c is None:
            continue  # reported already: unknown reference or a grammar/contract with errors
        t = compile_task(loaded, g, c, lib.vocab, diags)
        if t is not None:
            tasks[tid] = t
    check_duplicates(tasks, lib, diags)
    domains = resolve_taxonomy(lib, diags)
    if diags:
        raise CompileFailed(diags)
    tax = lib.taxonomy.spec
    return Taxonomy(root, tax.taxonomy, tax.version, lib.vocab, domains, grammars, contracts, tasks,
                    [d for d in diags.items if d.severity == "warning"],
                    {name: c.spec.summary for name, c in sorted(lib.components.items())})
