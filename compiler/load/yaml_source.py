"""Position-aware YAML reading.

PyYAML's composer keeps a mark on every node; we keep them too, keyed by the path to the value, so that a later
stage (pydantic validation, expression checking) can name file:line:col for any value it dislikes.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..errors import Diagnostics, Position

MAX_FILE_BYTES = 1_000_000


# libyaml's C parser when PyYAML was built with it (about ten times faster), else the pure-Python one. Both keep
# node marks, give the same nodes, and are safe loaders (no Python object construction).
_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader) if getattr(yaml, "__with_libyaml__", False) else yaml.SafeLoader


class _Loader(_Base):
    """SafeLoader with YAML 1.2 booleans: `yes`, `no`, `on`, `off` stay strings (they are common answer words)."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


@dataclass(frozen=True)
class ScalarSpot:
    """Where a scalar's text starts, and how it was written (so offsets inside it map back to columns)."""

    pos: Position
    style: str | None  # None plain, "'" or '"' quoted, "|" or ">" block


@dataclass
class SourceDoc:
    path: str
    data: Any
    spots: dict[tuple, ScalarSpot] = field(default_factory=dict)  # path-to-value → where the value starts
    key_spots: dict[tuple, Position] = field(default_factory=dict)  # path-to-value → where its key starts
    block_indents: dict[tuple, int] = field(default_factory=dict)  # block scalar → 0-based indent of its content

    def pos(self, loc: tuple) -> Position:
        """Best position for a path: the value itself, else its key, else the nearest ancestor."""
        loc = tuple(loc)
        while True:
            if loc in self.spots:
                return self.spots[loc].pos
            if loc in self.key_spots:
                return self.key_spots[loc]
            if not loc:
                return Position(self.path, 1, 1)
            loc = loc[:-1]

    def key_pos(self, loc: tuple) -> Position:
        return self.key_spots.get(tuple(loc)) or self.pos(loc)

    def expr_pos(self, loc: tuple, offset_line: int = 0, offset_col: int = 0) -> Position:
        """Position of a character inside an expression string (offsets are 0-based within the string)."""
        spot = self.spots.get(tuple(loc))
        if spot is None:
            return self.pos(loc)
        p = spot.pos
        if spot.style in ("|", ">"):
            # Block scalars start on the line after the indicator; we record the first content line's indent.
            return Position(p.path, p.line + 1 + offset_line, _block_indent(self, loc) + offset_col + 1)
        quote = 1 if spot.style in ("'", '"') else 0
        if offset_line:
            return Position(p.path, p.line + offset_line, offset_col + 1)
        return Position(p.path, p.line, p.col + quote + offset_col)


def _block_indent(doc: SourceDoc, loc: tuple) -> int:
    """0-based indent of a block scalar's content."""
    return doc.block_indents.get(tuple(loc), 2)


def _mark(path: str, mark) -> Position:
    return Position(path, mark.line + 1, mark.column + 1)


def read_yaml(path: Path, display: str, diags: Diagnostics) -> SourceDoc | None:
    """Read one YAML file. Syntax errors, duplicate keys and aliases become diagnostics; returns None if unusable."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        diags.error(Position(display), f"cannot read file: {exc.strerror}")
        return None
    if len(raw) > MAX_FILE_BYTES:
        diags.error(Position(display), f"file is {len(raw)} bytes; the limit for an authoring file is {MAX_FILE_BYTES}")
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        diags.error(Position(display), f"file is not UTF-8 (byte {exc.start})")
        return None
    return parse_yaml(text, display, diags)


def parse_yaml(text: str, display: str, diags: Diagnostics) -> SourceDoc | None:
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        pos = _mark(display, mark) if mark else Position(display)
        what = exc.problem or "invalid YAML"
        if exc.context:
            what = f"{what} ({exc.context})"
        diags.error(pos, f"YAML syntax: {what}")
        return None
    except yaml.YAMLError as exc:  # pragma: no cover - non-marked errors are rare
        diags.error(Position(display), f"YAML syntax: {exc}")
        return None
    doc = SourceDoc(display, None)
    doc.text_lines = text.splitlines()
    if node is None:
        diags.error(Position(display, 1, 1), "file is empty: expected a mapping")
        return None
    seen: set[int] = set()
    doc.data = _build(node, (), doc, diags, seen)
    return doc


def _build(node, loc: tuple, doc: SourceDoc, diags: Diagnostics, seen: set[int]) -> Any:
    if id(node) in seen:
        diags.error(_mark(doc.path, node.start_mark), "YAML aliases (*name) are not supported in authoring files")
        return None
    seen.add(id(node))
    style = getattr(node, "style", None)
    doc.spots[loc] = ScalarSpot(_mark(doc.path, node.start_mark), style)
    if style in ("|", ">") and node.start_mark.line + 1 < len(doc.text_lines):
        content = doc.text_lines[node.start_mark.line + 1]
        doc.block_indents[loc] = len(content) - len(content.lstrip(" "))
    if isinstance(node, yaml.MappingNode):
        out: dict = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                diags.error(_mark(doc.path, key_node.start_mark), "mapping keys must be plain names")
                continue
            key = key_node.value
            if key == "<<":
                diags.error(_mark(doc.path, key_node.start_mark), "YAML merge keys (<<) are not supported")
                continue
            if key in out:
                diags.error(_mark(doc.path, key_node.start_mark), f"duplicate key '{key}'")
                continue
            doc.key_spots[loc + (key,)] = _mark(doc.path, key_node.start_mark)
            out[key] = _build(value_node, loc + (key,), doc, diags, seen)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_build(item, loc + (i,), doc, diags, seen) for i, item in enumerate(node.value)]
    try:
        return _Loader.construct_scalar_value(node)
    except Exception:  # noqa: BLE001 - a bad timestamp or the like: keep the text
        return node.value


_SCALAR_LOADER = yaml.SafeLoader("")  # constructs plain scalars (int, float, bool, null, str) from resolved tags


def _construct_scalar_value(node):
    if node.tag == "tag:yaml.org,2002:str":
        return node.value  # most scalars are text (expressions, names): skip the constructor machinery
    return _SCALAR_LOADER.construct_object(node, deep=True)


_Loader.construct_scalar_value = staticmethod(_construct_scalar_value)
