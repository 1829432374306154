"""The verifier on correct, wrong, malformed, huge and adversarial responses. It never raises."""
from __future__ import annotations

import json

import pytest

from tessera.verify.score import MAX_TAIL, score, wrong_answer


def label(kind, answer, items=None, **extra):
    base = {"type": kind, "answer": answer, "key": "answer", "contract": "t", "items": items,
            "tolerance": {"abs": 0.0, "rel": 0.0},
            "normalize": {"case": "fold", "whitespace": "collapse", "strip_punctuation": True,
                          "strip_articles": True}}
    base.update(extra)
    return base


@pytest.mark.parametrize("lab,response,answer,fmt", [
    (label("integer", 12), 'so {"answer": 12}', 1, 1),
    (label("integer", 12), '{"answer": "12"}', 1, 1),
    (label("integer", 1200), '{"answer": "1,200"}', 1, 1),
    (label("integer", 12), '{"answer": 12.0}', 1, 1),
    (label("integer", 12), '{"answer": 12.5}', 0, 1),
    (label("integer", 12), '{"answer": true}', 0, 1),
    (label("integer", 12), '{"answer": 13}', 0, 1),
    (label("number", 2.5, tolerance={"abs": 0.05, "rel": 0}), '{"answer": 2.54}', 1, 1),
    (label("number", 2.5, tolerance={"abs": 0.05, "rel": 0}), '{"answer": 2.6}', 0, 1),
    (label("number", 100.0, tolerance={"abs": 0, "rel": 0.01}), '{"answer": "100.9"}', 1, 1),
    (label("number", 1.0), '{"answer": NaN}', 0, 1),
    (label("string", "Banana"), '{"answer": "  the banana. "}', 1, 1),
    (label("string", "banana"), '{"answer": "bananas"}', 0, 1),
    (label("string", "7"), '{"answer": 7}', 1, 1),
    (label("option", "C"), '{"answer": "(c)"}', 1, 1),
    (label("option", "C"), '{"answer": "C."}', 1, 1),
    (label("option", "C"), '{"answer": "Option C"}', 1, 1),
    (label("option", "C"), '{"answer": "CD"}', 0, 1),
    (label("boolean", True), '{"answer": "yes"}', 1, 1),
    (label("boolean", False), '{"answer": false}', 1, 1),
    (label("boolean", False), '{"answer": 0}', 0, 1),
    (label("list", ["red", "blue"], "string"), '{"answer": ["Red", "blue"]}', 1, 1),
    (label("list", ["red", "blue"], "string"), '{"answer": "red, blue"}', 1, 1),
    (label("list", ["red", "blue"], "string"), '{"answer": ["blue", "red"]}', 0, 1),
    (label("set", ["red", "blue"], "string"), '{"answer": ["blue", "RED"]}', 1, 1),
    (label("set", ["red", "blue"], "string"), '{"answer": ["blue"]}', 0, 1),
    (label("set", [1, 2], "integer"), '{"answer": [2, 1, 1]}', 1, 1),
    (label("integer", 3), '```json\n{"answer": 3}\n```', 1, 1),
    (label("integer", 3), '{"answer": 3, "why": "counted"}', 1, 0),
    (label("integer", 3), '{"result": 3}', 0, 0),
    # a final answer statement without an object earns the answer, not the format
    (label("integer", 3), 'the answer is 3', 1, 0),
    (label("integer", 3), 'I think the answer is 3', 0, 0),
    # text after the answer object costs the format only, unless it states another answer
    (label("integer", 3), '{"answer": 3} and then more text', 1, 0),
    (label("integer", 3), '{"answer": 3}\nActually, the answer is 4.', 0, 0),
    (label("integer", 3), 'first {"answer": 5} then {"answer": 3}', 1, 1),
    (label("integer", 3), 'text with a brace { and then {"answer": 3}', 1, 1),
])
def test_scoring(lab, response, answer, fmt):
    s = score(lab, response)
    assert (s.answer, s.format) == (answer, fmt)
    assert s.reward == pytest.approx(0.95 * answer + 0.05 * fmt)


@pytest.mark.parametrize("response", [
    None, 12, b'{"answer": 3}', "", "}", "{" * 100_000 + "}" * 100_000, '{"answer": ' + "[" * 50_000 + "]" * 50_000 + "}",
    "x" * 20_000_000 + '{"answer": 3}', '{"answer": "' + "9" * 100_000 + '"}', "\x00\ud800" * 1000 + "}",
    '{"answer": {"nested": ' * 2000 + "1" + "}" * 4000,
])
def test_adversarial_responses_never_raise(response):
    s = score(label("integer", 3), response)
    assert 0.0 <= s.reward <= 1.0


def test_huge_response_is_read_from_its_tail_only():
    big = "noise " * 5_000_000 + '{"answer": 3}'
    assert score(label("integer", 3), big).reward == 1.0
    # an object that starts before the tail window cannot be read
    assert score(label("integer", 3), "{" + " " * (MAX_TAIL + 10) + '"answer": 3}').reward == 0.0


@pytest.mark.parametrize("broken", [{}, {"type": "integer"}, {"type": "nonsense", "answer": 1}, None,
                                    {"type": "list", "answer": 5, "items": "string"}])
def test_broken_labels_score_zero_without_raising(broken):
    s = score(broken, '{"answer": 1}')
    assert s.answer == 0.0


@pytest.mark.parametrize("lab", [label("integer", 4), label("number", 2.5), label("boolean", True),
                                 label("option", "A"), label("string", "red"),
                                 label("list", ["a", "b"], "string"), label("list", ["a", "a"], "string"),
                                 label("set", ["a"], "string"), label("set", [3], "integer")])
def test_wrong_answers_are_rejected(lab):
    assert score(lab, json.dumps({"answer": lab["answer"]})).answer == 1.0
    assert score(lab, json.dumps({"answer": wrong_answer(lab)})).answer == 0.0


# -- contracts: synonyms and forms are checked at load ----------------------------------------------------------
def test_contract_synonyms_and_forms_are_checked_with_positions(fixture_lib, monkeypatch):
    from tests.test_errors import diagnostics, write

    monkeypatch.chdir(fixture_lib)
    write(fixture_lib, "contracts/bad_synonyms.yaml", """
        contract: bad_synonyms
        summary: t
        type: string
        normalize:
          synonyms:
            Grey: [gray]
            colour: []
            centre: [centre]
            metre: [meter, "two words"]
            litre: [meter, metre]
    """)
    write(fixture_lib, "contracts/bad_kind.yaml", """
        contract: bad_kind
        summary: t
        type: integer
        normalize: {synonyms: {gray: [grey]}}
    """)
    write(fixture_lib, "contracts/bad_form.yaml", """
        contract: bad_form
        summary: t
        type: list
        items: string
        normalize: {form: probability}
    """)
    write(fixture_lib, "contracts/bad_case.yaml", """
        contract: bad_case
        summary: t
        type: set
        items: string
        normalize: {case: keep, synonyms: {gray: [grey]}}
    """)
    assert diagnostics(fixture_lib) == [
        "contracts/bad_case.yaml:5:25: error: synonyms need 'case: fold' (they are matched as lower-case "
        "words)  [contract-form]",
        "contracts/bad_form.yaml:5:19: error: 'form: probability' applies to number answers, not string ones "
        " [contract-form]",
        "contracts/bad_kind.yaml:4:13: error: synonyms apply to text answers, not integer ones  [contract-form]",
        "contracts/bad_synonyms.yaml:6:5: error: synonym 'Grey' must be one lower-case word of letters and "
        "digits  [contract-form]",
        "contracts/bad_synonyms.yaml:7:13: error: synonym 'colour' lists no other spellings  [contract-form]",
        "contracts/bad_synonyms.yaml:8:14: error: 'centre' is listed as a synonym of itself  [contract-form]",
        "contracts/bad_synonyms.yaml:9:20: error: synonym 'two words' must be one lower-case word of letters "
        "and digits  [contract-form]",
        "contracts/bad_synonyms.yaml:10:13: error: 'meter' cannot read as 'litre': it is already a synonym "
        "of 'metre'  [contract-form]",
        "contracts/bad_synonyms.yaml:10:20: error: 'metre' cannot read as 'litre': it is a canonical word  "
        "[contract-form]",
    ]


def test_synonyms_travel_in_the_label_and_apply_both_ways(taxonomy):
    c = taxonomy.contracts["label_string"]
    lab = c.label("gray")
    assert lab["normalize"]["synonyms"]["gray"] == ["grey"]
    for response, answer in (("grey", 1), ("Gray", 1), ("light grey", 0), ("green", 0)):
        assert score(lab, json.dumps({"answer": response})).answer == answer, response
    assert score(c.label("Oct"), '{"answer": "October"}').answer == 1
    assert score(c.label("colour"), '{"answer": "color"}').answer == 1
    # contracts without synonyms keep the label they always had (no new key)
    assert "synonyms" not in taxonomy.contracts["integer_exact"].label(3)["normalize"]


# -- a final answer after a sentence on the same line (0.8.0 read a statement only where it opened the last line) --
CLOCK = {"normalize": {"form": "clock_time", "case": "fold", "whitespace": "collapse", "strip_punctuation": True}}
EVERY_TYPE = [  # (label, the answer written out, a wrong answer written out)
    (label("integer", 15), "15", "16"),
    (label("number", 2.5, tolerance={"abs": 0.05, "rel": 0}), "2.5", "3.5"),
    (label("number", 0.25, normalize={"form": "probability"}), "1/4", "3/4"),
    (label("string", "Farm B"), "Farm B", "Farm D"),
    (label("string", "8:30", **CLOCK), "8:30", "9:30"),
    (label("option", "C"), "C", "D"),
    (label("boolean", True), "yes", "no"),
    (label("list", ["red", "blue"], "string"), "red, blue", "blue, red"),
    (label("set", [1, 2], "integer"), "1, 2", "1, 3"),
    (label("list", [3, -2], "integer"), "(3, -2)", "(-2, 3)"),
]
SAME_LINE_RIGHT = [
    "I count the bars one by one. The answer is {r}.",
    "I count the bars one by one. So the answer is {r}.",
    "Everything adds up, so the answer is {r}.",
    "Reading the figure (twice.) Final answer: {r}",
    "Done checking! **Final answer:** {r}",
    "Step 3: compare. Answer: {r}",
    "The answer is {r}. So the answer is {r}.",
]
SAME_LINE_WRONG = [
    "I count the bars one by one. The answer is {w}.",
    "The answer is {r}. Actually, the answer is {w}.",  # a wrong answer after a right one on the line
    "The answer is {w}. Actually, the answer is {r}.",  # two answers on one line: never credit
    "The answer is {r}. The answer is {w}.",
    "The answer is {r}. Or the answer is {w}.",
    "It could be {r}. Or maybe the answer is {w}.",
    "Hard to tell. I think the answer is {r}.",  # a hedge, wherever it stands
    "If the grid wraps, the answer is {r}.",  # a condition, not a conclusion
    "I don't think the answer is {r}. The answer is {w}.",
    "Some would say the answer is {r}, but the answer is {w}.",
]


@pytest.mark.parametrize("lab,right,wrong", EVERY_TYPE)
def test_a_final_answer_after_a_sentence_on_its_line(lab, right, wrong):
    for style in SAME_LINE_RIGHT:
        response = "Let me look at the picture.\n\n" + style.format(r=right, w=wrong)
        assert score(lab, response).answer == 1.0, response
    for style in SAME_LINE_WRONG:
        response = "Let me look at the picture.\n\n" + style.format(r=right, w=wrong)
        assert score(lab, response).answer == 0.0, response


def test_statements_disagreeing_on_one_line_say_so():
    s = score(label("integer", 15), "The answer is 16. Actually, the answer is 15.")
    assert (s.answer, s.reason) == (0.0, "the last line states more than one answer")


# -- forms 0.8.0 misread: brackets, digits of other scripts, y/n, '>' chains, worded and bare clock times ----------
@pytest.mark.parametrize("lab,value,answer", [
    # one value in square brackets written as text reads as the value; a JSON list is still a list
    (label("integer", 2), "[2]", 1), (label("integer", 2), "Answer: [2]", 1),
    (label("number", 2.5), "[2.5]", 1), (label("string", "8:30", **CLOCK), "[8:30]", 1),
    (label("boolean", True), "[yes]", 1), (label("integer", 2), [2], 0), (label("integer", 2), "[2, 3]", 0),
    (label("integer", 2), "[[2]]", 0), (label("list", [3, -2], "integer"), "[(3, -2)]", 0),
    # digits of any script and full-width forms are the digits they are
    (label("integer", 15), "١٥", 1), (label("integer", 15), "۱۵", 1), (label("integer", 15), "１５", 1),
    (label("integer", 15), "१५", 1), (label("integer", 1234), "١٬٢٣٤", 1), (label("number", 12.5), "١٢٫٥", 1),
    (label("number", 12.5), "１２．５", 1), (label("number", 0.25, normalize={"form": "probability"}), "١/٤", 1),
    (label("number", 0.25, normalize={"form": "probability"}), "٢٥٪", 1),
    (label("string", "8:30", **CLOCK), "٨:٣٠", 1), (label("string", "8:30", **CLOCK), "８：３０", 1),
    (label("list", [3, -2], "integer"), "(٣، −٢)", 1), (label("option", "C"), "Ｃ", 1),
    (label("integer", 15), "١٦", 0), (label("integer", 15), "١ ٥", 0), (label("integer", 2), "４／２", 0),
    (label("integer", 12), "1²", 0),  # a superscript is no digit
    # y and n alone are yes and no
    (label("boolean", True), "y", 1), (label("boolean", True), "Y.", 1), (label("boolean", False), "n", 1),
    (label("boolean", True), "n", 0), (label("boolean", True), "y = 3", 0), (label("boolean", True), "y/n", 0),
    # a '>' chain is a sequence in the order written; a '<' chain is no separator
    (label("list", ["apple", "mango", "banana"], "string"), "apple > mango > banana", 1),
    (label("list", ["apple", "mango", "banana"], "string"), "banana > mango > apple", 0),
    (label("list", ["apple", "mango", "banana"], "string"), "apple < mango < banana", 0),
    (label("set", ["apple", "mango"], "string"), "mango > apple", 1),
    # clock: a whole hour as the dial shows it (1-12, alone, with o'clock or am/pm); 24-hour with its minutes is the
    # same dial reading; a 24-hour hour without them is refused (0.8.0 read "17" as 5:00)
    (label("string", "5:00", **CLOCK), "five o'clock", 1), (label("string", "5:00", **CLOCK), "Five o’clock", 1),
    (label("string", "5:00", **CLOCK), "5 o'clock", 1), (label("string", "5:00", **CLOCK), "5 pm", 1),
    (label("string", "5:00", **CLOCK), "17:00", 1), (label("string", "5:30", **CLOCK), "half past five", 1),
    (label("string", "5:45", **CLOCK), "quarter to six", 1),
    (label("string", "5:00", **CLOCK), "5", 1), (label("string", "5:00", **CLOCK), "five", 1),
    (label("string", "5:00", **CLOCK), "17", 0), (label("string", "5:00", **CLOCK), "0", 0),
    (label("string", "12:00", **CLOCK), "0", 0), (label("string", "5:00", **CLOCK), "17 o'clock", 0),
    (label("string", "5:30", **CLOCK), "5", 0),
    (label("string", "5:00", **CLOCK), "17:00 pm", 0), (label("string", "5:00", **CLOCK), "six o'clock", 0),
])
def test_forms_read_by_what_they_say(lab, value, answer):
    assert score(lab, json.dumps({"answer": value}, ensure_ascii=False)).answer == answer, value
