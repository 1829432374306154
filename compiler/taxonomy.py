"""load → check → compile for a taxonomy root: all of it (`compile_taxonomy`), or only what a command needs
(`open_taxonomy`).

Both read every file's header (load.library: ids, references, summaries, positions) and run the cross-file checks on
them, which costs milliseconds with a warm compile cache. After that:

- `compile_taxonomy` checks every contract, grammar and task and raises CompileFailed listing every mistake. A
  unit whose inputs are unchanged since a check stored its result (tessera.cache) is not checked again: its
  diagnostics, identity and flags come from the stored result, in the same words and positions.
- `open_taxonomy` checks nothing more up front. A task is compiled the first time it is asked for
  (`taxonomy.tasks[id]`, `taxonomy.task(id)`), with its grammar, contract and the components they use, and a mistake
  in those files (or in the taxonomy index or vocabulary) raises CompileFailed then. Mistakes elsewhere in the
  library do not stop it; `taxonomy.problems` holds them.

Either way `taxonomy.tasks` maps every task id to its compiled task, compiled on first access: iterating or sizing
it compiles nothing. `taxonomy.info(id)` reads a task's header (domain, grammar, answer type, queries, ...)
without compiling it.
"""
from __future__ import annotations

import gc
import hashlib
import os
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .cache import Cache, code_key, key
from .check.taxonomy import check_duplicates, check_references, check_vocab_assets, resolve_taxonomy
from .errors import CompileFailed, Diagnostic, Diagnostics, TesseraError
from .load.library import Library, Unit, diags_from_rows, load_library


@contextmanager
def paused_gc():
    """Python's cyclic garbage collector off while compiling. A compile allocates hundreds of thousands of trees,
    closures and types that all live on, so each collection scans a growing heap and frees almost nothing: measured
    on the bundled library, collections were 55 % of a cold compile (2.86 s against 1.29 s of CPU with them off) for
    2 MB more peak memory. Nested uses leave it as the outermost found it."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _bundled_root() -> Path:
    """The YAML library that ships with the package: `tessera/library/` in an installed wheel, the repository
    root (which holds taxonomy/, grammars/, programs/, contracts/, components/) in a source checkout."""
    package = Path(__file__).resolve().parent
    installed = package / "library"
    return installed if (installed / "taxonomy" / "taxonomy.yaml").is_file() else package.parent


DEFAULT_ROOT = _bundled_root()


class LazyTable(Mapping):
    """id → compiled object, built on first access. Keys, `len` and `in` compile nothing; `.values()` and
    `.items()` compile everything they reach."""

    def __init__(self, keys, build: Callable[[str], Any], built: dict | None = None):
        self._keys = list(keys)
        self._known = set(self._keys)
        self._build = build
        self._built: dict[str, Any] = dict(built or {})
        self._lock = threading.RLock()  # one compile per key, whichever thread asks first

    def __getitem__(self, k: str):
        if k not in self._known:
            raise KeyError(k)
        built = self._built.get(k)
        if built is None:
            with self._lock:
                if k not in self._built:
                    self._built[k] = self._build(k)
                built = self._built[k]
        return built

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, k) -> bool:
        return k in self._known

    def compiled(self) -> list[str]:
        """The ids compiled so far in this process."""
        return [k for k in self._keys if k in self._built]


@dataclass(frozen=True)
class TaskInfo:
    """A task as its header says, nothing compiled: what `tessera list`, build selection and summaries read."""

    id: str
    domain: str
    grammar: str
    contract: str
    answer_type: str
    summary: str
    operations: list[str]
    bucket: str
    queries: dict[str, list]
    source: str

    def query_space(self) -> list[dict]:
        from .check.queries import query_space

        return query_space(self.queries)


@dataclass
class Taxonomy:
    root: Path
    name: str
    version: int
    vocab: dict[str, list]
    domains: dict[str, list[str]]
    grammars: Mapping
    contracts: Mapping
    tasks: Mapping
    warnings: list = field(default_factory=list)
    components: dict[str, str] = field(default_factory=dict)  # name → summary (components/*.yaml)
    # Mistakes the headers show outside what has been compiled (open_taxonomy): they stop no other task.
    problems: list[Diagnostic] = field(default_factory=list)
    _compiler: Any = None

    def task(self, task_id: str):
        if task_id not in self.tasks:
            from difflib import get_close_matches

            close = get_close_matches(task_id, list(self.tasks), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else "; `tessera list` shows them all"
            broken = [str(d) for d in sorted({d for d in self.problems if d.severity == "error"},
                                             key=lambda d: (d.pos, d.message))]
            if broken:  # the task may be defined in a file that does not load: show why they do not
                hint += (f"\nthese mistakes in the library may be why (a file that does not load defines no task):\n"
                         + "\n".join(broken[:20]) + (f"\n… and {len(broken) - 20} more" if len(broken) > 20 else ""))
            raise TesseraError(f"unknown task '{task_id}'{hint}")
        return self.tasks[task_id]

    def info(self, task_id: str) -> TaskInfo:
        """A task's header: id, domain, grammar, contract, answer type, summary, operations, bucket, query values."""
        if task_id not in self.tasks:
            self.task(task_id)  # the unknown-id error with suggestions
        return self._compiler.info(task_id)

    def infos(self) -> list[TaskInfo]:
        return [self.info(t) for t in sorted(self.tasks)]

    def grammar_composed(self, grammar_id: str) -> bool:
        """Whether a grammar draws a composed scene (render.scene), from its check result when one is known."""
        return self._compiler.composed(grammar_id)


# -- the compiler of one library ----------------------------------------------------------------------------------
class _RecordingComponents(Mapping):
    """The components table a grammar compiles against, noting every name it looks up (and whether it listed them
    all), so a grammar's stored check result can say exactly which component files it depends on."""

    def __init__(self, table: dict[str, Unit]):
        self.table = table
        self.used: set[str] = set()
        self.listed = False

    def __getitem__(self, name):
        self.used.add(name)
        return self.table[name]

    def __contains__(self, name) -> bool:
        self.used.add(name)
        return name in self.table

    def __iter__(self):
        self.listed = True
        return iter(self.table)

    def __len__(self) -> int:
        self.listed = True
        return len(self.table)


class _Compiler:
    """Checks and compiles the units of one loaded library, each at most once per process, and keeps each unit's
    diagnostics; the compile cache stands in for the check of an unchanged unit."""

    def __init__(self, lib: Library, cache: Cache):
        self.lib = lib
        self.cache = cache
        self.code = code_key()
        self.vocab_sha = lib.vocab_unit.sha if lib.vocab_unit is not None else ""
        self.component_shas = {name: u.sha for name, u in lib.components.items()}
        self.compiled: dict[tuple[str, str], Any] = {}  # (kind, id) → compiled object, or None (errors)
        self.checks: dict[tuple[str, str], dict] = {}  # (kind, id) → check result: diags, ok, identity, ...
        self._infos: dict[str, TaskInfo] = {}

    # keys: a unit's check depends on its bytes, the code, and for grammars and tasks on what they read
    def _contract_key(self, cid: str) -> str:
        u = self.lib.contracts[cid]
        return key("check-contract", self.code, u.display, u.raw)

    def _grammar_key(self, gid: str) -> str:
        u = self.lib.grammars[gid]
        return key("check-grammar", self.code, u.display, u.raw, self.vocab_sha)

    def _deps_now(self, deps: dict) -> dict:
        if deps.get("listed"):
            return {"listed": True, "all": sorted(self.component_shas.items())}
        return {"listed": False, "used": {n: self.component_shas.get(n) for n in sorted(deps.get("used", {}))}}

    def _task_key(self, tid: str) -> str:
        u = self.lib.programs[tid]
        h = u.header
        g = self.check("grammar", h["grammar"])
        return key("check-task", self.code, u.display, u.raw, self.vocab_sha, self._grammar_key(h["grammar"]),
                   self._deps_now(g["deps"]), self._contract_key(h["contract"]))

    # check results: from the cache when valid, else by compiling
    def lookup(self, kind: str, ident: str) -> dict | None:
        """The check result when it is known without compiling (this process, or a valid cache entry), else None."""
        ck = (kind, ident)
        if ck in self.checks:
            return self.checks[ck]
        if not self.cache.enabled:
            return None
        if kind == "task" and self.lookup("grammar", self.lib.programs[ident].header["grammar"]) is None:
            return None  # the key holds the grammar's dependencies, which only its check knows
        k = {"contract": self._contract_key, "grammar": self._grammar_key, "task": self._task_key}[kind](ident)
        result = self._valid(kind, self.cache.get("check-" + kind, k))
        if result is not None:
            self.checks[ck] = result
        return result

    def check(self, kind: str, ident: str) -> dict:
        result = self.lookup(kind, ident)
        if result is not None:
            return result
        self.compile(kind, ident)
        result = self.checks[(kind, ident)]
        if self.cache.enabled:
            k = {"contract": self._contract_key, "grammar": self._grammar_key, "task": self._task_key}[kind](ident)
            self.cache.put("check-" + kind, k, self.stored(kind, result))
        return result

    def stored(self, kind: str, result: dict) -> dict:
        """A check result as JSON data (what the cache and a compile worker's answer hold)."""
        out = {**result, "diagnostics": [[d.pos.path, d.pos.line, d.pos.col, d.message, d.severity, d.code]
                                         for d in result["diagnostics"]]}
        if kind == "grammar":
            out["deps"] = self._deps_for_cache(result["deps"])
        return out

    def _valid(self, kind: str, data) -> dict | None:
        if not isinstance(data, dict) or not isinstance(data.get("ok"), bool):
            return None
        diags = diags_from_rows(data.get("diagnostics"))
        if diags is None:
            return None
        out = {"ok": data["ok"], "diagnostics": diags}
        if kind == "grammar":
            deps = data.get("deps")
            if not (isinstance(deps, dict) and isinstance(data.get("composed"), bool)):
                return None
            listed = deps.get("listed") is True
            used = deps.get("used", {})
            if not listed and not (isinstance(used, dict) and all(isinstance(n, str) for n in used)):
                return None
            if listed and deps.get("all") != [list(p) for p in sorted(self.component_shas.items())]:
                return None  # a component was added, removed or changed
            if not listed and any(self.component_shas.get(n) != s for n, s in used.items()):
                return None
            out.update(deps={"listed": listed, "used": sorted(used)}, composed=data["composed"])
        if kind == "task":
            if not (data.get("identity") is None or isinstance(data.get("identity"), str)):
                return None
            out["identity"] = data.get("identity")
        return out

    def compile(self, kind: str, ident: str):
        """The compiled unit (None when it has errors); its check result is recorded as a side effect."""
        ck = (kind, ident)
        if ck in self.compiled:
            return self.compiled[ck]
        with paused_gc():
            return self._compile(kind, ident)

    def _compile(self, kind: str, ident: str):
        ck = (kind, ident)
        diags = Diagnostics()
        result: dict[str, Any] = {}
        obj: object  # the CompiledContract, CompiledGrammar or CompiledTask; None when it did not compile
        if kind == "contract":
            from .codegen.contract import compile_contract

            obj = compile_contract(self.lib.contracts[ident], diags)
        elif kind == "grammar":
            from .codegen.grammar import compile_grammar

            table = _RecordingComponents(self.lib.components)
            compiled_grammar = compile_grammar(self.lib.grammars[ident], self.lib.vocab, diags, table)
            result["deps"] = {"listed": table.listed, "used": sorted(table.used)}
            result["composed"] = compiled_grammar is not None and compiled_grammar.scene is not None
            obj = compiled_grammar
        else:
            from .codegen.task import compile_task

            h = self.lib.programs[ident].header
            grammar = self.compile("grammar", h["grammar"])
            contract = self.compile("contract", h["contract"])
            compiled_task = None
            if grammar is not None and contract is not None:
                compiled_task = compile_task(self.lib.programs[ident], grammar, contract, self.lib.vocab, diags)
            result["identity"] = compiled_task.identity if compiled_task is not None else None
            obj = compiled_task
        result.update(ok=obj is not None and not diags, diagnostics=list(diags.items))
        self.compiled[ck] = obj
        self.checks.setdefault(ck, result)
        return obj

    def _deps_for_cache(self, deps: dict) -> dict:
        if deps["listed"]:
            return {"listed": True, "all": [list(p) for p in sorted(self.component_shas.items())], "used": {}}
        return {"listed": False, "used": {n: self.component_shas.get(n) for n in deps["used"]}}

    # what the lazy tables and the summaries read
    def task(self, tid: str, header_diags: list[Diagnostic]):
        h = self.lib.programs[tid].header
        files = {self.lib.programs[tid].display}
        for table, ref in ((self.lib.grammars, h["grammar"]), (self.lib.contracts, h["contract"])):
            if ref in table:
                files.add(table[ref].display)
        index = {u.display for u in (self.lib.taxonomy, self.lib.vocab_unit) if u is not None}
        # Its own files' diagnostics, and the index's errors (its warnings, such as an empty domain, are not news).
        mine = [d for d in header_diags if d.pos.path in files or (d.pos.path in index and d.severity == "error")]
        obj = None
        if h["grammar"] in self.lib.grammars and h["contract"] in self.lib.contracts:
            obj = self.compile("task", tid)
        found = Diagnostics(list(mine))
        for kind, ident in (("grammar", h["grammar"]), ("contract", h["contract"]), ("task", tid)):
            if (kind, ident) in self.checks:
                found.items.extend(self.checks[(kind, ident)]["diagnostics"])
        if obj is None or found:
            if not found:  # a missing grammar or contract is a header error, reported above
                found.error(self.lib.programs[tid].pos("id"), f"task '{tid}' did not compile", code="not-compiled")
            raise CompileFailed(found)
        return obj

    def info(self, tid: str) -> TaskInfo:
        if tid not in self._infos:
            from .check.queries import query_values

            unit = self.lib.programs[tid]
            h = unit.header
            contract = self.lib.contracts.get(h["contract"])
            domain = h["grammar"].split(".")[0] if h["grammar"] in self.lib.grammars else tid.split(".")[0]
            queries = query_values(h["query"], self.lib.vocab) or {}
            if h["grammar"] in self.lib.grammars:  # an input the task leaves out is its default, as compiled
                for name, value in self.lib.grammars[h["grammar"]].header["defaults"].items():
                    if name not in h["query"]:
                        queries[name] = [value]
            self._infos[tid] = TaskInfo(
                id=tid, domain=domain, grammar=h["grammar"], contract=h["contract"],
                answer_type=contract.header["type"] if contract is not None else "?", summary=h["summary"],
                operations=list(h["operations"]), bucket=h["bucket"],
                queries=queries, source=unit.display)
        return self._infos[tid]

    def composed(self, gid: str) -> bool:
        return bool(self.check("grammar", gid).get("composed"))


def _cache(cache: Cache | None) -> Cache:
    return cache if cache is not None else Cache.default()


def _taxonomy(lib: Library, comp: _Compiler, domains: dict, diags: Diagnostics, problems: list[Diagnostic],
              built_tasks: dict | None = None) -> Taxonomy:
    header_diags = list(diags.items)
    tax: dict[str, Any] = lib.taxonomy.header if lib.taxonomy is not None else {"id": "", "version": 0}
    tasks = LazyTable(sorted(lib.programs), lambda t: comp.task(t, header_diags), built_tasks)
    grammars = LazyTable(sorted(lib.grammars), lambda g: _must(comp, "grammar", g))
    contracts = LazyTable(sorted(lib.contracts), lambda c: _must(comp, "contract", c))
    return Taxonomy(lib.root, tax["id"], tax["version"], lib.vocab, domains, grammars, contracts, tasks,
                    [d for d in diags.items if d.severity == "warning"],
                    {name: u.header["summary"] for name, u in sorted(lib.components.items())},
                    problems, comp)


def _must(comp: _Compiler, kind: str, ident: str):
    obj = comp.compile(kind, ident)
    if obj is None:
        raise CompileFailed(Diagnostics(list(comp.checks[(kind, ident)]["diagnostics"])))
    return obj


def compile_taxonomy(root: str | os.PathLike[str] | None = None, cache: Cache | None = None,
                     tasks: Callable[[TaskInfo], bool] | None = None) -> Taxonomy:
    """Check the whole library (every unit, from the cache where unchanged) and return it; CompileFailed lists every
    mistake at once. `tasks` (a test on a task's header) checks only the tasks it accepts, with the grammars and
    contracts they use, and reports the mistakes of those files and of the taxonomy index."""
    with paused_gc():
        return _compile_taxonomy(root, cache, tasks)


def _compile_taxonomy(root, cache, tasks) -> Taxonomy:
    root = Path(root) if root is not None else DEFAULT_ROOT
    cache = _cache(cache)
    diags = Diagnostics()
    lib = load_library(root, diags, cache)
    check_references(lib, diags)
    check_vocab_assets(lib, diags)
    comp = _Compiler(lib, cache)
    chosen = set(lib.programs) if tasks is None else {t for t in lib.programs if tasks(comp.info(t))}
    used_contracts = {lib.programs[t].header["contract"] for t in chosen}
    used_grammars = {lib.programs[t].header["grammar"] for t in chosen}
    for cid in lib.contracts:
        if tasks is None or cid in used_contracts:
            diags.items.extend(comp.check("contract", cid)["diagnostics"])
    _check_in_parallel(comp, chosen, used_grammars if tasks is not None else set(lib.grammars))
    grammars_ok = {}
    for gid in lib.grammars:
        if tasks is None or gid in used_grammars:
            result = comp.check("grammar", gid)
            diags.items.extend(result["diagnostics"])
            grammars_ok[gid] = result["ok"]
    identities = {}
    for tid, unit in lib.programs.items():
        g, c = unit.header["grammar"], unit.header["contract"]
        if tid not in chosen or not grammars_ok.get(g) or c not in lib.contracts or \
                not comp.check("contract", c)["ok"]:
            continue  # reported already: unknown reference or a grammar/contract with errors
        result = comp.check("task", tid)
        diags.items.extend(result["diagnostics"])
        if result["identity"] is not None and result["ok"]:
            identities[tid] = result["identity"]
    cache.flush()
    check_duplicates(identities, lib, diags)
    domains = resolve_taxonomy(lib, diags)
    problems: list[Diagnostic] = []
    if tasks is not None:  # the selection's files and the index; the rest is somebody else's work in progress
        files = {lib.programs[t].display for t in chosen}
        files |= {lib.grammars[g].display for g in used_grammars if g in lib.grammars}
        files |= {lib.contracts[c].display for c in used_contracts if c in lib.contracts}
        files |= {u.display for u in (lib.taxonomy, lib.vocab_unit) if u is not None}
        problems = [d for d in diags.items if d.pos.path not in files and d.severity == "error"]
        diags = Diagnostics([d for d in diags.items if d.pos.path in files or not d.pos.path.endswith(".yaml")])
    if diags:
        raise CompileFailed(diags)
    built = {t: comp.compiled[("task", t)] for t in lib.programs if comp.compiled.get(("task", t)) is not None}
    return _taxonomy(lib, comp, domains, diags, problems, built)


# -- cold compiles on every core -------------------------------------------------------------------------------------
MIN_UNITS_PER_WORKER = 40  # below this a worker's start (a fork, about 20 ms) outweighs what it checks
_FORKED: dict[str, Any] = {}  # what a compile worker inherits: the compiler and the groups to check


def compile_workers(units: int) -> int:
    """Processes for checking `units` grammars and tasks that the cache does not know: one per core, each with at
    least MIN_UNITS_PER_WORKER; 1 (this process) where fork is unavailable or this is a pool's worker already.
    TESSERA_COMPILE_WORKERS overrides the core count (1 turns it off)."""
    import multiprocessing as mp

    if "fork" not in mp.get_all_start_methods() or mp.current_process().daemon:
        return 1
    raw = os.environ.get("TESSERA_COMPILE_WORKERS", "").strip()
    cores = int(raw) if raw.isdigit() and int(raw) > 0 else (os.cpu_count() or 1)
    return max(1, min(cores, units // MIN_UNITS_PER_WORKER))


def _check_in_parallel(comp: _Compiler, chosen: set[str], grammars: set[str]) -> None:
    """Check what the cache does not know (grammars, and the tasks on each) in forked workers, one group of
    grammars each, and take their results as data: the serial pass that follows then finds every result known and
    reports them in its own order, so the diagnostics are the same for any number of workers. The workers write
    the cache entries as they go."""
    lib = comp.lib
    tasks_of: dict[str, list[str]] = {}
    for tid in sorted(chosen):
        h = lib.programs[tid].header
        if h["grammar"] in grammars and h["contract"] in lib.contracts and comp.check("contract", h["contract"])["ok"]:
            tasks_of.setdefault(h["grammar"], []).append(tid)
    work = []
    for gid in sorted(grammars):
        g = comp.lookup("grammar", gid)
        todo = [t for t in tasks_of.get(gid, []) if g is None or (g["ok"] and comp.lookup("task", t) is None)]
        if g is None or todo:
            work.append((1 + len(todo), gid))
    units = sum(n for n, _ in work)
    workers = compile_workers(units)
    if workers <= 1:
        return
    groups: list[list[str]] = [[] for _ in range(workers)]
    load = [0] * workers
    for n, gid in sorted(work, reverse=True):  # largest first, each to the least loaded worker
        i = load.index(min(load))
        groups[i].append(gid)
        load[i] += n
    import multiprocessing as mp

    comp.cache.flush()  # a worker starts with nothing of ours left to write
    _FORKED.update(comp=comp, tasks_of=tasks_of)
    try:
        with mp.get_context("fork").Pool(workers) as pool:
            answers = pool.map(_check_group, groups, chunksize=1)
    finally:
        _FORKED.clear()
    for answer in answers:
        for kind, ident, data in answer:
            result = comp._valid(kind, data)
            if result is None:  # cannot happen for data we made; checking it again here is the safe answer
                continue
            comp.checks.setdefault((kind, ident), result)


def _check_group(gids: list[str]) -> list[tuple[str, str, dict]]:
    """In a compile worker: check these grammars and their tasks; answer with the results as data."""
    comp, tasks_of = _FORKED["comp"], _FORKED["tasks_of"]
    out = []
    for gid in gids:
        g = comp.check("grammar", gid)
        out.append(("grammar", gid, comp.stored("grammar", g)))
        if g["ok"]:
            for tid in tasks_of.get(gid, []):
                out.append(("task", tid, comp.stored("task", comp.check("task", tid))))
    comp.cache.flush()
    return out


def open_taxonomy(root: Path | str | None = None, cache: Cache | None = None) -> Taxonomy:
    """The library's headers, checked across files; each task compiles when first asked for. Raises
    CompileFailed only when there is no usable library at all (no root, no taxonomy index)."""
    root = Path(root) if root is not None else DEFAULT_ROOT
    cache = _cache(cache)
    diags = Diagnostics()
    lib = load_library(root, diags, cache)
    if lib.taxonomy is None:
        raise CompileFailed(diags if diags else _no_index(root))
    check_references(lib, diags)
    check_vocab_assets(lib, diags)
    domains = resolve_taxonomy(lib, diags)
    comp = _Compiler(lib, cache)
    return _taxonomy(lib, comp, domains, diags, list(diags.errors))


def _no_index(root: Path) -> Diagnostics:
    d = Diagnostics()
    from .errors import Position

    d.error(Position(str(root / "taxonomy" / "taxonomy.yaml"), 1, 1), "missing taxonomy index", code="taxonomy-listing")
    return d


def library_hash(root: Path | str | None = None) -> str:
    """sha256 over every authoring file's path and bytes: what a watcher compares to know something changed."""
    root = Path(root) if root is not None else DEFAULT_ROOT
    h = hashlib.sha256()
    for folder in ("taxonomy", "grammars", "programs", "contracts", "components"):
        base = root / folder
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if path.suffix in (".yaml", ".yml") and path.is_file():
                st = path.stat()
                h.update(f"{path.relative_to(root)}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return h.hexdigest()
