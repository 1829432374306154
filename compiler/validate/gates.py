"""Quality gates every instance passes before a build accepts it (the floor every RLVR instance must clear).

Each gate returns None when the instance passes, or a short reason code. They work on the instance's recorded
parts (PNG bytes, prompt, label, witness, trace) so `tessera validate` can re-run them on a finished dataset.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..dataset.phash import luma
from ..render.png import decode_image_rgb
from ..verify.score import canonical_response, score, wrong_answer

MIN_SIDE = 64
MIN_GRAY_STD = 2.0
FOREGROUND_RANGE = (0.001, 0.98)
FOREGROUND_DELTA = 24  # a pixel is foreground when its grey differs this much from the background's grey


@dataclass
class GateInput:
    png: bytes
    prompt: str
    answer: object
    label: dict
    witness: dict
    width: int
    height: int
    rgb: np.ndarray | None = None
    _gray: np.ndarray | None = None

    def pixels(self) -> np.ndarray:
        if self.rgb is None:
            self.rgb = decode_image_rgb(self.png)
        return self.rgb

    def gray(self) -> np.ndarray:
        if self._gray is None:
            self._gray = luma(self.pixels())
        return self._gray


def gate_image(x: GateInput) -> str | None:
    try:
        pixels = x.pixels()
    except Exception:  # noqa: BLE001 - a corrupt PNG is a gate failure, not a crash
        return "image:undecodable"
    h, w, _ = pixels.shape
    if (w, h) != (x.width, x.height):
        return "image:size_mismatch"
    if min(w, h) < MIN_SIDE:
        return "image:too_small"
    gray = x.gray()
    # Mean and variance from the 256-bin histogram: exact for 8-bit grey, and one pass over the pixels.
    hist = np.bincount(gray.ravel(), minlength=256).astype(np.float64)
    levels = np.arange(256, dtype=np.float64)
    n = hist.sum()
    mean = (hist * levels).sum() / n
    std = float(np.sqrt(max(0.0, (hist * (levels - mean) ** 2).sum() / n)))
    if std < MIN_GRAY_STD:
        return "image:flat"
    # Foreground: pixels whose grey differs from the background's (the top-left pixel) by more than the delta.
    bg = int(gray[0, 0])
    lo, hi = max(0, bg - FOREGROUND_DELTA), min(255, bg + FOREGROUND_DELTA)
    fg = 1.0 - float(hist[lo:hi + 1].sum()) / n
    if not FOREGROUND_RANGE[0] <= fg <= FOREGROUND_RANGE[1]:
        return "image:foreground_ratio"
    return None


def gate_text(x: GateInput) -> str | None:
    if not isinstance(x.prompt, str) or not x.prompt.strip():
        return "prompt:missing"
    if x.answer is None or x.answer == "" or x.label.get("answer") is None:
        return "answer:missing"
    return None


def gate_verifier(x: GateInput) -> str | None:
    if score(x.label, canonical_response(x.label, x.answer)).reward != 1.0:
        return "verifier:rejects_canonical"
    try:
        wrong = wrong_answer(x.label)
    except Exception:  # noqa: BLE001
        return "verifier:no_wrong_answer"
    if score(x.label, canonical_response(x.label, wrong)).answer != 0.0:
        return "verifier:accepts_wrong"
    return None


def gate_unique(x: GateInput) -> str | None:
    """Program requirements enforce uniqueness while sampling; option tasks must also show exactly one option
    with the answer's letter."""
    if x.label.get("type") != "option":
        return None
    letter = str(x.answer)
    lines = [ln.strip() for ln in x.prompt.splitlines()]
    options = [ln for ln in lines if len(ln) > 2 and ln[0].isupper() and ln[1] == "." and ln[2] == " "]
    if len(options) < 2 or sum(ln.startswith(letter + ".") for ln in options) != 1:
        return "answer:not_unique_option"
    if len({ln[0] for ln in options}) != len(options):
        return "answer:duplicate_option_letters"
    return None


def gate_witness(x: GateInput) -> str | None:
    w = x.witness
    if not isinstance(w, dict) or "kind" not in w:
        return "witness:missing"
    if w["kind"] == "scalar":
        return None
    if w["kind"] in ("bbox", "point", "segment"):
        geoms = [w["value"]]
    elif w["kind"] == "map":
        geoms = list(w["value"].values())
    else:
        geoms = w["value"]
    for g in geoms:
        xs, ys = g[0::2], g[1::2]
        if min(xs) < 0 or min(ys) < 0 or max(xs) > x.width or max(ys) > x.height:
            return "witness:outside_image"
    return None


GATES = (gate_image, gate_text, gate_verifier, gate_unique, gate_witness)


def run_gates(x: GateInput) -> list[str]:
    return [reason for gate in GATES if (reason := gate(x)) is not None]


def gate_input_from_instance(inst, rgb: np.ndarray | None = None) -> GateInput:
    r = inst.trace["render"]
    return GateInput(inst.png, inst.prompt, inst.answer, inst.label, inst.witness, r["width"], r["height"], rgb)
