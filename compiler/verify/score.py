"""Scoring a response against a verifier label.

A label is self-contained JSON (it travels into datasets and the RL reward function):
    {"type": "integer", "answer": 12, "key": "answer", "contract": "integer_exact",
     "tolerance": {"abs": 0, "rel": 0}, "normalize": {...}, "items": null}
reward = 0.95 · answer + 0.05 · format.

Where the answer is read (see docs/AUTHORING.md, "How the verifier reads a response"):
  * the **answer object**: the last `{...}` in the response that holds the label's key. It is read leniently (single
    or curly quotes, a trailing comma, unquoted keys and words, key case: `{'Answer': 'D',}`); text may follow it;
  * without one, a final statement on the response's last line: `Answer: 12`, `The answer is 12`, `\\boxed{12}`,
    `<answer>12</answer>`, opening the line or a sentence on it ("I count the bars. The answer is 12.") or
    concluding after a comma (", so the answer is 12"); statements on that line must agree;
  * every answer statement in the text after the answer object must agree with it (a restated or revised answer is
    checked too), and two answers under one key are refused: listing candidates never earns credit.
The label's `format` (FORMATS; absent means json) is the convention the prompt asked for. Under `boxed` or `tag` the
last `\\boxed{...}` / `<answer>...</answer>` is read first (two on its line, unclosed, or a disagreeing statement
after it score 0), then the readings above. `format` is 1 only for that convention's strict form: json, the response
ends (bar a code fence) with a valid JSON object whose only key is the label's key; boxed, it ends with a non-empty
`\\boxed{...}` (bar `$`, `\\]`, `\\)`, a full stop); tag, it ends with a non-empty `<answer>...</answer>`.

A value is then cleaned (Markdown emphasis, `$...$`, `\\boxed{}`, `\\text{}`, quotes, "The answer is", a final full
stop) and read by the label's type, strictly: one answer, no hedges. See the normalisers below for each type.

Work per response is bounded: only the last MAX_TAIL characters are read, at most MAX_TRIES candidate objects are
parsed (each in one pass, nesting at most MAX_DEPTH), values longer than MAX_VALUE and lists longer than MAX_ITEMS
are refused, and every regular expression here is linear in its input.
"""
from __future__ import annotations

import json
import math
import re
import string
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

MAX_TAIL = 4096
MAX_TRIES = 32
MAX_VALUE = 2000
MAX_ITEMS = 500
MAX_DEPTH = 16  # nesting inside an answer object
MAX_NUMBER = 40  # characters of one number
MAX_STATEMENTS = 4  # answer statements after the answer object
W_ANSWER, W_FORMAT = 0.95, 0.05


@dataclass(frozen=True)
class Score:
    answer: float
    format: float
    reward: float
    parsed: Any = None
    reason: str = ""

    def to_dict(self) -> dict:
        return {"reward": self.reward, "answer": self.answer, "format": self.format, "parsed": self.parsed,
                "reason": self.reason}


class _Bad(Exception):
    """A response value that cannot be read as the expected type."""


class _Unparsed(Exception):
    """Text at a `{` that is not an object."""


# -- reading objects leniently ----------------------------------------------------------------------------------
_SPACE = re.compile(r"\s*")
_DQ_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SQ_STRING = re.compile(r"'(?:[^'\\]|\\.)*'", re.DOTALL)
_CURLY_STRING = {"“": re.compile(r"“[^“”]*”"), "‘": re.compile(r"‘[^‘’]*’")}
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_BARE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A value written without quotes runs to the next `,` `}` `]` or line end; one level of (...) may hold commas.
_BARE_VALUE = re.compile(r'(?:\([^()\n{}\[\]"]*\)|[^,{}\[\]"()\n])+')
_LITERALS = {"true": (True, True), "false": (False, True), "null": (None, True), "NaN": (math.nan, True),
             "Infinity": (math.inf, True), "-Infinity": (-math.inf, True),
             "True": (True, False), "False": (False, False), "None": (None, False)}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "/": "/", "\\": "\\", '"': '"', "'": "'"}
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.DOTALL)


def _unescape(body: str) -> str:
    """A quoted string's body with JSON escapes decoded; an unknown escape (`\\d` in `\\dfrac`) stays as written."""
    def one(m):
        e = m.group(1)
        if len(e) == 5:
            return chr(int(e[1:], 16))
        return _ESCAPES.get(e, "\\" + e)
    return _ESCAPE.sub(one, body)


class _Reader:
    """One pass over `text` from a `{`: a JSON object, or the JSON-ish forms models write. `strict` stays True
    while everything read is plain JSON."""

    def __init__(self, text: str, pos: int):
        self.text, self.pos, self.strict = text, pos, True

    def _skip(self) -> str:
        space = _SPACE.match(self.text, self.pos)
        assert space is not None  # \s* matches at every position
        self.pos = space.end()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def object(self, depth: int = 0) -> list[tuple[str, Any]]:
        if depth >= MAX_DEPTH:
            raise _Unparsed
        self.pos += 1  # the "{"
        pairs: list[tuple[str, Any]] = []
        if self._skip() == "}":
            self.pos += 1
            return pairs
        while True:
            ch = self._skip()
            if ch in ('"', "'", "“", "‘"):
                key = self._string(ch)
            else:
                m = _BARE_KEY.match(self.text, self.pos)
                if not m:
                    raise _Unparsed
                key, self.pos, self.strict = m.group(), m.end(), False
            if self._skip() != ":":
                raise _Unparsed
            self.pos += 1
            pairs.append((key, self.value(depth + 1)))
            ch = self._skip()
            if ch == ",":
                self.pos += 1
                if self._skip() == "}":  # a trailing comma
                    self.pos += 1
                    self.strict = False
                    return pairs
            elif ch == "}":
                self.pos += 1
                return pairs
            else:
                raise _Unparsed

    def array(self, depth: int) -> list:
        if depth >= MAX_DEPTH:
            raise _Unparsed
        self.pos += 1
        items: list = []
        if self._skip() == "]":
            self.pos += 1
            return items
        while True:
            items.append(self.value(depth + 1))
            if len(items) > MAX_ITEMS:
                raise _Unparsed
            ch = self._skip()
            if ch == ",":
                self.pos += 1
                if self._skip() == "]":
                    self.pos += 1
                    self.strict = False
                    return items
            elif ch == "]":
                self.pos += 1
                return items
            else:
                raise _Unparsed

    def _string(self, quote: str) -> str:
        if quote in _CURLY_STRING:
            m = _CURLY_STRING[quote].match(self.text, self.pos)
            if not m:
                raise _Unparsed
            self.pos, self.strict = m.end(), False
            return m.group()[1:-1]
        m = (_DQ_STRING if quote == '"' else _SQ_STRING).match(self.text, self.pos)
        if not m:
            raise _Unparsed
        self.pos = m.end()
        literal = m.group()
        if quote == '"':
            try:
                return json.loads(literal)
            except ValueError:
                pass
        self.strict = False
        return _unescape(literal[1:-1])

    def value(self, depth: int):
        ch = self._skip()
        if ch == "{":
            pairs = self.object(depth)
            as_dict = dict(pairs)
            if len(as_dict) != len(pairs):
                raise _Unparsed  # a repeated key inside a value
            return as_dict
        if ch == "[":
            return self.array(depth)
        if ch in ('"', "'", "“", "‘"):
            return self._string(ch)
        m = _BARE_VALUE.match(self.text, self.pos)
        if not m:
            raise _Unparsed
        self.pos = m.end()
        word = m.group().strip()
        if word in _LITERALS:
            v, strict = _LITERALS[word]
            self.strict = self.strict and strict
            return v
        if len(word) <= MAX_NUMBER and _JSON_NUMBER.fullmatch(word):
            return json.loads(word)
        self.strict = False
        return word  # a bare word or expression: `D`, `3/8`, `25%`, `(−2, −3)`


@dataclass
class _Found:
    value: Any = None
    found: bool = False
    also: tuple = ()  # answer statements after the answer object; each must agree
    format: float = 0.0
    reason: str = ""
    where: str = "answer object"  # what the answer was read from, for a reason
    disagree: str = ""  # the reason when `also` disagrees with the value, if not "the text after `where` ..."


def _key_matches(written: str, key: str) -> bool:
    return written.strip().casefold() == key.casefold()


def _objects_from_end(tail: str):
    """(pairs, end, strict) for each object found scanning `{` from the end of `tail`, at most MAX_TRIES tries."""
    end = len(tail)
    for _ in range(MAX_TRIES):
        start = tail.rfind("{", 0, end)
        if start < 0:
            return
        end = start
        reader = _Reader(tail, start)
        try:
            pairs = reader.object()
        except (_Unparsed, ValueError, RecursionError):
            continue
        yield pairs, reader.pos, reader.strict


# -- answer statements outside an object ------------------------------------------------------------------------
_MARKUP = re.compile(r"^[\s#>]+|[*`]+")  # emphasis anywhere; headings and quotes open a line
_BOXED = re.compile(r"\\boxed\s*\{")
_ANSWER_TAG = re.compile(r"<answer>(.{0,400}?)</answer>", re.IGNORECASE)
_FENCE_ONLY = re.compile(r"^\W*$")


_LEAD_WORDS = r"(?:so|thus|therefore|hence|finally|again|actually|wait|sorry|correction)"


@lru_cache(maxsize=64)
def _statement_patterns(key: str):
    word = re.escape(key).replace("_", "[ _]")
    lead = r"(?:" + _LEAD_WORDS + r"\W{1,4})?"
    head = r"(?:(?:the|my|our)\s+)?(?:(?:final|correct)\s+)?" + word + r"\s*(?:is\s*:?|:|=)\s*"
    # On a last line a statement must open the line or a sentence ("I count the bars. The answer is 3."), or
    # follow a comma as a conclusion (", so the answer is 3"): "I think the answer is 3" and "If it wraps, the
    # answer is 3" are hedges. After an answer object any statement counts, so a revision in the trailing text is
    # checked too. Every quantifier outside the key is bounded or anchored, so finditer stays linear.
    opening = re.compile(r"(?:^\W*|[.!?;:][)\]\"'”’]{0,3}\s{1,8}\W{0,3}|,\s{1,8}(?:and\s{1,4})?(?=" + _LEAD_WORDS
                         + r"\b))" + lead + head, re.IGNORECASE)
    anywhere = re.compile(r"(?:^\W*|\b(?=(?:the|my|our|final|correct)\s))" + head, re.IGNORECASE)
    mention = re.compile(r"\b" + word + r"\W{0,3}\s*(?:is\b|[:=])|\\boxed|<answer>", re.IGNORECASE)
    return opening, anywhere, mention


def _boxed_values(line: str) -> list[str]:
    """The contents of each `\\boxed{...}` in a line (balanced braces, bounded by the line)."""
    out: list = []
    i = 0
    while (m := _BOXED.search(line, i)) is not None:
        depth, i = 1, m.end()
        while i < len(line) and depth:
            depth += {"{": 1, "}": -1}.get(line[i], 0)
            i += 1
        out.append(line[m.end():i - 1] if depth == 0 else None)  # a \boxed inside this one is part of it
    return out


def _statement(line: str, key: str, anywhere: bool = False) -> tuple[list | None, bool]:
    """(the answers one line states, whether they are statements) — `Answer: X`, `The answer is X` (each runs to
    the next statement on the line or the line's end), `\\boxed{X}`, `<answer>X</answer>`; the answers are None when
    the line holds a broken answer object (`{"answer": 13`), [] when it states none."""
    opening, inside, mention = _statement_patterns(key)
    if not mention.search(line):
        return [], False
    tags = _ANSWER_TAG.findall(line)
    if tags:
        return tags, False
    boxed = _boxed_values(line)
    if boxed:
        return boxed, False
    text = _MARKUP.sub("", line).strip()
    heads = list((inside if anywhere else opening).finditer(text))
    ends = [m.start() for m in heads[1:]] + [len(text)]
    values = [text[m.end():end].strip() for m, end in zip(heads, ends)]
    values = [v for v in values if v]  # "Answer: The answer is 3" states one answer
    if values:
        return values, True
    return (None if re.search(r"[\"'”’]\s*[:=]", line) else []), False


def _last_line_statement(tail: str, key: str) -> tuple[list, bool]:
    lines = [ln for ln in tail.splitlines() if not _FENCE_ONLY.match(ln)]
    values, said = _statement(lines[-1], key) if lines else ([], False)
    return (values, said) if values and None not in values else ([], False)


# -- the final-answer conventions a contract can ask for ---------------------------------------------------------
FORMATS = ("json", "boxed", "tag")  # trailing JSON object (default), \\boxed{...}, <answer>...</answer>
_BOXED_END = re.compile(r"(?:\s|\$|\\[\])]|\.|```)*")  # what may follow the strict final \\boxed{}: $ \] \) . fence
_TAG_OPEN = re.compile(r"<answer>", re.IGNORECASE)
_TAG_CLOSE = re.compile(r"</answer>", re.IGNORECASE)


def _last_boxed(tail: str) -> tuple[list, int, int] | None:
    """(values of the \\boxed{} on the last boxed one's line, start, end of the last one), or None if there is
    none. Braces balance within a line; a value is None where they do not. One pass: nested ones are skipped, and
    an unclosed one takes the rest of its line."""
    found: list = []  # (start, end, value)
    i = 0
    while (m := _BOXED.search(tail, i)) is not None:
        depth, j = 1, m.end()
        while j < len(tail) and depth and tail[j] != "\n":
            depth += {"{": 1, "}": -1}.get(tail[j], 0)
            j += 1
        if depth:  # not closed on its line: the rest of the line is part of it (as in _boxed_values), so one pass
            found.append((m.start(), j, None))
            i = j
        else:
            found.append((m.start(), j, tail[m.end():j - 1]))
            i = j
    if not found:
        return None
    start, end, _ = found[-1]
    line_start = tail.rfind("\n", 0, start) + 1
    return [v for s, _e, v in found if s >= line_start], start, end


def _last_tag(tail: str) -> tuple[list, int, int] | None:
    """Like _last_boxed for <answer>...</answer> (a value may span lines); None if no tag opens."""
    opens = [m for m in _TAG_OPEN.finditer(tail)]
    if not opens:
        return None
    closes = [m for m in _TAG_CLOSE.finditer(tail)]
    pairs: list = []  # (start, end, value): each open with the first close after it
    ci = 0
    for k, o in enumerate(opens):
        while ci < len(closes) and closes[ci].start() < o.end():
            ci += 1
        nxt = opens[k + 1].start() if k + 1 < len(opens) else len(tail)
        if ci < len(closes) and closes[ci].start() < nxt:
            pairs.append((o.start(), closes[ci].end(), tail[o.end():closes[ci].start()]))
        else:
            pairs.append((o.start(), o.end(), None))  # not closed before the next tag opens
    start, end, _ = pairs[-1]
    line_start = tail.rfind("\n", 0, start) + 1
    return [v for s, _e, v in pairs if s >= line_start], start, end


def _convention_answer(tail: str, key: str, answer_format: str) -> _Found | None:
    """The answer in the chosen convention's own form (the last one counts), or None when the response has none."""
    what = {"boxed": "\\boxed{}", "tag": "<answer> tag"}[answer_format]
    got = (_last_boxed if answer_format == "boxed" else _last_tag)(tail)
    if got is None:
        return None
    values, _start, end = got
    if values[-1] is None:
        return _Found(found=True, reason=f"the last {what} is not closed")
    if len(values) > 1:  # as for final statements: listing candidates never earns credit
        return _Found(found=True, reason=f"the last {what} line states more than one answer")
    trailer = tail[end:]
    if answer_format == "boxed":
        strict = _BOXED_END.fullmatch(trailer) is not None
    else:
        strict = trailer.strip() in ("", "```")
    fmt = 1.0 if strict and values[0].strip() and len(values[0]) <= MAX_VALUE else 0.0
    also: list = []
    for line in trailer.splitlines():
        stated, _said = _statement(line, key, anywhere=True)
        also += [None] if stated is None else stated
    if None in also or len(also) > MAX_STATEMENTS:
        return _Found(found=True, format=fmt, reason=f"the text after the {what} states another answer")
    return _Found(values[-1], True, tuple(also), fmt, where=what)


def find_answer(response: Any, key: str, answer_format: str = "json") -> _Found:
    """The answer a response gives: the chosen convention's form first (boxed, tag), then the answer object and
    the final statement that every convention reads (format 1 only for the chosen convention's strict form)."""
    if not isinstance(response, str):
        return _Found(reason="response is not text")
    tail = response[-MAX_TAIL:]
    if answer_format != "json":
        primary = _convention_answer(tail, key, answer_format)
        if primary is not None:
            return primary
    found = _find_json_answer(tail, key)
    if answer_format != "json":
        found.format = 0.0  # a JSON object is not the form this prompt asked for
    return found


def _find_json_answer(tail: str, key: str) -> _Found:
    saw_object = False
    for pairs, end, strict in _objects_from_end(tail):
        saw_object = True
        hits = [v for k, v in pairs if _key_matches(k, key)]
        if not hits:
            continue
        trailer = tail[end:]
        ends_here = trailer.strip() in ("", "```")
        fmt = 1.0 if strict and ends_here and len(pairs) == 1 and pairs[0][0] == key else 0.0
        if len(hits) > 1:
            return _Found(found=True, format=fmt, reason=f"the answer object gives '{key}' twice")
        also: list = []
        for line in trailer.splitlines():
            values, _said = _statement(line, key, anywhere=True)
            also += [None] if values is None else values
        if None in also or len(also) > MAX_STATEMENTS:
            return _Found(found=True, format=fmt, reason="the text after the answer object states another answer")
        return _Found(hits[0], True, tuple(also), fmt)
    stated, said = _last_line_statement(tail, key)
    if len(stated) == 1 or said and len(stated) <= MAX_STATEMENTS:
        # statements on one line ("The answer is 3. So the answer is 3.") must agree, like those after an object
        return _Found(stated[-1], True, tuple(stated[:-1]), disagree="the last line states more than one answer")
    if stated:
        return _Found(found=True, reason="the last line states more than one answer")
    if saw_object:
        return _Found(reason=f"final JSON object has no key '{key}'")
    return _Found(reason=f"no answer object {{\"{key}\": ...}} and no final answer statement")


# -- cleaning a value -------------------------------------------------------------------------------------------
_MINUS = str.maketrans({"\u2212": "-", "\u2013": "-", "\u2012": "-", "\ufe63": "-", "\uff0d": "-", "\u2010": "-"})
# JSON decodes "\boxed" and "\frac" as a backspace or form feed followed by "oxed" / "rac": put the backslash back.
_JSON_LATEX = re.compile(r"[\x08\x0c\t](?=oxed|rac|ext|frac|box)")
_STATED = re.compile(r"^(?:(?:so|thus|therefore|hence)\W+)?(?:(?:the|my)\s+)?(?:(?:final|correct)\s+)?"
                     r"answer\s*(?:is\s*:?|:|=)\s*", re.IGNORECASE)
_WRAPPERS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"), ('"', '"'), ("'", "'"), ("“", "”"),
             ("‘", "’"), ("<answer>", "</answer>"))
_COMMAND = re.compile(r"^\\(?:boxed|text|textbf|textit|mathrm|mathbf|mbox|fbox)\s*\{")
_LATEX_SUBS = (("\\left", ""), ("\\right", ""), ("\\dfrac", "\\frac"), ("\\tfrac", "\\frac"), ("\\%", "%"),
               ("\\,", "\u2009"), ("\\!", ""), ("\\ ", " "), ("^{\\circ}", "°"), ("^\\circ", "°"), ("\\{", "{"),
               ("\\}", "}"), ("\\cdot", "·"))


# Arabic-Indic punctuation and the ideographic space; the full-width forms U+FF01..U+FF5E are the ASCII ones shifted.
_SCRIPT_PUNCT = {"\u066b": ".", "\u066c": ",", "\u066a": "%", "\u060c": ",", "\u061b": ";", "\u3000": " "}


def _fold_digits(s: str) -> str:
    """Digits of any script (Arabic-Indic ٠-٩, extended ۰-۹, Devanagari, ...) and full-width forms (１２, ：, Ａ) as
    the ASCII characters they are; everything else as written."""
    if s.isascii():
        return s
    out = []
    for ch in s:
        if ch.isdecimal():  # exactly the Unicode decimal digits (Nd); not ² or ½
            out.append(chr(48 + unicodedata.decimal(ch)))
        elif "\uff01" <= ch <= "\uff5e":
            out.append(chr(ord(ch) - 0xFEE0))
        else:
            out.append(_SCRIPT_PUNCT.get(ch, ch))
    return "".join(out)


_INNER_BRACKET = re.compile(r"[\[\](){}]")


def _unbracket(s: str) -> str:
    """`[2]` as 2: one value in square brackets written as text (a JSON list stays a list; `[(3, -2)]` and
    `[[a, b]]` hold a bracketed value, so they keep theirs)."""
    if len(s) >= 2 and s[0] == "[" and s[-1] == "]" and not _INNER_BRACKET.search(s, 1, len(s) - 1):
        return s[1:-1]
    return s


def _clean(v: str) -> str:
    """The answer a value states, without the dressing models put around it."""
    if len(v) > MAX_VALUE:
        raise _Bad("value too long")
    s = _JSON_LATEX.sub(lambda m: "\\" + {"\x08": "b", "\x0c": "f", "\t": "t"}[m.group()], v)
    s = _fold_digits(s).translate(_MINUS).replace("*", "").replace("`", "")
    for old, new in _LATEX_SUBS:
        s = s.replace(old, new)
    for _ in range(8):
        before = s
        s = s.strip().strip("_").strip()
        s = _STATED.sub("", s, count=1)
        while s[-1:] in (".", "!", "。") and not s.endswith("..."):
            s = s[:-1].rstrip()
        for a, b in _WRAPPERS:
            if len(s) >= len(a) + len(b) and s.startswith(a) and s.endswith(b):
                s = s[len(a):-len(b)]
                break
        m = _COMMAND.match(s)
        if m and s.endswith("}") and _balanced(s[m.end():-1]):
            s = s[m.end():-1]
        s = _unbracket(s)
        if s == before:
            break
    return s.strip()


def _balanced(s: str) -> bool:
    depth = 0
    for ch in s:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


# -- numbers ----------------------------------------------------------------------------------------------------
_DIGITS = r"(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]{1,3}(?:[\u00a0\u2009\u202f][0-9]{3})+|[0-9]+)"  # 1,234 / 1 234 / 1234
_DECIMAL = re.compile(r"([+-]?)(" + _DIGITS + r"(?:\.[0-9]+)?|\.[0-9]+)((?:[eE][+-]?[0-9]{1,3})?)")
_FRACTION = re.compile(r"([+-]?)(?:([0-9]{1,12})\s+)?([0-9]{1,12})\s*/\s*([0-9]{1,12})")
_LATEX_FRACTION = re.compile(r"([+-]?)\\frac\s*\{\s*([+-]?[0-9]{1,12})\s*\}\s*\{\s*([+-]?[0-9]{1,12})\s*\}")
_RATIO = re.compile(r"([0-9]{1,12})\s+(?:in|out\s+of)\s+([0-9]{1,12})", re.IGNORECASE)  # "1 in 4" (probability)
_APPROX = re.compile(r"^(?:≈|~|about|approximately|approx\.?|around|roughly)\s*", re.IGNORECASE)
_PERCENT = re.compile(r"^(?:%|percent|per\s+cent)$", re.IGNORECASE)
# A unit after a number: up to three words after a space ("12 apples", "12.5 square units", "3 cm^2"), or a sign
# or short unit written against it ("147.5°", "12cm").
_UNIT = re.compile(r"^(?:[°²³]|cm|mm|km|m|px|kg|g|s|h)(?:\^[23])?$|"
                   r"^\s+(?:°|[A-Za-z°][A-Za-z°²³.]*(?:\^[23])?(?:[\s-]+[A-Za-z][A-Za-z²³.]*(?:\^[23])?){0,2})$")
# Words that make "12 <word>" something other than 12 with a unit: a magnitude, another number or operation, a
# range or bound, a hedge, a condition, a negation.
_NOT_UNITS = frozenset(
    "thousand thousands million millions billion billions trillion trillions hundred hundreds dozen dozens k bn "
    "squared cubed x plus minus times over divided per or and to nor not than but vs versus by of out except instead "
    "maybe perhaps probably possibly likely either ish approx approximately about around roughly odd some something "
    "least most max maximum minimum nearly almost under above below up if unless assuming when give take".split())
_NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())}


def _split_number(s: str, form: str) -> tuple[float | int, str]:
    """(value, what follows it) for text that starts with one number; ints stay exact."""
    for rx in (_LATEX_FRACTION, _FRACTION) + ((_RATIO,) if form == "probability" else ()):
        m = rx.match(s)
        if m:
            g = m.groups()
            if rx is _RATIO:
                sign, whole, num, den = "", None, g[0], g[1]
            elif rx is _LATEX_FRACTION:
                sign, whole, num, den = g[0], None, g[1], g[2]
            else:
                sign, whole, num, den = g
            if int(den) == 0:
                raise _Bad("zero denominator")
            value = int(num) / int(den)
            if whole is not None:
                value = int(whole) + value
            return (-value if sign == "-" else value), s[m.end():]
    m = _DECIMAL.match(s)
    if m:
        sign, digits, exp = m.groups()
        digits = re.sub(r"[,\u00a0\u2009\u202f]", "", digits)
        if "." in digits or exp:
            value = float(sign + digits + exp)
        else:
            value = int(sign + digits)
        rest = s[m.end():]
        frac = re.match(r"^\s*([\u00bc-\u00be\u2150-\u215e])", rest)  # "2½"
        if frac and isinstance(value, int):
            value = value + math.copysign(unicodedata.numeric(frac.group(1)), value or 1)
            rest = rest[frac.end():]
        return value, rest
    if s[:1] in "\u00bc\u00bd\u00be" or "\u2150" <= s[:1] <= "\u215e":
        return unicodedata.numeric(s[0]), s[1:]
    raise _Bad("not a number")


def _read_number(v: str, form: str, approx_ok: bool) -> tuple[float | int, bool]:
    """(value, was it a percentage) for a number written as text."""
    s = _clean(v)
    if len(s) > MAX_NUMBER + 40:
        raise _Bad("not a number")
    if approx_ok:
        s = _APPROX.sub("", s, count=1)
    word = _NUMBER_WORDS.get(s.casefold())
    if word is not None:
        return word, False
    value, rest_raw = _split_number(s, form)
    rest = rest_raw.strip().casefold()
    if not rest:
        return value, False
    if _PERCENT.match(rest):
        return value, True
    if _UNIT.match(rest_raw) and not (set(re.split(r"[\s-]+", rest)) & _NOT_UNITS):
        return value, False
    raise _Bad("not a single number")


def _norm_int(v) -> int:
    if isinstance(v, bool):
        raise _Bad("boolean where an integer was expected")
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        if math.isfinite(v) and v.is_integer():
            return int(v)
        raise _Bad("not an integer")
    if isinstance(v, str):
        value, _pct = _read_number(v, "integer", approx_ok=False)
        written = _clean(v)  # "４／２" is a fraction too
        if isinstance(value, float) and not (value.is_integer() and "/" not in written and "frac" not in written):
            raise _Bad("not an integer")
        return int(value)
    raise _Bad("not an integer")


def _norm_num(v, form: str = "number") -> float:
    if isinstance(v, bool):
        raise _Bad("boolean where a number was expected")
    if isinstance(v, (int, float)):
        f = float(v)
    elif isinstance(v, str):
        value, pct = _read_number(v, form, approx_ok=True)
        f = float(value) / 100 if pct and form == "probability" else float(value)  # "25%" is 0.25 only then
    else:
        raise _Bad("not a number")
    if not math.isfinite(f):
        raise _Bad("not a finite number")
    return f


# -- text, times, booleans, options -----------------------------------------------------------------------------
_PUNCT_TO_SPACE = str.maketrans({c: " " for c in string.punctuation + "‘’“”–—·…"})
_WS = re.compile(r"\s+")
_ARTICLES = re.compile(r"^(the|a|an)\s+")
_CLOCK = re.compile(r"^([0-9]{1,2})\s*[:.h]\s*([0-9]{2})(?::00)?\s*(?:([ap])\.?\s*m\.?)?$", re.IGNORECASE)
# A whole hour as the dial shows it: "5", "five", "5 o'clock", "five o'clock", "5 pm" (hours 1 to 12 only).
_OCLOCK = re.compile(r"^([0-9]{1,2}|[a-z]{3,6})\s*(o'?\s*clock)?\s*(?:([ap])\.?\s*m\.?)?$", re.IGNORECASE)


def _synonym_table(norm: dict) -> dict[str, str]:
    """variant → canonical word, from the contract's `normalize.synonyms` ({canonical: [variants]})."""
    table = {}
    for canonical, variants in (norm.get("synonyms") or {}).items():
        for w in variants:
            table[str(w).casefold()] = str(canonical).casefold()
    return table


def _norm_str(v, norm: dict) -> str:
    if isinstance(v, bool):
        v = "true" if v else "false"
    elif isinstance(v, (int, float)):
        v = str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)
    if not isinstance(v, str) or len(v) > MAX_VALUE:
        raise _Bad("not a string")
    s = _clean(v)
    if norm.get("form", "text") == "clock_time":
        return _norm_clock(s)
    if norm.get("case", "fold") == "fold":
        s = s.casefold()
    if norm.get("strip_punctuation", True):
        # punctuation separates words rather than vanishing: "1, 2" must not read as "12"
        s = s.translate(_PUNCT_TO_SPACE)
    if norm.get("whitespace", "collapse") == "collapse":
        s = _WS.sub(" ", s).strip()
    if norm.get("strip_articles", False):
        s = _ARTICLES.sub("", s)
    synonyms = norm["_table"] if "_table" in norm else _synonym_table(norm)
    if synonyms:
        s = " ".join(synonyms.get(w, w) for w in s.split(" "))
    return s


_CLOCK_PHRASE = re.compile(r"^([a-z0-9 -]{1,16}?)\s+(?:minutes?\s+)?(past|after|to|before)\s+([a-z0-9]{1,6})"
                           r"(?:\s+o'?\s*clock)?(?:\s*([ap])\.?\s*m\.?)?$", re.IGNORECASE)
_CLOCK_MINUTES = {**_NUMBER_WORDS, "quarter": 15, "a quarter": 15, "half": 30, "twenty-five": 25, "twenty five": 25}


def _clock_word(w: str, table: dict) -> int | None:
    w = w.strip().casefold()
    return int(w) if w.isascii() and w.isdigit() and len(w) <= 2 else table.get(w)


def _norm_clock(v: str) -> str:
    """A time of day as a 12-hour clock shows it: 'h:mm' with h in 1..12. Accepted: 24-hour forms ("17:00" is 5:00:
    a 12-hour dial does not tell the halves of the day apart, so either reading is right), am/pm forms (hour 1..12),
    a whole hour as the dial shows it, 1 to 12, alone or with o'clock or am/pm ("5", "five", "five o'clock",
    "5 pm"), and "half past eight", "quarter to four", "ten past two". A 24-hour hour without its minutes ("17",
    "17 o'clock", "0") is refused: no one reads a dial that way, and "17" is as likely a count as a time."""
    s = v.strip().replace("’", "'")
    if len(s) > 40:
        raise _Bad("not a time of day (h:mm)")
    m = _CLOCK.match(s) or _OCLOCK.match(s)
    phrase = None if m else _CLOCK_PHRASE.match(s)
    hour: int | None
    minute: int | None
    if m and m.re is _CLOCK:
        hour, minute = int(m.group(1)), int(m.group(2))
        if m.group(3) and not 1 <= hour <= 12:  # "17:00 pm" says two things
            raise _Bad("not a time of day (h:mm)")
    elif m:
        hour, minute = _clock_word(m.group(1), _NUMBER_WORDS), 0
        if hour is None or not 1 <= hour <= 12:
            raise _Bad("not a time of day (h:mm)")
    elif phrase:
        minute = _clock_word(phrase.group(1), _CLOCK_MINUTES)
        hour = _clock_word(phrase.group(3), _NUMBER_WORDS)
        if minute is None or hour is None or not 1 <= minute <= 30 or not 1 <= hour <= 12:
            raise _Bad("not a time of day (h:mm)")
        if phrase.group(2).casefold() in ("to", "before"):
            hour, minute = hour - 1, 60 - minute
    else:
        raise _Bad("not a time of day (h:mm)")
    if hour > 23 or minute > 59:
        raise _Bad("not a time of day (h:mm)")
    hour %= 12
    return f"{hour or 12}:{minute:02d}"


_BOOL = re.compile(r"^(yes|no|true|false)(?:(?:\s*[,;:.!\-—]\s*|\s+)(.*))?$", re.IGNORECASE | re.DOTALL)
# A reason after "Yes," may not give the other answer or hedge ("No, there is no cycle" is fine).
_HEDGE = (r"maybe|perhaps|probably|possibly|likely|unsure|unclear|uncertain|not\s+sure|depends|might|guess|"
          r"if|unless|assuming|or")
_BOOL_AGAINST = {True: re.compile(rf"\b(?:no|false|{_HEDGE})\b", re.IGNORECASE),
                 False: re.compile(rf"\b(?:yes|true|{_HEDGE})\b", re.IGNORECASE)}


def _norm_bool(v) -> bool:
    """true/false or yes/no (y/n alone), also "Yes." and "No, they do not overlap." (a reason that names no other
    answer)."""
    if isinstance(v, bool):
        return v
    if isinstance(v, str):
        text = _clean(v)
        if text.casefold() in ("y", "n"):  # alone only: "y = 3" or "n/a" is not an answer
            return text.casefold() == "y"
        m = _BOOL.match(text)
        if m:
            said = m.group(1).casefold() in ("yes", "true")
            if not _BOOL_AGAINST[said].search(m.group(2) or ""):
                return said
    raise _Bad("not a boolean")


_OPTION = re.compile(r"^(?:(?:option|choice)[\s:]*)?([\(\[])?\s*([A-Za-z])\s*([\)\]])?(.*)$", re.IGNORECASE | re.DOTALL)
_OPTION_TEXT = re.compile(r"^(?:\s*[.:]|\s*[-—](?=\s))\s+(.*)$|^[.:]$", re.DOTALL)
_ANOTHER_OPTION = re.compile(r"(?:^|\s)\(?[A-Za-z][.)](?:\s|$)|\b(?:or|and|not?|maybe|perhaps|probably|actually|"
                             r"instead|wait)\b", re.IGNORECASE)


def _norm_option(v) -> str:
    """One option letter: "C", "(c)", "C.", "Option C", "**C**", and the option as listed ("D. D3", "D) D3")."""
    if isinstance(v, str) and len(v) <= MAX_VALUE:
        m = _OPTION.match(_clean(v))
        opening, letter, closing, rest = m.groups() if m else (None, "", None, "")
        if m and (not opening or _BRACKETS[opening] == closing):  # "(C)", "[C]", "C)", not "(C" or "[C)"
            if not rest.strip():
                return letter.upper()
            # text after the letter is the option's own text, which must not name another option
            text = rest if closing and rest[:1].isspace() else None
            if not closing:
                sep = _OPTION_TEXT.match(rest)
                text = sep.group(1) if sep else None
            if text is not None and not _ANOTHER_OPTION.search(text):
                return letter.upper()
    raise _Bad("not an option letter")


# -- lists ------------------------------------------------------------------------------------------------------
_POINT_NAME = re.compile(r"^\(?\s*x\s*,\s*y\s*(?:,\s*z\s*)?\)?\s*=\s*", re.IGNORECASE)  # "(x, y) = (3, -2)"
_COORD_NAME = re.compile(r"^[a-z]\s*[=:]\s*", re.IGNORECASE)  # "x = 3"
_BRACKETS = {"(": ")", "[": "]", "{": "}"}
# Items written as text: "a, b", "a; b", one per line, "a → b", "a -> b", "a > b" (a chain, in the order written),
# "a, b and c"; never bare spaces ("1 2" is not [1, 2]). "a < b" is no separator: read in the order written it would
# reverse what an ascending chain says, so it stays one item (wrong) rather than a guess.
_ITEM_SEP = re.compile(r"\s*(?:[,;\n]|→|->|⟶|>)\s*(?:and\s+)?|\s+and\s+")


def _norm_items(v, item_type: str, label: dict) -> list:
    if isinstance(v, dict) and item_type in ("integer", "number"):
        named = {str(k).strip().casefold(): x for k, x in v.items()}
        if sorted(named) in (["x", "y"], ["x", "y", "z"]):  # {"x": 3, "y": -2}
            v = [named[k] for k in sorted(named)]
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        v = [v]  # a one-item answer written as its item
    if isinstance(v, str):
        s = _clean(v)
        if item_type != "string":
            s = _POINT_NAME.sub("", s)
        if len(s) >= 2 and _BRACKETS.get(s[0]) == s[-1]:  # "(3, -2)" or "[a, b]" written as text
            s = s[1:-1]
        parts = _ITEM_SEP.split(s)
        if item_type != "string":
            parts = [_COORD_NAME.sub("", p.strip()) for p in parts]
        v = [p for p in (x.strip() for x in parts) if p]
    if not isinstance(v, list) or len(v) > MAX_ITEMS:
        raise _Bad("not a list")
    return [_norm_scalar(x, item_type, label) for x in v]


def _norm_scalar(v, kind: str, label: dict):
    norm = label.get("normalize") or {}
    if kind == "integer":
        return _norm_int(v)
    if kind == "number":
        return _norm_num(v, norm.get("form", "number"))
    if kind == "string":
        return _norm_str(v, norm)
    if kind == "boolean":
        return _norm_bool(v)
    if kind == "option":
        return _norm_option(v)
    raise _Bad(f"unknown answer type {kind}")


def _num_equal(a: float, b: float, tol: dict) -> bool:
    return abs(a - b) <= max(float(tol.get("abs", 0.0)), float(tol.get("rel", 0.0)) * abs(b), 1e-9)


def matches(label: dict, value: Any) -> bool:
    """Does a response value equal the label's answer after type-aware normalisation? Raises _Bad if unreadable."""
    kind = label["type"]
    truth = label["answer"]
    norm = label.get("normalize") or {}
    if norm.get("synonyms"):  # built once per response, not once per item
        label = {**label, "normalize": {**norm, "_table": _synonym_table(norm)}}
    if kind == "number":
        norm = label.get("normalize") or {}
        return _num_equal(_norm_num(value, norm.get("form", "number")), float(truth), label.get("tolerance") or {})
    if kind in ("list", "set"):
        item = label.get("items") or "string"
        got = _norm_items(value, item, label)
        want = [_norm_scalar(x, item, label) for x in truth]
        if item == "number":
            tol = label.get("tolerance") or {}
            if kind == "set":  # repeats ignored, as for other sets: each side within tolerance of the other
                return all(any(_num_equal(g, w, tol) for w in want) for g in got) and \
                    all(any(_num_equal(g, w, tol) for g in got) for w in want)
            return len(got) == len(want) and all(_num_equal(g, w, tol) for g, w in zip(got, want))
        if kind == "set":
            return set(got) == set(want)
        return got == want
    return _norm_scalar(value, kind, label) == _norm_scalar(truth, kind, label)


def score(label: dict, response: Any) -> Score:
    """Score one response. Never raises: a broken label scores 0 with a reason."""
    try:
        key = label.get("key", "answer")
        answer_format = label.get("format", "json")
        if answer_format not in FORMATS:
            return Score(0.0, 0.0, 0.0, None, f"unknown answer format {answer_format!r}")
        found = find_answer(response, key, answer_format)
        fmt = found.format
        if not found.found or found.reason:
            return Score(0.0, fmt, W_FORMAT * fmt, None, found.reason)
        value = found.value
        try:
            ok = matches(label, value)
            revised = ok and not all(matches(label, v) for v in found.also)
        except _Bad as exc:
            return Score(0.0, fmt, W_FORMAT * fmt, None, str(exc))
        ok = ok and not revised
        why = (found.disagree or f"the text after the {found.where} states a different answer") if revised \
            else "wrong answer"
        ans = 1.0 if ok else 0.0
        shown = value if isinstance(value, (int, float, bool)) or value is None else str(value)[:200] \
            if not isinstance(value, list) else value[:50]
        return Score(ans, fmt, round(W_ANSWER * ans + W_FORMAT * fmt, 6), shown, "" if ok else why)
    except Exception as exc:  # noqa: BLE001 - the verifier must never raise, whatever the label or response
        return Score(0.0, 0.0, 0.0, None, f"verifier error: {type(exc).__name__}")


# What the answer is and one example of it, per contract form where the form changes what a right answer looks
# like: a probability prompt that says "give a fraction" must say how a fraction is written in JSON (a bare 4/5 is
# not JSON, so it earns no format point), and a clock time's example is a time, not "red".
FORM_SHAPES = {
    "probability": ("a probability, as a decimal or as a fraction in quotes", "0.25", '"1/4"'),
    "clock_time": ("a time as h:mm", '"3:05"', None),
}


def format_instruction(label_type: str, items: str | None, key: str = "answer", answer_format: str = "json",
                       form: str = "text") -> str:
    """The answer-format sentence appended to every prompt, in the contract's convention (FORMATS) and, where the
    contract's normalize form changes what an answer looks like (FORM_SHAPES), in that form."""
    shape = {
        "integer": "an integer", "number": "a number", "string": "a short text", "boolean": "true or false",
        "option": "the option letter", "list": f"a list of {items or 'string'}s in order",
        "set": f"a list of {items or 'string'}s (any order)",
    }[label_type]
    example = {
        "integer": "3", "number": "2.5", "string": '"red"', "boolean": "true", "option": '"B"',
        "list": '["a", "b"]' if (items or "string") == "string" else "[1, 2]",
        "set": '["a", "b"]' if (items or "string") == "string" else "[1, 2]",
    }[label_type]
    other = None  # a second example, in JSON only (boxed and tag write a fraction as it is)
    if form in FORM_SHAPES and label_type in ("number", "string"):
        shape, example, other = FORM_SHAPES[form]
    if answer_format == "boxed":
        shown = _written_out(other or example)
        shape = shape.replace(" in quotes", "")
        return (f"Think it through, then end your response with your final answer in \\boxed{{...}}: {shape}, "
                f"for example \\boxed{{{shown}}}.")
    if answer_format == "tag":
        shown = _written_out(other or example)
        shape = shape.replace(" in quotes", "")
        return (f"Think it through, then end your response with your final answer inside <answer></answer> tags: "
                f"{shape}, for example <answer>{shown}</answer>.")
    also = f' or {{"{key}": {other}}}' if other else ""
    return (f'Think it through, then end your response with a JSON object {{"{key}": ...}} whose value is {shape}, '
            f'for example {{"{key}": {example}}}{also}.')


def _written_out(example: str) -> str:
    """A JSON example as plain text, the way \\boxed{} and tags hold it: `B`, `red`, `a, b`, `1, 2`."""
    return example.strip("[]").replace('"', "")


def canonical_response(label: dict, value: Any) -> str:
    """The strict form of the label's convention holding `value` (what the gates and the battery score)."""
    answer_format = label.get("format", "json")
    if answer_format == "json":
        return json.dumps({label.get("key", "answer"): value})
    if isinstance(value, list):
        text = ", ".join(json.dumps(v) if isinstance(v, str) else str(v) for v in value)
    else:
        text = json.dumps(value) if isinstance(value, bool) else str(value)
    return f"\\boxed{{{text}}}" if answer_format == "boxed" else f"<answer>{text}</answer>"


def wrong_answer(label: dict):
    """A value of the right type that the label must reject (used by the gates and the per-task battery)."""
    kind, truth = label["type"], label["answer"]
    if kind == "integer":
        return truth + 1
    if kind == "number":
        return truth + 1 + 10 * float((label.get("tolerance") or {}).get("abs", 0))
    if kind == "boolean":
        return not truth
    if kind == "option":
        return "B" if truth == "A" else "A"
    if kind == "string":
        return f"not {truth} at all"
    if kind == "list":
        flipped = list(reversed(truth))
        return flipped if flipped != list(truth) else list(truth) + [truth[0] if truth else "no such item"]
    if kind == "set":
        return list(truth) + ["no such item"] if label.get("items") == "string" else list(truth) + [10**9]
    raise ValueError(f"unknown answer type {kind}")
