"""One-off move of the task oracles from the 16 history-named modules (tests/oracles.py, tests/oracles_*.py at
commit BASE) into one file per grammar, tests/tasks/<domain>/<grammar>.py, registered by decorator.

Mechanical, from the AST of the old modules: every registration (`ORACLES = {...}`, `ORACLES.update`,
`ORACLES[id] = ...`, `@oracle(id)`, `OPTION_FITS = {...}`) is mapped to its task's grammar (the program's `grammar:`
header); every top-level helper goes with the one grammar that needs it, to tests/tasks/<domain>/_shared.py when
several grammars of one domain need it, or to tests/tasks/common.py when several domains do (or it is one of the
generic trace helpers). Statement text, comments above a statement included, is copied verbatim; a `lambda tr: ...`
oracle becomes a named function. Reads the old modules with `git show BASE:path`:

    python bench/move_oracles.py            # write tests/tasks/

A one-off: the files it wrote were then edited (the option fits that lived in tests/test_distractors.py moved into
their grammars' files by hand), so rerunning it would undo those edits.
"""
from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
import textwrap
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASE = "0bb9829"
GENERIC = {"resolve", "step", "first_mode", "only", "_letter_of"}  # trace helpers every domain uses
SKIP = {"same_answer", "_merge_domain_oracles"}  # tests/oracles.py machinery, rewritten by hand in tests/tasks/
TABLES = {"ORACLES": "oracle", "OPTION_FITS": "option_fit"}


def old_modules() -> dict[str, str]:
    names = subprocess.run(["git", "ls-tree", "--name-only", BASE, "tests/"], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split()
    paths = [p for p in names if re.fullmatch(r"tests/oracles(_\w+)?\.py", p)]
    return {Path(p).stem: subprocess.run(["git", "show", f"{BASE}:{p}"], cwd=ROOT, check=True, capture_output=True,
                                         text=True).stdout for p in sorted(paths)}


def grammar_of_tasks() -> dict[str, str]:
    out = {}
    for path in sorted((ROOT / "programs").rglob("*.yaml")):
        head = dict(re.findall(r"^(task|grammar):\s*(\S+)", path.read_text(encoding="utf-8"), re.M))
        out[head["task"]] = head["grammar"]
    return out


class Module:
    def __init__(self, name: str, source: str):
        self.name, self.lines = name, source.splitlines()
        self.tree = ast.parse(source)
        self.defs: dict[str, ast.stmt] = {}  # top-level name → its statement
        self.imports: dict[str, tuple[str, str, str]] = {}  # name → (module, name, import statement text)
        self.registrations: list[tuple[str, str, ast.AST, int]] = []  # (table, task id, expression or def, line)
        for stmt in self.tree.body:
            self._read(stmt)

    def text(self, stmt: ast.stmt) -> str:
        start = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])]) - 1
        while start > 0 and self.lines[start - 1].lstrip().startswith("#"):
            start -= 1
        return "\n".join(self.lines[start:stmt.end_lineno])

    def seg(self, node: ast.AST) -> str:
        return ast.get_source_segment("\n".join(self.lines), node)

    def _register(self, table: str, dict_node: ast.Dict) -> None:
        for k, v in zip(dict_node.keys, dict_node.values):
            self.registrations.append((table, k.value, v, v.lineno))

    def _read(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            return  # the module docstring
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
                return
            for alias in stmt.names:
                mod = stmt.module if isinstance(stmt, ast.ImportFrom) else alias.name
                self.imports[alias.asname or alias.name] = (mod, alias.name, ast.unparse(
                    ast.ImportFrom(stmt.module, [alias], 0) if isinstance(stmt, ast.ImportFrom)
                    else ast.Import([alias])))
            return
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            t = targets[0]
            if isinstance(t, ast.Tuple) and [getattr(e, "id", None) for e in t.elts] == ["ORACLES", "oracle"]:
                return  # ORACLES, oracle = registry()
            if isinstance(t, ast.Name) and t.id in TABLES:
                if isinstance(stmt.value, ast.Dict):
                    self._register(t.id, stmt.value)
                return
            if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in TABLES:
                self.registrations.append((t.value.id, t.slice.value, stmt.value, stmt.lineno))
                return
            for target in targets:
                for n in ast.walk(target):
                    if isinstance(n, ast.Name):
                        self.defs[n.id] = stmt
            return
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            f = stmt.value.func
            if isinstance(f, ast.Attribute) and f.attr == "update" and getattr(f.value, "id", None) in TABLES:
                self._register(f.value.id, stmt.value.args[0])
                return
            if getattr(f, "id", None) == "_merge_domain_oracles":
                return
        if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
            if stmt.name in SKIP:
                return
            self.defs[stmt.name] = stmt
            for d in stmt.decorator_list:
                if isinstance(d, ast.Call) and getattr(d.func, "id", None) == "oracle":
                    self.registrations.append(("ORACLES", d.args[0].value, stmt, stmt.lineno))
            return
        raise SystemExit(f"{self.name}: unhandled top-level statement at line {stmt.lineno}")


def names_used(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def main() -> int:
    argparse.ArgumentParser(description=__doc__.split("\n")[0]).parse_args()
    mods = {name: Module(name, src) for name, src in old_modules().items()}
    grammar = grammar_of_tasks()

    def resolve(mod: str, name: str):
        """(module, name) of the definition a name means in `mod`, or None for a builtin / stdlib name."""
        m = mods[mod]
        if name in m.defs:
            return (mod, name)
        if name in m.imports and m.imports[name][0].startswith("tests."):
            src_mod, src_name, _ = m.imports[name]
            return resolve(src_mod.split(".", 1)[1], src_name)
        return None

    def deps(mod: str, node: ast.AST) -> set[tuple[str, str]]:
        return {r for n in names_used(node) if (r := resolve(mod, n))}

    # which grammars need each definition (transitively)
    users: dict[tuple[str, str], set[str]] = defaultdict(set)
    for mod, m in mods.items():
        for table, task, node, _ in m.registrations:
            g = grammar[task]
            todo = list(deps(mod, node)) + ([(mod, node.name)] if isinstance(node, ast.FunctionDef) else [])
            while todo:
                key = todo.pop()
                if g in users[key]:
                    continue
                users[key].add(g)
                todo += deps(key[0], mods[key[0]].defs[key[1]])

    def home(key: tuple[str, str]) -> str:
        """The module a definition moves to, as a dotted name under tests.tasks."""
        gs = users.get(key)
        if not gs:
            raise SystemExit(f"{key} is used by no oracle: place it by hand")
        if key[1] in GENERIC or len({g.split(".")[0] for g in gs}) > 1:
            return "common"
        if len(gs) == 1:
            return next(iter(gs))
        return f"{next(iter(gs)).split('.')[0]}._shared"

    files: dict[str, list[tuple[tuple[str, int], str, set[str]]]] = defaultdict(list)  # home → (order, text, uses)
    decorators: dict[tuple[str, str], list[str]] = defaultdict(list)
    tail: dict[str, list[tuple[tuple[str, int], str, ast.AST, str]]] = defaultdict(list)
    placed: dict[str, dict[str, str]] = defaultdict(dict)  # home → name → old module
    order = {name: i for i, name in enumerate(mods)}

    for mod, m in mods.items():
        for table, task, node, line in m.registrations:
            where = grammar[task]
            deco = f'@{TABLES[table]}("{task}")'
            if isinstance(node, ast.FunctionDef):
                continue  # already decorated in place
            if isinstance(node, ast.Name) and home((mod, node.id)) == where and resolve(mod, node.id)[0] == mod:
                decorators[(mod, node.id)].append(deco)
            elif isinstance(node, ast.Lambda):
                fname = "_" + task.rsplit(".", 1)[1]
                text = f"{deco}\ndef {fname}({', '.join(a.arg for a in node.args.args)}):\n" \
                       f"    return {m.seg(node.body)}"
                tail[where].append(((order[mod], line), text, node, mod))
            else:
                tail[where].append(((order[mod], line), f"{TABLES[table]}(\"{task}\")({m.seg(node)})", node, mod))

    for mod, m in mods.items():
        for name, stmt in m.defs.items():
            key = (mod, name)
            if key not in users:
                print(f"dropped (no oracle uses it): tests/{mod}.py {name}", file=sys.stderr)
                continue
            h = home(key)
            text = m.text(stmt)
            if name in placed[h] and placed[h][name] != mod:
                if mods[placed[h][name]].text(mods[placed[h][name]].defs[name]) == text:
                    continue  # the same helper copied into two old modules: keep one
                raise SystemExit(f"name clash in {h}: {name} from {placed[h][name]} and {mod}")
            if name in placed[h]:
                continue  # one statement defines several names
            for other in [n for n, s in m.defs.items() if s is stmt]:
                placed[h][other] = mod
            if decorators.get(key):
                lines = text.split("\n")
                at = next(i for i, ln in enumerate(lines) if not ln.lstrip().startswith("#"))
                text = "\n".join(lines[:at] + decorators[key] + lines[at:])
            files[h].append(((order[mod], stmt.lineno), text, (mod, stmt)))

    out: dict[Path, str] = {}
    homes = set(files) | set(tail)
    for h in sorted(homes):
        body, needs_std, needs_tests, tables = [], {}, defaultdict(set), set()
        items = [(o, t, ("def", ms)) for o, t, ms in files[h]] + [(o, t, ("reg", (n, mod))) for o, t, n, mod in tail[h]]
        defs_here = set(placed[h])
        for o, text, (kind, payload) in sorted(items, key=lambda x: (x[2][0] == "reg", x[0])):
            body.append(text)
            mod, node = payload if kind == "def" else (payload[1], payload[0])
            for name in names_used(node) | ({d.func.id for d in getattr(node, "decorator_list", [])
                                              if isinstance(d, ast.Call) and isinstance(d.func, ast.Name)}):
                if name in TABLES.values():
                    tables.add(name)
                    continue
                r = resolve(mod, name)
                if r:
                    where = home(r)
                    if where != h:
                        needs_tests[where].add(r[1])
                elif name in mods[mod].imports:
                    needs_std[name] = mods[mod].imports[name][2]
            if kind == "def" and decorators.get((mod, getattr(node, "name", None))):
                tables |= {d.split("(")[0][1:] for d in decorators[(mod, node.name)]}
            if kind == "reg":
                tables.add("oracle" if text.startswith(("@oracle", "oracle(")) else "option_fit")
        grammar_id = h if "." in h and not h.endswith("._shared") else None
        if h == "common":
            doc = ("Trace helpers shared by the oracles of several domains: read a step or a state reference out of a "
                   "recorded trace, and\nsmall pure helpers. Plain Python, never the expression language.")
        elif grammar_id is None:
            doc = (f"Helpers shared by the oracles of several {h.split('.')[0]} grammars (moved from the old "
                   "tests/oracles_*.py modules).")
        else:
            d, g = grammar_id.split(".")
            doc = (f"Oracles of the grammar {grammar_id} (grammars/{d}/{g}.yaml, programs/{d}/{g}/): each task's answer "
                   "recomputed by\nplain Python from the recorded trace, never the expression language.")
        doc = "\n".join(textwrap.wrap(" ".join(doc.split()), 116))
        head = [f'"""{doc}"""', "from __future__ import annotations", ""]
        std = sorted(set(needs_std.values()), key=lambda s: (s.startswith("from"), s))
        head += std + ([""] if std else [])
        tests_imports = []
        for where in sorted(needs_tests):
            tests_imports.append(f"from tests.tasks.{where} import {', '.join(sorted(needs_tests[where]))}")
        if tables:
            tests_imports.append(f"from tests.tasks.registry import {', '.join(sorted(tables))}")
        head += sorted(tests_imports)
        text = "\n".join(head).rstrip("\n") + "\n\n\n" + "\n\n\n".join(body) + "\n"
        path = ROOT / "tests" / "tasks" / (h.replace(".", "/") + ".py")
        out[path] = text

    for path, text in out.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    print(f"wrote {len(out)} files under tests/tasks/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
