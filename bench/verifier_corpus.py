"""The verifier on its corpus (tests/data/verifier_corpus/): per answer type, how many correct forms and near-misses,
false positives (a near-miss rewarded) and false negatives (a correct form refused); then the cost per response,
on the corpus and on adversarial responses built to make the reader work hardest. Prints figures, asserts nothing.

    python bench/verifier_corpus.py
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tessera.taxonomy import compile_taxonomy  # noqa: E402
from tessera.verify.score import MAX_TAIL, score  # noqa: E402
from tests.test_verifier_corpus import corpus_files, format_table, label_for, run_corpus  # noqa: E402


def adversarial() -> dict[str, str]:
    n = MAX_TAIL
    return {
        "4 KiB of '{'": "{" * n,
        "4 KiB of unclosed strings": ('{"a": "' + "x" * 120) * (n // 128),
        "4 KiB of key/value pairs": "{" + '"a": 1, ' * (n // 8),
        "4 KiB of nested lists": '{"answer": ' + "[" * (n // 2) + "]" * (n // 2) + "}",
        "4 KiB of answer lines": "Answer: 12\n" * (n // 11),
        "4 KiB of \\boxed": "\\boxed{" * (n // 7),
        "object then 4 KiB of trailer": '{"answer": 12}' + " answer is x\n" * (n // 13),
        "4 KiB value": '{"answer": "' + "1, " * (n // 3 - 5) + '"}',
        "20 MB response": "thinking... " * 1_700_000 + '{"answer": 12}',
        "4 KiB of '\\boxed{ '": "\\boxed{ " * (n // 8),
        "4 KiB of '\\boxed{{'": "\\boxed{{" * (n // 8),
        "4 KiB of <answer>": "<answer>" * (n // 8),
        "4 KiB of tag pairs": "<answer>1</answer>\n" * (n // 19),
        "4 KiB of sentences on one line": "I count them. The answer is 1. " * (n // 31),
        "4 KiB of '. ' on one line": "The answer is 1" + ". " * (n // 2),
        "4 KiB of '. :' on one line": "The answer is 1" + ".:" * (n // 2),
        "4 KiB of ', so' on one line": "The answer is 1" + ", so" * (n // 4),
        "4 KiB of non-ASCII digits": "The answer is " + "١" * (n - 20),
    }


def main() -> None:
    tax = compile_taxonomy(ROOT)
    table, misses = run_corpus(tax.contracts)
    print(format_table(table))
    for m in misses[:20]:
        print("  ", m)
    cases = [(label_for(c, case["answer"], tax.contracts), case["response"])
             for c in corpus_files().values() for case in c["cases"]]
    t0 = time.perf_counter()
    for lab, response in cases:
        score(lab, response)
    per = (time.perf_counter() - t0) / len(cases)
    print(f"\ncorpus: {len(cases)} responses, {per * 1e6:.0f} µs per response")
    for answer_format in ("json", "boxed", "tag"):
        lab = tax.contracts["integer_exact"].label(12, answer_format)
        print(f"adversarial responses, {answer_format} label (worst of 5 runs):")
        adversarial_figures(lab)


def adversarial_figures(lab: dict) -> None:
    for name, response in adversarial().items():
        worst = 0.0
        for _ in range(5):
            t0 = time.perf_counter()
            s = score(lab, response)
            worst = max(worst, time.perf_counter() - t0)
        print(f"  {name:32} {worst * 1e3:7.2f} ms   answer={s.answer} reason={s.reason!r}")


if __name__ == "__main__":
    main()
