"""Rewrite the library's grammar inputs to the long form, and drop the program lines that pin an input to its default.

    python bench/rewrite_inputs.py [ROOT] [--check]

Issue 25 gave grammar inputs a type word from the language's one vocabulary, the values they take and a default.
This tool moves a library there; it is idempotent (a second run changes nothing) and `--check` exits 1, listing the
files, when a run would change something. It edits lines, never re-dumps a file, so comments and layout elsewhere
stay as written.

Grammars: each input in the short form `name: TYPE  # comment` becomes
  {type: WORD, values: ..., default: ..., summary: "comment"}
- WORD: the canonical word (int → integer, float → number, str → string, bool → boolean).
- values: string inputs list the words of the comment (when the comment is a list of words: `a | b | c`, or words
  after its last colon; parenthesised notes dropped), then every other value a program gives the input, in order
  of first use (programs by path). Integer inputs take {range: [lo, hi]}, the smallest range holding every value a
  program gives. Boolean inputs list none (false and true). An input no program sets gets no values.
- default: the value the most programs pin (a query line holding that one value); a tie goes to the value listed
  first (false before true; the lower integer). An input no program pins gets no default: every task must set it.
- summary: the comment, when there is one.
An input already in the long form is left as written: it is the author's (and makes the tool idempotent).

Programs: every `query:` line that pins an input of its grammar to the one value that is the input's default is
deleted with its comment (the task takes the default, which enters its query, trace and hash exactly as the line
did); a `query:` left empty is deleted too.
"""
from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from compiler.errors import Diagnostics  # noqa: E402
from compiler.load.yaml_source import parse_yaml  # noqa: E402

WORDS = {"int": "integer", "float": "number", "str": "string", "bool": "boolean",
         "integer": "integer", "number": "number", "string": "string", "boolean": "boolean"}
WORD = re.compile(r"[a-z][a-z0-9_-]*")
MAX_LINE = 118


def load(path: Path):
    doc = parse_yaml(path.read_text(), str(path), Diagnostics())
    if doc is None:
        raise SystemExit(f"{path}: does not parse")
    return doc


def same(a, b) -> bool:
    return isinstance(a, bool) == isinstance(b, bool) and a == b


def comment_of(line: str) -> str:
    """The comment of a short-form line `name: word  # comment` ('' when none)."""
    _, _, rest = line.partition(":")
    return rest.partition("#")[2].strip() if "#" in rest else ""


def comment_words(comment: str) -> list[str]:
    """The values a comment lists: `none | mass (note) | distance` or `the way it points: left right up`."""
    text = re.sub(r"\([^)]*\)", " ", comment)
    if ":" in text:
        text = text.rsplit(":", 1)[1]
    parts = [p.strip() for p in (text.split("|") if "|" in text else text.split())]
    if len(parts) >= 2 and all(WORD.fullmatch(p) for p in parts):
        return parts
    return []


def scalar(v) -> str:
    """v as a YAML scalar that reads back as v with the project's loader (quoted only where it must be)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if WORD.fullmatch(v):
        doc = parse_yaml(f"k: [{v}]\n", "<scalar>", Diagnostics())
        if doc is not None and doc.data["k"] == [v]:
            return v
    return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'


def query_values(raw, vocab: dict) -> list:
    if isinstance(raw, list):
        return raw
    if isinstance(raw, dict) and "range" in raw:
        lo, hi = raw["range"]
        return list(range(lo, hi + 1))
    if isinstance(raw, str) and raw.startswith("vocab."):
        return list(vocab.get(raw[len("vocab."):], []))
    return []


def long_form(name: str, word: str, comment: str, given: list, pins: Counter) -> dict:
    """The long form of one short-form input, from its comment and the values programs give it."""
    entry: dict = {"type": WORDS[word]}
    t = entry["type"]
    if t == "string":
        values = list(comment_words(comment))
        for v in given:
            if isinstance(v, str) and v not in values:
                values.append(v)
        if values:
            entry["values"] = values
        order = values
    elif t == "integer":
        ints = [v for v in given if type(v) is int]
        if ints:
            entry["values"] = {"range": [min(ints), max(ints)]}
        order = sorted(set(ints))
    elif t == "number":
        nums = []
        for v in given:
            if not any(same(v, w) for w in nums):
                nums.append(v)
        if nums:
            entry["values"] = sorted(nums)
        order = sorted(nums)
    else:
        order = [False, True]
    if pins:
        most = max(pins.values())
        entry["default"] = next(v for v in order if any(same(v, p) and n == most for p, n in pins.items()))
    if comment:
        entry["summary"] = comment
    return entry


def emit(name: str, entry: dict, indent: str) -> list[str]:
    parts = []
    for key, v in entry.items():
        if key == "values" and isinstance(v, dict):
            text = f"{{range: [{v['range'][0]}, {v['range'][1]}]}}"
        elif key == "values":
            text = "[" + ", ".join(scalar(x) for x in v) + "]"
        else:
            text = scalar(v)
        parts.append((key, text))
    flow = f"{indent}{name}: {{" + ", ".join(f"{k}: {t}" for k, t in parts) + "}"
    if len(flow) <= MAX_LINE:
        return [flow]
    return [f"{indent}{name}:"] + [f"{indent}  {k}: {t}" for k, t in parts]


def plan(root: Path) -> dict[Path, str]:
    """Every file a run would change → its new text."""
    vocab_path = root / "taxonomy" / "vocab.yaml"
    vocab = load(vocab_path).data.get("vocab", {}) if vocab_path.exists() else {}
    grammars = {}
    for path in sorted((root / "grammars").rglob("*.yaml")):
        doc = load(path)
        if isinstance(doc.data, dict) and doc.data.get("inputs"):
            grammars[doc.data["grammar"]] = (path, doc)
    programs = []
    for path in sorted((root / "programs").rglob("*.yaml")):
        doc = load(path)
        if isinstance(doc.data, dict) and doc.data.get("grammar") in grammars:
            programs.append((path, doc))

    changed: dict[Path, str] = {}
    defaults: dict[str, dict] = {}  # grammar → input → its default (inputs with one)
    for gid, (path, doc) in grammars.items():
        lines = doc.text.split("\n")
        out_lines = list(lines)
        defaults[gid] = {}
        # bottom-up, so the line numbers of entries above stay right
        for name, raw in reversed(list(doc.data["inputs"].items())):
            if isinstance(raw, dict):  # the long form already: as written
                if "default" in raw:
                    defaults[gid][name] = raw["default"]
                continue
            given, pins = [], Counter()
            for _, pdoc in programs:
                if pdoc.data["grammar"] != gid or name not in (pdoc.data.get("query") or {}):
                    continue
                q = pdoc.data["query"][name]
                values = query_values(q, vocab)
                given.extend(values)
                if isinstance(q, list) and len(q) == 1:
                    pins[q[0]] += 1
            line_no = doc.key_spots[("inputs", name)][0] - 1
            line = lines[line_no]
            indent = line[:len(line) - len(line.lstrip())]
            entry = long_form(name, raw, comment_of(line), given, pins)
            if "default" in entry:
                defaults[gid][name] = entry["default"]
            out_lines[line_no:line_no + 1] = emit(name, entry, indent)
        text = "\n".join(out_lines)
        if text != doc.text:
            changed[path] = text

    for path, doc in programs:
        query = doc.data.get("query") or {}
        gdefaults = defaults[doc.data["grammar"]]
        drop = []
        for name, raw in query.items():
            if name in gdefaults and isinstance(raw, list) and len(raw) == 1 and same(raw[0], gdefaults[name]):
                line_no = doc.key_spots[("query", name)][0] - 1
                if not re.fullmatch(rf"\s+{name}:\s*\[[^\]\n]*\]\s*(#.*)?", doc.text.split("\n")[line_no]):
                    raise SystemExit(f"{path}:{line_no + 1}: query line for '{name}' is not one line; edit it by hand")
                drop.append(line_no)
        if not drop:
            continue
        lines = doc.text.split("\n")
        if len(drop) == len(query):
            head = doc.key_spots[("query",)][0] - 1
            if lines[head].strip() != "query:":
                raise SystemExit(f"{path}:{head + 1}: 'query:' is not on a line of its own; edit it by hand")
            drop.append(head)
        changed[path] = "\n".join(line for i, line in enumerate(lines) if i not in set(drop))
    return changed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root", nargs="?", default=str(ROOT))
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if a run would change a file")
    args = ap.parse_args(argv)
    root = Path(args.root).resolve()
    changed = plan(root)
    removed = 0
    for path, text in sorted(changed.items()):
        old = path.read_text()
        if path.is_relative_to(root / "programs"):
            removed += old.count("\n") - text.count("\n")
        print(f"{'would rewrite' if args.check else 'rewrote'} {path.relative_to(root)}")
        if not args.check:
            path.write_text(text)
    print(f"{len(changed)} files; {removed} program lines removed", file=sys.stderr)
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
