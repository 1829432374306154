"""Static types of expression values. Structural: a record type is its field names and field types."""
from __future__ import annotations

from dataclasses import dataclass


class Type:
    def __str__(self) -> str:  # pragma: no cover - overridden
        return self.__class__.__name__


@dataclass(frozen=True)
class Scalar(Type):
    name: str

    def __str__(self) -> str:
        return self.name


INT = Scalar("int")
FLOAT = Scalar("float")
BOOL = Scalar("bool")
STR = Scalar("str")
ANY = Scalar("any")  # unknown: an empty list's element, or the type after an error (suppresses cascades)


@dataclass(frozen=True)
class ListT(Type):
    elem: Type

    def __str__(self) -> str:
        return f"list[{self.elem}]"


@dataclass(frozen=True)
class RecordT(Type):
    fields: tuple[tuple[str, Type], ...]

    def field(self, name: str) -> Type | None:
        for k, t in self.fields:
            if k == name:
                return t
        return None

    @property
    def names(self) -> list[str]:
        return [k for k, _ in self.fields]

    def __str__(self) -> str:
        return "{" + ", ".join(f"{k}: {t}" for k, t in self.fields) + "}"


@dataclass(frozen=True)
class FuncT(Type):
    """A lambda; its parameter type is decided by the builtin that receives it."""

    def __str__(self) -> str:
        return "lambda"


LAMBDA = FuncT()


def record(**fields: Type) -> RecordT:
    return RecordT(tuple(fields.items()))


def is_numeric(t: Type) -> bool:
    return t in (INT, FLOAT, ANY)


def unify(a: Type, b: Type) -> Type | None:
    """The least type holding both, or None when they cannot mix (int and float mix to float)."""
    if a == b:
        return a
    if a == ANY:
        return b
    if b == ANY:
        return a
    if {a, b} == {INT, FLOAT}:
        return FLOAT
    if isinstance(a, ListT) and isinstance(b, ListT):
        e = unify(a.elem, b.elem)
        return None if e is None else ListT(e)
    if isinstance(a, RecordT) and isinstance(b, RecordT) and a.names == b.names:
        fields = []
        for (k, ta), (_, tb) in zip(a.fields, b.fields):
            t = unify(ta, tb)
            if t is None:
                return None
            fields.append((k, t))
        return RecordT(tuple(fields))
    return None


def accepts(expected: Type, actual: Type) -> bool:
    """May a value of `actual` stand where `expected` is asked for?"""
    if actual == ANY or expected == ANY:
        return True
    if expected == FLOAT and actual == INT:
        return True
    u = unify(expected, actual)
    return u == expected


def has_xy(t: Type) -> bool:
    return isinstance(t, RecordT) and is_numeric(t.field("x") or BOOL) and is_numeric(t.field("y") or BOOL)


def type_of_value(v) -> Type:
    """Type of a literal Python value (vocabularies, query values)."""
    if isinstance(v, bool):
        return BOOL
    if isinstance(v, int):
        return INT
    if isinstance(v, float):
        return FLOAT
    if isinstance(v, str):
        return STR
    if isinstance(v, list):
        t: Type = ANY
        for x in v:
            t = unify(t, type_of_value(x)) or ANY
        return ListT(t)
    if isinstance(v, dict):
        return RecordT(tuple((k, type_of_value(x)) for k, x in v.items()))
    return ANY
