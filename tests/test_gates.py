"""Every quality gate rejects a crafted bad instance, and passes the real ones."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tessera.render.png import encode_png
from tessera.trace.instance import generate
from tessera.validate.gates import GateInput, gate_input_from_instance, run_gates
from tessera.dataset.phash import dhash, hamming


@pytest.fixture(scope="module")
def good(taxonomy):
    inst = generate(taxonomy.tasks["charts.scatter_plot.majority_group"], 3, 4, vocab=taxonomy.vocab)
    return gate_input_from_instance(inst, inst.rgb)


def image(pixels: np.ndarray, base: GateInput) -> GateInput:
    h, w, _ = pixels.shape
    # a scalar witness, so a smaller crafted image is judged on its pixels alone
    return dataclasses.replace(base, png=encode_png(pixels), rgb=None, _gray=None, width=w, height=h,
                               witness={"kind": "scalar", "value": 1})


def test_real_instances_pass(good, taxonomy):
    assert run_gates(good) == []
    for tid in sorted(taxonomy.tasks)[::7]:
        inst = generate(taxonomy.tasks[tid], 1, 5, vocab=taxonomy.vocab)
        assert run_gates(gate_input_from_instance(inst)) == [], tid


def test_image_gates(good):
    rng = np.random.default_rng(0)
    noisy = rng.integers(0, 256, (100, 100, 3), dtype=np.uint8)
    assert run_gates(image(np.full((300, 300, 3), 250, np.uint8), good)) == ["image:flat"]
    tiny = image(noisy[:40, :40].copy(), good)
    assert run_gates(tiny)[0] == "image:too_small"
    dots = np.full((200, 200, 3), 255, np.uint8)
    dots[::40, ::40] = 0  # 25 dark pixels of 40,000: grey varies, but almost nothing is drawn
    dots[100:110, 100:110] = 0
    assert run_gates(image(dots, good)) == ["image:foreground_ratio"]
    full = rng.integers(0, 120, (200, 200, 3), dtype=np.uint8)  # everything drawn over...
    full[0, 0] = (255, 255, 255)  # ...a white background that shows in one pixel
    assert run_gates(image(full, good)) == ["image:foreground_ratio"]
    assert run_gates(dataclasses.replace(good, png=b"\x89PNG broken", rgb=None, _gray=None))[0] == "image:undecodable"
    assert run_gates(dataclasses.replace(good, width=good.width + 1))[0] == "image:size_mismatch"


def test_text_gates(good):
    assert run_gates(dataclasses.replace(good, prompt="  ")) == ["prompt:missing", "answer:not_unique_option"]
    assert "answer:missing" in run_gates(dataclasses.replace(good, answer=None))


def test_verifier_gates(good):
    wrong_truth = dict(good.label, answer="Z")
    assert "verifier:rejects_canonical" in run_gates(dataclasses.replace(good, label=wrong_truth))
    lenient = dict(good.label, type="string", answer=good.answer, normalize={"case": "fold"})
    # a string label on an option answer accepts the canonical letter but also no wrong answer: passes
    assert "verifier:accepts_wrong" not in run_gates(dataclasses.replace(good, label=lenient))
    broken = dict(good.label, type="nonsense")
    assert "verifier:rejects_canonical" in run_gates(dataclasses.replace(good, label=broken))


def test_option_uniqueness_gate(good):
    lines = good.prompt.splitlines()
    option_lines = [ln for ln in lines if len(ln) > 2 and ln[1] == "." and ln[0].isupper()]
    doubled = good.prompt.replace(option_lines[1], option_lines[0][:2] + option_lines[1][2:])
    assert "answer:not_unique_option" in run_gates(dataclasses.replace(good, prompt=doubled)) or \
        "answer:duplicate_option_letters" in run_gates(dataclasses.replace(good, prompt=doubled))
    no_options = good.prompt.replace(option_lines[0], "").replace(option_lines[1], "")
    assert "answer:not_unique_option" in run_gates(dataclasses.replace(good, prompt=no_options))


def test_witness_gates(good):
    outside = dict(good.witness, value=[[good.width - 2, 10, good.width + 30, 20]], kind="set")
    assert run_gates(dataclasses.replace(good, witness=outside)) == ["witness:outside_image"]
    assert run_gates(dataclasses.replace(good, witness={})) == ["witness:missing"]
    point = {"kind": "point", "objects": ["x"], "value": [-1.0, 5.0]}
    assert run_gates(dataclasses.replace(good, witness=point)) == ["witness:outside_image"]


def test_dhash_separates_different_and_matches_similar(taxonomy):
    task = taxonomy.tasks["icons.shape_field.count_matching"]
    a = generate(task, 1, 5, vocab=taxonomy.vocab)
    b = generate(task, 2, 5, vocab=taxonomy.vocab)
    shifted = generate(task, 1, 5, vocab=taxonomy.vocab, stream_seeds={"render": 99})  # same scene, other render
    assert hamming(dhash(a.rgb), dhash(a.rgb)) == 0
    assert hamming(dhash(a.rgb), dhash(shifted.rgb)) < hamming(dhash(a.rgb), dhash(b.rgb))
    assert hamming(dhash(a.rgb), dhash(b.rgb)) > 12
