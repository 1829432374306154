"""Static types of expression values. Structural: a record type is its field names and field types."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any


class Type:
    def __str__(self) -> str:  # pragma: no cover - overridden
        return self.__class__.__name__

    def __format__(self, spec: str) -> str:
        """f"{t:a}" is the type with its article, for messages: "an integer", "a list[string]"."""
        if spec == "a":
            shown = str(self)
            return ("an " if shown[:1] in "aeiou" else "a ") + shown
        return format(str(self), spec)


# The type words authors read in messages (docs/AUTHORING.md, "The language rules in one table"): JSON Schema's
# words, the same words answers and component parameters use. The internal names stay short.
DISPLAY = {"int": "integer", "float": "number", "bool": "boolean", "str": "string"}


@dataclass(frozen=True)
class Scalar(Type):
    name: str

    def __str__(self) -> str:
        return DISPLAY.get(self.name, self.name)


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


@dataclass(eq=False)
class FnT(Type):
    """The static type of a name bound to a function: a compile-time macro, not a value type.

    Calling it compiles `body` in `scope` (where it was defined) extended with the parameters typed as that call's
    arguments, so one function serves ints at one call and records at another; each distinct tuple of argument types
    is compiled once (`bodies`). At run time the body reads its free names from the env it was defined in: the calling
    env when `hops == 0`, else the env reached by following `env["$caller"]` `hops` times (a component evaluates its
    body in a fresh env linked to its caller's, and a lambda its caller wrote must still see the caller's names).

    Equality is identity: two functions with the same text are still two definitions (and scopes are not hashable).
    """

    params: tuple[str, ...]
    body: Any  # lark Tree of the lambda's body; None for a declaration that failed (its error is already reported)
    scope: Any  # compile.Scope of the definition
    site: Any  # compile.Site of the definition, for positions inside the body
    hops: int = 0
    bodies: dict = field(default_factory=dict, repr=False)  # tuple of argument types → Compiled or None (failed)

    def passed_down(self) -> "FnT":
        """The same function seen one component deeper: its env is one more `$caller` link away. The compiled
        bodies do not depend on hops (only the env they run in does), so the cache is shared."""
        return replace(self, hops=self.hops + 1, bodies=self.bodies)

    def __str__(self) -> str:
        return f"function({', '.join(self.params)})"


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


def type_depth(t: Type) -> int:
    """How deeply lists and records nest in values of this type (a scalar is 0), computed without recursion."""
    deepest, stack = 0, [(t, 0)]
    while stack:
        u, d = stack.pop()
        deepest = max(deepest, d)
        if isinstance(u, ListT):
            stack.append((u.elem, d + 1))
        elif isinstance(u, RecordT):
            stack.extend((ft, d + 1) for _, ft in u.fields)
    return deepest


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
