"""Options-only rules (compiler/verify/shortcuts.py) on hand-made option lists whose pick is known."""
import json

import pytest

from tessera.verify.shortcuts import (OPTION_RULES, answer_index, edit_distance, identified_by, numbers,
                                         option_texts, parse_number, rule_picks)


def pick(rule, texts):
    return OPTION_RULES[rule](texts)


@pytest.mark.parametrize("text, value", [
    ("3/4", 0.75), ("0.75", 0.75), ("\u22123", -3.0), ("-3", -3.0), ("+2", 2.0), (".5", 0.5), ("12", 12.0),
    ("45°", 45.0), ("$3", 3.0), ("3 cm", 3.0), ("25%", 25.0), (" 7 ", 7.0),
])
def test_numbers_are_read_as_shown(text, value):
    assert parse_number(text)[0] == pytest.approx(value)


@pytest.mark.parametrize("text", ["e4", "red", "A", "(3, 4)", "1/0", "1.5/2", "", "3/4/5", "9" * 5000,
                                  "1/" + "7" * 5000, "9" * 31])
def test_non_numbers(text):
    assert parse_number(text) is None


def test_times_are_minutes_around_the_dial():
    assert numbers(["10:30", "11:00"]).values == [630.0, 660.0]
    # 11:50 and 12:10 are 20 minutes apart across noon, not 700
    nums = numbers(["11:50", "12:10", "12:30"])
    assert nums.values[1] - nums.values[0] == 20 and nums.values[2] - nums.values[1] == 20
    nums = numbers(["12:50", "1:10"])
    assert nums.values[1] - nums.values[0] == 20
    assert numbers(["23:50", "0:10"]).time_period == 1440
    assert numbers(["23:50", "0:10"]).values[1] - numbers(["23:50", "0:10"]).values[0] == 20


def test_mixed_units_are_not_numbers():
    assert numbers(["3 cm", "4 m"]) is None
    assert numbers(["3", "red"]) is None
    assert numbers(["10:30", "7"]) is None


def test_median():
    assert pick("median", ["1", "9", "4", "5", "100"]) == 3  # 5 is the median
    # an even count: of the middle two (3 and 10) the one nearer the mean 13.75
    assert pick("median", ["10", "2", "3", "40"]) == 0
    assert pick("median", ["-40", "2", "3", "10"]) == 1  # mean -6.25: 2 is nearer
    assert pick("median", ["4", "2", "6", "8"]) is None  # 4 and 6 are both 1 from the mean 5: a tie
    assert pick("median", ["3/4", "1/4", "1/2"]) == 2
    assert pick("median", ["red", "green", "blue"]) is None  # not numeric


def test_medoid_numeric_is_nearest_the_mean():
    # mean of 1, 2, 3, 30 is 9: 3 is nearest
    assert pick("medoid", ["1", "30", "3", "2"]) == 2
    assert pick("medoid", ["1", "3"]) is None  # two options: a tie


def test_medoid_text_by_edit_distance():
    assert edit_distance("kitten", "sitting") == 3
    assert edit_distance("", "abc") == 3
    # options as long as a prompt allows still take no time: the first 200 characters are compared
    assert edit_distance("a" * 30000, "b" * 30000) == 200
    # the first and last agree in their first 200 characters: a tie, no pick
    assert pick("medoid", ["x" * 30000, "y" * 30000, "x" * 29999 + "y"]) is None
    # "cat" is one edit from each of the others, which are two from each other
    assert pick("medoid", ["bat", "cat", "cut", "cab"]) == 1
    assert pick("medoid", ["red", "red", "blue"]) is None  # repeated options: no pick


def test_derived_constant_offset():
    # the right 22; wrong ones 12, 32 (±10) and 72 (+50): only 22 is a round step from all three
    assert pick("derived", ["22", "12", "32", "72"]) == 0
    # 12, 22, 32, 42 is symmetric: 22 and 32 are equally "central", so no rule offset-based can choose
    assert pick("derived", ["12", "22", "32", "42"]) is None


def test_derived_times_like_clock_slips():
    # right 2:50; wrong ones +60, -30, +10 minutes from it
    options = ["3:50", "2:20", "2:50", "3:00"]
    assert pick("derived", options) == 2
    # across noon: 12:10 right, 1:10 (+60), 11:40 (-30), 12:20 (+10)
    assert pick("derived", ["1:10", "11:40", "12:20", "12:10"]) == 3


def test_derived_fraction_slips_like_spinner():
    # right 3/8; wrong ones 3/5 = a/(b-a), 5/8 = (b-a)/b, and 4/9 made from none of them
    assert pick("derived", ["3/5", "3/8", "5/8", "4/9"]) == 1
    # right 2/5 (as a spinner draws it): 3/5 = (a+1)/b, 2/3 = a/(b-a), 1/3 = 2/6 = a/(b+1), reduced as shown
    assert pick("derived", ["1/3", "3/5", "2/5", "2/3"]) == 2
    # whole numbers are n/1: 1 = 4/4 is (a+1)/b of 3/4, and 1/4 its complement
    assert pick("derived", ["1", "3/4", "1/4", "5/9"]) == 1
    # complement: 3/10 and 7/10 share a denominator anyway; 1/4 + 3/4 = 1 with nothing else shared
    assert pick("derived", ["1/4", "3/4", "2/9"]) is None  # 1/4 and 3/4 are each one step from the other: a tie


def test_derived_ratio():
    # 6 is half of 12, a third of 18 and a tenth of 60; 13 is a step from none of them
    assert pick("derived", ["12", "6", "60", "13", "18"]) == 1


def test_derived_no_relation_is_no_pick():
    assert pick("derived", ["7", "43", "131"]) is None
    assert pick("derived", ["apple", "zebra", "mango"]) is None


def test_derived_text_one_edit():
    assert pick("derived", ["e4", "e5", "f4", "h8"]) == 0


def test_longest_and_shortest():
    assert pick("longest", ["a", "abc", "ab"]) == 1
    assert pick("shortest", ["a", "abc", "ab"]) == 0
    assert pick("longest", ["ab", "cd", "a"]) is None
    assert pick("shortest", ["x"]) is None


def test_every_rule_returns_none_or_an_index():
    cases = [["9" * 30, "1", "2"], ["9" * 30 + "/7", "1/2", "3"], ["-1", "0", "1/1"], ["0", "0/5", "1"],["1", "2", "3", "4"], ["red", "blue"], ["1/2", "1/3", "2/3", "1/6"], ["1:00", "2:00"], ["a", "a"], [],
             ["x"]]
    for texts in cases:
        for name, p in rule_picks(texts).items():
            assert p is None or 0 <= p < len(texts), (name, texts, p)


def test_identified_by():
    # median ties (22, 32), medoid picks 32 (nearest the mean 34.5), lengths tie: only derived finds 22
    assert identified_by(["22", "12", "32", "72"], 0) == ["derived"]
    assert identified_by(["a", "abc", "ab"], 1) == ["longest"]
    assert identified_by(["a", "abc", "ab"], 2) == ["medoid", "derived"]
    assert identified_by(["a", "abc", "ab"], 0) == ["shortest"]


PROMPT = ("What time will clock B show 20 minutes from now?\nA. 2:40\nB. 2:10\nC. 3:00\nD. 2:50\n\n"
          "Think it through, then end your response with a JSON object {\"answer\": ...} whose value is the option "
          "letter, for example {\"answer\": \"B\"}.")


def test_option_texts_from_a_row():
    row = {"prompt": PROMPT, "answer_type": "option", "answer": json.dumps("D"),
           "label": json.dumps({"type": "option", "answer": "D"})}
    assert option_texts(row) == ["2:40", "2:10", "3:00", "2:50"]
    assert answer_index(row) == 3


def test_option_texts_takes_the_last_lettered_run_and_other_letter_styles():
    prompt = "Nodes:\nA. first\nB. second\nWhich?\n(A) 1/2\n(B) 3/4\n(C) 5/6\nAnswer."
    row = {"prompt": prompt, "answer_type": "option", "answer": "C"}
    assert option_texts(row) == ["1/2", "3/4", "5/6"]
    assert option_texts({"prompt": "A) x\nB) y", "answer_type": "option"}) == ["x", "y"]


def test_option_texts_of_other_rows():
    assert option_texts({"prompt": PROMPT, "answer_type": "integer", "label": {"type": "integer"}}) is None
    assert option_texts({"prompt": "Which lettered point?", "answer_type": "option"}) is None
    assert option_texts({"prompt": "A. only one", "answer_type": "option"}) is None  # a single line is no list
    assert option_texts({"prompt": "B. x\nC. y", "answer_type": "option"}) is None  # does not start at A
    assert option_texts("not a row") is None
