"""fastparse against lark, the definition of the expression language: where fastparse accepts an input its tree is
lark's tree exactly (rule names, children, None placeholders, token types and values, every position on tokens and
in meta), it accepts the whole bundled library, and what it declines still gets lark's tree or lark's error."""
from __future__ import annotations

import random
import re
import subprocess
import sys

import pytest
from lark import Token, Tree
from lark.exceptions import UnexpectedInput

from tessera.errors import Diagnostics
from tessera.expr import compile as expr_compile
from tessera.expr import fastparse
from tessera.expr.compile import Site, lark_parser, parse
from tessera.cache import Cache
from tessera.taxonomy import compile_taxonomy


def tree_difference(a, b) -> str | None:
    """Where `a` and `b` first differ, or None. Lark's own `==` ignores meta and token positions; this does not:
    it compares every Token slot (type, value, start_pos, line, column, end_*), a tree's data with its type (a
    `Token('RULE', …)` for a named rule, a str for an alias), and every attribute lark sets on meta. Iterative, for
    trees nested past Python's recursion limit."""
    stack = [(a, b, "tree")]
    while stack:
        a, b, path = stack.pop()
        if type(a) is not type(b):
            return f"{path}: {type(a).__name__} vs {type(b).__name__}"
        if isinstance(a, Token):
            for slot in Token.__slots__:
                if getattr(a, slot) != getattr(b, slot):
                    return f"{path}: token {slot} {getattr(a, slot)!r} vs {getattr(b, slot)!r}"
        elif a is not None:
            if type(a.data) is not type(b.data) or a.data != b.data:
                return f"{path}: data {a.data!r} vs {b.data!r}"
            if vars(a.meta) != vars(b.meta):
                return f"{path} ({a.data}): meta {vars(a.meta)} vs {vars(b.meta)}"
            if len(a.children) != len(b.children):
                return f"{path} ({a.data}): {len(a.children)} vs {len(b.children)} children"
            if isinstance(a.data, Token):
                stack.append((a.data, b.data, path + ".data"))
            stack.extend((x, y, f"{path}.{a.data}[{i}]") for i, (x, y) in enumerate(zip(a.children, b.children)))
    return None


def lark_tree(source: str):
    """lark's tree for `source`, or None where lark finds a syntax error."""
    try:
        return lark_parser().parse(source)
    except UnexpectedInput:
        return None


def check_accepted_is_larks(source: str) -> bool:
    """If fastparse accepts `source`, its tree must be lark's (and lark must accept). True when it accepted."""
    fast = fastparse.parse(source)
    if fast is None:
        return False
    slow = lark_tree(source)
    assert slow is not None, f"fastparse accepts {source!r}, which lark rejects"
    assert tree_difference(fast, slow) is None, f"{source!r}: {tree_difference(fast, slow)}"
    return True


def test_tree_difference_sees_what_lark_equality_ignores():
    a, b = lark_parser().parse("f(x) + 1"), lark_parser().parse("f(x)  + 1")
    assert a == b  # lark's equality: data and children only
    assert "column" in tree_difference(a, b)
    c = fastparse.parse("f(x) + 1")
    c.children[0].meta.end_pos = 99
    assert "meta" in tree_difference(c, a)


# -- (a) the bundled library ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def library_sources() -> list[str]:
    """Every distinct expression string one compile of the bundled library parses (about 4,500)."""
    seen: set[str] = set()
    cached = expr_compile._parse_cached

    def recording(source: str):
        seen.add(source)
        return cached(source)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(expr_compile, "_parse_cached", recording)
        # Every unit checked here, in this process: no compile cache, no compile workers.
        patch.setenv("TESSERA_COMPILE_WORKERS", "1")
        compile_taxonomy(cache=Cache(None))
    return sorted(seen)


def test_every_library_expression_parses_fast_to_larks_tree(library_sources):
    """fastparse takes every library expression (no fallback to lark), and both the tree the compile used (from
    the shared cache, after the whole compile: nothing changed it; field accessors desugared, as from lark's) and a
    fresh parse equal lark's tree exactly."""
    assert len(library_sources) > 1000
    assert [s for s in library_sources if fastparse.parse(s) is None] == []  # the fallback share is nil
    accessors = 0
    for source in library_sources:
        slow = lark_parser().parse(source)
        used = expr_compile._parse_cached(source)
        desugared = expr_compile.desugar_accessors(lark_parser().parse(source))
        accessors += any(t.data == "accessor" for t in slow.iter_subtrees())
        assert tree_difference(used, desugared) is None, f"{source!r}: {tree_difference(used, desugared)}"
        fresh = fastparse.parse(source)
        assert fresh is not used and tree_difference(fresh, slow) is None, f"{source!r}"
    assert accessors > 100  # the library writes `.field` for its one-field lambdas (bench/rewrite_accessors.py)


# -- (b) generated expressions and mutations ------------------------------------------------------------------------
@pytest.mark.parametrize("source", [
    "x -> x + 1", "(a, b) -> a * b", "(a, b,c)->[a,b,c,]", "let a = 1, b = a + 1 in a * b",
    "let ok = (x in xs) in ok", "let a = b if x in y else c in a", "let a = not x in a",
    "a if b else c if d else e", "a if b else x -> x", "not not a in b", "a not in b and c", "a < b == c",
    "-2 ** -x ** 2", "2 ** 3 ** 4", "a - -b", "a // b % c * d / e", "f()", "f(a,)", "f(a, b)[1:][:2][::3]",
    "xs[1:2:3]", "xs[:]", "xs[::]", "xs[1::]", "xs[:2:]", "xs[x -> x:]", "a.b.c[0].d", "[]", "[a,]",
    "[x for x in xs]", "[x if c else d for x in a in b if p if q for y in ys]", "{}", "{a: 1,}", "{a: {b: []}}",
    "true and false or true", "1.5 + 2. + 3e4 + 1.5e-3 + 0", "'it\\'s' + \"a\\\"b\"", "  \n\tf(\n  a ,\r\n b\n)\n ",
    "level\n  +\n    2", "x\x0c*\x0cy", "[\n  1,\n  2,\n]", "let\na\n=\n1\nin\na",
    "sort(xs, .value)", "f(.a, .b)[0]", ".a", "[.x for x in xs]", "g(. a)",
])
def test_hand_picked_forms_are_larks_trees(source):
    assert check_accepted_is_larks(source)


class Generator:
    """Random sentences of expr.lark, as token lists, rule by rule (a left-recursive rule as a base and a few
    repetitions). `keyword_names` lets a NAME be a keyword now and then, which lark's contextual lexer reads as a
    name only where its state does not accept the keyword."""

    NAMES = ("a", "b", "xs", "level", "f_1", "_x", "Z9", "index", "iffy", "nota", "true_", "lets")
    NUMBERS = ("0", "7", "123", "1.5", "2.", "3e4", "1.5e-3", "0.0", "10E+2")
    STRINGS = ('"a"', "'b'", '""', '"x\\"y"', "'it\\'s'", '"in"')

    def __init__(self, rng: random.Random, keyword_names: bool = False, size: int = 30):
        self.rng = rng
        self.keyword_names = keyword_names
        self.size = size  # names and literals to write before every rule takes its non-recursive form

    def name(self) -> list[str]:
        self.size -= 1
        if self.keyword_names and self.rng.random() < 0.15:
            return [self.rng.choice(fastparse.KEYWORDS)]
        return [self.rng.choice(self.NAMES)]

    def repeat(self, item, sep: list[str], depth: int) -> list[str]:
        out = item(depth)
        for _ in range(self.rng.choice((0, 0, 1, 2)) if depth > 0 and self.size > 0 else 0):
            out += sep + item(depth)
        return out

    def expr(self, d: int) -> list[str]:
        d = d if self.size > 0 else 0
        r = self.rng.random()
        if d <= 0 or r < 0.7:
            return self.cond(d)
        if r < 0.8:
            return self.name() + ["->"] + self.expr(d - 1)
        if r < 0.87:
            params = self.name()
            for _ in range(self.rng.choice((1, 1, 2))):
                params += [","] + self.name()
            return ["("] + params + [")", "->"] + self.expr(d - 1)
        bindings = self.let_binding(d - 1)
        for _ in range(self.rng.choice((0, 1))):
            bindings += [","] + self.let_binding(d - 1)
        return ["let"] + bindings + ["in"] + self.expr(d - 1)

    def let_binding(self, d: int) -> list[str]:
        return self.name() + ["="] + self.let_value(d)

    def let_value(self, d: int) -> list[str]:
        if d > 0 and self.rng.random() < 0.15:
            return self.or_expr(d - 1, True) + ["if"] + self.or_expr(d - 1) + ["else"] + self.let_value(d - 1)
        return self.or_expr(d, True)

    def cond(self, d: int) -> list[str]:
        if d > 0 and self.rng.random() < 0.15:
            return self.or_expr(d - 1) + ["if"] + self.or_expr(d - 1) + ["else"] + self.expr(d - 1)
        return self.or_expr(d)

    def or_expr(self, d: int, no_in: bool = False) -> list[str]:
        return self.repeat(lambda dd: self.and_expr(dd, no_in), ["or"], d)

    def and_expr(self, d: int, no_in: bool) -> list[str]:
        return self.repeat(lambda dd: self.not_expr(dd, no_in), ["and"], d)

    def not_expr(self, d: int, no_in: bool) -> list[str]:
        if self.rng.random() < 0.1:
            return ["not"] + self.not_expr(d, no_in)
        out = self.sum(d)
        for _ in range(self.rng.choice((0, 0, 0, 1, 2)) if d > 0 and self.size > 0 else 0):
            ops = [[self.rng.choice(("==", "!=", "<=", ">=", "<", ">"))]]
            if not no_in:
                ops += [["in"], ["not", "in"]]
            out += self.rng.choice(ops) + self.sum(d)
        return out

    def sum(self, d: int) -> list[str]:
        return self.repeat(self.term, [self.rng.choice("+-")], d)

    def term(self, d: int) -> list[str]:
        return self.repeat(self.factor, [self.rng.choice(("*", "//", "/", "%"))], d)

    def factor(self, d: int) -> list[str]:
        if self.rng.random() < 0.1:
            return ["-"] + self.factor(d)
        out = self.postfix(d)
        if self.rng.random() < 0.1:
            out += ["**"] + self.factor(d)
        return out

    def postfix(self, d: int) -> list[str]:
        rng = self.rng
        d = d if self.size > 0 else 0
        if d > 0 and rng.random() < 0.12:
            out = self.name() + ["("]
            if rng.random() < 0.8:
                out += self.repeat(self.expr, [","], d - 1) + ([","] if rng.random() < 0.2 else [])
            out += [")"]
        else:
            out = self.atom(d)
        for _ in range(rng.choice((0, 0, 0, 1, 2))):
            r = rng.random()
            if r < 0.4 or d <= 0:
                out += ["."] + self.name()
            elif r < 0.7:
                out += ["["] + self.expr(d - 1) + ["]"]
            else:  # a slice: every part optional
                part = (lambda: self.expr(d - 1) if rng.random() < 0.5 else [])
                out += ["["] + part() + [":"] + part() + ([":"] + part() if rng.random() < 0.5 else []) + ["]"]
        return out

    def atom(self, d: int) -> list[str]:
        rng = self.rng
        r = rng.random()
        if d <= 0 or self.size <= 0 or r < 0.55:
            self.size -= 1
            return rng.choice((self.name, lambda: [rng.choice(self.NUMBERS)], lambda: [rng.choice(self.STRINGS)],
                               lambda: [rng.choice(("true", "false"))]))()
        if r < 0.68:
            return ["("] + self.expr(d - 1) + [")"]
        if r < 0.8:
            if rng.random() < 0.2:
                return ["[", "]"]
            return ["["] + self.repeat(self.expr, [","], d - 1) + ([","] if rng.random() < 0.2 else []) + ["]"]
        if r < 0.9:
            out = ["["] + self.expr(d - 1)
            for _ in range(rng.choice((1, 1, 2))):
                out += ["for"] + self.name() + ["in"] + self.or_expr(d - 1)
                for _ in range(rng.choice((0, 0, 1, 2))):
                    out += ["if"] + self.or_expr(d - 1)
            return out + ["]"]
        if rng.random() < 0.2:
            return ["{", "}"]
        pair = (lambda dd: self.name() + [":"] + self.expr(dd))
        return ["{"] + self.repeat(pair, [","], d - 1) + ([","] if rng.random() < 0.2 else []) + ["}"]


SEPARATORS = ("", "", " ", " ", "  ", "\n", "\t", " \n  ", "\r\n", "\x0c")


def spell(tokens: list[str], rng: random.Random, tight: bool = True) -> str:
    """The tokens joined by random whitespace: `tight`, often none, so that neighbours may run together."""
    seps = SEPARATORS if tight else SEPARATORS[2:]
    out = [rng.choice(seps)]
    for tok in tokens:
        out += [tok, rng.choice(seps)]
    return "".join(out)


def standard_lex(source: str) -> list[str] | None:
    """The token texts of lark's standard (not contextual) lexer, or None where it meets a stray character."""
    try:
        return [t.value for t in lark_parser().lex(source)]
    except UnexpectedInput:
        return None


def test_generated_sentences_parse_to_larks_trees():
    """Sentences of the grammar: where they lex back to their own tokens (no neighbours run together) and use no
    keyword as a name, lark accepts them and so must fastparse, with lark's tree; otherwise (`x index` is `x in
    dex` to lark, `1.x` is a FLOAT and a NAME) fastparse either declines or gives lark's tree."""
    rng = random.Random(20260612)
    clean = accepted = 0
    for i in range(2500):
        keyword_names = i % 5 == 4
        tokens = Generator(rng, keyword_names).expr(rng.choice((1, 2, 3, 4)))
        source = spell(tokens, rng, tight=i % 2 == 1)
        if not keyword_names and standard_lex(source) == tokens:
            clean += 1
            assert lark_tree(source) is not None, f"the generator made {source!r}, which lark rejects"
            assert fastparse.parse(source) is not None, f"fastparse declines {source!r}, which lark accepts"
        accepted += check_accepted_is_larks(source)
    assert clean > 1000 and accepted >= clean


def mutants(source: str, rng: random.Random, n: int) -> list[str]:
    """`n` edits of `source`: a token deleted, duplicated, swapped with its neighbour or inserted from elsewhere,
    or a character deleted or inserted."""
    try:
        spans = [(t.start_pos, t.end_pos) for t in lark_parser().lex(source)]
    except UnexpectedInput:
        spans = [m.span() for m in re.finditer(r"\S+", source)]
    extra = ("(", ")", "[", "]", "{", "}", ",", ":", ".", "=", "-", "->", "not", "in", "if", "else", "for", "let",
             "or", "*", "**", "x", "1", "1.", "'s'", "\n", "<", "$", "\\")
    out = []
    for _ in range(n):
        if not spans:
            break
        a, b = spans[rng.randrange(len(spans))]
        c, d = spans[rng.randrange(len(spans))]
        kind = rng.randrange(6)
        if kind == 0:
            m = source[:a] + source[b:]
        elif kind == 1:
            m = source[:b] + rng.choice(("", " ")) + source[a:b] + source[b:]
        elif kind == 2 and (a, b) < (c, d) and b <= c:
            m = source[:a] + source[c:d] + source[b:c] + source[a:b] + source[d:]
        elif kind == 3:
            m = source[:a] + rng.choice(extra) + rng.choice(("", " ")) + source[a:]
        elif kind == 4 and source:
            i = rng.randrange(len(source))
            m = source[:i] + source[i + 1:]
        else:
            i = rng.randrange(len(source) + 1)
            m = source[:i] + rng.choice("()[]{},:.=-<>*/'\" \nae1_") + source[i:]
        out.append(m)
    return out


def test_mutated_expressions_are_declined_or_larks_trees(library_sources):
    """Edits of library expressions and of generated ones: whatever fastparse accepts, lark accepts with the
    same tree (every other edit falls to lark, which reports it)."""
    rng = random.Random(7)
    bases = rng.sample(library_sources, 500) + [spell(Generator(rng).expr(3), rng) for _ in range(500)]
    tried = accepted = 0
    for base in bases:
        for m in mutants(base, rng, 6):
            tried += 1
            accepted += check_accepted_is_larks(m)
    assert tried > 5000 and 0.05 * tried < accepted < 0.95 * tried  # edits that stay valid are taken, others not


def test_lexer_is_larks_standard_lexer():
    """Random character soup: fastparse's tokens are the standard lexer's (types, texts, every position), and it
    refuses exactly the strings where that lexer meets a stray character."""
    names = {"(": "LPAR", ")": "RPAR", "[": "LSQB", "]": "RSQB", "{": "LBRACE", "}": "RBRACE", ",": "COMMA",
             ":": "COLON", ".": "DOT", "=": "EQUAL", "-": "MINUS", "->": "__ANON_0"}
    names.update({k: k.upper() for k in fastparse.KEYWORDS})
    pieces = list("ab_eE0129.+-*/%<>=!(),:[]{}'\"\\ \n\t\r\x0c$") + list(fastparse.KEYWORDS) + ["->", "**", "//"]
    rng = random.Random(3)
    refused = 0
    for _ in range(4000):
        source = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 14)))
        try:
            want = [(t.type, t.value, t.start_pos, t.line, t.column, t.end_line, t.end_column, t.end_pos)
                    for t in lark_parser().lex(source)]
        except UnexpectedInput:
            want = None
        try:
            p = fastparse._Parser(source)
            got = [(names.get(k, k), text, *span) for k, text, span in zip(p.kinds, p.texts, p.spans)]
        except fastparse._Decline:
            got = None
        assert got == want, repr(source)
        refused += got is None
    assert 0 < refused < 4000


# -- (c) what fastparse declines is lark's ------------------------------------------------------------------------
@pytest.mark.parametrize("source", [
    "f(in)", "x.if", "{for: 1, in: 2}", "x index", "x notin y", "in + 1", "[a for in in xs]", "let in = 1 in in",
    "or or and", "(a, in) -> a", "-" * 1500 + "1",
])
def test_keywords_read_as_names_and_deep_nesting_are_left_to_lark(source):
    assert fastparse.parse(source) is None
    slow = lark_parser().parse(source)  # lark's language has them
    assert tree_difference(expr_compile._parse_cached(source), slow) is None


@pytest.mark.parametrize("source,message", [
    ("1 +", "e.yaml:1:4: error: expression ends too early  [expr-syntax]"),
    ("a b", "e.yaml:1:3: error: unexpected 'b' in expression (expected '(', ')', '*'/'/', '**', '+'/'-', ',', "
            "'->', '.')  [expr-syntax]"),
    ("f(x) -> 1", "e.yaml:1:7: error: unexpected '>' in expression (expected '(', '-', '.', '[', '{', a name, "
                  "a number, a string)  [expr-syntax]"),
    ("a\n  + $", "e.yaml:2:5: error: unexpected character '$' in expression  [expr-syntax]"),
    ("{a: 1,,}", "e.yaml:1:7: error: unexpected ',' in expression (expected '}', a name)  [expr-syntax]"),
    ("(a, b)", "e.yaml:1:7: error: expression ends too early  [expr-syntax]"),
    ('"abc', "e.yaml:1:1: error: unexpected character '\"' in expression  [expr-syntax]"),
    ("f(a)(b)", "e.yaml:1:5: error: unexpected '(' in expression (expected ')', '*'/'/', '**', '+'/'-', ',', '.', "
                "':', '[')  [expr-syntax]"),
    ("", "e.yaml:1:1: error: expression ends too early  [expr-syntax]"),
])
def test_syntax_errors_keep_larks_messages(source, message):
    """The messages are those of the lark-only parser before fastparse (checked against commit 1006101)."""
    assert fastparse.parse(source) is None
    diags = Diagnostics()
    assert parse(source, Site(None, (), "e.yaml"), diags) is None
    assert [str(d) for d in diags.items] == [message]


def test_lark_is_built_only_for_what_fastparse_declines():
    """Importing the compiler and parsing valid expressions never builds lark's tables (~120 ms); the first input
    fastparse declines does."""
    code = (
        "from tessera.expr import compile as c\n"
        "built = lambda: c.lark_parser.cache_info().currsize\n"
        "c._parse_cached('[x * 2 for x in xs if x > 0]'); c._parse_cached('let a = f(1)[1:] in a.b')\n"
        "print(built())\n"
        "try:\n    c._parse_cached('1 +')\nexcept Exception as e:\n    print(type(e).__name__)\n"
        "print(built())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["0", "UnexpectedToken", "1"]  # lark reports the end of input as an unexpected $END


# -- the assumptions fastparse rests on, checked on lark's built parser ---------------------------------------------
def test_patterns_and_their_order_are_larks():
    lexer = lark_parser().parser.lexer.root_lexer
    order = [t.name for t in lexer.terminals]  # lark's BasicLexer tries them in this order
    patterns = {t.name: t.pattern.to_regexp() for t in lexer.terminals}
    ours = [n for n in fastparse.PATTERNS if n != "punctuation"]
    assert [n for n in order if n in fastparse.PATTERNS] == ours
    escapes = str.maketrans({"\t": r"\t", "\x0c": r"\x0c", "\r": r"\r", "\n": r"\n"})
    for name in ours:  # the same regexes, groups made non-capturing and control characters written as escapes
        assert fastparse.PATTERNS[name] == re.sub(r"\((?!\?)", "(?:", patterns[name]).translate(escapes), name
    # the rest are lark's string terminals: keywords (which NAME's match retypes), '-' as MINUS (which ADD_OP's
    # match retypes) and punctuation, all tried after the patterns above
    rest = {t.name: t.pattern.value for t in lexer.terminals if t.name not in fastparse.PATTERNS}
    assert sorted(v for v in rest.values() if re.fullmatch(fastparse.PATTERNS["NAME"], v)) == sorted(
        fastparse.KEYWORDS)
    punctuation = {n: v for n, v in rest.items() if v not in fastparse.KEYWORDS and n != "MINUS"}
    assert rest["MINUS"] == "-" and sorted(punctuation.values()) == sorted("(),:.[]{}=")
    assert sorted(c for c in map(chr, range(128)) if re.fullmatch(fastparse.PATTERNS["punctuation"], c)) == sorted(
        punctuation.values())
    assert min(order.index(n) for n in punctuation) > max(order.index(n) for n in ours)


def test_no_parser_state_takes_both_minus_and_add_op():
    """fastparse types '-' by position (MINUS where an operand starts, ADD_OP after one); lark's contextual lexer
    types it by parser state, which agrees only if no state accepts both."""
    states = lark_parser().parser.parser.parser.parse_table.states
    assert states and not [s for s, actions in states.items() if "MINUS" in actions and "ADD_OP" in actions]
