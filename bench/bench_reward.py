"""Throughput and latency of the OpenRLHF reward function (training/reward_func.py), called the way OpenRLHF calls
it: one decoded chat transcript per call. Normal transcripts (Qwen2.5-VL chat, image tokens, a reasoned answer) and
adversarial ones (megabytes, deep JSON, unbalanced braces, floods of special tokens). Prints figures; asserts
nothing."""
from __future__ import annotations

import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tessera.taxonomy import compile_taxonomy  # noqa: E402
from tessera.trace.instance import canonical_json, generate  # noqa: E402
from tessera.verify.score import wrong_answer  # noqa: E402
from tessera.training.reward import score_transcript  # noqa: E402

SHARES = {"charts": 0.5, "icons": 0.5}


def load_reward_func():
    spec = importlib.util.spec_from_file_location("reward_func", ROOT / "training" / "reward_func.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.reward_func


def transcript(prompt: str, response: str) -> str:
    return ("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n<|vision_start|>"
            + "<|image_pad|>" * 240 + f"<|vision_end|>{prompt}<|im_end|>\n<|im_start|>assistant\n{response}<|im_end|>")


def normal_cases(tax) -> list[tuple[str, str]]:
    cases = []
    for i, task_id in enumerate(sorted(tax.tasks)):
        inst = generate(tax.tasks[task_id], i, 2, None, tax.vocab)
        label = canonical_json(inst.label | {"task": task_id, "domain": inst.task.domain, "domains": SHARES})
        reasoning = "Let me look at each mark in turn and compare the values shown. " * 8
        for value in (inst.answer, wrong_answer(inst.label)):
            cases.append((transcript(inst.prompt, reasoning + json.dumps({"answer": value})), label))
    return cases


def adversarial_cases(label: str) -> list[tuple[str, str]]:
    head = transcript("Q", "")[: -len("<|im_end|>")]
    bodies = [
        "x" * 4_000_000 + '{"answer": 1}',
        "[" * 200_000 + '{"answer": ' + "[" * 100_000 + "1" + "]" * 100_000 + "}",
        "{" * 1_000_000,
        "}" * 1_000_000,
        '{"a":' * 50_000 + "1" + "}" * 50_000,
        '{"answer": "' + "\\" * 500_000 + '"}',
        "<|im_start|>assistant\n" * 100_000,
        "<|endoftext|>" * 200_000,
        ('{"answer": 1} ' * 1000) + "{" * 5000 + "}" * 5000,
        "\ud800\x00" * 200_000,
    ]
    return [(head + b, label) for b in bodies]


def measure(fn, cases, rounds: int) -> tuple[float, float, float, float]:
    """Responses per second (wall clock), p50 and p99 wall latency, and p99 of the thread's CPU time per call:
    on a shared machine the wall p99 also counts time the process was preempted, the CPU p99 does not."""
    wall, cpu = [], []
    t_all = time.perf_counter()
    for _ in range(rounds):
        for query, label in cases:
            t0, c0 = time.perf_counter(), time.thread_time()
            fn(query, label)
            cpu.append(time.thread_time() - c0)
            wall.append(time.perf_counter() - t0)
    total = time.perf_counter() - t_all
    wall.sort()
    cpu.sort()
    p99 = int(0.99 * (len(wall) - 1))
    return len(wall) / total, statistics.median(wall), wall[p99], cpu[p99]


def main() -> None:
    tax = compile_taxonomy(ROOT)
    reward_func = load_reward_func()
    normal = normal_cases(tax)
    hostile = adversarial_cases(normal[0][1])
    via_openrlhf = lambda q, lab: reward_func([q], [None], [lab])  # noqa: E731 - OpenRLHF's call, one sample
    verifier_only = lambda q, lab: score_transcript(q, None, lab)  # noqa: E731
    print(f"{'inputs':<34} {'responses/s':>12} {'p50 µs':>9} {'p99 µs':>9} {'p99 CPU µs':>11}")
    for name, fn, cases, rounds in [
        ("normal, reward_func (torch out)", via_openrlhf, normal, 200),
        ("normal, transcript scoring only", verifier_only, normal, 200),
        ("adversarial, reward_func", via_openrlhf, hostile, 5),
    ]:
        rate, p50, p99, cpu99 = measure(fn, cases, rounds)
        print(f"{name:<34} {rate:>12,.0f} {p50 * 1e6:>9.0f} {p99 * 1e6:>9.0f} {cpu99 * 1e6:>11.0f}")
    sizes = ", ".join(f"{len(q) / 1e6:.1f} MB" for q, _ in hostile)
    print(f"normal transcripts: {len(normal)} ({len(normal[0][0])} chars each, about); adversarial sizes: {sizes}")


if __name__ == "__main__":
    main()
