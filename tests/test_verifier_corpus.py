"""The verifier against the corpus in tests/data/verifier_corpus/: for every answer type, hundreds of ordinary ways
a model writes a correct answer and near-misses that are wrong. The verifier must be right on all of them:
0 false positives (a near-miss rewarded) and 0 false negatives (a correct form refused)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tessera.verify.score import score
from tests.data.verifier_corpus import make_corpus

CORPUS = Path(__file__).parent / "data" / "verifier_corpus"
MIN_CASES = 300


def corpus_files() -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in sorted(CORPUS.glob("*.json"))}


def label_for(corpus: dict, answer, contracts) -> dict:
    if "contract" in corpus:
        return contracts[corpus["contract"]].label(answer, corpus.get("format"))
    label = {**corpus["label"], "answer": answer}
    if corpus.get("format", "json") != "json":
        label["format"] = corpus["format"]
    return label


def run_corpus(contracts) -> tuple[dict[str, list[int]], list[str]]:
    """Per type [correct forms, near-misses, false positives, false negatives], and each miss described."""
    table, misses = {}, []
    for name, corpus in corpus_files().items():
        row = table.setdefault(name, [0, 0, 0, 0])
        for case in corpus["cases"]:
            got = score(label_for(corpus, case["answer"], contracts), case["response"]).answer
            row[0 if case["expect"] else 1] += 1
            if got != case["expect"]:
                row[2 if got else 3] += 1
                misses.append(f"{name}: {'FP' if got else 'FN'} ({case['why']}) answer={case['answer']!r} "
                              f"response={case['response'][-160:]!r}")
    return table, misses


def format_table(table: dict[str, list[int]]) -> str:
    lines = [f"{'answer type':14} {'correct':>8} {'near-miss':>10} {'FP':>4} {'FN':>4}"]
    for name, (right, near, fp, fn) in table.items():
        lines.append(f"{name:14} {right:8} {near:10} {fp:4} {fn:4}")
    totals = [sum(col) for col in zip(*table.values())]
    lines.append(f"{'all':14} {totals[0]:8} {totals[1]:10} {totals[2]:4} {totals[3]:4}")
    return "\n".join(lines)


def test_corpus_files_are_what_the_generator_writes():
    assert corpus_files() == json.loads(json.dumps(make_corpus.build(), ensure_ascii=False)), \
        "run python tests/data/verifier_corpus/make_corpus.py and commit its output"


def test_every_answer_type_has_a_corpus(taxonomy):
    files = corpus_files()
    used = {(c.type, c.items, c.spec.normalize.form) for c in taxonomy.contracts.values()}
    covered = set()
    for corpus in files.values():
        if "contract" in corpus:
            c = taxonomy.contracts[corpus["contract"]]
            covered.add((c.type, c.items, c.spec.normalize.form))
        else:
            covered.add((corpus["label"]["type"], corpus["label"]["items"], corpus["label"]["normalize"]["form"]))
    assert used <= covered  # every bundled contract's kind of answer
    for kind in ("list", "set"):
        for items in ("integer", "number", "string"):
            assert any(k == kind and i == items for k, i, _ in covered), (kind, items)
    for name, corpus in files.items():
        right = sum(c["expect"] for c in corpus["cases"])
        assert len(corpus["cases"]) >= MIN_CASES and right >= 60 and len(corpus["cases"]) - right >= 60, name


def test_verifier_is_right_on_the_whole_corpus(taxonomy, capsys):
    table, misses = run_corpus(taxonomy.contracts)
    with capsys.disabled():
        print("\n" + format_table(table))
    assert not misses, f"{len(misses)} wrong:\n" + "\n".join(misses[:60])


@pytest.mark.parametrize("response,answer", [
    ('{"answer": "1, 2"}', 0), ('{"answer": "1 2"}', 0), ('{"answer": "1_2"}', 0), ('{"answer": "1,2"}', 0),
    ('{"answer": "12"}', 1), ('{"answer": [1, 2]}', 0), ('{"answer": 1, 2}', 0),
])
def test_separators_never_join_digits(taxonomy, response, answer):
    assert score(taxonomy.contracts["integer_exact"].label(12), response).answer == answer


# (json's strict form also needs a strict JSON value, which the value forms vary on purpose: tests/test_verifier.py)
STRICT_ENVELOPES = {"json": (), "boxed": ("boxed at the end", "boxed in inline math",
                                                            "boxed in display math", "bold label then boxed"),
                    "tag": ("tag at the end", "think block then tag", "tag over three lines",
                            "upper-case tag with spaces", "bold label then tag")}


def test_format_point_follows_the_convention(taxonomy):
    """Each convention's strict form earns the format point; another convention's form is read but earns none."""
    checked = 0
    for name, corpus in corpus_files().items():
        convention = corpus.get("format", "json")
        for case in corpus["cases"]:
            envelope = case["why"].rsplit("; ", 1)[-1]
            strict = envelope in STRICT_ENVELOPES[convention]
            other = envelope.startswith("json object instead") or convention == "json" and "without json" in envelope
            if case["expect"] and (strict or other):
                got = score(label_for(corpus, case["answer"], taxonomy.contracts), case["response"]).format
                assert got == (1.0 if strict else 0.0), (name, case)
                checked += 1
    assert checked > 3000
