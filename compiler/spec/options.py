"""What a scene option may hold: one of its listed words (a mark's `anchor`, a frame's `clockwise`, a guide's `side`)
or a number in bounds (a scale's `ticks`, panels' `gap`). Skia-free: the type checker (codegen/scene.py) checks a
constant option against its rule when the grammar compiles, and the composer (render/compose.py) checks the value of
an option written as an expression against the same rule when it is drawn.

The value rule of the scene language (docs/AUTHORING.md, "The language rules in one table"): every value is an
expression. A YAML number or boolean is that constant, and a bare word listed for the key (an option's allowed
word, a colour word in a colour channel, a palette name) is that word; anything else is an expression over the
names in scope. No option is an exception: each may be computed (`anchor: "'start' if wide else 'middle'"`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class OptionRule:
    """One of `words` (the first is the default), or, with no words, a number in [lo, hi] (an integer when
    `integer`) defaulting to `default`."""
    words: tuple = ()
    lo: float = 0.0
    hi: float = 0.0
    integer: bool = False
    default: Any = None

    @property
    def default_value(self) -> Any:
        return self.words[0] if self.words else self.default

    def type_words(self) -> tuple[str, ...]:
        """The canonical type words a value of this option may have (boolean, string, integer, number)."""
        if not self.words:
            return ("integer",) if self.integer else ("number",)
        return tuple(dict.fromkeys("boolean" if isinstance(w, bool) else "string" for w in self.words))

    def expected(self) -> str:
        if self.words:
            return "one of " + ", ".join(str(w).lower() if isinstance(w, bool) else str(w) for w in self.words)
        return f"{'an integer' if self.integer else 'a number'} in [{self.lo:g}, {self.hi:g}]"

    def accepts(self, v: Any) -> bool:
        if self.words:
            # True == 1 in Python: a listed boolean accepts only a boolean, a listed word only a string
            return any(v == w and isinstance(v, bool) == isinstance(w, bool) for w in self.words)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or (self.integer and v != int(v)):
            return False
        return self.lo <= v <= self.hi

    def value(self, v: Any) -> Any:
        """The accepted value as the renderer reads it (numbers as floats unless integer)."""
        if self.words:
            return v
        return int(v) if self.integer else float(v)


def words(allowed: tuple) -> OptionRule:
    """The rule of a word option as the spec tables write it: its allowed values, the first the default."""
    return OptionRule(words=tuple(allowed))


def number(default: float, lo: float, hi: float, integer: bool = False) -> OptionRule:
    return OptionRule(lo=lo, hi=hi, integer=integer, default=default)


__all__ = ["OptionRule", "words", "number"]
