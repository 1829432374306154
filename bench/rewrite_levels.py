"""The library rewrite that introduced `levels:` (issue 25): every expression of `level` in a grammar's state and
requirements, and in a program's steps, requirements, answer, witness and prompt templates, is lifted into a
`levels:` block as a named difficulty parameter and read by its name. Kept so the rewrite can be rerun on an
author's own library (it changes nothing twice) and checked:

    python bench/rewrite_levels.py [ROOT] [--check]     # --check: exit 1 if anything would change

What is lifted: each maximal subexpression that reads `level` and nothing else that varies — only `level`,
`vocab`, `pi`, literals and deterministic builtins (no random builtin, no call of the file's own functions, no
state field, query variable, step or local variable). Such an expression has one value per level, so computing it
once before the state draws nothing from the random streams: every picture and answer stays as it was.

Names: `<entry>_at_level` when a whole entry is lifted (the entry stays, reading it: the state and the steps are
stored in traces and hashed into instance ids, so no entry disappears); `<entry>_lo` / `<entry>_hi` for a bound of
randint/uniform; else `<entry>_<k>`. Identical expressions in one file share one name. A name already taken in the
file gets a numeric suffix.

Edits are made to the source text (the spans of the lifted expressions, and one inserted block just before `state:`
in a grammar, before `compute:` / `require:` / `answer:` in a program), so comments and layout stay; each edited
file is parsed again and its rewritten expressions compared with the expected ones before it is written.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lark import Token, Tree  # noqa: E402
from lark.exceptions import UnexpectedInput  # noqa: E402

from compiler.errors import Diagnostics  # noqa: E402
from compiler.expr.builtins import BUILTINS  # noqa: E402
from compiler.expr.compile import CONSTANTS, _parse_cached  # noqa: E402
from compiler.load.yaml_source import parse_yaml, scalar_offsets  # noqa: E402

DIRS = ("grammars", "programs")
EXPRESSION_KINDS = {
    "int_lit", "float_lit", "str_lit", "true_lit", "false_lit", "name", "paren", "list_lit", "listcomp",
    "record_lit", "field", "index", "slice", "call", "neg", "binop", "compare", "in_", "not_in", "not_", "and_",
    "or_", "ifelse", "let_expr",
}
CHAINED = {"compare", "in_", "not_in"}  # `a < b < c`: the left comparison is part of the chain, never lifted alone
FIXED = {"level", "vocab"} | set(CONSTANTS)
BOUNDS = {"randint", "uniform"}
TEMPLATE_EXPR = re.compile(r"\{\{(.*?)\}\}|\{%-?\s*(?:if|elif)\s(.*?)-?%\}", re.S)


def analyse(node) -> tuple[frozenset[str], bool]:
    """(free names, deterministic?) of a subtree: the names it reads that it does not bind itself, and whether it
    calls no random builtin and none of the file's own functions."""
    if node is None or isinstance(node, Token):
        return frozenset(), True
    kind = node.data
    if kind == "name":
        return frozenset([str(node.children[0])]), True
    if kind == "lambda":
        free, det = analyse(node.children[-1])
        return free - {str(t) for t in node.children[:-1]}, det
    if kind == "listcomp":
        bound = {str(c.children[0]) for c in node.children[1:]}
        free, det = set(), True
        for c in node.children[:1] + [x for f in node.children[1:] for x in f.children[1:]]:
            f_, d_ = analyse(c)
            free |= f_
            det = det and d_
        return frozenset(free - bound), det
    if kind == "let_expr":
        *bindings, body = node.children
        free, det, bound = set(), True, set()
        for b in bindings:
            f_, d_ = analyse(b.children[1])
            free |= f_ - bound
            det = det and d_
            bound.add(str(b.children[0]))
        f_, d_ = analyse(body)
        return frozenset(free | (f_ - bound)), det and d_
    free, det = set(), True
    if kind == "call":
        spec = BUILTINS.get(str(node.children[0]))
        det = spec is not None and not spec.random
    for c in node.children:  # tokens (a call's name, a field's name, a record key) read nothing
        f_, d_ = analyse(c)
        free |= f_
        det = det and d_
    return frozenset(free), det


def liftable(node) -> bool:
    if not isinstance(node, Tree) or node.data not in EXPRESSION_KINDS:
        return False
    free, det = analyse(node)
    return det and "level" in free and free <= FIXED


def lifts(tree) -> list[tuple[Tree, Tree | None, int]]:
    """The maximal liftable subtrees of an expression, each with its parent call and argument index (for naming)."""
    found: list[tuple[Tree, Tree | None, int]] = []

    def visit(node, parent, index, chained_left):
        if not isinstance(node, Tree):
            return
        if not chained_left and liftable(node):
            found.append((node, parent, index))
            return
        for i, c in enumerate(node.children):
            if node.data == "args":
                visit(c, parent, i, False)  # an argument: named after the call's (randint bounds)
            else:
                visit(c, node, i, node.data in CHAINED and i == 0 and isinstance(c, Tree) and c.data in CHAINED)

    visit(tree, None, 0, False)
    return found


def _strip_parens(text: str, node) -> str:
    while node.data == "paren":
        node = node.children[0]
        text = text[text.index("(") + 1:text.rindex(")")].strip()
    return text


def _yaml_scalar(text: str) -> str:
    if (re.match(r"^[A-Za-z0-9_(][^#\n]*$", text) and ": " not in text and not text.endswith(":")
            and not re.match(r"^(true|false|null|yes|no|on|off|~|[-+]?[0-9.]+)$", text, re.I)):
        return text
    return json.dumps(text, ensure_ascii=False)


class FileRewrite:
    def __init__(self, path: Path, text: str, kind: str):
        self.path, self.text, self.kind = path, text, kind
        self.doc = parse_yaml(text, str(path), Diagnostics())
        data = self.doc.data if self.doc is not None else None
        self.data = data if isinstance(data, dict) else {}
        self.levels: dict[str, str] = dict(self.data.get("levels") or {})  # name → source, existing ones first
        self.by_source = {" ".join(str(v).split()): k for k, v in self.levels.items()}
        self.taken = set(self.levels)
        for key in ("inputs", "functions", "state", "query", "compute"):
            if isinstance(self.data.get(key), dict):
                self.taken |= set(self.data[key])
        self.edits: list[tuple[int, int, str]] = []  # file offsets start, end → replacement
        self.expected: dict[tuple, str] = {}  # loc → the value it must read after the edit
        self.problems: list[str] = []

    def locations(self):
        d = self.data
        if self.kind == "grammar":
            for key in ("state", "require"):
                for name in (d.get(key) or {}):
                    yield (key, name), name, False
        else:
            for key in ("compute", "require"):
                for name in (d.get(key) or {}):
                    yield (key, name), name, False
            yield ("answer", "value"), "answer", False
            for w in (d.get("witness") or {}):
                yield ("witness", w), "witness", False
            prompt = d.get("prompt")
            if isinstance(prompt, list):
                for i in range(len(prompt)):
                    yield ("prompt", i), "prompt", True
            elif prompt is not None:
                yield ("prompt",), "prompt", True

    def name_for(self, source: str, entry: str, suffix: str) -> str:
        key = source if "'" in source or '"' in source else " ".join(source.split())
        if key in self.by_source:
            return self.by_source[key]
        if suffix == "k":
            k = 1
            while f"{entry}_{k}" in self.taken:
                k += 1
            name = f"{entry}_{k}"
        else:
            name, k = f"{entry}_{suffix}", 2
            while name in self.taken:
                name, k = f"{entry}_{suffix}_{k}", k + 1
        self.taken.add(name)
        self.levels[name] = key
        self.by_source[key] = name
        return name

    def rewrite_value(self, loc: tuple, entry: str, template: bool) -> None:
        spot = self.doc.spots.get(loc)
        raw = spot.raw if spot is not None else None
        if not isinstance(raw, str) or "level" not in raw:
            return
        pieces = [(m.start(1) if m.group(1) is not None else m.start(2), m.group(1) if m.group(1) is not None
                   else m.group(2)) for m in TEMPLATE_EXPR.finditer(raw)] if template else [(0, raw)]
        spans: list[tuple[int, int, str]] = []
        for base, source in pieces:
            if "|" in source and template:
                continue  # a jinja filter: not the expression language
            try:
                tree = _parse_cached(source.strip())
            except UnexpectedInput:
                continue
            base += len(source) - len(source.lstrip())
            source = source.strip()
            for node, parent, index in lifts(tree):
                a, b = node.meta.start_pos, node.meta.end_pos
                text = _strip_parens(source[a:b], node)
                if "\n" in text and ("'" in text or '"' in text):
                    self.problems.append(f"{self.path}: {loc}: a multi-line expression with strings is left alone")
                    continue
                whole = a == 0 and b == len(source) and not template
                if whole:
                    suffix = "at_level"
                elif parent is not None and parent.data == "call" and str(parent.children[0]) in BOUNDS:
                    suffix = ("lo", "hi")[index] if index < 2 else "k"
                else:
                    suffix = "k"
                spans.append((base + a, base + b, self.name_for(text, entry, suffix)))
        if not spans:
            return
        offsets = scalar_offsets(self.text, spot.start, spot.end, spot.style, raw)
        if offsets is None:
            self.problems.append(f"{self.path}: {loc}: a scalar form whose positions are not known is left alone")
            return
        new = raw
        for a, b, name in sorted(spans, reverse=True):
            new = new[:a] + name + new[b:]
            self.edits.append((offsets[a], offsets[b], name))
        self.expected[loc] = new

    def insert_block(self, text: str, added: dict[str, str]) -> str:
        before = ("state",) if self.kind == "grammar" else ("compute", "require", "answer")
        if "levels" in self.data:
            m = re.search(r"^levels:[^\n]*\n(?:[ \t]+[^\n]*\n|[ \t]*#[^\n]*\n|[ \t]*\n)*", text, re.M)
            indent = "  "
            lines = "".join(f"{indent}{k}: {_yaml_scalar(v)}\n" for k, v in added.items())
            return text[:m.end()] + lines + text[m.end():]
        for key in before:
            m = re.search(rf"^{key}:", text, re.M)
            if m:
                break
        else:
            raise ValueError(f"{self.path}: no {' / '.join(before)} key to put levels: before")
        start = m.start()
        # Above the comment lines that introduce the key, so they stay with it.
        while True:
            prev = text.rfind("\n", 0, max(start - 1, 0))
            line = text[prev + 1:start]
            if start > 0 and line.lstrip().startswith("#") and not line.startswith(" "):
                start = prev + 1
            else:
                break
        block = "levels:\n" + "".join(f"  {k}: {_yaml_scalar(v)}\n" for k, v in added.items())
        return text[:start] + block + text[start:]

    def run(self) -> str | None:
        if self.doc is None:
            return None
        before = dict(self.levels)
        for loc, entry, template in self.locations():
            self.rewrite_value(loc, entry, template)
        if not self.edits:
            return None
        text = self.text
        for a, b, name in sorted(self.edits, reverse=True):
            text = text[:a] + name + text[b:]
        added = {k: v for k, v in self.levels.items() if k not in before}
        text = self.insert_block(text, added)
        check = parse_yaml(text, str(self.path), Diagnostics())
        if check is None:
            raise ValueError(f"{self.path}: the rewritten file does not parse")
        for loc, value in self.expected.items():
            if check.spots[loc].raw != value:
                raise ValueError(f"{self.path}: {loc} reads {check.spots[loc].raw!r}, expected {value!r}")
        if dict(check.data.get("levels")) != {**before, **added}:
            raise ValueError(f"{self.path}: levels reads {check.data.get('levels')}, expected {added}")
        return text


def main(argv: list[str]) -> int:
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    root = Path(args[0]) if args else ROOT
    files = params = 0
    problems: list[str] = []
    for d in DIRS:
        for path in sorted((root / d).rglob("*.yaml")):
            text = path.read_text()
            if not re.search(r"\blevel\b", text):
                continue
            fr = FileRewrite(path.relative_to(root), text, "grammar" if d == "grammars" else "program")
            new = fr.run()
            problems += fr.problems
            if new is not None and new != text:
                files += 1
                params += len(set(fr.levels)) - len((fr.data.get("levels") or {}))
                if not check:
                    path.write_text(new)
    for p in problems:
        print(p, file=sys.stderr)
    verb = "would lift" if check else "lifted"
    print(f"{verb} {params} level parameters in {files} files")
    return 1 if check and files else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
