"""Text templates (prompts, chart titles): jinja2 in its sandbox, further restricted to output-only templates.

Author templates may print values, use `if`, and apply a short list of filters. Loops, macros, calls, includes and
the `*`/`**` operators are refused at compile time, so a template cannot read files, run code, or spin for long.
"""
from __future__ import annotations

from typing import Any

from jinja2 import nodes
from jinja2.exceptions import TemplateError, TemplateSyntaxError
from jinja2.sandbox import SandboxedEnvironment

from ..errors import Diagnostics, EvalError

MAX_TEMPLATE = 4_000
MAX_OUTPUT = 20_000


def _lettered(options) -> str:
    return "\n".join(f"{chr(65 + i)}. {_fmt(o)}" for i, o in enumerate(list(options)[:26]))


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, list):
        return ", ".join(_fmt(x) for x in v)
    return str(v)


def _plural(word: str, n: int = 2) -> str:
    if n == 1:
        return word
    if word.endswith(("s", "x", "sh", "ch")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


_ENV = SandboxedEnvironment(autoescape=False, keep_trailing_newline=False)
_ALLOWED_FILTERS = {
    "join", "upper", "lower", "title", "capitalize", "round", "int", "length", "first", "last", "default",
    "lettered", "plural", "fmt", "trim", "string",
}
_ENV.filters = {k: v for k, v in _ENV.filters.items() if k in _ALLOWED_FILTERS}
_ENV.filters.update(lettered=_lettered, plural=_plural, fmt=_fmt)
_ENV.globals = {}
_ENV.tests = {k: v for k, v in _ENV.tests.items() if k in ("defined", "undefined", "none", "number", "string")}

_ALLOWED_NODES = (
    nodes.Template, nodes.Output, nodes.TemplateData, nodes.Name, nodes.Const, nodes.If, nodes.CondExpr,
    nodes.Filter, nodes.Test, nodes.Compare, nodes.Operand, nodes.And, nodes.Or, nodes.Not, nodes.Getattr,
    nodes.Getitem, nodes.Add, nodes.Sub, nodes.Neg, nodes.Pos, nodes.Concat, nodes.List, nodes.Tuple,
    nodes.Keyword,
)


class Template:
    """A checked template. Jinja's code generation runs on first use, not at compile time: a taxonomy compiles
    fast and a process that samples a few tasks pays only for those."""

    def __init__(self, source: str, tree):
        self.source = source
        self._tree = tree
        self._compiled = None

    def render(self, values: dict) -> str:
        if self._compiled is None:
            self._compiled = _ENV.from_string(self._tree)
        try:
            out = self._compiled.render({k: v for k, v in values.items() if not k.startswith("$")})
        except TemplateError as exc:
            raise EvalError(f"template failed: {exc}") from None
        except (TypeError, ValueError, AttributeError, KeyError, IndexError, OverflowError) as exc:
            raise EvalError(f"template failed: {type(exc).__name__}: {exc}") from None
        if len(out) > MAX_OUTPUT:
            raise EvalError(f"template output is {len(out)} characters (limit {MAX_OUTPUT})")
        return out


def compile_template(source: str, names: set[str], at, diags: Diagnostics) -> Template | None:
    """Compile a template; `names` are the variables it may use; `at(line, col)` positions a problem."""
    if not isinstance(source, str):
        diags.error(at(1, 1), "expected a template string")
        return None
    if len(source) > MAX_TEMPLATE:
        diags.error(at(1, 1), f"template is {len(source)} characters; the limit is {MAX_TEMPLATE}")
        return None
    try:
        tree = _ENV.parse(source)
    except TemplateSyntaxError as exc:
        diags.error(at(exc.lineno or 1, 1), f"template syntax: {exc.message}")
        return None
    except RecursionError:
        diags.error(at(1, 1), "template nests too deeply")
        return None
    ok = True
    for node in tree.find_all(nodes.Node):
        line = getattr(node, "lineno", 1) or 1
        if not isinstance(node, _ALLOWED_NODES):
            diags.error(at(line, 1), f"templates may only print values, use if and filters; "
                                     f"'{type(node).__name__}' is not allowed")
            ok = False
        elif isinstance(node, nodes.Filter) and node.name not in _ALLOWED_FILTERS:
            diags.error(at(line, 1), f"unknown template filter '{node.name}' "
                                     f"(allowed: {', '.join(sorted(_ALLOWED_FILTERS))})")
            ok = False
        elif isinstance(node, nodes.Name) and node.ctx == "load" and node.name not in names:
            diags.error(at(line, 1), f"unknown name '{node.name}' in template (known here: "
                                     f"{', '.join(sorted(n for n in names if not n.startswith('$')))})")
            ok = False
        elif isinstance(node, nodes.Getattr) and node.attr.startswith("_"):
            diags.error(at(line, 1), f"template attribute '{node.attr}' is not allowed")
            ok = False
    if not ok:
        return None
    return Template(source, tree)
