"""Diagnostics: every authoring mistake carries a source position and is collected, never raised one at a time."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .codes import CODES

# Characters that would break a diagnostic's one line (line and paragraph breaks of any kind, other controls such as
# a terminal's ESC): a message that quotes a value holding them shows them escaped (\n, \u2028, \x1b).
_BREAKS_LINE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")


def one_line(text: str) -> str:
    return _BREAKS_LINE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


# A source position inside a message: `path:line:col`, the path holding a dot, a slash or a bracket (a file such as
# grammars/x.yaml, or <expr>), so that a time such as 1:30:00 quoted in a message is not taken for one.
_POSITION_IN_TEXT = re.compile(r"[^\s:`'\"()\[\]]*[./<][^\s:`'\"()\[\]]*:\d+:\d+")


def has_position(message: str) -> bool:
    """Does the message already name a source position (path:line:col)?"""
    return _POSITION_IN_TEXT.search(message) is not None


def located(message: str, where: str | None) -> str:
    """The message, prefixed with `where` (path:line:col) unless it names a position already: a run-time error
    keeps the most precise position it got (an operator's, an expression's) and gains its node's otherwise."""
    if not where or has_position(message):
        return message
    return f"{where}: {message}"


@dataclass(frozen=True, order=True)
class Position:
    path: str
    line: int = 0  # 1-based; 0 when unknown
    col: int = 0  # 1-based

    def __str__(self) -> str:
        if self.line:
            return f"{self.path}:{self.line}:{self.col}"
        return self.path


@dataclass(frozen=True)
class Diagnostic:
    """One mistake (or warning) at one position, with its stable code from compiler/codes.py (shown as mypy shows
    its codes: `path:line:col: error: message  [code]`)."""

    pos: Position
    message: str
    severity: str = "error"
    code: str = "not-compiled"

    def __post_init__(self) -> None:
        if self.code not in CODES:  # a code is a promise to authors and tools: only the registry's exist
            raise ValueError(f"unknown diagnostic code {self.code!r} (codes: compiler/codes.py)")

    def __str__(self) -> str:
        return one_line(f"{self.pos}: {self.severity}: {self.message}  [{self.code}]")


@dataclass
class Diagnostics:
    """A bag of diagnostics gathered across a whole run."""

    items: list[Diagnostic] = field(default_factory=list)

    def error(self, pos: Position, message: str, *, code: str) -> None:
        self.items.append(Diagnostic(pos, message, "error", code))

    def warning(self, pos: Position, message: str, *, code: str) -> None:
        self.items.append(Diagnostic(pos, message, "warning", code))

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity == "warning"]

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity == "error"]

    def __bool__(self) -> bool:
        return bool(self.errors)

    def sorted(self) -> list[Diagnostic]:
        return sorted(set(self.items), key=lambda d: (d.pos, d.message, d.code))


class CompileFailed(Exception):
    """Raised once, at the end of loading/checking, carrying every diagnostic."""

    def __init__(self, diagnostics: Diagnostics):
        self.diagnostics = diagnostics
        super().__init__("\n".join(str(d) for d in diagnostics.sorted()))


def strict(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """`--strict`: the same diagnostics with every warning made an error (its code kept)."""
    return [Diagnostic(d.pos, d.message, "error", d.code) if d.severity == "warning" else d for d in diagnostics]


class TesseraError(Exception):
    """A runtime failure with a message meant for a person (bad CLI input, unsatisfiable grammar, ...)."""


class SamplingFailed(TesseraError):
    """A grammar or program constraint could not be satisfied within its attempt budget."""


class EvalError(TesseraError):
    """An expression failed at run time (division by zero, empty argmax, size limit)."""
