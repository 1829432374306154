"""Structural requirements for layout expression parameters.

A layout parameter such as `polygons:` takes an expression whose records may carry more fields than the layout
reads (a vertex has a name as well as x and y). A requirement admits every type of the right shape, so the grammar
is still checked at compile time without fixing the record type: it is a check `(type, params) → problem or None`,
which compiler/codegen/grammar.py accepts in place of a type for layout expressions.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..expr.types import ANY, INT, STR, ListT, RecordT, Type, is_numeric

KINDS = {"number": is_numeric, "int": lambda t: t in (INT, ANY), "text": lambda t: t in (STR, INT, ANY)}


@dataclass(frozen=True)
class Records:
    """A list of records (a list of lists of them when `depth` is 2) with at least the `need` fields; `may` fields
    are read when present and must then have their kind. Kinds: number, int, text (a string or an integer)."""
    need: tuple[tuple[str, str], ...]
    may: tuple[tuple[str, str], ...] = ()
    depth: int = 1

    def admits(self, t: Type) -> bool:
        for _ in range(self.depth):
            if t == ANY:
                return True
            if not isinstance(t, ListT):
                return False
            t = t.elem
        if t == ANY:
            return True
        if not isinstance(t, RecordT):
            return False
        for name, kind in self.need:
            ft = t.field(name)
            if ft is None or not KINDS[kind](ft):
                return False
        for name, kind in self.may:
            ft = t.field(name)
            if ft is not None and not KINDS[kind](ft):
                return False
        return True

    def __call__(self, t: Type, params=None) -> str | None:
        return None if self.admits(t) else f"must be {self}, got {t}"

    def __str__(self) -> str:
        fields = ", ".join(f"{n} ({k})" for n, k in self.need)
        extra = f", optionally {', '.join(f'{n} ({k})' for n, k in self.may)}" if self.may else ""
        outer = "a list of lists of records" if self.depth == 2 else "a list of records"
        return f"{outer} with {fields}{extra}"
