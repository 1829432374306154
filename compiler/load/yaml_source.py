"""Position-aware, bounded YAML reading.

The file is read as bytes (regular files only, at most MAX_FILE_BYTES), decoded as strict UTF-8 and checked for
characters YAML refuses, each failure one positioned line. The document is then built straight from the parser's
event stream, without recursion and without PyYAML's composer, so every size bound (nesting depth, keys per
mapping, items per list, scalar length, nodes per file) is checked as the event arrives, before anything larger is
built. Anchors and aliases are refused where they appear, so no alias is ever expanded (no billion laughs).

Every value keeps where it came from, keyed by its path in the document, so that a later stage (pydantic validation,
expression checking) can name file:line:col for any value it dislikes; a position inside a scalar (an expression's
error at some character) is mapped back to the exact character in the file for every scalar style: plain, single-
and double-quoted (escapes, `''`, folded line breaks), literal `|` and folded `>` blocks.
"""
from __future__ import annotations

import bisect
import math
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from ..errors import Diagnostics, Position

# Bounds on one authoring file. The bundled library stays far inside them (largest file 7 KB, nesting 10, 19 keys
# in a mapping, 17 items in a list, scalars of 1,332 characters, 449 nodes); they exist so that a small or
# malformed file cannot make the compiler build something huge or recurse deeply.
MAX_FILE_BYTES = 1_000_000
MAX_DEPTH = 32  # nested mappings and lists
MAX_KEYS = 256  # keys in one mapping
MAX_ITEMS = 1_000  # items in one list
MAX_SCALAR_CHARS = 10_000  # characters in one value (an expression is limited further, to 4,000)
MAX_KEY_CHARS = 200  # characters in one key
MAX_NODES = 20_000  # values (scalars, mappings, lists) in one file
MAX_READ_ERRORS = 20  # a file this broken is reported in part; fixing these shows the rest
MAX_YAML_INT = 2**62  # as for integer literals in expressions
_MAX_INT_CHARS = 40  # an int scalar longer than this is out of range without converting it


# libyaml's C parser when PyYAML was built with it (about ten times faster), else the pure-Python one. Both give the
# same events with the same marks (character offsets), and are safe loaders (no Python object construction).
_Base: Any = (getattr(yaml, "CSafeLoader", yaml.SafeLoader) if getattr(yaml, "__with_libyaml__", False)
              else yaml.SafeLoader)


class _Loader(_Base):
    """SafeLoader with YAML 1.2 booleans: `yes`, `no`, `on`, `off` stay strings (they are common answer words)."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)

# What YAML counts as a line break (marks count lines by these), and the characters it refuses outright.
_BREAKS = "\r\n\x85\u2028\u2029"
_LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
_NON_PRINTABLE = re.compile("[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\U00010000-\U0010ffff]")
_CHAR_NAMES = {"\x00": "NUL", "\x1b": "ESC", "\x7f": "DEL", "\x0c": "form feed", "\x0b": "vertical tab",
               "\x08": "backspace"}


class _Lines:
    """Character offset → (line, column), both 1-based, counting line breaks as YAML does."""

    def __init__(self, text: str):
        self.starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]

    def at(self, path: str, index: int) -> Position:
        line = bisect.bisect_right(self.starts, index) - 1
        return Position(path, line + 1, index - self.starts[line] + 1)


class ScalarSpot(NamedTuple):
    """Where a value starts and how it was written, so offsets inside a scalar map back to the file's characters.
    (A tuple, and positions made only when asked for: a file has thousands of values and few errors.)"""

    line: int  # 1-based
    col: int
    style: str | None  # None plain (or a mapping/list), "'" or '"' quoted, "|" or ">" block
    start: int = -1  # character offsets of the scalar in the file (scalars only)
    end: int = -1
    raw: str | None = None  # the scalar's text as parsed (before int/float/bool construction)


@dataclass
class SourceDoc:
    path: str
    data: Any
    spots: dict[tuple, ScalarSpot] = field(default_factory=dict)  # path-to-value → where the value starts
    key_spots: dict[tuple, tuple[int, int]] = field(default_factory=dict)  # path-to-value → its key's line, col
    text: str = ""
    _lines: _Lines | None = None
    _offsets: dict[tuple, list[int] | None] = field(default_factory=dict)  # lazily: value index → file offset

    def pos(self, loc: tuple) -> Position:
        """Best position for a path: the value itself, else its key, else the nearest ancestor."""
        loc = tuple(loc)
        while True:
            if loc in self.spots:
                spot = self.spots[loc]
                return Position(self.path, spot.line, spot.col)
            if loc in self.key_spots:
                return Position(self.path, *self.key_spots[loc])
            if not loc:
                return Position(self.path, 1, 1)
            loc = loc[:-1]

    def key_pos(self, loc: tuple) -> Position:
        at = self.key_spots.get(tuple(loc))
        return Position(self.path, *at) if at else self.pos(loc)

    def expr_pos(self, loc: tuple, offset_line: int = 0, offset_col: int = 0) -> Position:
        """Position in the file of a character inside a scalar, given as 0-based line and column within its value
        (lines split at \\n, as the expression parser and jinja2 count them)."""
        loc = tuple(loc)
        spot = self.spots.get(loc)
        if spot is None or spot.raw is None:
            return self.pos(loc)
        if loc not in self._offsets:
            self._offsets[loc] = scalar_offsets(self.text, spot.start, spot.end, spot.style, spot.raw)
        offsets = self._offsets[loc]
        if offsets is None:  # a scalar form the mapper does not know: the scalar's start is still right
            return Position(self.path, spot.line, spot.col)
        value_lines = spot.raw.split("\n")
        offset_line = max(0, min(offset_line, len(value_lines) - 1))
        index = sum(len(s) + 1 for s in value_lines[:offset_line]) + max(0, offset_col)
        index = min(index, len(offsets) - 1)
        if self._lines is None:
            self._lines = _Lines(self.text)
        return self._lines.at(self.path, offsets[index])


# -- reading a file ----------------------------------------------------------------------------------------------
def read_yaml(path: Path, display: str, diags: Diagnostics) -> SourceDoc | None:
    """Read one YAML file. Every problem is one positioned diagnostic; returns None if the file is unusable."""
    raw = read_bounded(path, display, diags)
    if raw is None:
        return None
    text = decode(raw, display, diags)
    if text is None:
        return None
    return parse_yaml(text, display, diags)


def read_bounded(path: Path, display: str, diags: Diagnostics) -> bytes | None:
    """The bytes of a regular file of at most MAX_FILE_BYTES, never more read (a FIFO or device is refused before it
    is opened, so reading cannot block)."""
    here = Position(display, 1, 1)
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            diags.error(here, "not a regular file (a folder, pipe or device cannot be an authoring file)",
                    code="file-access")
            return None
        if info.st_size > MAX_FILE_BYTES:
            diags.error(here, f"file is {info.st_size} bytes; the limit for an authoring file is {MAX_FILE_BYTES}",
                    code="bound")
            return None
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            raw = f.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        diags.error(here, f"cannot read file: {exc.strerror or exc}", code="file-access")
        return None
    if len(raw) > MAX_FILE_BYTES:  # grew since stat
        diags.error(here, f"file is over {MAX_FILE_BYTES} bytes, the limit for an authoring file", code="bound")
        return None
    return raw


def decode(raw: bytes, display: str, diags: Diagnostics) -> str | None:
    """Strict UTF-8 without a byte-order mark; a bad byte or a character YAML refuses is named with its byte offset
    and its line and column."""
    if raw.startswith(b"\xef\xbb\xbf"):  # editors hide it; dropping it keeps columns as the author sees them
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = raw[:exc.start].decode("utf-8")
        pos = _Lines(good).at(display, len(good))
        diags.error(pos, f"file is not UTF-8: byte 0x{raw[exc.start]:02x} at byte offset {exc.start} "
                         f"({exc.reason}); save the file as UTF-8", code="file-encoding")
        return None
    bad = _NON_PRINTABLE.search(text)
    if bad:
        ch = bad.group()
        name = _CHAR_NAMES.get(ch, "a control character")
        offset = len(text[:bad.start()].encode("utf-8"))
        diags.error(_Lines(text).at(display, bad.start()), f"{name} (U+{ord(ch):04X}) at byte offset {offset} is "
                                                           f"not allowed in a YAML file", code="file-encoding")
        return None
    return text


# -- building the document from events ----------------------------------------------------------------------------
class _TooBig(Exception):
    """A bound was crossed: reading this file stops (what follows could be arbitrarily large)."""


class _Stop(Exception):
    """Too many errors in one file: reading it stops."""


class _Frame:
    __slots__ = ("value", "loc", "key", "skip", "count")

    def __init__(self, value, loc, skip: bool):
        self.value = value  # the dict or list being filled
        self.loc = loc
        self.key = _NO_KEY  # for a mapping: the key whose value comes next
        self.skip = skip  # inside a part that is reported and dropped (a bad key, a duplicate): record nothing
        self.count = 0  # keys or items so far


_NO_KEY = object()  # a mapping's next event is a key
_BAD_KEY = object()  # the key was refused (reported): its value is read and dropped
_KEY_IN_PROGRESS = object()  # a mapping or list is being read as a key (refused once it ends)


def parse_yaml(text: str, display: str, diags: Diagnostics) -> SourceDoc | None:
    """Build the document of one YAML text; every problem is a positioned diagnostic. None if it is unusable."""
    if text.startswith("\ufeff"):
        text = text[1:]
    doc = SourceDoc(display, None, text=text)
    builder = _Builder(doc, diags)
    loader = _Loader(text)
    try:
        builder.run(loader)
    except (_TooBig, _Stop):
        return None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        pos = builder.mark(mark) if mark else Position(display, 1, 1)
        what = exc.problem or "invalid YAML"
        if exc.context:
            what = f"{what} ({exc.context})"
        diags.error(pos, f"YAML syntax: {_one_line(what)}", code="yaml-syntax")
        return None
    except yaml.reader.ReaderError as exc:  # caught by decode() already; kept for text from other callers
        diags.error(_Lines(text).at(display, max(0, exc.position)), f"YAML syntax: {_one_line(exc.reason)}",
                code="yaml-syntax")
        return None
    except yaml.YAMLError as exc:  # pragma: no cover - non-marked errors are rare
        diags.error(Position(display, 1, 1), f"YAML syntax: {_one_line(str(exc))}", code="yaml-syntax")
        return None
    finally:
        loader.dispose()
    if not builder.seen_document or builder.empty:
        diags.error(Position(display, 1, 1), "file is empty: expected a mapping", code="yaml-syntax")
        return None
    doc.data = builder.root
    return doc


def _one_line(s: str) -> str:
    return " ".join(str(s).split())


class _Builder:
    """Folds the event stream into plain Python values (dict, list, str, int, float, bool, None), iteratively."""

    def __init__(self, doc: SourceDoc, diags: Diagnostics):
        self.doc = doc
        self.diags = diags
        self.stack: list[_Frame] = []
        self.root: Any = None
        self.nodes = 0
        self.errors = 0
        self.seen_document = False
        self.empty = True

    def mark(self, mark) -> Position:
        # Both parsers count lines at every YAML line break (\r\n, \r, \n, NEL, LS, PS) and columns in characters,
        # as _Lines does (the BOM, which one of them counts, is removed before parsing).
        return Position(self.doc.path, mark.line + 1, mark.column + 1)

    def error(self, mark, message: str, *, code: str) -> None:
        self.diags.error(self.mark(mark), message, code=code)
        self.errors += 1
        if self.errors >= MAX_READ_ERRORS:
            self.diags.error(self.mark(mark), f"{MAX_READ_ERRORS} errors in this file; reading it stopped here",
                             code="bound")
            raise _Stop

    def too_big(self, mark, message: str) -> None:
        self.diags.error(self.mark(mark), message, code="bound")
        raise _TooBig

    def run(self, loader) -> None:
        documents = 0
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:
                    self.error(event.start_mark, "a file holds one YAML document; remove the second `---`",
                            code="yaml-syntax")
                    return
                self.seen_document = True
            elif isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent, yaml.MappingStartEvent,
                                    yaml.SequenceStartEvent)):
                self.node(event, loader)
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                frame = self.stack.pop()
                self.placed(frame.value)

    def node(self, event, loader) -> None:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            self.too_big(event.start_mark, f"more than {MAX_NODES} values in one file; the limit keeps compiling "
                                           f"fast (split the file)")
        parent = self.stack[-1] if self.stack else None
        # Is this event a mapping key, and where does its value go?
        if parent is not None and isinstance(parent.value, dict) and parent.key is _NO_KEY:
            self.key(event, parent, loader)
            return
        if parent is None:
            loc, skip = (), False
            self.empty = False
        elif isinstance(parent.value, dict):
            loc, skip = parent.loc + (parent.key,), parent.skip or parent.key is _BAD_KEY
        else:
            parent.count += 1
            if parent.count > MAX_ITEMS:
                self.too_big(event.start_mark, f"list has more than {MAX_ITEMS} items; the limit for one list "
                                               f"in an authoring file is {MAX_ITEMS}")
            loc, skip = parent.loc + (len(parent.value),), parent.skip
        anchor = getattr(event, "anchor", None)
        if isinstance(event, yaml.AliasEvent):
            self.error(event.start_mark, "YAML aliases (*name) are not supported in authoring files",
                    code="yaml-syntax")
            self.placed(None)
            return
        if anchor is not None:
            self.error(event.start_mark, f"YAML anchors (&{anchor[:40]}) are not supported in authoring files",
                    code="yaml-syntax")
        if not skip:
            self.doc.spots[loc] = self.spot(event)
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            if len(self.stack) >= MAX_DEPTH:
                self.too_big(event.start_mark, f"mappings and lists nest more than {MAX_DEPTH} levels deep; the "
                                               f"limit for an authoring file is {MAX_DEPTH}")
            self.stack.append(_Frame({} if isinstance(event, yaml.MappingStartEvent) else [], loc, skip))
            return
        self.placed(self.scalar(event, loader))

    def key(self, event, parent: _Frame, loader) -> None:
        parent.count += 1
        if parent.count > MAX_KEYS:
            self.too_big(event.start_mark, f"mapping has more than {MAX_KEYS} keys; the limit for one mapping in "
                                           f"an authoring file is {MAX_KEYS}")
        if isinstance(event, yaml.AliasEvent):
            self.error(event.start_mark, "YAML aliases (*name) are not supported in authoring files",
                    code="yaml-syntax")
            parent.key = _BAD_KEY
            return
        if not isinstance(event, yaml.ScalarEvent):  # a mapping or list as a key: read it, drop it and its value
            self.error(event.start_mark, "mapping keys must be plain names", code="yaml-syntax")
            self.stack.append(_Frame({} if isinstance(event, yaml.MappingStartEvent) else [], (), True))
            parent.key = _KEY_IN_PROGRESS
            return
        key = event.value
        if len(key) > MAX_KEY_CHARS:
            self.too_big(event.start_mark, f"key is {len(key)} characters long; the limit for a key is "
                                           f"{MAX_KEY_CHARS}")
        if event.anchor is not None:
            self.error(event.start_mark, f"YAML anchors (&{event.anchor[:40]}) are not supported in authoring files",
                    code="yaml-syntax")
        if key == "<<" and not event.style:
            self.error(event.start_mark, "YAML merge keys (<<) are not supported", code="yaml-syntax")
            parent.key = _BAD_KEY
        elif key in parent.value:
            self.error(event.start_mark, f"duplicate key '{key[:80]}'", code="duplicate-key")
            parent.key = _BAD_KEY
        else:
            parent.key = key
            if not parent.skip:
                mark = event.start_mark
                self.doc.key_spots[parent.loc + (key,)] = (mark.line + 1, mark.column + 1)

    def placed(self, value) -> None:
        """A complete value: store it in its parent (or as the document)."""
        if not self.stack:
            self.root = value
            return
        parent = self.stack[-1]
        if isinstance(parent.value, list):
            parent.value.append(value)  # even a refused item, so that later items keep their index
        elif parent.key is _KEY_IN_PROGRESS:  # a mapping or list used as a key has ended; its value comes next
            parent.key = _BAD_KEY
        else:
            if parent.key is not _BAD_KEY:
                parent.value[parent.key] = value
            parent.key = _NO_KEY

    def spot(self, event) -> ScalarSpot:
        mark = event.start_mark
        if isinstance(event, yaml.ScalarEvent):
            return ScalarSpot(mark.line + 1, mark.column + 1, event.style or None, mark.index, event.end_mark.index,
                              event.value)
        return ScalarSpot(mark.line + 1, mark.column + 1, None)

    def scalar(self, event, loader) -> Any:
        text = event.value
        if len(text) > MAX_SCALAR_CHARS:
            self.too_big(event.start_mark, f"value is {len(text)} characters long; the limit for one value is "
                                           f"{MAX_SCALAR_CHARS}")
        tag = event.tag
        if tag is None or tag == "!":
            tag = loader.resolve(yaml.ScalarNode, text, event.implicit)
        if tag == "tag:yaml.org,2002:str":
            return text  # most scalars are text (expressions, names): skip the constructor machinery
        if tag == "tag:yaml.org,2002:int" and len(text) > _MAX_INT_CHARS:
            self.error(event.start_mark, f"integer of {len(text)} digits is out of range (limit {MAX_YAML_INT})",
                    code="yaml-number")
            return None
        node = yaml.ScalarNode(tag, text, event.start_mark, event.end_mark, event.style)
        try:
            value = _SCALAR_LOADER.construct_object(node, deep=True)
        except Exception:  # noqa: BLE001 - a bad timestamp, an unknown tag or the like: keep the text
            return text
        finally:  # the constructor remembers every node it built; this one is not needed again
            _SCALAR_LOADER.constructed_objects.pop(node, None)
            _SCALAR_LOADER.recursive_objects.pop(node, None)
        if isinstance(value, float) and not math.isfinite(value):
            self.error(event.start_mark, f"number '{text[:40]}' is not finite (infinity and NaN cannot be "
                                         f"authored)", code="yaml-number")
            return None
        if isinstance(value, int) and not isinstance(value, bool) and not -MAX_YAML_INT < value < MAX_YAML_INT:
            self.error(event.start_mark, f"integer {text[:40]} is out of range (limit {MAX_YAML_INT})",
                    code="yaml-number")
            return None
        return value


_SCALAR_LOADER = yaml.SafeLoader("")  # constructs plain scalars (int, float, bool, null, str) from resolved tags


# -- positions inside scalars -------------------------------------------------------------------------------------
_ESCAPES = {"0": "\0", "a": "\x07", "b": "\x08", "t": "\x09", "\t": "\x09", "n": "\x0A", "v": "\x0B", "f": "\x0C",
            "r": "\x0D", "e": "\x1B", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xA0",
            "L": "\u2028", "P": "\u2029"}
_ESCAPE_CODES = {"x": 2, "u": 4, "U": 8}


def scalar_offsets(text: str, start: int, end: int, style: str | None, value: str) -> list[int] | None:
    """For each character of a scalar's value, the offset in `text` of the character it came from (a folded line
    break maps to the break, an escape to its backslash), plus one entry for the end of the value. Decodes the
    source as YAML does and returns None unless the result is exactly `value`, so a position is never guessed."""
    try:
        if style in ("|", ">"):
            got = _block_offsets(text, start, style, value)
        else:
            got = _flow_offsets(text, start, end, style)
    except (IndexError, ValueError):
        return None
    if got is None:
        return None
    chars, offsets = got
    if "".join(chars) != value:
        return None
    return offsets


def _break_len(text: str, i: int) -> int:
    return 2 if text.startswith("\r\n", i) else 1


def _break_char(ch: str) -> str:
    return ch if ch in "\u2028\u2029" else "\n"


def _flow_offsets(text: str, start: int, end: int, style: str | None):
    """Plain, '…' and "…" scalars: trailing blanks before a line break are dropped, the break folds to a space (or
    to n-1 newlines after n breaks), leading blanks of the next line are dropped; escapes and '' decode."""
    chars: list[str] = []
    offsets: list[int] = []
    i, stop = (start + 1, end - 1) if style in ("'", '"') else (start, end)

    def breaks_after(i: int) -> tuple[list[int], int]:
        """Offsets of the empty lines that follow a line break, and where the next content starts."""
        found = []
        while True:
            while i < stop and text[i] in " \t":
                i += 1
            if i < stop and text[i] in _BREAKS:
                found.append(i)
                i += _break_len(text, i)
            else:
                return found, i

    while i < stop:
        c = text[i]
        if c in " \t":
            j = i
            while j < stop and text[j] in " \t":
                j += 1
            if j < stop and text[j] in _BREAKS:
                i = j
                continue
            chars.extend(text[i:j])
            offsets.extend(range(i, j))
            i = j
        elif c in _BREAKS:
            first = i
            found, i = breaks_after(i + _break_len(text, i))
            if c in "\u2028\u2029":
                chars.append(c)
                offsets.append(first)
            elif not found:
                chars.append(" ")
                offsets.append(first)
            for b in found:
                chars.append(_break_char(text[b]))
                offsets.append(b)
        elif style == '"' and c == "\\":
            n = text[i + 1]
            if n in _BREAKS:  # an escaped line break joins the lines without a space
                found, i = breaks_after(i + 1 + _break_len(text, i + 1))
                for b in found:
                    chars.append(_break_char(text[b]))
                    offsets.append(b)
            elif n in _ESCAPES:
                chars.append(_ESCAPES[n])
                offsets.append(i)
                i += 2
            elif n in _ESCAPE_CODES:
                width = _ESCAPE_CODES[n]
                chars.append(chr(int(text[i + 2:i + 2 + width], 16)))
                offsets.append(i)
                i += 2 + width
            else:
                return None
        elif style == "'" and c == "'" and text[i + 1:i + 2] == "'":
            chars.append("'")
            offsets.append(i)
            i += 2
        else:
            chars.append(c)
            offsets.append(i)
            i += 1
    offsets.append(stop)
    return chars, offsets


def _block_offsets(text: str, start: int, style: str, value: str):
    """| and > scalars. The content indent is the first content line's, unless an indentation indicator sets it
    relative to the parent's indent (which the event does not give): then each indent the parent could have (up to
    the indicator's column) is decoded, and the one that reproduces the value is used."""
    i = start + 1
    chomp: bool | None = None  # None clip, False strip, True keep
    explicit = 0
    while i < len(text) and text[i] in "+-123456789":
        if text[i] in "+-":
            chomp = text[i] == "+"
        else:
            explicit = int(text[i])
        i += 1
    while i < len(text) and text[i] not in _BREAKS:
        i += 1
    if i >= len(text):
        return None
    body = i + _break_len(text, i)
    # Auto-detected indent: the deepest indentation among the leading empty lines and the first content line.
    j, auto, col = body, 0, 0
    while j < len(text) and text[j] in " " + _BREAKS:
        if text[j] == " ":
            col += 1
            auto = max(auto, col)
            j += 1
        else:
            col = 0
            j += _break_len(text, j)
    if explicit:
        # The indent is the parent's plus the indicator, and the parent's is at most the indicator's column.
        line_start = max(text.rfind(c, 0, start) for c in _BREAKS) + 1
        candidates = [explicit + parent for parent in range(start - line_start + 1)]
    else:
        candidates = [auto]
    for indent in candidates:
        got = _decode_block(text, body, indent, style == ">", chomp)
        if got is not None and "".join(got[0]) == value:
            return got
    return None


def _decode_block(text: str, pos: int, indent: int, folded: bool, chomp: bool | None):
    chars: list[str] = []
    offsets: list[int] = []
    n = len(text)

    def breaks_at(pos: int) -> tuple[list[int], int, int]:
        """Empty lines (up to `indent` spaces then a break) from pos: their break offsets, where the next line's
        content starts, and its column."""
        found = []
        while True:
            col = 0
            while col < indent and pos < n and text[pos] == " ":
                pos += 1
                col += 1
            if pos < n and text[pos] in _BREAKS:
                found.append(pos)
                pos += _break_len(text, pos)
            else:
                return found, pos, col

    found, pos, col = breaks_at(pos)
    last_break: int | None = None
    while col == indent and pos < n:
        for b in found:
            chars.append(_break_char(text[b]))
            offsets.append(b)
        leading_non_space = text[pos] not in " \t"
        j = pos
        while j < n and text[j] not in _BREAKS:
            j += 1
        chars.extend(text[pos:j])
        offsets.extend(range(pos, j))
        if j >= n:
            last_break = None
            found, pos = [], n
            break
        last_break = j
        found, pos, col = breaks_at(j + _break_len(text, j))
        if col == indent and pos < n:
            if folded and _break_char(text[j]) == "\n" and leading_non_space and text[pos] not in " \t":
                if not found:
                    chars.append(" ")
                    offsets.append(j)
            else:
                chars.append(_break_char(text[j]))
                offsets.append(j)
        else:
            break
    end = offsets[-1] + 1 if offsets else pos
    if chomp is not False and last_break is not None:
        chars.append(_break_char(text[last_break]))
        offsets.append(last_break)
    if chomp is True:
        for b in found:
            chars.append(_break_char(text[b]))
            offsets.append(b)
    offsets.append(end)
    return chars, offsets
