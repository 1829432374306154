"""Final-answer conventions: a contract's `format:` (json, boxed, tag) or a build's `answer_format:` override picks
what the prompt asks for, which form earns the format point, and which reading comes first; the label records the
choice (only when it is not json, so json instances keep their bytes)."""
from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from tessera.errors import CompileFailed, TesseraError
from tessera.export.build import build
from tessera.export.config import load_build_config
from tessera.taxonomy import compile_taxonomy
from tessera.trace.instance import generate
from tessera.validate.replay import replay_trace
from tessera.verify.score import FORMATS, canonical_response, format_instruction, score, wrong_answer

TASK = "icons.shape_grid.empty_cells"


def label(answer=12, answer_format=None, kind="integer", items=None):
    lab = {"type": kind, "answer": answer, "key": "answer", "contract": "t", "items": items,
           "tolerance": {"abs": 0.0, "rel": 0.0},
           "normalize": {"case": "fold", "whitespace": "collapse", "strip_punctuation": True}}
    if answer_format:
        lab["format"] = answer_format
    return lab


def got(lab, response):
    s = score(lab, response)
    return s.answer, s.format, s.reason


# -- reading and the format point, per convention ---------------------------------------------------------------
@pytest.mark.parametrize("response,answer,fmt", [
    ("Counting the squares...\n\\boxed{12}", 1, 1),
    ("So the total is $\\boxed{12}$.", 1, 1),
    ("\\[\n\\boxed{12}\n\\]", 1, 1),
    ("\\boxed{12}\n```", 1, 1),
    ("\\boxed{\\text{12}}", 1, 1),
    ("First \\boxed{13}, but recounting:\n\\boxed{12}", 1, 1),  # the last one counts; earlier ones are drafts
    ("\\boxed{12}\nSo the answer is 12.", 1, 0),  # the same answer restated: right, not the strict form
    ("\\boxed{12} and that is all, thanks", 1, 0),
    ('{"answer": 12}', 1, 0),  # another convention still reads, without the format point
    ("<answer>12</answer>", 1, 0),
    ("Answer: 12", 1, 0),
    ("\\boxed{13}", 0, 1),
    ("\\boxed{12} or \\boxed{13}", 0, 0),  # two candidates on the final line
    ("\\boxed{12} \\boxed{12}", 0, 0),
    ("\\boxed{12}\nActually, the answer is 13.", 0, 0),  # a revision after the box is checked
    ("\\boxed{12}\nFinal answer: 13", 0, 0),
    ('\\boxed{12}\n{"answer": 13}', 0, 0),
    ("\\boxed{12", 0, 0),  # unclosed
    ("\\boxed{}", 0, 0),
    ("I think it might be \\boxed{12 or 13}", 0, 1),
    ("There are 12 squares.", 0, 0),
])
def test_boxed_convention(response, answer, fmt):
    assert got(label(12, "boxed"), response)[:2] == (answer, fmt)


@pytest.mark.parametrize("response,answer,fmt", [
    ("<think>count them</think>\n<answer>12</answer>", 1, 1),
    ("<answer>\n12\n</answer>\n", 1, 1),  # a tag may span lines
    ("<ANSWER> 12 </ANSWER>", 1, 1),
    ("<answer>13</answer> wait, no.\n<answer>12</answer>", 1, 1),  # the last tag counts
    ("<answer>12</answer>\n```", 1, 1),
    ("<answer>12</answer>\nThe answer is 12.", 1, 0),
    ('{"answer": 12}', 1, 0),
    ("\\boxed{12}", 1, 0),
    ("<answer>13</answer>", 0, 1),
    ("<answer>12</answer> <answer>13</answer>", 0, 0),
    ("<answer>12</answer>\nActually the answer is 13.", 0, 0),
    ("<answer>12</answer>\n\\boxed{13}", 0, 0),
    ("<answer>12", 0, 0),  # not closed
    ("<answer>12 <answer>13</answer>", 0, 0),
    ("<answer></answer>", 0, 0),
    ("<answer>12 or 13</answer>", 0, 1),
])
def test_tag_convention(response, answer, fmt):
    assert got(label(12, "tag"), response)[:2] == (answer, fmt)


def test_json_convention_is_unchanged_by_the_others():
    # the default reads as it always did: only the strict JSON object earns the format point
    for response, expected in (('{"answer": 12}', (1, 1)), ("\\boxed{12}", (1, 0)), ("<answer>12</answer>", (1, 0)),
                               ("\\boxed{12} or \\boxed{13}", (0, 0))):
        assert got(label(12), response)[:2] == expected
        assert got(label(12, "json"), response)[:2] == expected


def test_reasons_name_the_convention():
    assert got(label(12, "boxed"), "\\boxed{12")[2] == "the last \\boxed{} is not closed"
    assert got(label(12, "tag"), "<answer>12")[2] == "the last <answer> tag is not closed"
    assert got(label(12, "boxed"), "\\boxed{12}\nActually, the answer is 13.")[2] == \
        "the text after the \\boxed{} states a different answer"
    assert got(label(12, "tag"), "<answer>1</answer><answer>2</answer>")[2] == \
        "the last <answer> tag line states more than one answer"
    assert got(label(12, "latex"), "\\boxed{12}") == (0, 0, "unknown answer format 'latex'")


@pytest.mark.parametrize("answer_format", FORMATS)
@pytest.mark.parametrize("lab", [label(4), label(2.5, kind="number"), label(True, kind="boolean"),
                                 label("C", kind="option"), label("red", kind="string"),
                                 label(["a", "b"], kind="list", items="string"), label([3, -2], kind="list",
                                                                                      items="integer"),
                                 label(["x", "y"], kind="set", items="string"), label([0.5], kind="set",
                                                                                    items="number")])
def test_canonical_response_is_the_strict_form(lab, answer_format):
    lab = {**lab, "format": answer_format}
    assert score(lab, canonical_response(lab, lab["answer"])).reward == 1.0
    wrong = score(lab, canonical_response(lab, wrong_answer(lab)))
    assert (wrong.answer, wrong.format) == (0.0, 1.0)


def test_instructions_match_the_convention():
    assert format_instruction("integer", None) == format_instruction("integer", None, "answer", "json") == (
        'Think it through, then end your response with a JSON object {"answer": ...} whose value is an integer, '
        'for example {"answer": 3}.')
    assert format_instruction("option", None, answer_format="boxed") == (
        "Think it through, then end your response with your final answer in \\boxed{...}: the option letter, "
        "for example \\boxed{B}.")
    assert format_instruction("list", "string", answer_format="tag") == (
        "Think it through, then end your response with your final answer inside <answer></answer> tags: a list of "
        "strings in order, for example <answer>a, b</answer>.")
    # each instruction's own example earns full reward under its convention
    for kind, items, truth in (("integer", None, 3), ("option", None, "B"), ("string", None, "red"),
                               ("list", "string", ["a", "b"]), ("set", "integer", [1, 2]), ("boolean", None, True)):
        for answer_format in ("boxed", "tag"):
            text = format_instruction(kind, items, answer_format=answer_format)
            example = text.split("for example ")[1][:-1]
            assert score({**label(truth, answer_format, kind, items)}, "Reasoning.\n" + example).reward == 1.0


# -- the choice in YAML: contracts and build configs ------------------------------------------------------------
def test_contract_format_reaches_prompt_label_and_trace(library_copy):
    path = library_copy / "contracts" / "integer_exact.yaml"
    tax = compile_taxonomy(library_copy)
    default = generate(tax.tasks[TASK], 5, 2, vocab=tax.vocab)
    path.write_text(path.read_text() + "format: boxed\n")
    tax = compile_taxonomy(library_copy)
    inst = generate(tax.tasks[TASK], 5, 2, vocab=tax.vocab)
    assert inst.label == {**default.label, "format": "boxed"} and inst.trace["label"]["format"] == "boxed"
    assert inst.prompt.endswith("for example \\boxed{3}.") and '{"answer"' not in inst.prompt
    assert score(inst.label, f"\\boxed{{{inst.answer}}}").reward == 1.0
    assert score(inst.label, json.dumps({"answer": inst.answer})).reward == 0.95
    assert replay_trace(inst.trace, tax).ok


def test_json_default_keeps_labels_and_prompts(taxonomy):
    inst = generate(taxonomy.tasks[TASK], 5, 2, vocab=taxonomy.vocab)
    assert "format" not in inst.label and inst.prompt.endswith('for example {"answer": 3}.')
    # an explicit json override is the default, byte for byte
    assert generate(taxonomy.tasks[TASK], 5, 2, vocab=taxonomy.vocab, answer_format="json").trace == inst.trace
    with pytest.raises(TesseraError, match="answer format must be one of json, boxed, tag, got 'xml'"):
        generate(taxonomy.tasks[TASK], 5, 2, vocab=taxonomy.vocab, answer_format="xml")


def test_bad_format_values_have_positions(fixture_lib, monkeypatch, taxonomy, tmp_path):
    from tests.test_errors import diagnostics, write

    monkeypatch.chdir(fixture_lib)
    write(fixture_lib, "contracts/bad_format.yaml", """
        contract: bad_format
        summary: t
        type: integer
        format: latex
    """)
    assert diagnostics(fixture_lib) == [
        "contracts/bad_format.yaml:4:9: error: expected 'json', 'boxed' or 'tag', got string 'latex'  [value-type]"]
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("build: bad\nseed: 1\nper_task: {train: 1}\nanswer_format: boxxed\n")
    with pytest.raises(CompileFailed) as info:
        load_build_config(cfg, taxonomy)
    assert [str(d) for d in info.value.diagnostics.sorted()] == [
        f"{cfg}:4:16: error: expected 'json', 'boxed' or 'tag', got string 'boxxed'  [value-type]"]


def test_build_override_reaches_rows_and_replays(taxonomy, tmp_path):
    cfg = tmp_path / "tag.yaml"
    cfg.write_text(f"build: tag\nseed: 4\nselect: {{tasks: ['{TASK}']}}\nper_task: {{train: 2}}\nlevels: [1]\n"
                   "answer_format: tag\n")
    config = load_build_config(cfg, taxonomy)
    plain_cfg = tmp_path / "plain.yaml"
    plain_cfg.write_text(cfg.read_text().replace("answer_format: tag\n", ""))
    assert config.sha256 != load_build_config(plain_cfg, taxonomy).sha256
    build(config, taxonomy, tmp_path / "ds", workers=1)
    rows = [r for f in sorted((tmp_path / "ds" / "data").glob("*.parquet")) for r in pq.read_table(f).to_pylist()]
    assert len(rows) == 2
    for row in rows:
        lab = json.loads(row["label"])
        assert lab["format"] == "tag" and row["prompt"].endswith("for example <answer>3</answer>.")
        assert score(lab, f"<answer>{json.loads(row['answer'])}</answer>").reward == 1.0
        assert replay_trace(json.loads(row["trace"]), taxonomy).ok


@pytest.mark.parametrize("answer_format", ["boxed", "tag"])
@pytest.mark.parametrize("response", [
    "\\boxed{" * 100_000, "<answer>" * 100_000, "</answer>" * 100_000, "<answer>12</answer>" * 50_000,
    "\\boxed{12}" * 100_000, "\\boxed{" + "{" * 100_000 + "12" + "}" * 100_000,
    "\\boxed{12}\n" + "\\boxed{13}\n" * 10_000, "<answer>" + "x" * 100_000 + "</answer>",
])
def test_adversarial_responses_end_with_no_credit(response, answer_format):
    # the reading is one pass over the last MAX_TAIL characters (bench: each of these well under 10 ms)
    assert score(label(12, answer_format), response).answer == 0.0
