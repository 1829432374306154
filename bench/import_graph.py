"""The import graph of the `tessera` package (compiler/), read statically with `ast`: which module imports which,
the cycles (strongly connected components) and the edges between packages. Nothing is imported or run.

    python bench/import_graph.py                 # cycles over module-level imports, then over all imports, then packages
    python bench/import_graph.py --edges         # also every module edge, with its line numbers
    python bench/import_graph.py --dot > g.dot   # the package graph in Graphviz (add --modules for the module graph)

Three kinds of import are told apart, because they bind differently:
- `module`: executed when the importing module is imported (top level, class bodies, `try`/`if` at top level);
- `function`: inside a function or lambda body, executed when that code runs (a lazy import: no import-time cycle,
  but the two modules still depend on each other, and a layer violation is a violation either way);
- `typing`: under `if TYPE_CHECKING:`, never executed; listed for completeness and left out of cycles and layers.

A module is named as Python names it (`tessera.render.marks`; a package's `__init__.py` is the package itself). An
edge goes to the most specific module an import names: `from .render import marks` is an edge to
`tessera.render.marks` when that file exists, else to `tessera.render`. Imports of `tessera.training` (training/)
and `tessera.library` (the YAML) leave compiler/ and are not in the graph. The package of a module is its first name
below `tessera` (`render` for `tessera.render.marks`, `api` for `tessera.api`, `tessera` for `tessera` itself).
`tests/test_layers.py` reads the same graph (`build_graph`) to enforce the layer order in `tessera.layers`.
"""
from __future__ import annotations

import argparse
import ast
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DIR = ROOT / "compiler"
PACKAGE = "tessera"
KINDS = ("module", "function", "typing")


@dataclass(frozen=True)
class Edge:
    source: str   # importing module, e.g. "tessera.codegen.scene"
    target: str   # imported module, e.g. "tessera.render.marks"
    kind: str     # "module" | "function" | "typing"
    line: int     # line of the import statement in the source module's file


def module_name(path: Path, package_dir: Path = PACKAGE_DIR) -> str:
    parts = list(path.relative_to(package_dir).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGE, *parts])


def package_of(module: str) -> str:
    """`render` for tessera.render.marks, `api` for tessera.api, `tessera` for the top package itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.Module) -> list[tuple[ast.Import | ast.ImportFrom, str]]:
    """(statement, kind) for every import statement, kind as in the module docstring."""
    out: list[tuple[ast.Import | ast.ImportFrom, str]] = []

    def step(node: ast.AST, kind: str) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append((node, kind))
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            for stmt in node.body:
                step(stmt, "typing")
            for stmt in node.orelse:  # the `else:` branch runs
                step(stmt, kind)
        else:
            inner = "function" if kind == "module" and isinstance(
                node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) else kind
            for child in ast.iter_child_nodes(node):
                step(child, inner)

    for stmt in tree.body:
        step(stmt, "module")
    return out


def _resolve(source: str, is_package: bool, node: ast.stmt, modules: set[str]) -> list[str]:
    """The tessera modules one import statement names (none for a third-party or standard-library import)."""
    def most_specific(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    names: list[str] = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name == PACKAGE or alias.name.startswith(PACKAGE + "."):
                names.append(alias.name)
    else:
        assert isinstance(node, ast.ImportFrom)
        if node.level:
            base = source.split(".") if is_package else source.split(".")[:-1]
            base = base[: len(base) - (node.level - 1)]
            stem = ".".join(base + ([node.module] if node.module else []))
        elif node.module and (node.module == PACKAGE or node.module.startswith(PACKAGE + ".")):
            stem = node.module
        else:
            return []
        for alias in node.names:
            sub = f"{stem}.{alias.name}"
            names.append(sub if sub in modules else stem)
    found = []
    for name in names:
        if name.split(".")[:2] != [PACKAGE] and ".".join(name.split(".")[:2]) not in modules:
            continue  # tessera.training, tessera.library: other folders, outside this graph
        target = most_specific(name)
        if target is not None and target != source and target not in found:
            found.append(target)
    return found


def build_graph(package_dir: Path = PACKAGE_DIR) -> tuple[list[str], list[Edge]]:
    """Every module of the package and every import edge between two of them (one per statement and target)."""
    files = sorted(package_dir.rglob("*.py"))
    modules = {module_name(p, package_dir): p for p in files}
    names = set(modules)
    edges: list[Edge] = []
    for name, path in sorted(modules.items()):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node, kind in _imports(tree):
            for target in _resolve(name, path.name == "__init__.py", node, names):
                edges.append(Edge(name, target, kind, node.lineno))
    return sorted(names), edges


def strongly_connected(nodes: list[str], pairs: set[tuple[str, str]]) -> list[list[str]]:
    """Tarjan's components with more than one member (a cycle), each sorted, largest first."""
    succ: dict[str, list[str]] = defaultdict(list)
    for a, b in sorted(pairs):
        succ[a].append(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    comps: list[list[str]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, 0)]  # iterative, so a deep graph cannot hit the recursion limit
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            children = succ[node]
            if i < len(children):
                work.append((node, i + 1))
                child = children[i]
                if child not in index:
                    work.append((child, 0))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            if low[node] == index[node]:
                comp = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    comp.append(member)
                    if member == node:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return sorted(comps, key=lambda c: (-len(c), c))


def cycles(nodes: list[str], edges: list[Edge], kinds: tuple[str, ...]) -> list[list[str]]:
    return strongly_connected(nodes, {(e.source, e.target) for e in edges if e.kind in kinds})


def package_edges(edges: list[Edge], kinds: tuple[str, ...]) -> dict[tuple[str, str], dict[str, int]]:
    """(package, package) → {kind: number of import statements}, for edges that cross a package boundary."""
    out: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: dict.fromkeys(KINDS, 0))
    for e in edges:
        a, b = package_of(e.source), package_of(e.target)
        if a != b and e.kind in kinds:
            out[(a, b)][e.kind] += 1
    return dict(sorted(out.items()))


def report(nodes: list[str], edges: list[Edge], show_edges: bool) -> str:
    lines = []
    count = {k: sum(e.kind == k for e in edges) for k in KINDS}
    lines.append(f"{len(nodes)} modules; import edges: {count['module']} module-level, {count['function']} "
                 f"function-level, {count['typing']} TYPE_CHECKING-only (not counted below)")
    for title, kinds in (("module-level imports", ("module",)),
                         ("module- and function-level imports", ("module", "function"))):
        comps = cycles(nodes, edges, kinds)
        lines.append(f"\ncycles over {title}: {len(comps)}")
        for comp in comps:
            lines.append(f"  [{len(comp)}] " + " ".join(m.removeprefix(PACKAGE + ".") for m in comp))
    packages = sorted({package_of(n) for n in nodes})
    pedges = package_edges(edges, ("module", "function"))
    pcomps = strongly_connected(packages, set(pedges))
    lines.append(f"\npackage cycles (module- and function-level): {len(pcomps)}")
    for comp in pcomps:
        lines.append(f"  [{len(comp)}] " + " ".join(comp))
    in_cycle = {p: i for i, comp in enumerate(pcomps) for p in comp}
    lines.append(f"\npackage edges ({len(pedges)}; m = module-level statements, f = function-level; "
                 "* = both ends in one package cycle):")
    for (a, b), n in pedges.items():
        mark = "*" if a in in_cycle and in_cycle.get(a) == in_cycle.get(b) else " "
        lines.append(f"  {mark} {a:>9} -> {b:<9} m={n['module']:<3} f={n['function']}")
    if show_edges:
        lines.append("\nmodule edges (source:line -> target, kind):")
        for e in sorted(edges, key=lambda e: (e.source, e.line, e.target)):
            lines.append(f"  {e.source}:{e.line} -> {e.target} ({e.kind})")
    return "\n".join(lines)


def dot(nodes: list[str], edges: list[Edge], modules: bool) -> str:
    lines = ["digraph tessera {", "  rankdir=LR; node [shape=box, fontsize=10];"]
    if modules:
        seen = set()
        for e in edges:
            if e.kind != "typing" and (e.source, e.target) not in seen:
                seen.add((e.source, e.target))
                style = "" if e.kind == "module" else " [style=dashed]"
                lines.append(f'  "{e.source}" -> "{e.target}"{style};')
    else:
        for (a, b), n in package_edges(edges, ("module", "function")).items():
            style = "" if n["module"] else " [style=dashed]"
            lines.append(f'  "{a}" -> "{b}"{style};  // m={n["module"]} f={n["function"]}')
    lines.append("}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dot", action="store_true", help="print Graphviz DOT instead of the report")
    ap.add_argument("--modules", action="store_true", help="with --dot: the module graph, not the package graph")
    ap.add_argument("--edges", action="store_true", help="also list every module edge")
    ap.add_argument("--package-dir", type=Path, default=PACKAGE_DIR)
    args = ap.parse_args(argv)
    nodes, edges = build_graph(args.package_dir)
    print(dot(nodes, edges, args.modules) if args.dot else report(nodes, edges, args.edges))
    return 0


if __name__ == "__main__":
    sys.exit(main())
