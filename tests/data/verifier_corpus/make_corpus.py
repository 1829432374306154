"""Write the verifier corpus: for every answer type, ordinary ways a model writes a correct answer and near-misses
that are wrong, each with the score the verifier must give (1 right, 0 wrong).

    python tests/data/verifier_corpus/make_corpus.py      # rewrites tests/data/verifier_corpus/<type>.json

Deterministic (no randomness: every choice cycles through its options by index), and independent of the verifier:
the expected score of a case is decided here, by how the case was built, never by scoring it. A case is
`{"answer": truth, "response": text, "expect": 0|1, "why": what kind of case it is}`; a file names the bundled
contract whose label the cases use, or carries the label itself for answer types no bundled contract uses.

Policy the cases encode (docs/AUTHORING.md, "How the verifier reads a response"): the last answer object counts
(earlier ones are drafts); text may follow it unless that text states a different answer; without an object, a
final `Answer: X` / `The answer is X` / `\\boxed{X}` line counts; a value is one answer (hedges, ranges, two
candidates, negations are wrong); thousands separators only as `1,234`; `%` means hundredths only for probabilities.
"""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent


class Raw(str):
    """A value written into the object exactly as given (not JSON-encoded): `D`, `True`, `"\\boxed{12}"`."""


# -- ways to write a response around a value --------------------------------------------------------------------
REASONING = [
    "Let me look at the image carefully.\n\nFirst I identify the relevant objects, then I check each one.",
    "Step 1: Read the question.\nStep 2: Find the marks it mentions.\nStep 3: Work out the result.",
    "Looking at the figure, there are several candidates; the sets $\\{1, 2\\}$ and {3, 4} are ruled out by the legend.",
    "I'll reason it through.\n- The scale starts at 0.\n- Each gridline is 5 units.\n- Reading off the values carefully.",
    "**Analysis**\n\nComparing every option against the picture, only one fits the description exactly.",
    "The picture shows the layout clearly. Counting carefully and double-checking gives the result below.",
    "Let's think step by step. The question asks for one value; I note intermediate values like 7, 19 and 0.4.",
    "Okay. Reading the labels: the top row, then the bottom row. (Earlier I thought of {\"note\": 1}, but no.)",
]


ARABIC, PERSIAN, WIDE = "٠١٢٣٤٥٦٧٨٩", "۰۱۲۳۴۵۶۷۸۹", "０１２３４５６７８９"


def digits_in(text, script: str, point: str = ".") -> str:
    """`text` with its ASCII digits written in another script (and its decimal point as `point`)."""
    return str(text).translate(str.maketrans("0123456789.", script + point))


def wide(text) -> str:
    """`text` in full-width forms (U+FF01..U+FF5E), spaces as they are."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in str(text))


def literal(value) -> str:
    return str(value) if isinstance(value, Raw) else json.dumps(value, ensure_ascii=False)


def single_quoted(value) -> str:
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, list):
        return "[" + ", ".join(single_quoted(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"'{k}': {single_quoted(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


def plain(value) -> str | None:
    """How the value reads written out in a sentence, or None if it has no plain form."""
    if isinstance(value, Raw) or isinstance(value, str) and "\n" in value:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    return None


# (name, build(prefix, value) -> response or None, needs a plain form)
ENVELOPES = [
    ("json at the end", lambda p, v: f'{p}\n\n{{"answer": {literal(v)}}}'),
    ("json in a code fence", lambda p, v: f'{p}\n\n```json\n{{"answer": {literal(v)}}}\n```'),
    ("json then a full stop", lambda p, v: f'{p} So my answer is {{"answer": {literal(v)}}}.'),
    ("single quotes", lambda p, v: f"{p}\n{{'answer': {single_quoted(v)}}}"),
    ("key in title case", lambda p, v: f'{p}\n{{"Answer": {literal(v)}}}'),
    ("trailing comma", lambda p, v: f'{p}\n{{"answer": {literal(v)},}}'),
    ("bold label before the json", lambda p, v: f'{p}\n\n**Final answer:** {{"answer": {literal(v)}}}'),
    ("polite text after the json", lambda p, v: f'{p}\n{{"answer": {literal(v)}}}\n\nLet me know if you need more help!'),
    ("pretty-printed json", lambda p, v: f'{p}\n{{\n  "answer" : {literal(v)}\n}}'),
    ("unquoted key", lambda p, v: f"{p}\n{{answer: {literal(v)}}}"),
    ("draft then final object", lambda p, v: f'{p}\nFirst guess: {{"answer": null}}. Checking again...\n{{"answer": {literal(v)}}}'),
    ("json then the same answer restated", lambda p, v: None if plain(v) is None else
     f'{p}\n{{"answer": {literal(v)}}}\nSo the answer is {plain(v)}.'),
    ("bold json", lambda p, v: f'{p}\n**{{"answer": {literal(v)}}}**'),
    ("answer line without json", lambda p, v: None if plain(v) is None else f"{p}\n\nAnswer: {plain(v)}"),
    ("boxed without json", lambda p, v: None if plain(v) is None else f"{p}\n\nThe final answer is $\\boxed{{{plain(v)}}}$."),
    ("'the answer is' without json", lambda p, v: None if plain(v) is None else f"{p}\n\nThe answer is {plain(v)}."),
    ("answer tags without json", lambda p, v: None if plain(v) is None else f"{p}\n<answer>{plain(v)}</answer>"),
    ("reasoning key before the answer", lambda p, v: f'{{"reasoning": "{p[:60].replace(chr(10), " ").replace(chr(34), "")}", '
     f'"answer": {literal(v)}}}'),
    ("the same object twice", lambda p, v: f'{p}\n{{"answer": {literal(v)}}}\n\n```json\n{{"answer": {literal(v)}}}\n```'),
    ("curly quotes", lambda p, v: None if not isinstance(v, str) or isinstance(v, Raw) or '"' in v else
     f"{p}\n{{“answer”: “{v}”}}"),
    # the final statement after a sentence on the same line (0.8.0 read it only where it opened the line)
    ("sentence then 'the answer is' on one line", lambda p, v: None if plain(v) is None else
     f"{p}\n\nI count them one by one. The answer is {plain(v)}."),
    ("reasoning line ending with the answer", lambda p, v: None if plain(v) is None else
     f"{p} So the answer is {plain(v)}."),
    ("sentence then 'Final answer:' on one line", lambda p, v: None if plain(v) is None else
     f"{p}\nChecking once more, it all adds up. Final answer: {plain(v)}"),
    ("conclusion after a comma", lambda p, v: None if plain(v) is None else
     f"{p}\nEverything checks out, so the answer is {plain(v)}."),
    ("sentence then a bold final answer", lambda p, v: None if plain(v) is None else
     f"{p}\nThat settles it! **Final answer:** {plain(v)}"),
    # (not for a value that is itself \\boxed{}: two boxes on one line score 0, agreeing or not)
    ("answer restated on the same line", lambda p, v: None if plain(v) is None or "boxed" in plain(v) else
     f"{p}\nThe answer is {plain(v)}. So the answer is {plain(v)}."),
]
PLAIN_ENVELOPES = ENVELOPES[:1]  # near-miss values go in the plainest envelope and a few others, cycling
NEAR_ENVELOPES = [ENVELOPES[i] for i in (0, 1, 3, 4, 5, 13)]


def envelope_misses(right, wrong) -> list[tuple[str, str]]:
    """Responses that hold the right value somewhere and must still score 0 (`wrong` is a wrong value)."""
    out = [
        ("two answers under one key", f'{{"answer": {literal(right)}, "answer": {literal(wrong)}}}'),
        ("two answers, keys differ in case", f'{{"answer": {literal(right)}, "Answer": {literal(wrong)}}}'),
        ("right draft, wrong final object", f'Maybe {{"answer": {literal(right)}}}? No, on reflection:\n{{"answer": {literal(wrong)}}}'),
        ("truncated object", f'The answer is clear.\n{{"answer": {literal(right)}'),
        ("wrong key", f'{{"result": {literal(right)}}}'),
        ("value outside the object", f'The value is {literal(right)}.\n{{"answer": }}'),
    ]
    if plain(wrong) is not None:
        out += [
            ("revised after the object", f'{{"answer": {literal(right)}}}\n\nActually, the answer is {plain(wrong)}.'),
            ("a different final statement after the object", f'{{"answer": {literal(right)}}}\nFinal answer: {plain(wrong)}'),
        ]
    if plain(right) is not None:
        out += [
            ("hedged last line, no object", f"Hard to tell. I think the answer is {plain(right)}"),
            ("two boxed answers", f"So $\\boxed{{{plain(right)}}}$ or $\\boxed{{{plain(wrong) or 'x'}}}$."),
            ("no answer stated", f"Counting gives {plain(right)} in the end, I believe."),
        ]
    if plain(right) is not None and plain(wrong) is not None:
        r, w = plain(right), plain(wrong)
        out += [
            ("a wrong answer after the right one on its line", f"I count them. The answer is {r}. Actually, the answer is {w}."),
            ("the right answer after a wrong one on its line", f"The answer is {w}. Wait, the answer is {r}."),
            ("two answers on the last line", f"Let me see. The answer is {r}. The answer is {w}."),
            ("candidates listed on the last line", f"It could be {r}. Or maybe the answer is {w}."),
            ("hedged sentence after a sentence", f"I counted twice. I think the answer is {r}."),
            ("conditional answer after a sentence", f"I counted twice. If the edge counts, the answer is {r}."),
            ("the wrong value stated, the right one rejected", f"I count them. The answer is {w}, not {r}."),
            ("the right value doubted, the wrong one stated", f"I don't think the answer is {r}. The answer is {w}."),
            ("the right value only mentioned", f"Some would say the answer is {r}, but the answer is {w}."),
        ]
    return out


# -- the answer types -------------------------------------------------------------------------------------------
def _minus(v):
    return str(v).replace("-", "\u2212")


def integer_forms():
    truths = [0, 1, 2, 3, 4, 5, 7, 9, 12, 17, 20, 24, 45, 63, 100, -6, -2, 1234, 12000, 1000000]
    words = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen " \
            "sixteen seventeen eighteen nineteen twenty".split()
    right = [
        ("json number", lambda t: t),
        ("string", lambda t: str(t)),
        ("integral float", lambda t: float(t)),
        ("string with a full stop", lambda t: f"{t}."),
        ("markdown bold", lambda t: f"**{t}**"),
        ("LaTeX math", lambda t: f"${t}$"),
        ("boxed, escaped", lambda t: f"\\boxed{{{t}}}"),
        ("boxed, unescaped backslash", lambda t: Raw(f'"\\boxed{{{t}}}"')),
        ("with a unit word", lambda t: f"{t} squares"),
        ("with a two-word unit", lambda t: f"{t} square units"),
        ("with 'more'", lambda t: f"{t} more"),
        ("explicit plus", lambda t: f"+{t}" if t > 0 else None),
        ("Unicode minus", lambda t: _minus(t) if t < 0 else None),
        ("en dash minus", lambda t: str(t).replace("-", "\u2013") if t < 0 else None),
        ("number word", lambda t: words[t] if 0 <= t <= 20 else None),
        ("capitalised number word", lambda t: words[t].capitalize() + "." if 0 <= t <= 20 else None),
        ("thousands commas", lambda t: f"{t:,}" if abs(t) >= 1000 else None),
        ("thin-space thousands", lambda t: f"{t:,}".replace(",", "\u202f") if abs(t) >= 1000 else None),
        ("'the answer is' inside the value", lambda t: f"The answer is {t}"),
        ("single-quoted inside the string", lambda t: f"'{t}'"),
        ("bare word", lambda t: Raw(str(t))),
        ("percent sign as a unit", lambda t: f"{t}%" if t >= 0 else None),
        ("trailing zeros", lambda t: f"{t}.00"),
        ("Arabic-Indic digits", lambda t: digits_in(t, ARABIC)),
        ("extended Arabic-Indic digits", lambda t: digits_in(t, PERSIAN)),
        ("full-width digits", lambda t: digits_in(t, WIDE)),
        ("Arabic thousands separator", lambda t: digits_in(f"{t:,}", ARABIC).replace(",", "\u066c") if t >= 1000 else None),
        ("in square brackets", lambda t: f"[{t}]"),
    ]
    wrong = [
        ("off by one", lambda t: t + 1),
        ("off by minus one", lambda t: t - 1),
        ("sign flipped", lambda t: -t if t else None),
        ("digits split by a comma", lambda t: ", ".join(str(t)) if len(str(abs(t))) >= 2 and t > 0 else None),
        ("digits split by a space", lambda t: " ".join(str(t)) if len(str(abs(t))) >= 2 and t > 0 else None),
        ("digits split by an underscore", lambda t: "_".join(str(t)) if len(str(abs(t))) >= 2 and t > 0 else None),
        ("digits split by a bare comma", lambda t: ",".join(str(t)) if 2 <= len(str(t)) <= 3 and t > 0 else None),
        ("misplaced thousands comma", lambda t: f"{str(t)[:-2]},{str(t)[-2:]}" if t >= 100 else None),
        ("thousands with a plain space", lambda t: f"{t:,}".replace(",", " ") if t >= 1000 else None),
        ("decimal point as thousands", lambda t: f"{t:,}".replace(",", ".") if t >= 1000 else None),
        ("contains the digits", lambda t: int(f"{t}{t % 10}") if t > 0 else None),
        ("digits reversed", lambda t: int(str(t)[::-1]) if t > 9 and str(t)[::-1] != str(t) and t % 10 else None),
        ("two candidates with 'or'", lambda t: f"{t} or {t + 1}"),
        ("two candidates with a comma", lambda t: f"{t}, {t + 1}"),
        ("a range", lambda t: f"{t}-{t + 2}" if t >= 0 else None),
        ("range with 'to'", lambda t: f"{t} to {t + 1}"),
        ("hedged with 'about'", lambda t: f"about {t}"),
        ("hedged with a tilde", lambda t: f"~{t}"),
        ("negated", lambda t: f"not {t}"),
        ("question mark", lambda t: f"{t}?"),
        ("a list of candidates", lambda t: [t, t + 1]),
        ("a list of one", lambda t: [t]),
        ("a fraction equal to it", lambda t: f"{2 * t}/2"),
        ("a non-integer", lambda t: t + 0.5),
        ("boolean", lambda t: True),
        ("null", lambda t: None),
        ("empty string", lambda t: ""),
        ("parenthetical second answer", lambda t: f"{t} (or {t + 1})"),
        ("'at least'", lambda t: f"{t} at least"),
        ("two numbers run together", lambda t: f"{t} {t + 1}"),
        ("magnitude word", lambda t: f"{t} thousand"),
        ("dozens", lambda t: f"{t} dozen"),
        ("k suffix", lambda t: f"{t}k"),
        ("squared", lambda t: f"{t} squared"),
        ("-ish", lambda t: f"{t}ish"),
        ("an upper bound", lambda t: f"{t} max"),
        ("a condition", lambda t: f"{t} if the edge counts"),
        ("a second count in the unit", lambda t: f"{t} total, {t + 1} visible"),
        ("'up to'", lambda t: f"up to {t}"),
        ("a product", lambda t: f"{t} x 2"),
        ("unit then a hedge", lambda t: f"{t} pieces, maybe {t + 1}"),
        ("off by one, Arabic-Indic", lambda t: digits_in(t + 1, ARABIC)),
        ("off by one, full-width", lambda t: digits_in(t - 1, WIDE)),
        ("Arabic-Indic digits split by a space", lambda t: " ".join(digits_in(t, ARABIC)) if t >= 10 else None),
        ("Arabic-Indic candidates", lambda t: f"{digits_in(t, ARABIC)} or {digits_in(t + 1, ARABIC)}"),
        ("full-width fraction equal to it", lambda t: wide(f"{2 * t}/2")),
        ("two candidates in brackets", lambda t: f"[{t}, {t + 1}]"),
        ("nested brackets", lambda t: f"[[{t}]]"),
        ("superscript digit", lambda t: f"{t // 10}²" if t >= 20 and t % 10 == 2 else None),
    ]
    return truths, right, wrong


def number_forms():
    truths = [29.4, 17.2, 19.1, 18.0, 15.0, 12.5, 147.5, 97.5, 0.5, -3.5, 1234.5, 2.0, 6.3]
    fractions = {12.5: ("25/2", "12 1/2", "12½"), 0.5: ("1/2", "1/2", "½"), -3.5: ("-7/2", "-3 1/2", None),
                 97.5: ("195/2", "97 1/2", "97½"), 147.5: ("295/2", "147 1/2", None), 2.0: ("4/2", None, None)}
    right = [
        ("json number", lambda t: t),
        ("string", lambda t: str(t)),
        ("within the tolerance above", lambda t: round(t + 0.04, 4)),
        ("within the tolerance below", lambda t: round(t - 0.03, 4)),
        ("two decimals", lambda t: f"{t:.2f}"),
        ("with a unit", lambda t: f"{t} cm"),
        ("degrees sign", lambda t: f"{t}°"),
        ("degrees word", lambda t: f"{t} degrees"),
        ("LaTeX degrees", lambda t: f"${t}^\\circ$"),
        ("approximately", lambda t: f"approximately {t}"),
        ("approx sign", lambda t: f"≈ {t}"),
        ("full stop", lambda t: f"{t}."),
        ("bold", lambda t: f"**{t}**"),
        ("boxed", lambda t: f"\\boxed{{{t}}}"),
        ("fraction", lambda t: fractions.get(t, (None,))[0]),
        ("LaTeX fraction", lambda t: ("\\frac{%s}{%s}" % tuple(fractions[t][0].split("/"))) if t in fractions else None),
        ("LaTeX dfrac, unescaped", lambda t: Raw('"\\dfrac{%s}{%s}"' % tuple(fractions[t][0].split("/")))
         if t in fractions else None),
        ("mixed number", lambda t: fractions[t][1] if t in fractions else None),
        ("vulgar fraction", lambda t: fractions[t][2] if t in fractions else None),
        ("Unicode minus", lambda t: _minus(t) if t < 0 else None),
        ("thousands comma", lambda t: f"{t:,}" if abs(t) >= 1000 else None),
        ("integer form", lambda t: int(t) if float(t).is_integer() else None),
        ("percent sign as a unit", lambda t: f"{t}%" if t > 0 else None),
        ("leading dot", lambda t: f".{str(t)[2:]}" if 0 < t < 1 else None),
        ("square units", lambda t: f"{t} square units" if t > 0 else None),
        ("Arabic-Indic digits", lambda t: digits_in(t, ARABIC, "\u066b")),
        ("extended Arabic-Indic digits", lambda t: digits_in(t, PERSIAN, "\u066b")),
        ("full-width digits", lambda t: wide(t)),
        ("in square brackets", lambda t: f"[{t}]"),
    ]
    wrong = [
        ("just outside the tolerance", lambda t: round(t + 0.07, 4)),
        ("just outside below", lambda t: round(t - 0.08, 4)),
        ("off by one", lambda t: t + 1),
        ("decimal point shifted right", lambda t: round(t * 10, 4) if t else None),
        ("decimal point shifted left", lambda t: round(t / 10, 4) if abs(t) >= 1 else None),
        ("decimal comma", lambda t: str(t).replace(".", ",") if not float(t).is_integer() else None),
        ("digits without the point", lambda t: str(t).replace(".", "") if not float(t).is_integer() else None),
        ("sign flipped", lambda t: -t),
        ("two candidates", lambda t: f"{t} or {t + 1}"),
        ("two candidates with a comma", lambda t: f"{t}, {round(t + 0.5, 3)}"),
        ("a range", lambda t: f"{t}-{t + 1}" if t >= 0 else None),
        ("between", lambda t: f"between {t - 1} and {t + 1}"),
        ("negated", lambda t: f"not {t}"),
        ("plus or minus", lambda t: f"{t} ± 1"),
        ("a list", lambda t: [t]),
        ("boolean", lambda t: False),
        ("text", lambda t: "unknown"),
        ("wrong fraction", lambda t: f"{int(t * 2) + 1}/2"),
        ("NaN", lambda t: Raw("NaN")),
        ("infinity", lambda t: Raw("Infinity")),
        ("huge exponent", lambda t: "1e999"),
        ("two numbers run together", lambda t: f"{t} {t}"),
        ("magnitude word", lambda t: f"{t} million"),
        ("a product", lambda t: f"{t} x 10"),
        ("roughly", lambda t: f"{t} or so"),
        ("misplaced thousands comma", lambda t: f"{int(t) // 10},{int(t) % 10}{str(t).split('.')[1]}" if abs(t) >= 10 else None),
        ("off by one, Arabic-Indic", lambda t: digits_in(round(t + 1, 4), ARABIC, "\u066b")),
        ("decimal point dropped, full-width", lambda t: wide(str(t).replace(".", "")) if not float(t).is_integer() else None),
        ("two candidates in brackets", lambda t: f"[{t}, {t + 1}]"),
    ]
    return truths, right, wrong


def probability_forms():
    # (value as the label holds it, a fraction, a percentage within 0.006)
    truths = [(0.25, "1/4", "25%"), (0.5, "1/2", "50%"), (0.571429, "4/7", "57%"), (0.857143, "6/7", "86%"),
              (0.125, "1/8", "12.5%"), (0.333333, "1/3", "33.3%"), (0.75, "3/4", "75%"), (0.2, "1/5", "20%"),
              (0.1, "1/10", "10%"), (0.666667, "2/3", "67%"), (0.375, "3/8", "37.5%"), (0.142857, "1/7", "14%")]

    def frac(t):
        return dict((a, b) for a, b, _ in truths)[t]

    def pct(t):
        return dict((a, c) for a, _, c in truths)[t]

    right = [
        ("json number", lambda t: t),
        ("string", lambda t: str(t)),
        ("two decimals", lambda t: f"{t:.2f}"),
        ("three decimals", lambda t: round(t, 3)),
        ("fraction", frac),
        ("fraction with spaces", lambda t: frac(t).replace("/", " / ")),
        ("LaTeX fraction", lambda t: "\\frac{%s}{%s}" % tuple(frac(t).split("/"))),
        ("LaTeX fraction in math", lambda t: "$\\frac{%s}{%s}$" % tuple(frac(t).split("/"))),
        ("percentage", pct),
        ("percentage with a space", lambda t: pct(t).replace("%", " %")),
        ("percent word", lambda t: pct(t).replace("%", " percent")),
        ("LaTeX percent", lambda t: "$" + pct(t).replace("%", "\\%") + "$"),
        ("'1 in n'", lambda t: frac(t).replace("/", " in ")),
        ("'k out of n'", lambda t: frac(t).replace("/", " out of ")),
        ("leading dot", lambda t: "." + f"{t:.2f}"[2:]),
        ("bold fraction", lambda t: f"**{frac(t)}**"),
        ("boxed fraction", lambda t: f"\\boxed{{{frac(t)}}}"),
        ("approximately", lambda t: f"approximately {t:.2f}"),
        ("fraction then full stop", lambda t: f"{frac(t)}."),
        ("Arabic-Indic fraction", lambda t: digits_in(frac(t), ARABIC)),
        ("Arabic-Indic percentage", lambda t: digits_in(pct(t), ARABIC, "\u066b").replace("%", "\u066a")),
        ("full-width fraction", lambda t: wide(frac(t))),
        ("extended Arabic-Indic decimal", lambda t: digits_in(f"{t:.2f}", PERSIAN, "\u066b")),
    ]
    wrong = [
        ("percentage without the sign", lambda t: pct(t).rstrip("%")),
        ("complement", lambda t: round(1 - t, 6) if t != 0.5 else None),
        ("complement fraction", lambda t: None if t == 0.5 else
         f"{int(frac(t).split('/')[1]) - int(frac(t).split('/')[0])}/{frac(t).split('/')[1]}"),
        ("inverted fraction", lambda t: "/".join(reversed(frac(t).split("/")))),
        ("odds, not a probability", lambda t: frac(t).replace("/", ":")),
        ("rounded too far", lambda t: round(t + 0.04, 2)),
        ("one decimal, off", lambda t: f"{t + 0.05:.1f}" if abs(round(t + 0.05, 1) - t) > 0.006 else None),
        ("percentage off by a point", lambda t: f"{round(t * 100) + 2}%"),
        ("per mille read as percent", lambda t: f"{t:.2f}%"),
        ("two candidates", lambda t: f"{frac(t)} or {t:.1f}"),
        ("fraction and decimal disagree", lambda t: f"{frac(t)}, {t + 0.1:.2f}"),
        ("negated", lambda t: f"not {frac(t)}"),
        ("a list", lambda t: [t]),
        ("zero denominator", lambda t: f"{frac(t).split('/')[0]}/0"),
        ("wrong denominator", lambda t: f"{frac(t).split('/')[0]}/{int(frac(t).split('/')[1]) + 1}"),
        ("text", lambda t: "likely"),
        ("boolean", lambda t: True),
        ("ten times too big", lambda t: round(t * 10, 4)),
        ("complement, Arabic-Indic", lambda t: None if t == 0.5 else
         digits_in(f"{int(frac(t).split('/')[1]) - int(frac(t).split('/')[0])}/{frac(t).split('/')[1]}", ARABIC)),
        ("inverted, full-width", lambda t: wide("/".join(reversed(frac(t).split("/"))))),
    ]
    return [t for t, _, _ in truths], right, wrong


def clock_forms():
    truths = ["8:30", "2:10", "12:05", "3:45", "11:00", "6:15", "9:50", "1:05", "10:40", "7:25"]

    def hm(t):
        h, m = t.split(":")
        return int(h), int(m)

    words = "zero one two three four five six seven eight nine ten eleven twelve".split()
    right = [
        ("as shown", lambda t: t),
        ("leading zero", lambda t: f"{hm(t)[0]:02d}:{hm(t)[1]:02d}"),
        ("am", lambda t: f"{t} am"),
        ("PM", lambda t: f"{t} PM"),
        ("a.m. with full stops", lambda t: f"{t} a.m."),
        ("24-hour afternoon", lambda t: f"{hm(t)[0] % 12 + 12}:{hm(t)[1]:02d}"),
        ("dot separator", lambda t: t.replace(":", ".")),
        ("h separator", lambda t: t.replace(":", "h")),
        ("with seconds", lambda t: f"{t}:00"),
        ("bold", lambda t: f"**{t}**"),
        ("full stop", lambda t: f"{t}."),
        ("o'clock", lambda t: f"{hm(t)[0]} o'clock" if hm(t)[1] == 0 else None),
        ("o’clock, curly apostrophe", lambda t: f"{hm(t)[0]} o’clock" if hm(t)[1] == 0 else None),
        ("half past", lambda t: f"half past {words[hm(t)[0]]}" if hm(t)[1] == 30 else None),
        ("quarter past", lambda t: f"quarter past {words[hm(t)[0]]}" if hm(t)[1] == 15 else None),
        ("quarter to", lambda t: f"a quarter to {words[hm(t)[0] % 12 + 1]}" if hm(t)[1] == 45 else None),
        ("ten past", lambda t: f"ten past {hm(t)[0]}" if hm(t)[1] == 10 else None),
        ("five past", lambda t: f"five past {words[hm(t)[0]]}" if hm(t)[1] == 5 else None),
        ("ten to", lambda t: f"ten to {words[hm(t)[0] % 12 + 1]}" if hm(t)[1] == 50 else None),
        ("twenty to", lambda t: f"twenty to {words[hm(t)[0] % 12 + 1]}" if hm(t)[1] == 40 else None),
        ("'the time is' phrasing in LaTeX", lambda t: f"$\\text{{{t}}}$"),
        ("o'clock in words", lambda t: f"{words[hm(t)[0]]} o'clock" if hm(t)[1] == 0 else None),
        ("o'clock, capitalised words", lambda t: f"{words[hm(t)[0]].capitalize()} o’clock" if hm(t)[1] == 0 else None),
        ("whole hour with pm", lambda t: f"{hm(t)[0]} pm" if hm(t)[1] == 0 else None),
        ("hour alone for a whole hour", lambda t: str(hm(t)[0]) if hm(t)[1] == 0 else None),
        ("hour in words alone", lambda t: words[hm(t)[0]] if hm(t)[1] == 0 else None),
        ("24-hour whole hour", lambda t: f"{hm(t)[0] % 12 + 12}:00" if hm(t)[1] == 0 else None),
        ("Arabic-Indic digits", lambda t: digits_in(t, ARABIC)),
        ("extended Arabic-Indic digits", lambda t: digits_in(t, PERSIAN)),
        ("full-width digits and colon", lambda t: wide(t)),
        ("in square brackets", lambda t: f"[{t}]"),
    ]
    wrong = [
        ("hands swapped", lambda t: f"{hm(t)[1] // 5 or 12}:{hm(t)[0] * 5 % 60:02d}"
         if (hm(t)[1] // 5 or 12, hm(t)[0] * 5 % 60) != hm(t) else None),
        ("five minutes off", lambda t: f"{hm(t)[0]}:{(hm(t)[1] + 5) % 60:02d}"),
        ("an hour off", lambda t: f"{hm(t)[0] % 12 + 1}:{hm(t)[1]:02d}"),
        ("minutes missing a digit", lambda t: f"{hm(t)[0]}:{hm(t)[1] // 10 if hm(t)[1] % 10 == 0 else hm(t)[1] % 10}"
         if hm(t)[1] else None),
        ("no separator", lambda t: t.replace(":", "")),
        ("two times", lambda t: f"{t} or {hm(t)[0] % 12 + 1}:{hm(t)[1]:02d}"),
        ("a range", lambda t: f"{t} - {hm(t)[0] % 12 + 1}:{hm(t)[1]:02d}"),
        ("impossible minutes", lambda t: f"{hm(t)[0]}:{hm(t)[1] + 60}"),
        ("impossible hour", lambda t: f"{hm(t)[0] + 24}:{hm(t)[1]:02d}"),
        ("minutes only", lambda t: f"{hm(t)[1]} minutes" if hm(t)[1] else None),
        ("hour only", lambda t: str(hm(t)[0]) if hm(t)[1] else None),
        ("half past, wrong hour", lambda t: f"half past {words[hm(t)[0] % 12 + 1]}" if hm(t)[1] == 30 else None),
        ("quarter past instead of to", lambda t: f"quarter past {words[hm(t)[0] % 12 + 1]}" if hm(t)[1] == 45 else None),
        ("negated", lambda t: f"not {t}"),
        ("approximately", lambda t: f"about {t}"),
        ("24-hour hour alone", lambda t: str(hm(t)[0] % 12 + 12)),
        ("24-hour o'clock", lambda t: f"{hm(t)[0] % 12 + 12} o'clock" if hm(t)[1] == 0 else None),
        ("24-hour with pm", lambda t: f"{hm(t)[0] + 12}:{hm(t)[1]:02d} pm" if hm(t)[0] < 12 else None),
        ("o'clock, an hour off", lambda t: f"{words[hm(t)[0] % 12 + 1]} o'clock" if hm(t)[1] == 0 else None),
        ("five minutes off, Arabic-Indic", lambda t: digits_in(f"{hm(t)[0]}:{(hm(t)[1] + 5) % 60:02d}", ARABIC)),
        ("an hour off, full-width", lambda t: wide(f"{hm(t)[0] % 12 + 1}:{hm(t)[1]:02d}")),
        ("a list", lambda t: [t]),
    ]
    return truths, right, wrong


def option_forms():
    # (letter, the option's text as the prompt lists it)
    truths = [("A", "C6"), ("B", "green"), ("C", "the panel marked C"), ("D", "D3"), ("E", "reflection in the line y = x"),
              ("B", "C"), ("A", "A"), ("C", "1/7"), ("D", "10:40")]
    other = {"A": "B", "B": "C", "C": "D", "D": "A", "E": "A"}

    def T(f):
        return lambda t: f(*t)

    right = [
        ("letter", T(lambda x, _: x)),
        ("lower case", T(lambda x, _: x.lower())),
        ("parenthesised", T(lambda x, _: f"({x})")),
        ("closing parenthesis", T(lambda x, _: f"{x})")),
        ("full stop", T(lambda x, _: f"{x}.")),
        ("'Option X'", T(lambda x, _: f"Option {x}")),
        ("'option (x)'", T(lambda x, _: f"option ({x.lower()})")),
        ("bold", T(lambda x, _: f"**{x}**")),
        ("boxed", T(lambda x, _: f"\\boxed{{{x}}}")),
        ("LaTeX text", T(lambda x, _: f"$\\text{{{x}}}$")),
        ("the option as listed", T(lambda x, text: f"{x}. {text}")),
        ("the option with a parenthesis", T(lambda x, text: f"{x}) {text}")),
        ("the option with a colon", T(lambda x, text: f"{x}: {text}")),
        ("the option with a dash", T(lambda x, text: f"{x} - {text}")),
        ("parenthesised letter and the text", T(lambda x, text: f"({x}) {text}")),
        ("bold option as listed", T(lambda x, text: f"**{x}. {text}**")),
        ("square brackets", T(lambda x, _: f"[{x}]")),
        ("'The answer is X'", T(lambda x, _: f"The answer is {x}")),
        ("'Answer: (X)'", T(lambda x, _: f"Answer: ({x})")),
        ("bare letter", T(lambda x, _: Raw(x))),
        ("'Choice X'", T(lambda x, _: f"Choice {x}")),
        ("full-width letter", T(lambda x, _: wide(x))),
        ("full-width letter in brackets", T(lambda x, _: wide(f"({x})"))),
    ]
    wrong = [
        ("another letter", T(lambda x, _: other[x])),
        ("two letters run together", T(lambda x, _: x + other[x])),
        ("two letters with 'or'", T(lambda x, _: f"{x} or {other[x]}")),
        ("two letters with a comma", T(lambda x, _: f"{x}, {other[x]}")),
        ("two letters with a slash", T(lambda x, _: f"{x}/{other[x]}")),
        ("two letters with 'and'", T(lambda x, _: f"{x} and {other[x]}")),
        ("negated", T(lambda x, _: f"not {x}")),
        ("every option listed", T(lambda x, _: "A. B. C. D." if x == "A" else f"{x}. A. B."),),
        ("the text only", T(lambda x, text: text if len(text) > 1 else None)),
        ("question mark", T(lambda x, _: f"{x}?")),
        ("a list", T(lambda x, _: [x])),
        ("a list of candidates", T(lambda x, _: [x, other[x]])),
        ("option number", T(lambda x, _: "ABCDE".index(x) + 1)),
        ("boolean", T(lambda x, _: True)),
        ("hedged", T(lambda x, _: f"probably {x}")),
        ("'Option X or Y'", T(lambda x, _: f"Option {x} or {other[x]}")),
        ("listed option then another", T(lambda x, text: f"{x}. {text} or {other[x]}.")),
        ("unclosed parenthesis", T(lambda x, _: f"({x}")),
        ("a word", T(lambda x, _: "none")),
        ("letter, then a revision", T(lambda x, _: f"{x}: no, {other[x]}")),
        ("letter, then 'actually'", T(lambda x, _: f"{x}. Actually {other[x]}")),
        ("another letter, full-width", T(lambda x, _: wide(other[x]))),
        ("two letters in brackets", T(lambda x, _: f"[{x}, {other[x]}]")),
    ]
    return truths, right, wrong


def boolean_forms():
    truths = [True, False]
    reasons = {True: ["they overlap", "the goal can be reached", "there is a cycle", "it is heavier"],
               False: ["they do not overlap", "the goal cannot be reached", "there is no cycle", "it is lighter"]}

    def yes(t):
        return "yes" if t else "no"

    right = [
        ("json boolean", lambda t: t),
        ("string", lambda t: "true" if t else "false"),
        ("title case", lambda t: "True" if t else "False"),
        ("upper case", lambda t: "TRUE" if t else "FALSE"),
        ("yes/no", yes),
        ("Yes./No.", lambda t: yes(t).capitalize() + "."),
        ("YES/NO", lambda t: yes(t).upper()),
        ("bold", lambda t: f"**{yes(t).capitalize()}**"),
        ("exclamation", lambda t: yes(t).capitalize() + "!"),
        ("boxed", lambda t: f"\\boxed{{{yes(t).capitalize()}}}"),
        ("LaTeX text", lambda t: f"$\\text{{{yes(t)}}}$"),
        ("yes with a reason", lambda t: f"{yes(t).capitalize()}, {reasons[t][0]}."),
        ("yes with another reason", lambda t: f"{yes(t).capitalize()}, {reasons[t][1]}"),
        ("yes with a dash and a reason", lambda t: f"{yes(t).capitalize()} - {reasons[t][2]}"),
        ("yes and a reason without a comma", lambda t: f"{yes(t).capitalize()} {reasons[t][3]}"),
        ("yes, then a sentence", lambda t: f"{yes(t).capitalize()}. {reasons[t][0].capitalize()}."),
        ("yes, then a sentence on a new line", lambda t: f"{yes(t).capitalize()}!\n{reasons[t][1].capitalize()}."),
        ("Python literal", lambda t: Raw("True" if t else "False")),
        ("bare word", lambda t: Raw(yes(t))),
        ("'The answer is yes'", lambda t: f"The answer is {yes(t)}"),
        ("quoted in the string", lambda t: f"'{yes(t)}'"),
        ("y/n", lambda t: "y" if t else "n"),
        ("Y./N.", lambda t: "Y." if t else "N."),
        ("full-width", lambda t: wide(yes(t))),
        ("in square brackets", lambda t: f"[{yes(t)}]"),
    ]
    wrong = [
        ("opposite", lambda t: not t),
        ("opposite word", lambda t: "no" if t else "yes"),
        ("both", lambda t: "yes or no"),
        ("yes/no", lambda t: "Yes/No"),
        ("both with 'and'", lambda t: "yes and no"),
        ("true or false", lambda t: "true or false"),
        ("maybe", lambda t: "maybe"),
        ("probably", lambda t: f"probably {yes(t)}"),
        ("hedged reason", lambda t: f"{yes(t).capitalize()}, probably"),
        ("negated", lambda t: f"not {yes(t)}"),
        ("question mark", lambda t: f"{yes(t)}?"),
        ("one", lambda t: 1 if t else 0),
        ("reason naming the other answer", lambda t: f"{yes(t).capitalize()}, or rather {'no' if t else 'yes'}"),
        ("a list", lambda t: [t]),
        ("both in a list", lambda t: [True, False]),
        ("null", lambda t: None),
        ("unknown", lambda t: "unknown"),
        ("it depends", lambda t: f"{yes(t).capitalize()}, it depends"),
        ("a condition", lambda t: f"{yes(t).capitalize()}, if the grid wraps around"),
        ("not sure", lambda t: f"{yes(t).capitalize()} (not sure)"),
        ("yes, then the other answer", lambda t: f"{yes(t).capitalize()}. {'No' if t else 'Yes'}."),
        ("revised inside the value", lambda t: f"{yes(t).capitalize()}? {'No' if t else 'Yes'}."),
        ("opposite Python literal", lambda t: Raw("False" if t else "True")),
        ("opposite letter", lambda t: "n" if t else "y"),
        ("both letters", lambda t: "y/n"),
        ("letter and the other word", lambda t: f"{'y' if t else 'n'} or {'no' if t else 'yes'}"),
        ("opposite, full-width", lambda t: wide("no" if t else "yes")),
    ]
    return truths, right, wrong


def string_forms():
    truths = ["apple", "Farm B", "Tuesday", "Mill built", "Oct", "Defense", "gray", "colour", "B", "Store A",
              "Town hall built", "rotation", "Clothes", "center"]
    british = {"gray": "grey", "colour": "color", "Defense": "Defence", "center": "centre", "Oct": "October",
               "Tuesday": "Tue"}
    others = {"apple": "lime", "Farm B": "Farm D", "Tuesday": "Thursday", "Mill built": "Bridge opened",
              "Oct": "Nov", "Defense": "Speed", "gray": "green", "colour": "size", "B": "C", "Store A": "Store C",
              "Town hall built": "Museum opens", "rotation": "number", "Clothes": "Books", "center": "edge"}
    right = [
        ("as given", lambda t: t),
        ("lower case", lambda t: t.lower()),
        ("upper case", lambda t: t.upper()),
        ("with an article", lambda t: f"the {t}"),
        ("full stop", lambda t: f"{t}."),
        ("bold", lambda t: f"**{t}**"),
        ("single-quoted inside", lambda t: f"'{t}'"),
        ("LaTeX text", lambda t: f"\\text{{{t}}}"),
        ("padded", lambda t: f"  {t}  "),
        ("other spelling", lambda t: british.get(t)),
        ("other spelling, capitalised", lambda t: british[t].capitalize() if t in british else None),
        ("'The answer is'", lambda t: f"The answer is {t}"),
        ("hyphen for a space", lambda t: t.replace(" ", "-") if " " in t else None),
        ("double space", lambda t: t.replace(" ", "  ") if " " in t else None),
        ("bare word", lambda t: Raw(t)),
        ("boxed", lambda t: f"\\boxed{{{t}}}"),
        ("exclamation", lambda t: f"{t}!"),
        ("full-width", lambda t: wide(t)),
        ("in square brackets", lambda t: f"[{t}]"),
    ]
    wrong = [
        ("another label", lambda t: others[t]),
        ("two labels with 'or'", lambda t: f"{t} or {others[t]}"),
        ("two labels with a comma", lambda t: f"{t}, {others[t]}"),
        ("two labels with 'and'", lambda t: f"{t} and {others[t]}"),
        ("negated", lambda t: f"not {t}"),
        ("plural", lambda t: f"{t}s" if t[-1].isalpha() and t[-1] not in "sS" else None),
        ("a longer word", lambda t: f"pine{t}" if t == "apple" else f"{t}x"),
        ("prefix only", lambda t: t.split()[0] if " " in t else (t[:2] if len(t) > 3 else None)),
        ("part of a multi-word label", lambda t: t.split()[-1] if " " in t else None),
        ("words run together", lambda t: t.replace(" ", "") if " " in t else None),
        ("a list", lambda t: [t]),
        ("a list of candidates", lambda t: [t, others[t]]),
        ("a number", lambda t: 3),
        ("boolean", lambda t: True),
        ("null", lambda t: None),
        ("empty", lambda t: ""),
        ("label then another sentence", lambda t: f"{t}. Or perhaps {others[t]}"),
        ("hedged", lambda t: f"maybe {t}"),
        ("every vocabulary word", lambda t: f"{t} {others[t]} lime plum grape"),
        ("another label, full-width", lambda t: wide(others[t])),
        ("two labels in brackets", lambda t: f"[{t}, {others[t]}]"),
    ]
    return truths, right, wrong


def sequence_forms():
    truths = [["melon", "plum", "grape", "peach"], ["green", "brown", "red"], ["gray", "yellow"],
              ["circle", "square", "diamond", "triangle"], ["kiwi", "peach", "apple", "melon"],
              ["circle", "star", "triangle", "hexagon"], ["blue", "gray", "purple"], ["Oct", "Nov", "Dec"]]
    spell = {"gray": "grey", "Oct": "October", "Nov": "November", "Dec": "December"}
    right = [
        ("json list", lambda t: t),
        ("capitalised items", lambda t: [x.capitalize() for x in t]),
        ("comma-separated text", lambda t: ", ".join(t)),
        ("bracketed text", lambda t: "[" + ", ".join(t) + "]"),
        ("arrows", lambda t: " → ".join(t)),
        ("ASCII arrows", lambda t: " -> ".join(t)),
        ("'and' before the last", lambda t: ", ".join(t[:-1]) + " and " + t[-1]),
        ("Oxford comma", lambda t: ", ".join(t[:-1]) + ", and " + t[-1]),
        ("semicolons", lambda t: "; ".join(t)),
        ("one per line", lambda t: "\n".join(t)),
        ("bold items", lambda t: [f"**{x}**" for x in t]),
        ("articles", lambda t: [f"the {x}" for x in t]),
        ("other spellings", lambda t: [spell.get(x, x) for x in t] if any(x in spell for x in t) else None),
        ("upper case text", lambda t: ", ".join(t).upper()),
        ("Python list in a string", lambda t: str(t)),
        ("full stops", lambda t: [f"{x}." for x in t]),
        ("greater-than chain", lambda t: " > ".join(t)),
        ("greater-than chain without spaces", lambda t: ">".join(t)),
        ("full-width items", lambda t: ", ".join(wide(x) for x in t)),
    ]
    wrong = [
        ("reversed", lambda t: t[::-1]),
        ("first two swapped", lambda t: [t[1], t[0]] + t[2:]),
        ("last two swapped", lambda t: t[:-2] + [t[-1], t[-2]] if len(t) > 2 else None),
        ("one missing", lambda t: t[:-1]),
        ("an extra item", lambda t: t + ["lime"]),
        ("an item repeated", lambda t: t + [t[0]]),
        ("one item wrong", lambda t: ["lime"] + t[1:]),
        ("spaces only", lambda t: " ".join(t)),
        ("one item", lambda t: t[0]),
        ("a hedge inside", lambda t: t[:-1] + [f"{t[-1]} or lime"]),
        ("nested lists", lambda t: [[x] for x in t]),
        ("empty list", lambda t: []),
        ("reversed text", lambda t: ", ".join(t[::-1])),
        ("numbers", lambda t: list(range(len(t)))),
        ("boolean", lambda t: True),
        ("sorted alphabetically", lambda t: sorted(t) if sorted(t) != t else None),
        ("reversed greater-than chain", lambda t: " > ".join(t[::-1])),
        ("less-than chain", lambda t: " < ".join(t)),
    ]
    return truths, right, wrong


def set_forms():
    truths = [["B", "C", "D"], ["1", "2", "4", "6"], ["red", "yellow"], ["colour", "size"], ["fish", "cloud", "flag"],
              ["R"], ["D", "E", "F"], ["gray", "brown", "red"], ["house", "fish"]]
    spell = {"colour": "color", "gray": "grey"}
    right = [
        ("json list", lambda t: t),
        ("another order", lambda t: t[::-1]),
        ("rotated order", lambda t: t[1:] + t[:1]),
        ("a repeat", lambda t: t + t[:1]),
        ("lower case", lambda t: [x.lower() for x in t]),
        ("upper case", lambda t: [x.upper() for x in t]),
        ("comma-separated text", lambda t: ", ".join(t)),
        ("set braces in text", lambda t: "{" + ", ".join(t) + "}"),
        ("LaTeX set", lambda t: "$\\{" + ", ".join(t) + "\\}$"),
        ("'and' before the last", lambda t: ", ".join(t[:-1]) + " and " + t[-1] if len(t) > 1 else None),
        ("numbers for digit labels", lambda t: [int(x) for x in t] if all(x.isdigit() for x in t) else None),
        ("other spellings", lambda t: [spell.get(x, x) for x in t] if any(x in spell for x in t) else None),
        ("bold items", lambda t: [f"**{x}**" for x in t]),
        ("single item as text", lambda t: t[0] if len(t) == 1 else None),
        ("semicolons", lambda t: "; ".join(t)),
        ("greater-than chain", lambda t: " > ".join(t)),
        ("full-width items", lambda t: ", ".join(wide(x) for x in t)),
        ("Arabic commas", lambda t: "، ".join(t)),
    ]
    wrong = [
        ("one missing", lambda t: t[:-1] if len(t) > 1 else None),
        ("an extra item", lambda t: t + ["Z"]),
        ("one item wrong", lambda t: ["Z"] + t[1:]),
        ("empty", lambda t: []),
        ("every candidate listed", lambda t: t + ["A", "G", "H", "green", "blue", "tree", "7", "size"]),
        ("spaces only", lambda t: " ".join(t) if len(t) > 1 else None),
        ("run together", lambda t: "".join(t) if len(t) > 1 else None),
        ("a hedge inside", lambda t: t[:-1] + [f"{t[-1]} or Z"]),
        ("nested lists", lambda t: [t]),
        ("the word none", lambda t: "none"),
        ("one item", lambda t: t[0] if len(t) > 1 else None),
        ("negated item", lambda t: t[:-1] + [f"not {t[-1]}"]),
        ("boolean", lambda t: True),
        ("number", lambda t: len(t)),
        ("half of it", lambda t: t[: len(t) // 2] if len(t) > 2 else None),
        ("one missing, greater-than chain", lambda t: " > ".join(t[:-1]) if len(t) > 1 else None),
        ("an extra item, full-width", lambda t: ", ".join(wide(x) for x in t + ["Z"])),
    ]
    return truths, right, wrong


def point_forms():
    truths = [[-3, 0], [-2, -1], [1, 1], [2, -1], [3, -2], [0, 0], [-2, -3], [10, -7], [4, 5], [-1, 6]]

    def m(v):
        return str(v).replace("-", "\u2212")

    right = [
        ("json list", lambda t: t),
        ("parenthesised text", lambda t: f"({t[0]}, {t[1]})"),
        ("bracketed text", lambda t: f"[{t[0]}, {t[1]}]"),
        ("bare pair", lambda t: f"{t[0]}, {t[1]}"),
        ("no spaces", lambda t: f"({t[0]},{t[1]})"),
        ("Unicode minus", lambda t: f"({m(t[0])}, {m(t[1])})"),
        ("semicolon", lambda t: f"({t[0]}; {t[1]})"),
        ("named coordinates", lambda t: f"x = {t[0]}, y = {t[1]}"),
        ("(x, y) = ...", lambda t: f"(x, y) = ({t[0]}, {t[1]})"),
        ("object with x and y", lambda t: {"x": t[0], "y": t[1]}),
        ("object with X and Y", lambda t: {"Y": t[1], "X": t[0]}),
        ("strings in a list", lambda t: [str(t[0]), str(t[1])]),
        ("integral floats", lambda t: [float(t[0]), float(t[1])]),
        ("LaTeX", lambda t: f"$({t[0]}, {t[1]})$"),
        ("LaTeX left/right", lambda t: f"$\\left({t[0]}, {t[1]}\\right)$"),
        ("bold", lambda t: f"**({t[0]}, {t[1]})**"),
        ("padded", lambda t: f"( {t[0]} , {t[1]} )"),
        ("full stop", lambda t: f"({t[0]}, {t[1]})."),
        ("Arabic-Indic digits", lambda t: f"({digits_in(t[0], ARABIC)}, {digits_in(t[1], ARABIC)})"),
        ("Arabic-Indic digits and comma", lambda t: f"({digits_in(t[0], ARABIC)}، {digits_in(t[1], ARABIC)})"),
        ("full-width", lambda t: wide(f"({t[0]}, {t[1]})")),
        ("'and'", lambda t: f"{t[0]} and {t[1]}"),
    ]
    wrong = [
        ("swapped", lambda t: t[::-1] if t[0] != t[1] else None),
        ("x sign flipped", lambda t: [-t[0], t[1]] if t[0] else None),
        ("minus dropped", lambda t: f"({abs(t[0])}, {abs(t[1])})" if min(t) < 0 else None),
        ("x off by one", lambda t: [t[0] + 1, t[1]]),
        ("y off by one", lambda t: [t[0], t[1] - 1]),
        ("three coordinates", lambda t: t + [0]),
        ("one coordinate", lambda t: t[:1]),
        ("two points", lambda t: f"({t[0]}, {t[1]}), ({t[1]}, {t[0]})"),
        ("two points with 'or'", lambda t: f"({t[0]}, {t[1]}) or ({t[0] + 1}, {t[1]})"),
        ("no separator", lambda t: f"({t[0]} {t[1]})"),
        ("digits run together", lambda t: f"({t[0]}{t[1]})"),
        ("nested list", lambda t: [t]),
        ("object missing y", lambda t: {"x": t[0]}),
        ("object with x and y swapped", lambda t: {"x": t[1], "y": t[0]} if t[0] != t[1] else None),
        ("a number", lambda t: t[0]),
        ("non-integers", lambda t: [t[0] + 0.5, t[1]]),
        ("hedge inside", lambda t: f"({t[0]}, {t[1]} or {t[1] + 1})"),
        ("text", lambda t: "the origin" if t != [0, 0] else "the top"),
        ("swapped, Arabic-Indic", lambda t: f"({digits_in(t[1], ARABIC)}, {digits_in(t[0], ARABIC)})" if t[0] != t[1] else None),
        ("digits run together, full-width", lambda t: wide(f"({t[0]}{t[1]})")),
        ("a point in a list, as text", lambda t: f"[({t[0]}, {t[1]})]"),
    ]
    return truths, right, wrong


def int_set_forms():
    truths = [[1, 2, 4, 6], [3], [5, 7, 9], [2, 8], [1, 3, 5, 7, 9], [10, 20, 30], [0, 4]]
    right = [
        ("json list", lambda t: t),
        ("another order", lambda t: t[::-1]),
        ("a repeat", lambda t: t + t[:1]),
        ("strings", lambda t: [str(x) for x in t]),
        ("comma text", lambda t: ", ".join(map(str, t))),
        ("set braces", lambda t: "{" + ", ".join(map(str, t)) + "}"),
        ("LaTeX set", lambda t: "$\\{" + ", ".join(map(str, t)) + "\\}$"),
        ("'and' before the last", lambda t: ", ".join(map(str, t[:-1])) + " and " + str(t[-1]) if len(t) > 1 else None),
        ("integral floats", lambda t: [float(x) for x in t]),
        ("number words", lambda t: ["zero one two three four five six seven eight nine ten".split()[x] for x in t]
         if max(t) <= 10 else None),
        ("bracketed text", lambda t: str(t)),
        ("single number", lambda t: t[0] if len(t) == 1 else None),
        ("Arabic-Indic digits", lambda t: "، ".join(digits_in(x, ARABIC) for x in t)),
        ("extended Arabic-Indic digits", lambda t: ", ".join(digits_in(x, PERSIAN) for x in t)),
        ("full-width digits", lambda t: wide(", ".join(map(str, t)))),
        ("in square brackets as text", lambda t: "[" + ", ".join(map(str, t)) + "]"),
    ]
    wrong = [
        ("one missing", lambda t: t[:-1] if len(t) > 1 else None),
        ("an extra item", lambda t: t + [max(t) + 1]),
        ("every digit", lambda t: list(range(31))),
        ("one wrong", lambda t: [t[0] + 1] + t[1:] if t[0] + 1 not in t else None),
        ("digits run together", lambda t: "".join(map(str, t)) if len(t) > 1 else None),
        ("spaces only", lambda t: " ".join(map(str, t)) if len(t) > 1 else None),
        ("a range", lambda t: f"{t[0]}-{t[-1]}" if len(t) > 1 else None),
        ("a non-integer", lambda t: t[:-1] + [t[-1] + 0.5]),
        ("nested", lambda t: [t]),
        ("empty", lambda t: []),
        ("hedge", lambda t: ", ".join(map(str, t[:-1] + [f"{t[-1]} or {t[-1] + 1}"]))),
        ("count instead", lambda t: len(t) if len(t) not in t or len(t) > 1 else None),
        ("an extra item, Arabic-Indic", lambda t: "، ".join(digits_in(x, ARABIC) for x in t + [max(t) + 1])),
        ("digits run together, full-width", lambda t: wide("".join(map(str, t))) if len(t) > 1 else None),
    ]
    return truths, right, wrong


def number_list_forms():
    truths = [[2.5, 3.1], [0.5, 1.0, 1.5], [12.4, -3.2], [100.0, 7.5, 8.5], [1.5, 2.5, 3.5, 4.5], [0.2, 0.4]]
    right = [
        ("json list", lambda t: t),
        ("within tolerance", lambda t: [round(x + 0.03, 4) for x in t]),
        ("strings", lambda t: [str(x) for x in t]),
        ("comma text", lambda t: ", ".join(map(str, t))),
        ("bracketed text", lambda t: str(t)),
        ("two decimals", lambda t: [f"{x:.2f}" for x in t]),
        ("fractions where exact", lambda t: [f"{int(x * 2)}/2" if (x * 2).is_integer() else x for x in t]),
        ("units", lambda t: [f"{x} cm" for x in t]),
        ("Unicode minus", lambda t: [str(x).replace("-", "\u2212") for x in t] if min(t) < 0 else None),
        ("semicolons", lambda t: "; ".join(map(str, t))),
        ("Arabic-Indic digits", lambda t: "؛ ".join(digits_in(x, ARABIC, "\u066b") for x in t)),
        ("full-width digits", lambda t: wide("; ".join(map(str, t)))),
        ("greater-than chain", lambda t: " > ".join(map(str, t))),
    ]
    wrong = [
        ("outside tolerance", lambda t: [round(t[0] + 0.2, 4)] + t[1:]),
        ("one missing", lambda t: t[:-1]),
        ("an extra item", lambda t: t + [9.9]),
        ("decimal commas", lambda t: "; ".join(str(x).replace(".", ",") for x in t)),
        ("sign flipped", lambda t: [-t[0]] + t[1:]),
        ("hedge", lambda t: [f"{t[0]} or {t[0] + 1}"] + t[1:]),
        ("nested", lambda t: [t]),
        ("spaces only", lambda t: " ".join(map(str, t))),
        ("scalar", lambda t: t[0]),
        ("points removed", lambda t: [str(x).replace(".", "") for x in t]),
        ("outside tolerance, Arabic-Indic", lambda t: "، ".join(digits_in(round(x + 0.2, 4), ARABIC, "\u066b") for x in t)),
        ("one missing, full-width", lambda t: wide(", ".join(map(str, t[:-1])))),
    ]
    return truths, right, wrong


def number_list_ordered_wrong():
    """List order matters: reversed is wrong unless it reads the same."""
    return [("reversed", lambda t: t[::-1] if t[::-1] != t else None)]


def number_set_extra():
    return [("another order", lambda t: t[::-1]), ("rotated", lambda t: t[1:] + t[:1])]


NUMBER_LABEL = {"tolerance": {"abs": 0.05, "rel": 0.0},
                "normalize": {"case": "fold", "whitespace": "collapse", "strip_punctuation": True,
                              "strip_articles": False, "form": "text"}}

TYPES = {
    # name: (how the label is made, forms)
    "integer": ({"contract": "integer_exact"}, integer_forms),
    "number": ({"contract": "number_tenth"}, number_forms),
    "probability": ({"contract": "probability"}, probability_forms),
    "string": ({"contract": "label_string"}, string_forms),
    "clock_time": ({"contract": "clock_time"}, clock_forms),
    "option": ({"contract": "option_letter"}, option_forms),
    "boolean": ({"contract": "yes_no"}, boolean_forms),
    "list_string": ({"contract": "label_sequence"}, sequence_forms),
    "set_string": ({"contract": "label_set"}, set_forms),
    "list_integer": ({"contract": "point_coordinates"}, point_forms),
    "set_integer": ({"label": {"type": "set", "items": "integer", "key": "answer", "contract": "corpus_set_integer",
                               **NUMBER_LABEL}}, int_set_forms),
    "list_number": ({"label": {"type": "list", "items": "number", "key": "answer", "contract": "corpus_list_number",
                               **NUMBER_LABEL}}, number_list_forms),
    "set_number": ({"label": {"type": "set", "items": "number", "key": "answer", "contract": "corpus_set_number",
                              **NUMBER_LABEL}}, number_list_forms),
}


def _label_answer(name: str, truth):
    return truth[0] if name == "option" else truth


# How many envelopes each correct form and each near-miss value is written in (more where a type has few truths).
REPEATS = {"boolean": (6, 3), "set_integer": (3, 2), "list_number": (4, 2), "set_number": (4, 2)}


def build_type(name: str) -> dict:
    how, forms = TYPES[name]
    right_reps, near_reps = REPEATS.get(name, (2, 1))
    truths, right, wrong = forms()
    if name == "list_number":
        wrong = wrong + number_list_ordered_wrong()
    if name == "set_number":
        right = right + number_set_extra()
    cases = []
    n = 0

    seen = set()

    def add(truth, response, expect, why):
        if (json.dumps(truth), response) in seen:
            return
        seen.add((json.dumps(truth), response))
        cases.append({"answer": _label_answer(name, truth), "response": response, "expect": expect, "why": why})

    for ti, truth in enumerate(truths):
        for fi, (form, make) in enumerate(right):
            value = make(truth)
            if value is None:
                continue
            # every correct form in two envelopes, cycling through all of them
            for k in range(right_reps):
                for step in range(len(ENVELOPES)):
                    env_name, env = ENVELOPES[(ti * 7 + fi * 3 + k * 5 + step) % len(ENVELOPES)]
                    response = env(REASONING[(n + step) % len(REASONING)], value)
                    if response is not None:
                        break
                n += 1
                add(truth, response, 1, f"{form}; {env_name}")
        for fi, (form, make) in enumerate(wrong):
            value = make(truth)
            if value is None:
                continue
            for k in range(near_reps):
                env_name, env = NEAR_ENVELOPES[(ti + fi + 2 * k) % len(NEAR_ENVELOPES)]
                response = env(REASONING[n % len(REASONING)], value)
                if response is None:
                    env_name, env = ENVELOPES[k % 2]
                    response = env(REASONING[n % len(REASONING)], value)
                n += 1
                add(truth, response, 0, f"{form}; {env_name}")
        canonical = right[0][1](truth)
        wrong_value = wrong[0][1](truth)
        for why, response in envelope_misses(canonical, wrong_value):
            add(truth, response, 0, why)
    out = {"type": name, **how, "cases": cases}
    return out


# -- the other final-answer conventions: \\boxed{...} and <answer>...</answer> ------------------------------------
def written_out(value) -> str | None:
    """How a value reads inside \\boxed{} or a tag: plain text, a list as `a, b` (None where there is no such form)."""
    if isinstance(value, list):
        items = [plain(v) for v in value]
        if not value or any(t is None or "," in t for t in items):
            return None
        return ", ".join(items)
    text = plain(value)
    return None if text is None or "<" in text else text


# (name, build(prefix, text, value) -> response or None); `text` is the value written out, `value` as a JSON value
CONVENTION_ENVELOPES = {
    "boxed": [
        ("boxed at the end", lambda p, x, v: f"{p}\n\n\\boxed{{{x}}}"),
        ("boxed in inline math", lambda p, x, v: f"{p}\n\nThe final answer is $\\boxed{{{x}}}$."),
        ("boxed in display math", lambda p, x, v: f"{p}\n\\[\n\\boxed{{{x}}}\n\\]"),
        ("bold label then boxed", lambda p, x, v: f"{p}\n\n**Final answer:** \\boxed{{{x}}}"),
        ("boxed then the same answer restated", lambda p, x, v: f"{p}\n\\boxed{{{x}}}\n\nSo the answer is {x}."),
        ("draft box then final box", lambda p, x, v: f"{p}\nAt first I wrote \\boxed{{?}}; checking again.\n\\boxed{{{x}}}"),
        ("boxed then polite text", lambda p, x, v: f"{p}\n\\boxed{{{x}}}\n\nLet me know if you need more help!"),
        ("boxed text", lambda p, x, v: f"{p}\n\\boxed{{\\text{{{x}}}}}"),
        ("sentence then boxed on one line", lambda p, x, v: f"{p}\nI count them one by one, so the answer is \\boxed{{{x}}}."),
        ("sentence then 'the answer is' (read, no format point)", lambda p, x, v:
         f"{p}\nI count them one by one. The answer is {x}."),
        ("json object instead (read, no format point)", lambda p, x, v: f'{p}\n{{"answer": {literal(v)}}}'),
    ],
    "tag": [
        ("tag at the end", lambda p, x, v: f"{p}\n<answer>{x}</answer>"),
        ("think block then tag", lambda p, x, v: f"<think>\n{p}\n</think>\n<answer>{x}</answer>"),
        ("tag over three lines", lambda p, x, v: f"{p}\n<answer>\n{x}\n</answer>"),
        ("upper-case tag with spaces", lambda p, x, v: f"{p}\n<ANSWER> {x} </ANSWER>\n"),
        ("tag then the same answer restated", lambda p, x, v: f"{p}\n<answer>{x}</answer>\nSo the answer is {x}."),
        ("draft tag then final tag", lambda p, x, v: f"{p}\nMaybe <answer>?</answer>; checking again.\n<answer>{x}</answer>"),
        ("tag then polite text", lambda p, x, v: f"{p}\n<answer>{x}</answer>\n\nLet me know if you need more help!"),
        ("bold label then tag", lambda p, x, v: f"{p}\n**Final answer:** <answer>{x}</answer>"),
        ("sentence then tag on one line", lambda p, x, v: f"{p}\nI count them one by one. <answer>{x}</answer>"),
        ("sentence then 'the answer is' (read, no format point)", lambda p, x, v:
         f"{p}\nI count them one by one. The answer is {x}."),
        ("json object instead (read, no format point)", lambda p, x, v: f'{p}\n{{"answer": {literal(v)}}}'),
    ],
}
CONVENTION_NEAR = [0, 1, 3, 6]  # envelopes a near-miss value is written in, cycling


def convention_misses(convention: str, right, wrong, scalar: bool) -> list[tuple[str, str]]:
    """Responses that hold the right value in the convention's form and must still score 0."""
    r, w = written_out(right), written_out(wrong)
    if r is None:
        return []
    box = (lambda x: f"\\boxed{{{x}}}") if convention == "boxed" else (lambda x: f"<answer>{x}</answer>")
    out = [
        ("value only in the reasoning", f"Counting gives {r} in the end, I believe."),
        ("empty final answer", f"Counting gives {r}.\n{box('')}"),
        ("unclosed final answer", f"The answer is clear.\n{box(r)[:-1 if convention == 'boxed' else -9]}"),
    ]
    if w is not None:
        out += [
            ("two final answers on one line", f"So {box(r)} or {box(w)}."),
            ("the same line twice, different answers", f"{box(r)} {box(w)}"),
            ("right draft, wrong final answer", f"Maybe {box(r)}? No, on reflection:\n{box(w)}"),
            ("revised after the final answer", f"{box(r)}\n\nActually, the answer is {w}."),
            ("a different final statement after it", f"{box(r)}\nFinal answer: {w}"),
            ("a json object after it disagrees", f'{box(r)}\n{{"answer": {literal(wrong)}}}'),
            ("the other convention after it disagrees", f"{box(r)}\n" + (
                f"<answer>{w}</answer>" if convention == "boxed" else f"\\boxed{{{w}}}")),
            ("revised on the same line", f"I count them. {box(r)} Actually, the answer is {w}."),
            ("no final answer, two statements on the last line", f"I count them. The answer is {r}. The answer is {w}."),
            ("no final answer, the right value rejected", f"I count them. The answer is {w}, not {r}."),
        ]
        if scalar:
            out.append(("two candidates in one answer", box(f"{r} or {w}")))
    return out


def build_convention(name: str, convention: str) -> dict:
    how, forms = TYPES[name]
    right_reps, near_reps = REPEATS.get(name, (2, 1))
    truths, right, wrong = forms()
    if name == "list_number":
        wrong = wrong + number_list_ordered_wrong()
    if name == "set_number":
        right = right + number_set_extra()
    envelopes = CONVENTION_ENVELOPES[convention]
    cases, seen = [], set()
    n = 0

    def add(truth, response, expect, why):
        if (json.dumps(truth), response) not in seen:
            seen.add((json.dumps(truth), response))
            cases.append({"answer": _label_answer(name, truth), "response": response, "expect": expect, "why": why})

    for ti, truth in enumerate(truths):
        for fi, (form, make) in enumerate(right):
            value = make(truth)
            text = None if value is None else written_out(value)
            if text is None:
                continue
            for k in range(right_reps + 1):
                env_name, env = envelopes[(ti * 5 + fi * 3 + k * 4) % len(envelopes)]
                add(truth, env(REASONING[n % len(REASONING)], text, value), 1, f"{form}; {env_name}")
                n += 1
        for fi, (form, make) in enumerate(wrong):
            value = make(truth)
            # a JSON list is the wrong type for a one-value answer, but written out it is that value: not a miss here
            list_for_scalar = isinstance(value, list) and not name.startswith(("list_", "set_"))
            text = None if value is None or list_for_scalar else written_out(value)
            if text is None:
                continue
            for k in range(near_reps):
                env_name, env = envelopes[CONVENTION_NEAR[(ti + fi + 2 * k) % len(CONVENTION_NEAR)]]
                add(truth, env(REASONING[n % len(REASONING)], text, value), 0, f"{form}; {env_name}")
                n += 1
        scalar = not name.startswith(("list_", "set_"))
        for why, response in convention_misses(convention, right[0][1](truth), wrong[0][1](truth), scalar):
            add(truth, response, 0, why)
    return {"type": name, **how, "format": convention, "cases": cases}


def build() -> dict[str, dict]:
    out = {name: build_type(name) for name in TYPES}
    for convention in CONVENTION_ENVELOPES:
        out.update({f"{name}.{convention}": build_convention(name, convention) for name in TYPES})
    return out


def write() -> None:
    for name, corpus in build().items():
        head = json.dumps({k: v for k, v in corpus.items() if k != "cases"}, ensure_ascii=False)[:-1]
        rows = ",\n".join(json.dumps(c, ensure_ascii=False) for c in corpus["cases"])
        (HERE / f"{name}.json").write_text(f'{head}, "cases": [\n{rows}\n]}}\n')  # one case a line


if __name__ == "__main__":
    write()
    for name, corpus in build().items():
        right = sum(c["expect"] for c in corpus["cases"])
        print(f"{name:14} {len(corpus['cases']):5} cases ({right} correct forms, {len(corpus['cases']) - right} near-misses)")
