"""The verl and TRL adapters: exports loaded the way each trainer loads them, rewards called the way each calls them.

TRL (installed here, CPU-only: trl + accelerate) is driven through its own code: `GRPOTrainer._calculate_rewards`,
the method that calls reward functions, runs unchanged on a stand-in trainer (device, state, loggers), with rows of
our export as `inputs`; `trl.data_utils.is_conversational` judges our rows. verl cannot be installed on this CPU-only
machine in reasonable time (it pulls ray, vLLM/sglang, flash-attn builds), so its calls are a transcription of its
source, not its code: `verl.trainer.ppo.reward.get_custom_reward_fn` loads `custom_reward_function.path` with
`importlib.util.spec_from_file_location` + `exec_module` and takes `.name`; `NaiveRewardManager.__call__` decodes the
response with `skip_special_tokens=True` and calls `compute_score(data_source=row["data_source"],
solution_str=response, ground_truth=row["reward_model"]["ground_truth"], extra_info=row["extra_info"])`, takes
`result["score"]` from a dict and collects the other keys into `reward_extra_info`; `RLHFDataset` reads the parquet
with `datasets.load_dataset("parquet", data_files=...)`, takes `prompt` as chat messages and `images` as a list of
images (a dict with "bytes" is opened with PIL), one `<image>` in the content per image.
"""
from __future__ import annotations

import importlib.util
import io
import json
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
datasets = pytest.importorskip("datasets")
Image = pytest.importorskip("PIL.Image")

from tessera.cli import main
from tessera.errors import TesseraError
from tessera.verify.score import wrong_answer
from tests.conftest import ROOT
from tests.test_training import TASKS, answer_text, built_dataset, source_rows  # noqa: F401 - fixture by name
from tessera.training.export import export_trainer

VERL_FILE = ROOT / "training" / "verl_reward.py"
TRL_FILE = ROOT / "training" / "trl_reward.py"


def load_by_path(path: Path, name: str):
    """verl's get_custom_reward_fn, transcribed: spec_from_file_location + exec_module, then getattr(name)."""
    spec = importlib.util.spec_from_file_location("custom_module", str(path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def response(label: dict, kind: str) -> str:
    """A decoded response (special tokens skipped, as verl and TRL decode): right, wrong but well-formed, or mute."""
    if kind == "mute":
        return "I cannot tell."
    value = label["answer"] if kind == "right" else wrong_answer(label)
    return answer_text(label, value).replace("<|im_end|>", "")


EXPECTED = {"right": (0.95 + 0.05, 1.0, 1.0), "wrong": (0.05, 0.0, 1.0), "mute": (0.0, 0.0, 0.0)}


@pytest.fixture(scope="module")
def exports(built_dataset, tmp_path_factory):  # noqa: F811
    base = tmp_path_factory.mktemp("adapters")
    return {fmt: (export_trainer(built_dataset, base / fmt, fmt), base / fmt) for fmt in ("verl", "trl")}


def load(out: Path, split: str):
    files = sorted(str(p) for p in (out / "data").glob(f"{split}-*.parquet"))
    return datasets.load_dataset("parquet", data_files={split: files}, split=split)


# -- verl -------------------------------------------------------------------------------------------------------
def test_verl_export_layout_loads_like_rlhf_dataset(exports, built_dataset):  # noqa: F811
    info, out = exports["verl"]
    src = source_rows(built_dataset)
    for split, n_per_task in (("train", 4), ("validation", 2)):
        ds = load(out, split)
        assert set(ds.column_names) == {"data_source", "prompt", "images", "ability", "reward_model", "extra_info"}
        assert len(ds) == info["splits"][split]["rows"] == n_per_task * len(TASKS)
        assert Counter(r["extra_info"]["task"] for r in ds) == {t: n_per_task for t in TASKS}  # task-uniform
        # every prefix task-uniform too (round robin): the first len(TASKS) rows hold each task once
        assert sorted(r["extra_info"]["task"] for r in ds.select(range(len(TASKS)))) == sorted(TASKS)
        for index, row in enumerate(ds):
            s = src[row["extra_info"]["instance_id"]]
            assert row["extra_info"] == {"split": split, "index": index, "task": s["task"], "domain": s["domain"],
                                         "level": s["level"], "seed": s["seed"], "instance_id": s["instance_id"]}
            assert row["prompt"] == [{"role": "user", "content": "<image>" + s["prompt"]}]
            assert row["prompt"][0]["content"].count("<image>") == len(row["images"]) == 1
            assert row["images"][0].size == Image.open(io.BytesIO(s["image"]["bytes"])).size  # decoded to PIL
            assert row["data_source"] == f"tessera/{s['domain']}" and row["ability"] == s["domain"]
            assert row["reward_model"]["style"] == "rule"
            truth = json.loads(row["reward_model"]["ground_truth"])
            assert truth == {**json.loads(s["label"]), "task": s["task"], "domain": s["domain"],
                             "instance_id": s["instance_id"]}
    # Read without the features (pyarrow alone), an image is the {"bytes": png} dict verl's process_image opens.
    raw = pq.read_table(sorted((out / "data").glob("train-*.parquet"))[0]).to_pylist()[0]
    assert raw["images"][0]["bytes"].startswith(b"\x89PNG") and raw["images"][0]["path"] is None
    overrides = info["usage"]["overrides"]
    assert f"custom_reward_function.path={VERL_FILE}" in overrides
    assert f"data.train_files=[{out}/data/train-00000-of-00001.parquet]" in overrides
    assert f"data.val_files=[{out}/data/validation-00000-of-00001.parquet]" in overrides


def test_verl_compute_score_as_naive_reward_manager_calls_it(exports):
    _, out = exports["verl"]
    compute_score = load_by_path(VERL_FILE, "compute_score")
    seen = Counter()
    for row in load(out, "validation"):
        truth = json.loads(row["reward_model"]["ground_truth"])
        for kind, (score, acc, fmt) in EXPECTED.items():
            result = compute_score(data_source=row["data_source"], solution_str=response(truth, kind),
                                   ground_truth=row["reward_model"]["ground_truth"], extra_info=row["extra_info"])
            assert set(result) == {"score", "acc", "format"}  # verl needs the same extra keys on every sample
            assert result["score"] == pytest.approx(score) and result["acc"] == acc and result["format"] == fmt
            seen[kind] += 1
    assert seen == {k: 2 * len(TASKS) for k in EXPECTED}
    # positional call (verl's default_compute_score signature) works too
    truth = load(out, "train")[0]["reward_model"]["ground_truth"]
    assert compute_score("tessera/x", response(json.loads(truth), "right"), truth)["acc"] == 1.0


@pytest.mark.parametrize("truth", [None, "", "not json", "[1, 2]", "{", "x" * 2_000_000, 17, ["a"], b"\xff\xfe",
                                   json.dumps({"answer": 1})])
@pytest.mark.parametrize("solution", ["", None, '{"answer": 1}', 12, "\x00" * 10, "}" * 100_000])
def test_verl_compute_score_never_raises(truth, solution):
    from tessera.training.verl_reward import compute_score

    # verl passes `custom_reward_function.reward_kwargs` as extra keyword arguments
    result = compute_score(data_source="tessera/x", solution_str=solution, ground_truth=truth, extra_info=None,
                           some_reward_kwarg=1)
    assert set(result) == {"score", "acc", "format"}
    assert all(isinstance(v, float) and 0.0 <= v <= 1.0 for v in result.values())
    if not (isinstance(truth, str) and truth.startswith("{") and truth.endswith("}")):
        assert result == {"score": 0.0, "acc": 0.0, "format": 0.0}


# -- TRL --------------------------------------------------------------------------------------------------------
def test_trl_export_is_conversational_image_dataset(exports, built_dataset):  # noqa: F811
    info, out = exports["trl"]
    src = source_rows(built_dataset)
    ds = load(out, "train")
    assert len(ds) == info["splits"]["train"]["rows"] == 4 * len(TASKS)
    assert Counter(ds["task"]) == {t: 4 for t in TASKS}
    for row in ds:
        s = src[row["instance_id"]]
        assert row["prompt"] == [{"role": "user", "content": [{"type": "image", "text": None},
                                                               {"type": "text", "text": s["prompt"]}]}]
        assert isinstance(row["image"], Image.Image)
        assert row["image"].tobytes() == Image.open(io.BytesIO(s["image"]["bytes"])).tobytes()
        assert json.loads(row["label"])["instance_id"] == s["instance_id"]
    import trl.data_utils as trl_data  # installed by `make test` (train extras): never skipped
    row = ds[0]
    assert trl_data.is_conversational(row)
    # GRPOTrainer._generate puts the `image` column into the prompt's image placeholder with this function; it
    # raises when placeholders and images differ in number, so exactly one placeholder per image is checked here.
    filled = trl_data.prepare_multimodal_messages(row["prompt"], images=[row["image"]])
    assert filled[0]["content"][0]["type"] == "image" and filled[0]["content"][0]["image"] is row["image"]
    assert filled[0]["content"][1] == {"type": "text", "text": row["prompt"][0]["content"][1]["text"]}
    with pytest.raises(ValueError):
        trl_data.prepare_multimodal_messages(row["prompt"], images=[row["image"], row["image"]])


class StandInTrainer:
    """What GRPOTrainer._calculate_rewards reads from `self`, on CPU with one process."""

    def __init__(self, reward_func):
        self.accelerator = SimpleNamespace(device="cpu", process_index=0, is_main_process=True)
        self.reward_funcs, self.reward_processing_classes = [reward_func], [None]
        self.reward_func_names = [getattr(reward_func, "__name__", "reward")]
        self.state = SimpleNamespace(global_step=0)
        self.environments = None
        self.metrics = []
        self.extra = []
        self.args = SimpleNamespace(report_to=[])

    def _log_metric(self, name, value):
        self.metrics.append((name, value))

    def _log_completion_extra(self, *args, **kwargs):
        self.extra.append((args, kwargs))


@pytest.mark.parametrize("conversational", [True, False])
def test_trl_reward_through_grpo_calculate_rewards(exports, conversational):
    import torch
    import trl.trainer.grpo_trainer as trl_grpo  # installed by `make test` (train extras): never skipped
    _, out = exports["trl"]
    reward_func = load_by_path(TRL_FILE, "tessera_reward")
    ds = load(out, "validation")
    kinds = list(EXPECTED)
    inputs, completions, expected = [], [], []
    for i, row in enumerate(ds):
        kind = kinds[i % 3]
        text = response(json.loads(row["label"]), kind)
        inputs.append(dict(row))
        completions.append([{"role": "assistant", "content": text}] if conversational else text)
        expected.append(EXPECTED[kind][0])
    trainer = StandInTrainer(reward_func)
    rewards = trl_grpo.GRPOTrainer._calculate_rewards(trainer, inputs, [r["prompt"] for r in inputs], completions,
                                                      [[1, 2]] * len(inputs))
    assert rewards.shape == (len(inputs), 1)
    assert rewards[:, 0].tolist() == pytest.approx(expected)
    logged = dict(trainer.metrics)
    assert logged["tessera/answer_accuracy"] == pytest.approx(sum(e > 0.5 for e in expected) / len(expected))
    assert logged["tessera/format_rate"] == pytest.approx(sum(e > 0 for e in expected) / len(expected))
    assert torch.isfinite(rewards).all()


def test_trl_completion_shapes_and_bad_input():
    from tessera.training.trl_reward import completion_text, tessera_reward

    assert completion_text("abc") == "abc"
    assert completion_text([{"role": "assistant", "content": "abc"}]) == "abc"
    assert completion_text([{"role": "assistant", "content": [{"type": "text", "text": "a"},
                                                              {"type": "image"}, {"type": "text", "text": "b"}]}]) == "ab"
    assert completion_text([{"role": "assistant", "content": "x"}, {"role": "tool", "content": "y"}]) == "x"
    for bad in (None, 3, [None], [{"role": "assistant", "content": 5}], [{"content": None}]):
        assert completion_text(bad) == ""
    label = json.dumps({"answer": 1})
    assert tessera_reward(prompts=None, completions=["x", None, 5], label=[label, None, "junk"]) == [0.0, 0.0, 0.0]
    assert tessera_reward(completions=["x", "y"], label=["{}"]) == [0.0, 0.0]  # a short label list pads with 0
    assert tessera_reward(completions=None) == [] and tessera_reward(completions=7) == []
    def broken_logger(name, value):
        raise RuntimeError("wandb is down")
    assert tessera_reward(completions=["x"], label=[label], log_metric=broken_logger) == [0.0]


# -- the command ------------------------------------------------------------------------------------------------
def test_export_command_for_trainers(built_dataset, tmp_path, capsys):  # noqa: F811
    for fmt in ("verl", "trl"):
        out = tmp_path / fmt
        assert main(["--root", str(ROOT), "export", str(built_dataset), "--format", fmt, "--out", str(out),
                     "--split", "validation", "--rows-per-task", "1", "--json"]) == 0
        info = json.loads(capsys.readouterr().out)
        assert info["kind"] == fmt and list(info["splits"]) == ["validation"]
        assert info["splits"]["validation"]["rows"] == len(TASKS)
        assert json.loads((out / "export.json").read_text()) == info
        assert len(load(out, "validation")) == len(TASKS)
    for argv, message in [
        (["export", "--format", "verl", "--out", str(tmp_path / "a")], "--format verl exports a built dataset"),
        (["export", "--format", "trl", "--out", str(tmp_path / "b")], "--format trl exports a built dataset"),
        (["export", str(built_dataset), "--format", "trl", "--out", str(tmp_path / "trl")], "exists"),
        (["export", str(built_dataset), "--format", "verl", "--out", str(tmp_path / "c"), "--rows-per-task", "9"],
         "fewer rows"),
        (["export", str(built_dataset), "--format", "verl", "--out", str(tmp_path / "d"), "--split", "nope"],
         "no split nope"),
    ]:
        assert main(["--root", str(ROOT), *argv]) == 1
        assert message in capsys.readouterr().err
    assert not (tmp_path / "c").exists() and not (tmp_path / ".c.partial").exists()
    with pytest.raises(TesseraError, match="unknown trainer format"):
        export_trainer(built_dataset, tmp_path / "e", "deepspeed")


# -- untrusted input: a crafted row is refused before anything is written, as by the OpenRLHF export -------------
from tests.test_untrusted import CRAFTED, copy, shard_of, tamper  # noqa: E402


@pytest.mark.parametrize("fmt", ["verl", "trl"])
@pytest.mark.parametrize("case, change, field, keep_schema", CRAFTED, ids=[c[0] for c in CRAFTED])
def test_crafted_row_is_refused(built_dataset, tmp_path, capsys, fmt, case, change, field,  # noqa: F811
                                keep_schema):
    ds = copy(built_dataset, tmp_path)
    row = tamper(ds, change, keep_schema=keep_schema)
    out = tmp_path / "export" / "out"
    assert main(["--root", str(ROOT), "export", str(ds), "--format", fmt, "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"data/{shard_of(ds).name} row {row}" in err and f"field '{field}'" in err, err
    assert "Traceback" not in err
    assert not (tmp_path / "export").exists()


@pytest.mark.parametrize("fmt", ["verl", "trl"])
def test_the_export_command_prints_its_usage_as_text(built_dataset, tmp_path, capsys, fmt):  # noqa: F811
    """0.8.0's `tessera export --format verl` wrote its files, then printed `data.train_files=[/abs/…]` through rich,
    which read the brackets as markup: MarkupError, exit 1. The command's own output, not --json, is what a user
    reads."""
    from tessera.cli import main

    out = tmp_path / fmt
    assert main(["export", str(built_dataset), "--format", fmt, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    usage = json.loads((out / "export.json").read_text())["usage"]
    for line in usage.get("overrides", []) or usage.values():
        assert line in printed.replace("\n", "") or line.split("[")[0] in printed, (line, printed)
    if fmt == "verl":
        assert f"data.train_files=[{out}" in printed.replace("\n", "")
