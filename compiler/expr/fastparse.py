"""A hand-written parser for the expression language that builds the very trees lark builds, for valid input only.

Lark's LALR parser (expr.lark, with propagate_positions and maybe_placeholders) is the definition of the language,
but it is slow for us twice over: building its tables costs every process ~120 ms, and its precedence cascade makes
about eleven reductions per atom, each through lark's tree-builder wrappers, so parsing the bundled library's
4,500 distinct expressions took a second of a 3.7 s compile (0.14 s here). This module parses by recursive descent in one pass and
returns the same `lark.Tree`/`lark.Token` objects: the same rule names (a plain `str` for an aliased alternative, a
`Token('RULE', …)` carrying its definition's place in expr.lark for a named rule, as lark does), the same children
(`None` for an absent `[expr]`), the same token types and positions, and the same `meta` (start of the first token,
end of the last, punctuation included, and lark's `container_*` copies of both).

It accepts a subset of the language and declines the rest (`parse` returns None): every syntax error, every
input where lark's contextual lexer would read a keyword as a NAME (`f(in)`, `x.if`, `{for: 1}`) or split a word
(`x index` is `x in dex` to lark), and nesting deeper than Python's recursion limit allows (lark has no stack). The caller then asks lark, which gives its own tree or its own error, so error
messages and positions never depend on this module. Why accepting is safe: the lexer below is lark's standard
lexer (the same patterns, in lark's order, keywords split off NAME by exact match), and the parser accepts only
token sequences that derive from the grammar, with the derivation lark's unambiguous LALR grammar gives. On such
a sequence every token is one the LALR state at that point accepts, and lark's contextual lexer, restricted to the
terminals a state accepts, then picks the same token as the standard lexer (the first alternative that matched
among all still comes first among fewer). The one token the standard lexer cannot type alone is '-': no LALR state
accepts both MINUS (prefix) and ADD_OP (infix), so the parser types it by position as lark's state does.
tests/test_fastparse.py checks these assumptions against the built lark parser and compares trees on the whole
library and on generated input.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from pathlib import Path

from lark import Token, Tree
from lark.tree import Meta

# -- lexer --------------------------------------------------------------------------------------------------------
# lark's terminal patterns as it compiles them from expr.lark (FLOAT's alternatives in lark's order; groups made
# non-capturing), tried in the order lark's lexer tries them: by priority (POW_OP.2), then longest possible match,
# then pattern length. Among patterns that can match at the same character this order is what decides: '**'
# before '*', '->' before '-', '==' before '=', FLOAT before INT. Keywords are NAMEs whose whole text is the keyword.
PATTERNS = {
    "POW_OP": r"\*\*",
    "FLOAT": r"(?:[0-9]+[eE][-+]?[0-9]+|[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?)",
    "STRING": r"""(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')""",
    "NAME": r"[A-Za-z_][A-Za-z0-9_]*",
    "WS": r"(?:[ \t\x0c\r\n])+",
    "INT": r"[0-9]+",
    "COMP_OP": r"(?:==|!=|<=|>=|<|>)",
    "MUL_OP": r"(?://|\*|/|%)",
    "__ANON_0": r"\->",
    "ADD_OP": r"(?:\+|\-)",  # lark retypes a '-' to MINUS where its state accepts MINUS
    "punctuation": r"[(),:.\[\]{}=]",  # lark's COLON, COMMA, ... RSQB, all after the terminals above
}
_TOKENS = re.compile("|".join(PATTERNS.values()))  # no groups: findall gives each match's text
KEYWORDS = ("let", "in", "if", "else", "or", "and", "not", "for", "true", "false")
# A token's kind in the parser: its text for punctuation, keywords and '-' (MINUS or ADD_OP by position), else its
# terminal's name; a text not listed is classified by its first character (_FIRST).
_FIXED = {t: t for t in (*"(),:.[]{}=-", "->", *KEYWORDS)}
_FIXED.update({"+": "ADD_OP", "**": "POW_OP", **dict.fromkeys(("*", "/", "//", "%"), "MUL_OP"),
               **dict.fromkeys(("==", "!=", "<=", ">=", "<", ">"), "COMP_OP")})
_FIRST = {**dict.fromkeys("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_", "NAME"),
          **dict.fromkeys("0123456789", "number"), **dict.fromkeys("\"'", "STRING"),
          **dict.fromkeys(" \t\x0c\r\n", "WS")}
_END = "$END"


class _Decline(Exception):
    """Raised inside the parser for any input it does not take; `parse` turns it into None."""


def _rule_names(grammar: str) -> dict[str, Token]:
    """The data of a tree built by a named (not inlined, not aliased) rule: lark uses the rule-name token of the
    rule's definition in expr.lark, positions included."""
    names = {}
    for m in re.finditer(r"^(?P<name>[a-z_][a-z0-9_]*)\s*:", grammar, re.MULTILINE):
        line = grammar.count("\n", 0, m.start()) + 1
        start, end = m.span("name")
        names[m["name"]] = Token("RULE", m["name"], start, line, 1, line, 1 + end - start, end)
    return names


_RULES = _rule_names(Path(__file__).with_name("expr.lark").read_text(encoding="utf-8"))
LAMBDA, LET_EXPR, LET_BINDING, ARGS, PAIR, COMP_FOR, COMP_IF = (
    _RULES[n] for n in ("lambda", "let_expr", "let_binding", "args", "pair", "comp_for", "comp_if"))


def parse(source: str) -> Tree | None:
    """The tree lark gives for `source`, or None where this parser declines (lark then decides)."""
    try:
        return _Parser(source).parse()
    except (_Decline, RecursionError):
        return None


class _Parser:
    """Recursive descent over lark's grammar, one method per precedence level of expr.lark.

    A method returns the tree lark's `?rule` inlines to; every tree's meta spans the tokens its method consumed,
    from `start` (the token index when it began) to the last token taken."""

    __slots__ = ("kinds", "pos", "spans", "texts")

    def __init__(self, source: str):
        kinds, texts, starts = [], [], []
        pos = 0
        for text in _TOKENS.findall(source):  # consecutive matches; a character none matches is skipped…
            kind = _FIXED.get(text)
            if kind is None:
                kind = _FIRST[text[0]]
                if kind == "WS":
                    pos += len(text)
                    continue
                if kind == "number":
                    kind = "INT" if text.isdigit() else "FLOAT"
            kinds.append(kind)
            texts.append(text)
            starts.append(pos)
            pos += len(text)
        if pos != len(source):  # …so the matches fall short of the source: lark reports the character
            raise _Decline
        # three sentinels: the parser looks at most two tokens ahead and never consumes $END
        kinds += (_END, _END, _END)
        self.kinds, self.texts = kinds, texts
        self.spans = self._spans(source, texts, starts)
        self.pos = 0

    @staticmethod
    def _spans(source: str, texts: list, starts: list) -> list:
        """(start_pos, line, column, end_line, end_column, end_pos) of each token, Token's argument order, counted
        as lark's LineCounter counts them (lines end at '\\n' only, columns from 1). Only whitespace, which is
        skipped, can span a newline (STRING excludes it)."""
        if "\n" not in source:
            return [(s, 1, s + 1, 1, s + 1 + len(t), s + len(t)) for s, t in zip(starts, texts)]
        breaks = [i for i, ch in enumerate(source) if ch == "\n"]
        spans = []
        for s, t in zip(starts, texts):
            line = bisect_right(breaks, s)
            col = s - (breaks[line - 1] + 1 if line else 0) + 1
            spans.append((s, line + 1, col, line + 1, col + len(t), s + len(t)))
        return spans

    # -- helpers ----------------------------------------------------------------------------------------------
    def tree(self, data, children: list, start: int) -> Tree:
        """A tree over tokens start..pos-1, with the meta lark's propagate_positions gives it."""
        a, b = self.spans[start], self.spans[self.pos - 1]
        start_pos, line, column = a[0], a[1], a[2]
        end_line, end_column, end_pos = b[3], b[4], b[5]
        meta = Meta()
        meta.__dict__ = {  # the attributes lark's PropagatePositions sets, in its order
            "empty": False, "line": line, "column": column, "start_pos": start_pos,
            "container_line": line, "container_column": column, "container_start_pos": start_pos,
            "end_line": end_line, "end_column": end_column, "end_pos": end_pos,
            "container_end_line": end_line, "container_end_column": end_column, "container_end_pos": end_pos}
        return Tree(data, children, meta)

    def token(self, type_: str) -> Token:
        """The current token as lark keeps it in a tree, consumed."""
        i = self.pos
        self.pos = i + 1
        return Token(type_, self.texts[i], *self.spans[i])

    def expect(self, kind: str) -> None:
        if self.kinds[self.pos] != kind:
            raise _Decline
        self.pos += 1

    def name(self) -> Token:
        if self.kinds[self.pos] != "NAME":
            raise _Decline  # a keyword where lark's state may read it as a NAME: lark decides
        return self.token("NAME")

    # -- grammar ----------------------------------------------------------------------------------------------
    def parse(self) -> Tree:
        tree = self.expr()
        if self.kinds[self.pos] != _END:
            raise _Decline
        return tree

    def expr(self) -> Tree:
        """?expr: lambda | cond | let_expr"""
        kinds, pos = self.kinds, self.pos
        kind = kinds[pos]
        if kind == "NAME" and kinds[pos + 1] == "->":  # lambda: NAME "->" expr
            param = self.token("NAME")
            self.pos += 1
            return self.tree(LAMBDA, [param, self.expr()], pos)
        if kind == "(" and kinds[pos + 1] == "NAME" and kinds[pos + 2] == ",":
            # lambda: "(" NAME ("," NAME)+ ")" "->" expr; `(a, …` starts nothing else
            self.pos += 1
            params: list[Token | Tree] = [self.token("NAME")]
            while kinds[self.pos] == ",":
                self.pos += 1
                params.append(self.name())
            self.expect(")")
            self.expect("->")
            params.append(self.expr())
            return self.tree(LAMBDA, params, pos)
        if kind == "let":  # let_expr: "let" let_binding ("," let_binding)* "in" expr
            self.pos += 1
            children = [self.let_binding()]
            while kinds[self.pos] == ",":
                self.pos += 1
                children.append(self.let_binding())
            self.expect("in")
            children.append(self.expr())
            return self.tree(LET_EXPR, children, pos)
        left = self.or_expr(False)  # ?cond: or_expr | or_expr "if" or_expr "else" expr -> ifelse
        if kinds[self.pos] != "if":
            return left
        self.pos += 1
        test = self.or_expr(False)
        self.expect("else")
        return self.tree("ifelse", [left, test, self.expr()], pos)

    def let_binding(self) -> Tree:
        """let_binding: NAME "=" let_value"""
        start = self.pos
        name = self.name()
        self.expect("=")
        return self.tree(LET_BINDING, [name, self.let_value()], start)

    def let_value(self) -> Tree:
        """?let_value: let_or | let_or "if" or_expr "else" let_value -> ifelse

        The let_* rules are or/and/not/comparison without `in` and `not in`, so a value ends at a top-level `in`:
        `no_in` carries that down to the comparison level (an atom's insides are full expressions again)."""
        start = self.pos
        left = self.or_expr(True)
        if self.kinds[self.pos] != "if":
            return left
        self.pos += 1
        test = self.or_expr(False)
        self.expect("else")
        return self.tree("ifelse", [left, test, self.let_value()], start)

    def or_expr(self, no_in: bool) -> Tree:
        """?or_expr: and_expr | or_expr "or" and_expr -> or_"""
        start = self.pos
        left = self.and_expr(no_in)
        while self.kinds[self.pos] == "or":
            self.pos += 1
            left = self.tree("or_", [left, self.and_expr(no_in)], start)
        return left

    def and_expr(self, no_in: bool) -> Tree:
        """?and_expr: not_expr | and_expr "and" not_expr -> and_"""
        start = self.pos
        left = self.not_expr(no_in)
        while self.kinds[self.pos] == "and":
            self.pos += 1
            left = self.tree("and_", [left, self.not_expr(no_in)], start)
        return left

    def not_expr(self, no_in: bool) -> Tree:
        """?not_expr: comparison | "not" not_expr -> not_"""
        start = self.pos
        if self.kinds[start] != "not":
            return self.comparison(no_in)
        self.pos += 1
        return self.tree("not_", [self.not_expr(no_in)], start)

    def comparison(self, no_in: bool) -> Tree:
        """?comparison: sum | comparison COMP_OP sum -> compare | comparison "in" sum -> in_
        | comparison "not" "in" sum -> not_in   (let_comp: the COMP_OP alternative only)"""
        kinds, start = self.kinds, self.pos
        left = self.sum()
        while True:
            kind = kinds[self.pos]
            if kind == "COMP_OP":
                op = self.token("COMP_OP")
                left = self.tree("compare", [left, op, self.sum()], start)
            elif no_in:
                return left
            elif kind == "in":
                self.pos += 1
                left = self.tree("in_", [left, self.sum()], start)
            elif kind == "not" and kinds[self.pos + 1] == "in":
                self.pos += 2
                left = self.tree("not_in", [left, self.sum()], start)
            else:
                return left

    def sum(self) -> Tree:
        """?sum: term | sum ADD_OP term -> binop"""
        kinds, start = self.kinds, self.pos
        left = self.term()
        while kinds[self.pos] in ("ADD_OP", "-"):
            op = self.token("ADD_OP")
            left = self.tree("binop", [left, op, self.term()], start)
        return left

    def term(self) -> Tree:
        """?term: factor | term MUL_OP factor -> binop"""
        kinds, start = self.kinds, self.pos
        left = self.factor()
        while kinds[self.pos] == "MUL_OP":
            op = self.token("MUL_OP")
            left = self.tree("binop", [left, op, self.factor()], start)
        return left

    def factor(self) -> Tree:
        """?factor: power | "-" factor -> neg;  ?power: postfix | postfix POW_OP factor -> binop"""
        start = self.pos
        if self.kinds[start] == "-":  # MINUS: lark's state here accepts it and not ADD_OP
            self.pos += 1
            return self.tree("neg", [self.factor()], start)
        base = self.postfix()
        if self.kinds[self.pos] != "POW_OP":
            return base
        op = self.token("POW_OP")
        return self.tree("binop", [base, op, self.factor()], start)

    def postfix(self) -> Tree:
        """?postfix: atom | postfix "." NAME -> field | postfix "[" expr "]" -> index
        | postfix "[" [expr] ":" [expr] [":" [expr]] "]" -> slice | NAME "(" [args] ")" -> call"""
        kinds, start = self.kinds, self.pos
        if kinds[start] == "NAME" and kinds[start + 1] == "(":
            fn = self.token("NAME")
            self.pos += 1
            args = None if kinds[self.pos] == ")" else self.args()
            self.expect(")")
            node = self.tree("call", [fn, args], start)
        else:
            node = self.atom()
        while True:
            kind = kinds[self.pos]
            if kind == ".":
                self.pos += 1
                node = self.tree("field", [node, self.name()], start)
            elif kind == "[":
                self.pos += 1
                node = self.subscript(node, start)
            else:
                return node

    def subscript(self, node: Tree, start: int) -> Tree:
        """After `postfix "["`: an index, or a slice with None for each absent bound or step."""
        kinds = self.kinds
        lo = None if kinds[self.pos] == ":" else self.expr()
        if lo is not None and kinds[self.pos] == "]":
            self.pos += 1
            return self.tree("index", [node, lo], start)
        self.expect(":")
        hi = None if kinds[self.pos] in (":", "]") else self.expr()
        step = None
        if kinds[self.pos] == ":":
            self.pos += 1
            step = None if kinds[self.pos] == "]" else self.expr()
        self.expect("]")
        return self.tree("slice", [node, lo, hi, step], start)

    def args(self) -> Tree:
        """args: expr ("," expr)* ","?  (its meta ends at a trailing comma, as lark's does)"""
        kinds, start = self.kinds, self.pos
        items = [self.expr()]
        while kinds[self.pos] == ",":
            self.pos += 1
            if kinds[self.pos] == ")":
                break
            items.append(self.expr())
        return self.tree(ARGS, items, start)

    def atom(self) -> Tree:
        """?atom: literals, a name, a parenthesised expression, a list, a comprehension or a record."""
        kinds, start = self.kinds, self.pos
        kind = kinds[start]
        if kind == "NAME":
            return self.tree("name", [self.token("NAME")], start)
        if kind == "INT":
            return self.tree("int_lit", [self.token("INT")], start)
        if kind == "FLOAT":
            return self.tree("float_lit", [self.token("FLOAT")], start)
        if kind == "STRING":
            return self.tree("str_lit", [self.token("STRING")], start)
        if kind == "true" or kind == "false":
            self.pos += 1
            return self.tree(kind + "_lit", [], start)
        self.pos += 1
        if kind == ".":  # "." NAME -> accessor
            return self.tree("accessor", [self.name()], start)
        if kind == "(":  # "(" expr ")" -> paren
            inner = self.expr()
            self.expect(")")
            return self.tree("paren", [inner], start)
        if kind == "[":
            return self.list_or_comprehension(start)
        if kind == "{":  # "{" [pair ("," pair)* ","?] "}" -> record_lit
            if kinds[self.pos] == "}":
                self.pos += 1
                return self.tree("record_lit", [None], start)
            pairs = [self.pair()]
            while kinds[self.pos] == ",":
                self.pos += 1
                if kinds[self.pos] == "}":
                    break
                pairs.append(self.pair())
            self.expect("}")
            return self.tree("record_lit", pairs, start)
        raise _Decline

    def list_or_comprehension(self, start: int) -> Tree:
        """After "[": "[" [expr ("," expr)* ","?] "]" -> list_lit | "[" expr comp_for+ "]" -> listcomp"""
        kinds = self.kinds
        if kinds[self.pos] == "]":
            self.pos += 1
            return self.tree("list_lit", [None], start)
        items = [self.expr()]
        if kinds[self.pos] == "for":
            while kinds[self.pos] == "for":
                items.append(self.comp_for())
            self.expect("]")
            return self.tree("listcomp", items, start)
        while kinds[self.pos] == ",":
            self.pos += 1
            if kinds[self.pos] == "]":
                break
            items.append(self.expr())
        self.expect("]")
        return self.tree("list_lit", items, start)

    def comp_for(self) -> Tree:
        """comp_for: "for" NAME "in" or_expr comp_if*;  comp_if: "if" or_expr"""
        kinds, start = self.kinds, self.pos
        self.pos += 1
        children: list[Token | Tree] = [self.name()]
        self.expect("in")
        children.append(self.or_expr(False))
        while kinds[self.pos] == "if":
            at = self.pos
            self.pos += 1
            test = self.or_expr(False)
            children.append(self.tree(COMP_IF, [test], at))
        return self.tree(COMP_FOR, children, start)

    def pair(self) -> Tree:
        """pair: NAME ":" expr"""
        start = self.pos
        key = self.name()
        self.expect(":")
        return self.tree(PAIR, [key, self.expr()], start)
