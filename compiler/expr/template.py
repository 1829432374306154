"""Text templates (prompts, titles, text parameters): jinja2 in its sandbox, restricted to printing data.

A template may print values, branch with `if`/`elif`/`else` and `a if c else b`, compare, use `and or not + -`,
read record fields (`a.b`), index lists and text (`a[0]`), write list literals, and apply the filters in FILTERS and
the tests in TESTS. Loops, macros, calls, assignments, includes, slices and `* / // % ** ~` are refused at compile
time. The bounds, all checked before jinja2 builds a tree (a pass over its token stream):

- source: at most MAX_TEMPLATE characters; one `{{ }}` or `{% %}` tag holds at most MAX_OPERATORS operators (`+ - .
  [ | == and not if is ...`); brackets inside a tag and `if` blocks inside each other nest at most MAX_NESTING deep;
- names: exactly those the render gives (the caller's scope at compile time is the env at render time; functions
  are not values); a name the render lacks is a clear error, never an empty string;
- printing: only text, integers and finite floats print. A bool, list, record or none is a compile error where its
  type is known and a render error otherwise. Field and index access reads record fields and list or text items
  only, so no method, class or module is reachable (a bound method would print its address: bytes per process);
- filters: arguments bounded (join separator <= MAX_SEPARATOR characters, round precision 0..MAX_DIGITS), each
  result <= MAX_OUTPUT characters; output: at most MAX_OUTPUT characters, stopped as it streams.
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, Callable, Literal, NamedTuple

import jinja2
from jinja2 import StrictUndefined, Undefined, nodes
from jinja2.exceptions import TemplateError, TemplateSyntaxError
from jinja2.filters import do_capitalize, do_lower, do_round, do_title, do_trim, do_upper
from jinja2.lexer import TokenStream
from jinja2.sandbox import SandboxedEnvironment

from ..errors import Diagnostics, EvalError
from .types import ANY, BOOL, FLOAT, INT, STR, FnT, ListT, RecordT, Type, type_of_value, unify

MAX_TEMPLATE = 4_000  # characters of template source
MAX_OUTPUT = 20_000  # characters one render (or one filter result) may produce
MAX_OPERATORS = 32  # operators in one {{ }} or {% %} tag; more belongs in a `compute` step
MAX_NESTING = 8  # brackets inside one tag, and `if` blocks inside one another
MAX_SEPARATOR = 20  # characters of a join separator
MAX_DIGITS = 10  # round's precision
MAX_INT_TEXT = 32  # characters of text the int filter reads

# The tokens that make a tree one level deeper: counting them bounds the tree jinja builds and compiles.
_COUNTED_OPERATORS = frozenset("+ - * / // % ** ~ . | [ == != < > <= >= =".split())
_COUNTED_WORDS = frozenset(("and", "or", "not", "if", "else", "is", "in"))
_OPEN, _CLOSE = frozenset("([{"), frozenset(")]}")
# Block statements that hold a body up to an `end…` tag (`set` only without `=`).
_BODY_BLOCKS = frozenset(("if", "for", "macro", "call", "filter", "with", "block", "autoescape", "trans"))


# -- what prints ---------------------------------------------------------------------------------------------------

def _describe(v: Any) -> str:
    if isinstance(v, Undefined):
        return "an undefined value"
    if isinstance(v, bool):
        return f"a bool ({v})"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, float):
        return f"a number ({v})" if math.isfinite(v) else f"a non-finite number ({v})"
    if isinstance(v, str):
        return "text"
    if isinstance(v, (list, tuple)):
        return "a list"
    if isinstance(v, dict):
        return "a record"
    if v is None:
        return "none"
    return f"a {type(v).__name__}"  # never data: reported by type name only, so no address is ever shown


def _is_printable(v: Any) -> bool:
    return isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool)) or \
        (isinstance(v, float) and math.isfinite(v))


def _finalize(v: Any) -> Any:
    """Every printed value passes here (jinja's `finalize`): text and numbers print as str() does; nothing else."""
    if _is_printable(v):
        return v
    raise EvalError(f"it prints {_describe(v)}; only text and numbers print")


def _print_problem(t: Type) -> str | None:
    """Why a value of static type `t` cannot print, or None."""
    if t in (STR, INT, FLOAT, ANY):
        return None
    if t == BOOL:
        return "a bool (it would print True or False); write {{ 'yes' if x else 'no' }} or x | fmt"
    if isinstance(t, ListT):
        return f"a list ({t}); print it with join, lettered or fmt"
    if isinstance(t, RecordT):
        return f"a record ({t}); print one of its fields"
    return f"a {t}"


def _field(obj: Any, name: str) -> Any:
    if isinstance(obj, dict):
        if name in obj and not name.startswith("_"):
            return obj[name]
        raise EvalError(f"it reads field '{name}', which this record lacks (it has: {', '.join(obj)})")
    raise EvalError(f"it reads field '{name}' of {_describe(obj)}; only records have fields")


def _item(obj: Any, index: Any) -> Any:
    if isinstance(index, str):
        return _field(obj, index)
    if not isinstance(obj, (list, tuple, str)):
        raise EvalError(f"it indexes {_describe(obj)}; only lists and text have items")
    if not isinstance(index, int) or isinstance(index, bool):
        raise EvalError(f"the index is {_describe(index)}; an index is an integer")
    if not -len(obj) <= index < len(obj):
        raise EvalError(f"the index {index} is out of range for a length of {len(obj)}")
    return obj[index]


class _DataEnvironment(SandboxedEnvironment):
    """The sandbox, with attribute and item access narrowed to data: `a.b` and `a['b']` read a record's field,
    `a[i]` a list's or a text's item. Python attributes (methods, `__class__`, …) are never looked up at all."""

    def getattr(self, obj, attribute):
        return _field(obj, attribute)

    def getitem(self, obj, argument):
        return _item(obj, argument)

    def _tokenize(self, source, name, filename=None, state=None):
        # Every parse goes through the bounded scan, which also gives each token its column.
        return TokenStream(self.lexer.wrap(iter(_scan(source)), name, filename), name, filename)


# -- filters and tests ---------------------------------------------------------------------------------------------

def _need_text(fname: str, v: Any, what: str = "its input") -> str:
    if not isinstance(v, str):
        raise EvalError(f"filter '{fname}' needs text as {what}, got {_describe(v)}")
    return v


def _need_list(fname: str, v: Any) -> list | tuple:
    if not isinstance(v, (list, tuple)):
        raise EvalError(f"filter '{fname}' needs a list, got {_describe(v)}")
    return v


def _need_number(fname: str, v: Any) -> Any:
    if not ((isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and math.isfinite(v))):
        raise EvalError(f"filter '{fname}' needs a finite number, got {_describe(v)}")
    return v


def _bounded(fname: str, out: str) -> str:
    if len(out) > MAX_OUTPUT:
        raise EvalError(f"filter '{fname}' would produce {len(out)} characters (limit {MAX_OUTPUT})")
    return out


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if not math.isfinite(v):
            raise EvalError(f"filter 'fmt' cannot print {_describe(v)}")
        return f"{v:g}"
    if isinstance(v, (list, tuple)):
        return ", ".join(_fmt(x) for x in v)
    if isinstance(v, (str, int)):
        return str(v)
    raise EvalError(f"filter 'fmt' prints text, numbers, bools and lists of them, got {_describe(v)}")


def _lettered(options) -> str:
    options = _need_list("lettered", options)
    texts = [_fmt(o) for o in options[:26]]
    letters = [chr(65 + i) for i in range(len(texts))]
    for letter, text in zip(letters, texts):
        # 'C. A': the answer "A" would read as option A; a scene's labels must start past the option letters
        if text.strip().upper() in letters:
            raise EvalError(f"filter 'lettered': option {letter} reads '{text.strip()}', which is also an option letter "
                            f"(A to {letters[-1]}), so an answer cannot tell them apart; label the scene's objects "
                            f"from a letter past the options (letter({len(letters)} + i))")
    return _bounded("lettered", "\n".join(f"{letter}. {text}" for letter, text in zip(letters, texts)))


def _plural(word: str, n: int = 2) -> str:
    _need_text("plural", word)
    if not isinstance(n, int) or isinstance(n, bool):
        raise EvalError(f"filter 'plural' needs an integer count, got {_describe(n)}")
    if n == 1:
        return word
    if word.endswith(("s", "x", "sh", "ch")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def _join(items, separator: str = "") -> str:
    parts = []
    if isinstance(items, str):  # the characters: `{{ name | join("'") }}` marks each vertex of A'B'C'
        items = list(items)
    for x in _need_list("join", items):
        if not _is_printable(x):
            raise EvalError(f"filter 'join' prints text and numbers, got {_describe(x)} in the list")
        parts.append(str(x))
    _need_text("join", separator, "its separator")
    if len(separator) > MAX_SEPARATOR:
        raise EvalError(f"the join separator is {len(separator)} characters (limit {MAX_SEPARATOR})")
    size = sum(map(len, parts)) + len(separator) * max(0, len(parts) - 1)
    if size > MAX_OUTPUT:  # measured before the text is built
        raise EvalError(f"filter 'join' would produce {size} characters (limit {MAX_OUTPUT})")
    return separator.join(parts)


def _round(v, precision: int = 0, method: Literal["common", "ceil", "floor"] = "common") -> float:
    _need_number("round", v)
    if not isinstance(precision, int) or isinstance(precision, bool) or not 0 <= precision <= MAX_DIGITS:
        raise EvalError(f"filter 'round' takes a precision from 0 to {MAX_DIGITS}, got {precision!r}")
    if method not in ("common", "ceil", "floor"):
        raise EvalError(f"filter 'round' rounds 'common', 'ceil' or 'floor', got {method!r}")
    return do_round(v, precision, method)


def _int(v) -> int:
    if isinstance(v, str):
        if len(v) > MAX_INT_TEXT:
            raise EvalError(f"filter 'int' reads at most {MAX_INT_TEXT} characters, got {len(v)}")
        try:
            return int(v.strip())
        except ValueError:
            try:
                v = float(v)
            except ValueError:
                raise EvalError(f"filter 'int' cannot read {v!r} as a number") from None
    return int(_need_number("int", v))


def _length(v) -> int:
    if not isinstance(v, (list, tuple, str, dict)):
        raise EvalError(f"filter 'length' needs a list, text or record, got {_describe(v)}")
    return len(v)


def _end(fname: str, index: int):
    def pick(v):
        if not isinstance(v, (list, tuple, str)):
            raise EvalError(f"filter '{fname}' needs a list or text, got {_describe(v)}")
        if not v:
            raise EvalError(f"filter '{fname}' of an empty {'text' if isinstance(v, str) else 'list'}")
        return v[index]
    return pick


def _default(v, fallback=""):
    return fallback if isinstance(v, Undefined) or v is None else v


def _string(v) -> str:
    if not _is_printable(v):
        raise EvalError(f"filter 'string' prints text and numbers, got {_describe(v)}")
    return str(v)


def _text_filter(fname: str, fn: Callable[[str], str]):
    return lambda v: fn(_need_text(fname, v))


class Filter(NamedTuple):
    fn: Callable
    max_args: int  # most arguments after the piped value
    signature: str  # as written in a template
    returns: str  # the type of the result
    doc: str  # one line for docs/reference/filters.md


# name → Filter. jinja's own text filters are reused for their exact output.
FILTERS: dict[str, Filter] = {
    "join": Filter(_join, 1, "list | join(separator='')", "string",
                   "the items (text or numbers; or the characters of a text) joined by the separator"),
    "upper": Filter(_text_filter("upper", do_upper), 0, "text | upper", "string", "in capitals"),
    "lower": Filter(_text_filter("lower", do_lower), 0, "text | lower", "string", "in lower case"),
    "title": Filter(_text_filter("title", do_title), 0, "text | title", "string",
                    "every word with a capital first letter"),
    "capitalize": Filter(_text_filter("capitalize", do_capitalize), 0, "text | capitalize", "string",
                         "the first letter a capital, the rest lower case"),
    "trim": Filter(_text_filter("trim", do_trim), 0, "text | trim", "string",
                   "without leading and trailing white space"),
    "round": Filter(_round, 2, "number | round(precision=0, method='common')", "number",
                    f"rounded to precision digits (0 to {MAX_DIGITS}): 'common' rounds half to even (as Python's "
                    "round), 'ceil' up, 'floor' down; a float"),
    "int": Filter(_int, 0, "value | int", "integer", "a number truncated, or a text of digits read as a number"),
    "length": Filter(_length, 0, "value | length", "integer", "number of items of a list, characters of a text or "
                                                                 "fields of a record"),
    "first": Filter(_end("first", 0), 0, "list | first", "item", "the first item (or character); an error if empty"),
    "last": Filter(_end("last", -1), 0, "list | last", "item", "the last item (or character); an error if empty"),
    "default": Filter(_default, 1, "value | default(fallback='')", "value",
                      "the value, or the fallback when it is undefined or none"),
    "string": Filter(_string, 0, "value | string", "string", "a text or number as text"),
    "lettered": Filter(_lettered, 0, "list | lettered", "string",
                       "the options as lines 'A. first', 'B. second', ... (at most 26); an error when an option "
                       "reads as an option letter"),
    "plural": Filter(_plural, 1, "word | plural(n=2)", "string",
                     "the English plural of the word unless n is 1 (s, es, ies)"),
    "fmt": Filter(_fmt, 0, "value | fmt", "string",
                  "a value printed for a reader: true/false, floats in the shortest form (%g), lists joined by ', '"),
}
TESTS = ("defined", "undefined", "none", "number", "string")

# optimized=False: jinja's constant folder revisits every subtree of an operator chain at each level (quadratic:
# 0.8 s for a 4,000-character template of 32-term sums); without it the same text comes out in a few ms.
_ENV = _DataEnvironment(autoescape=False, keep_trailing_newline=False, undefined=StrictUndefined,
                        finalize=_finalize, optimized=False)
_ENV.filters = {name: f.fn for name, f in FILTERS.items()}
_ENV.globals = {}
_ENV.tests = {k: v for k, v in _ENV.tests.items() if k in TESTS}


# -- the bounded scan ----------------------------------------------------------------------------------------------

class _At(int):
    """A line number that also holds its column. jinja copies a token's `lineno` onto the nodes and syntax errors
    it makes, so with these every node knows the column of the token that made it (`after`: the next token's
    spot, for `.name` and `is test`, whose nodes jinja places at the `.` and the `is`)."""

    col: int
    after: _At | None

    def __new__(cls, line: int, col: int = 1):
        at = super().__new__(cls, line)
        at.col = col
        at.after = None
        return at


class _TooComplex(Exception):
    def __init__(self, at: _At, message: str):
        super().__init__(message)
        self.at = at
        self.message = message


def _offset_at(source: str, offset: int) -> _At:
    start = source.rfind("\n", 0, offset) + 1
    return _At(source.count("\n", 0, offset) + 1, offset - start + 1)


def _lexer_error(source: str, exc: TemplateSyntaxError, scanned: int, opened: int) -> TemplateSyntaxError:
    """jinja's lexer gives a line and sometimes a character offset in the text (`unexpected char '$' at 7`): the
    error moves to that offset; an unclosed comment or raw block to its opening tag (`opened`); anything else to
    where scanning stopped (the first character it could not read)."""
    text = exc.message or ""
    found = re.search(r" at (\d+)$", text)
    if found:
        offset, message = int(found.group(1)), text[:found.start()]
    elif text.startswith("Missing end of"):
        offset, message = opened, text
    else:
        offset, message = scanned, text
        while offset < len(source) and source[offset] in " \t\n":
            offset += 1
    return TemplateSyntaxError(message, _offset_at(source, min(offset, len(source))))


def _scan(source: str) -> list[tuple[_At, str, str]]:
    """jinja's raw tokens with exact positions, checked against the bounds before any parsing: operators per tag,
    bracket nesting per tag, `if` block nesting. Raises _TooComplex (or TemplateSyntaxError from the lexer)."""
    out: list[tuple[_At, str, str]] = []
    pos, line, line_start = 0, 1, 0
    tag = None  # "variable" or "block" while inside one
    operators = brackets = blocks = 0
    keyword: str | None = None
    keyword_at = _At(1)  # where `keyword` is, set with it
    assigns = False
    opened = 0  # where the last tag began
    pending, pending_word = None, None  # a `.` or `is` waiting for the next token's spot (jinja puts nodes there)
    tokens = _ENV.lexer.tokeniter(source, None)
    while True:
        try:
            _, kind, value = next(tokens)
        except StopIteration:
            break
        except TemplateSyntaxError as exc:
            raise _lexer_error(source, exc, pos, opened) from None
        i = source.find(value, pos)
        if i < 0:  # jinja's values are slices of the source, in order; keep the last spot if one ever is not
            i = pos
        for j in (i, i + len(value)):
            newlines = source.count("\n", pos, j)
            if newlines:
                line += newlines
                line_start = source.rfind("\n", pos, j) + 1
            if j == i:
                at = _At(line, i - line_start + 1)
            pos = j
        out.append((at, kind, value))
        if kind == "whitespace":
            continue
        if kind.endswith("_begin"):
            opened = i
        if pending is not None and not (value == "not" and pending_word == "is"):  # `is not number`
            pending.after, pending = at, None
        if (kind, value) in (("operator", "."), ("name", "is")) and tag is not None:
            pending, pending_word = at, value
        if kind in ("variable_begin", "block_begin"):
            tag, operators, brackets, keyword, assigns = kind.split("_")[0], 0, 0, None, False
        elif kind in ("variable_end", "block_end"):
            if tag == "block" and keyword is not None:
                if keyword in _BODY_BLOCKS or (keyword == "set" and not assigns):
                    blocks += 1
                    if blocks > MAX_NESTING:
                        raise _TooComplex(keyword_at, f"template blocks nest {blocks} deep; the limit is "
                                                      f"{MAX_NESTING}")
                elif keyword.startswith("end"):
                    blocks = max(0, blocks - 1)
            tag = None
        elif tag is None:
            continue
        elif tag == "block" and keyword is None and kind == "name":
            keyword, keyword_at = value, at
        else:
            if kind == "operator":
                if value in _OPEN:
                    brackets += 1
                    if brackets > MAX_NESTING:
                        raise _TooComplex(at, f"template brackets nest {brackets} deep; the limit is {MAX_NESTING}")
                elif value in _CLOSE:
                    brackets -= 1
                assigns = assigns or value == "="
            if (kind == "operator" and value in _COUNTED_OPERATORS) or (kind == "name" and value in _COUNTED_WORDS):
                operators += 1
                if operators > MAX_OPERATORS:
                    raise _TooComplex(at, f"template tag has more than {MAX_OPERATORS} operators; compute the value "
                                          f"in a step and print the step")
    return out


# -- the compile-time check ----------------------------------------------------------------------------------------

# What a refused node is called in a message: the syntax an author wrote.
_SYNTAX = {
    "For": "'for'", "Macro": "'macro'", "CallBlock": "'call'", "FilterBlock": "a filter block", "With": "'with'",
    "Block": "'block'", "Include": "'include'", "Import": "'import'", "FromImport": "'from … import'",
    "Extends": "'extends'", "Assign": "'set'", "AssignBlock": "'set'", "ExprStmt": "'do'", "Call": "a call",
    "Mul": "'*'", "Div": "'/'", "FloorDiv": "'//'", "Mod": "'%'", "Pow": "'**'", "Concat": "'~' (print the parts "
    "side by side)", "Slice": "a slice", "Keyword": "a keyword argument", "Dict": "a dict literal",
    "Pair": "a dict literal", "Continue": "'continue'", "Break": "'break'", "Scope": "a scope",
    "NSRef": "a namespace",
}


def _spot(node) -> tuple[int, int]:
    if isinstance(node, nodes.Compare):  # jinja places a comparison after its last operand
        return _spot(node.expr)
    at = getattr(node, "lineno", None) or 1
    after = getattr(at, "after", None)
    if isinstance(node, (nodes.Getattr, nodes.Test)) and after is not None:
        at = after  # the field or test name, not the `.` or `is` before it
    return int(at), getattr(at, "col", 1)


class _Checker:
    """Types a template's expressions from the names' types, reporting what cannot render: unknown names, fields a
    record lacks, fields of non-records, non-data printed, filters and tests outside the allow-list, bad arguments."""

    def __init__(self, types: dict[str, Type], functions: set[str], at, diags: Diagnostics):
        self.types, self.functions, self.at, self.diags = types, functions, at, diags
        self.ok = True
        self.used: set[str] = set()

    def error(self, node, message: str, *, code: str) -> Type:
        self.diags.error(self.at(*_spot(node)), message, code=code)
        self.ok = False
        return ANY

    def refuse(self, node) -> None:
        what = _SYNTAX.get(type(node).__name__, f"'{type(node).__name__}'")
        self.error(node, f"templates may only print values, use if and filters; {what} is not allowed",
                code="not-allowed")
        for child in node.iter_child_nodes():  # what else is wrong inside is worth knowing too
            if isinstance(child, nodes.Expr):
                self.expr(child)
            else:
                self.stmt(child)

    def stmt(self, node) -> None:
        if isinstance(node, nodes.Template):
            for child in node.body:
                self.stmt(child)
        elif isinstance(node, nodes.Output):
            for child in node.nodes:
                if isinstance(child, nodes.TemplateData):
                    continue
                problem = _print_problem(self.expr(child))
                if problem:
                    self.error(child, f"template prints {problem}", code="type-mismatch")
        elif isinstance(node, nodes.If):
            self.expr(node.test)
            for child in node.body + node.elif_ + node.else_:
                self.stmt(child)
        else:
            self.refuse(node)

    def expr(self, node) -> Type:
        if isinstance(node, nodes.Name):
            return self.name(node)
        if isinstance(node, nodes.Const):
            if node.value is None:
                return self.error(node, "templates have no 'none' value", code="not-allowed")
            return type_of_value(node.value)
        if isinstance(node, (nodes.List, nodes.Tuple)):
            t: Type = ANY
            for item in node.items:
                t = unify(t, self.expr(item)) or ANY
            return ListT(t)
        if isinstance(node, nodes.Getattr):
            return self.field(node, self.expr(node.node), node.attr)
        if isinstance(node, nodes.Getitem):
            return self.item(node)
        if isinstance(node, nodes.Filter):
            return self.filter(node)
        if isinstance(node, nodes.Test):
            self.expr(node.node)
            if node.name not in TESTS:
                return self.error(node, f"unknown template test '{node.name}' (allowed: {', '.join(TESTS)})",
                        code="unknown-kind")
            if node.args or node.kwargs or node.dyn_args or node.dyn_kwargs:
                return self.error(node, f"template test '{node.name}' takes no arguments", code="arg-count")
            return BOOL
        if isinstance(node, nodes.Compare):
            self.expr(node.expr)
            for op in node.ops:
                self.expr(op.expr)
            return BOOL
        if isinstance(node, (nodes.And, nodes.Or)):
            return unify(self.expr(node.left), self.expr(node.right)) or ANY
        if isinstance(node, nodes.Not):
            self.expr(node.node)
            return BOOL
        if isinstance(node, nodes.CondExpr):
            self.expr(node.test)
            if node.expr2 is None:  # `a if c` prints '' otherwise, as jinja's default does
                node.expr2 = nodes.Const("", lineno=node.lineno)
            return unify(self.expr(node.expr1), self.expr(node.expr2)) or ANY
        if isinstance(node, (nodes.Add, nodes.Sub)):
            return self.arith(node)
        if isinstance(node, (nodes.Neg, nodes.Pos)):
            t = self.expr(node.node)
            if t not in (INT, FLOAT, ANY):
                return self.error(node, f"operator '{node.operator}' needs a number, got {t}", code="type-mismatch")
            return t
        self.refuse(node)
        return ANY

    def name(self, node) -> Type:
        if node.ctx != "load":  # a loop or `set` target: the refused statement was reported already
            return ANY
        if node.name == "self":  # jinja binds it to the template itself, whatever the scope holds
            return self.error(node, "'self' cannot be read in a template (jinja reserves it); rename the value",
                    code="reserved-name")
        if node.name in self.types:
            self.used.add(node.name)
            return self.types[node.name]
        if node.name in self.functions:
            return self.error(node, f"'{node.name}' is a function; a template prints values (compute the value in "
                                    f"a step and print the step)", code="reserved-name")
        if node.name == "level":
            from .compile import LEVEL_OUTSIDE

            return self.error(node, LEVEL_OUTSIDE, code="level-outside-levels")
        return self.error(node, f"unknown name '{node.name}' in template (known here: "
                                f"{', '.join(sorted(self.types))})", code="unknown-name")

    def field(self, node, t: Type, name: str) -> Type:
        if name.startswith("_"):
            return self.error(node, f"template attribute '{name}' is not allowed", code="not-allowed")
        if isinstance(t, RecordT):
            ft = t.field(name)
            if ft is None:
                return self.error(node, f"unknown field '{name}' (this record has: {', '.join(t.names)})",
                        code="unknown-field")
            return ft
        if t == ANY:
            return ANY
        return self.error(node, f"cannot take field '.{name}' of {t:a}; only records have fields", code="type-mismatch")

    def item(self, node) -> Type:
        t = self.expr(node.node)
        if isinstance(node.arg, nodes.Slice):
            self.refuse(node.arg)
            return ANY
        it = self.expr(node.arg)
        if isinstance(node.arg, nodes.Const) and isinstance(node.arg.value, str):
            return self.field(node, t, node.arg.value)
        if it not in (INT, ANY):
            return self.error(node.arg, f"a template index is an integer, got {it}", code="type-mismatch")
        if isinstance(t, ListT):
            return t.elem
        if t in (STR, ANY):
            return t
        if isinstance(t, RecordT) and it == ANY:
            return ANY
        return self.error(node, f"cannot index {t:a}; only lists and text have items", code="type-mismatch")

    def arith(self, node) -> Type:
        a, b = self.expr(node.left), self.expr(node.right)
        if ANY in (a, b):
            return ANY
        if a in (INT, FLOAT) and b in (INT, FLOAT):
            return FLOAT if FLOAT in (a, b) else INT
        if isinstance(node, nodes.Add) and (a == b == STR or (isinstance(a, ListT) and isinstance(b, ListT))):
            return unify(a, b) or ANY
        need = "two numbers, two texts or two lists" if isinstance(node, nodes.Add) else "numbers"
        return self.error(node, f"operator '{node.operator}' needs {need}, got {a} and {b}", code="type-mismatch")

    def filter(self, node) -> Type:
        t = self.expr(node.node) if node.node is not None else ANY
        arg_types = [self.expr(a) for a in node.args]
        spec = FILTERS.get(node.name)
        if spec is None:
            return self.error(node, f"unknown template filter '{node.name}' (allowed: {', '.join(sorted(FILTERS))})",
                    code="unknown-kind")
        if node.kwargs or node.dyn_args or node.dyn_kwargs:
            return self.error(node, f"template filter '{node.name}' takes positional arguments only", code="arg-count")
        if len(node.args) > spec[1]:
            return self.error(node, f"template filter '{node.name}' takes at most {spec[1]} argument"
                                    f"{'s' if spec[1] != 1 else ''}, got {len(node.args)}", code="arg-count")
        consts = [_constant(a) for a in node.args]
        problem = _filter_problem(node.name, t, arg_types, consts)
        if problem:
            return self.error(node, f"template filter '{node.name}' {problem}", code="type-mismatch")
        return _filter_result(node.name, t, arg_types)


def _constant(node) -> Any:
    """A literal argument's value (`-5` included), else None."""
    if isinstance(node, nodes.Const):
        return node.value
    if isinstance(node, nodes.Neg) and isinstance(node.node, nodes.Const) and \
            isinstance(node.node.value, (int, float)) and not isinstance(node.node.value, bool):
        return -node.node.value
    return None


def _filter_problem(name: str, t: Type, args: list[Type], consts: list) -> str | None:
    """What is wrong with a filter's input or arguments, where their types (or constant values) show it."""
    def is_(ty: Type, *allowed) -> bool:
        return ty == ANY or any(ty == a or (a is ListT and isinstance(ty, ListT)) or
                                (a is RecordT and isinstance(ty, RecordT)) for a in allowed)

    if name == "join":
        if not is_(t, ListT, STR) or (isinstance(t, ListT) and _print_problem(t.elem)):
            return f"needs a list of text or numbers (or a text), got {t}"
        if args and not is_(args[0], STR):
            return f"takes a text separator, got {args[0]}"
        if consts and isinstance(consts[0], str) and len(consts[0]) > MAX_SEPARATOR:
            return f"separator is {len(consts[0])} characters (limit {MAX_SEPARATOR})"
    elif name in ("upper", "lower", "title", "capitalize", "trim"):
        if not is_(t, STR):
            return f"needs text, got {t}"
    elif name == "round":
        if not is_(t, INT, FLOAT):
            return f"needs a number, got {t}"
        if args and (not is_(args[0], INT) or (isinstance(consts[0], int) and not 0 <= consts[0] <= MAX_DIGITS)):
            return f"takes a precision from 0 to {MAX_DIGITS}, got {consts[0] if consts[0] is not None else args[0]}"
        if len(args) > 1 and (not is_(args[1], STR) or (consts[1] is not None and
                                                         consts[1] not in ("common", "ceil", "floor"))):
            return "rounds 'common', 'ceil' or 'floor'"
    elif name == "int":
        if not is_(t, INT, FLOAT, STR):
            return f"needs a number or text, got {t}"
    elif name == "length":
        if not is_(t, ListT, STR, RecordT):
            return f"needs a list, text or record, got {t}"
    elif name in ("first", "last"):
        if not is_(t, ListT, STR):
            return f"needs a list or text, got {t}"
    elif name in ("default", "string"):
        if _print_problem(t) or (args and _print_problem(args[0])):
            return f"needs text or a number, got {t if _print_problem(t) else args[0]}"
    elif name == "lettered":
        if not is_(t, ListT):
            return f"needs a list, got {t}"
    elif name == "plural":
        if not is_(t, STR):
            return f"needs a word (text), got {t}"
        if args and not is_(args[0], INT):
            return f"takes an integer count, got {args[0]}"
    elif name == "fmt":
        if isinstance(t, RecordT) or (isinstance(t, ListT) and isinstance(t.elem, RecordT)):
            return f"prints text, numbers, bools and lists of them, got {t}"
    return None


def _filter_result(name: str, t: Type, args: list[Type]) -> Type:
    if name in ("int", "length"):
        return INT
    if name == "round":
        return FLOAT
    if name in ("first", "last"):
        return t.elem if isinstance(t, ListT) else t
    if name == "default":
        return unify(t, args[0]) or ANY if args else t
    return STR


def _plain_lines(tree) -> None:
    """Back to plain int line numbers once checked: the tree is kept (and may be pickled) without the columns."""
    for node in tree.find_all(nodes.Node):
        if isinstance(getattr(node, "lineno", None), _At):
            node.lineno = int(node.lineno)
    tree.lineno = int(tree.lineno)


# -- the public API ------------------------------------------------------------------------------------------------

class Template:
    """A checked template. Jinja's code generation runs on first use, not at compile time: a taxonomy compiles
    fast and a process that samples a few tasks pays only for those."""

    def __init__(self, source: str, tree, names: frozenset[str], where: str):
        self.source = source
        self.names = names  # the names it reads: the render must give every one
        self.where = where  # path:line:col of the template, for render errors
        self._tree = tree
        self._compiled: jinja2.Template | None = None

    def render(self, values: dict) -> str:
        missing = sorted(n for n in self.names if n not in values)
        if missing:  # compile-time names and render-time values disagree: a compiler bug, said plainly
            raise EvalError(f"template at {self.where} reads {', '.join(missing)}, which this render does not give")
        if self._compiled is None:
            self._compiled = _ENV.from_string(self._tree)
        chunks: list[str] = []
        size = 0
        try:
            for chunk in self._compiled.generate({k: values[k] for k in self.names}):
                size += len(chunk)
                if size > MAX_OUTPUT:  # stopped as it streams: never megabytes in memory
                    raise EvalError(f"its output is over {MAX_OUTPUT} characters")
                chunks.append(chunk)
        except EvalError as exc:
            raise EvalError(f"template at {self.where}: {exc}") from None
        except TemplateError as exc:
            raise EvalError(f"template at {self.where} failed: {exc}") from None
        except (TypeError, ValueError, AttributeError, KeyError, IndexError, OverflowError, ZeroDivisionError,
                RecursionError) as exc:
            raise EvalError(f"template at {self.where} failed: {type(exc).__name__}: {exc}") from None
        return "".join(chunks)


def compile_template(source: str, names: Mapping[str, Type] | set[str], at, diags: Diagnostics) -> Template | None:
    """Compile a template. `names`: the scope it may read (name → type; a set when types are unknown), exactly what
    the render will give; functions in it are refused by name. `at(line, col)` positions a problem (1-based, within
    the template source)."""
    if not isinstance(source, str):
        diags.error(at(1, 1), "expected a template string", code="template-syntax")
        return None
    if len(source) > MAX_TEMPLATE:
        diags.error(at(1, 1), f"template is {len(source)} characters; the limit is {MAX_TEMPLATE}", code="bound")
        return None
    source = source.replace("\r\n", "\n").replace("\r", "\n")  # as jinja's lexer does, so columns line up
    if isinstance(names, Mapping):
        types = {k: t for k, t in names.items() if not isinstance(t, FnT) and not k.startswith("$")}
        functions = {k for k, t in names.items() if isinstance(t, FnT)}
    else:
        types, functions = {k: ANY for k in names if not k.startswith("$")}, set()
    try:
        tree = _ENV.parse(source)
    except _TooComplex as exc:
        diags.error(at(int(exc.at), exc.at.col), exc.message, code="bound")
        return None
    except TemplateSyntaxError as exc:
        diags.error(at(int(exc.lineno or 1), getattr(exc.lineno, "col", 1)), f"template syntax: {exc.message}",
                code="template-syntax")
        return None
    except RecursionError:  # not expected within the bounds above; kept as a last guard
        diags.error(at(1, 1), "template nests too deeply", code="bound")
        return None
    checker = _Checker(types, functions, at, diags)
    checker.stmt(tree)
    if not checker.ok:
        return None
    _plain_lines(tree)
    return Template(source, tree, frozenset(checker.used), str(at(1, 1)))


_COMPARE_OPS = {"eq": "==", "ne": "!=", "in": "in", "notin": "not in"}


def compared_literals(source: str, names: set[str]) -> list[tuple[str, str, Any, int, int]]:
    """Every string or number literal a template compares with one of `names` (==, != either way round, `in`/`not
    in` a list literal), as (name, op, value, line, col) with the literal's place in the source. Templates bind no
    names of their own (loops and `set` are refused), so a name is always the render's."""
    try:
        tree = _ENV.parse(source.replace("\r\n", "\n").replace("\r", "\n"))
    except (TemplateError, _TooComplex, RecursionError):
        return []  # reported when the template was compiled

    def literal(node):
        if isinstance(node, nodes.Const) and isinstance(node.value, (str, int, float)) and \
                not isinstance(node.value, bool):
            return node.value, *_spot(node)
        if isinstance(node, nodes.Neg) and isinstance(node.node, nodes.Const) and \
                isinstance(node.node.value, (int, float)) and not isinstance(node.node.value, bool):
            return -node.node.value, *_spot(node)
        return None

    found = []
    for cmp in tree.find_all(nodes.Compare):
        left = cmp.expr
        for operand in cmp.ops:
            op, right = _COMPARE_OPS.get(operand.op), operand.expr
            if op in ("==", "!="):
                pairs = [(left, right), (right, left)]
            elif op is not None and isinstance(right, (nodes.List, nodes.Tuple)):
                pairs = [(left, item) for item in right.items]
            else:
                pairs = []
            for var, lit in pairs:
                got = literal(lit)
                if isinstance(var, nodes.Name) and var.name in names and got is not None:
                    found.append((var.name, op, *got))
            left = right
    return found
