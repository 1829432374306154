"""Training glue against OpenRLHF's real code (0.11.x, installed without its GPU dependencies): the reward function
loaded and called the way OpenRLHF's single-turn executor does it, exported rows read by OpenRLHF's prompt dataset,
the online executor driven by a stand-in engine, the curriculum and the launcher's command checked by OpenRLHF's
own argument parser."""
from __future__ import annotations

import asyncio
import io
import json
import os
import tempfile
import time
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest

# Hugging Face datasets: offline, and a cache of our own (read when `datasets` is first imported).
os.environ.setdefault("HF_DATASETS_CACHE", tempfile.mkdtemp(prefix="tessera-hf-cache-"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("openrlhf", reason="install the train extra: make test")
torch = pytest.importorskip("torch")
from PIL import Image  # noqa: E402

from tessera.cli import main  # noqa: E402
from tessera.trace.instance import generate  # noqa: E402
from tessera.verify.score import wrong_answer  # noqa: E402
from tests.bounds import start_ray  # noqa: E402
from tests.conftest import ROOT  # noqa: E402
from tessera.training.chat import extract_response  # noqa: E402
from tessera.training.curriculum import Curriculum, CurriculumConfig, CurriculumService, CurriculumStore  # noqa: E402
from tessera.training.export import export_offline, export_online  # noqa: E402
from tessera.training.launch import build_launch, load_config, validate_with_openrlhf  # noqa: E402

TASKS = ("charts.bar_chart.extremum_label", "icons.shape_field.relation", "icons.shape_grid.row_extreme")
REWARD_FILE = ROOT / "training" / "reward_func.py"
GROUP_KEYS = {f"domain/{d}/{k}" for d in ("charts", "icons") for k in ("correct", "share")} | \
    {f"level/{level}/{k}" for level in range(10) for k in ("correct", "share")}
CONFIGS = sorted((ROOT / "training" / "configs").glob("*.yaml"))


# -- stand-ins for what needs a GPU: the tokenizer/processor and the vLLM engine ---------------------------------
class CharTokenizer:
    """One token per character; decodes back to the same text, special tokens included (as OpenRLHF decodes)."""

    def apply_chat_template(self, chat, tokenize=False, add_generation_prompt=True):
        """Qwen2.5-VL's template: system turn, then user content (image block + text), then the assistant opener."""
        text = "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
        for msg in chat:
            content = msg["content"]
            if isinstance(content, list):
                content = "".join("<|vision_start|><|image_pad|><|vision_end|>" if c["type"] == "image"
                                  else c["text"] for c in content)
            text += f"<|im_start|>{msg['role']}\n{content}<|im_end|>\n"
        return text + ("<|im_start|>assistant\n" if add_generation_prompt else "")

    def __call__(self, text, add_special_tokens=False, return_tensors="pt", **_):
        texts = text if isinstance(text, list) else [text]
        return {"input_ids": torch.tensor([[ord(c) for c in texts[0]]])}

    def decode(self, ids, skip_special_tokens=False):
        return "".join(chr(i) for i in ids)


class CharProcessor(CharTokenizer):
    """A vision-language processor: expands the image placeholder to one pad token per 28-pixel patch."""

    image_processor = object()

    def __call__(self, text, images=None, add_special_tokens=False, return_tensors="pt", **_):
        texts = text if isinstance(text, list) else [text]
        out = texts[0]
        grids = []
        for img in images or []:
            w, h = img.size
            grids.append([1, h // 28, w // 28])
            out = out.replace("<|image_pad|>", "<|image_pad|>" * 4, 1)
        result = {"input_ids": torch.tensor([[ord(c) for c in out]])}
        if images:
            result["pixel_values"] = torch.zeros(len(images), 3)
            result["image_grid_thw"] = torch.tensor(grids)
        return result


class Params(SimpleNamespace):
    """vLLM SamplingParams as OpenRLHF's executors use it."""


class StandInEngine:
    """`llm_engine.generate(prompt_ids, params, multi_modal_data)` answering with `respond(call)`."""

    def __init__(self, respond):
        self.respond = respond
        self.calls: list[dict] = []

    async def generate(self, prompt_token_ids, sampling_params, multi_modal_data=None):
        images = (multi_modal_data or {}).get("image") or []
        call = {"prompt_ids": list(prompt_token_ids), "images": [(im.size, im.tobytes()) for im in images],
                "max_tokens": sampling_params.max_tokens}
        self.calls.append(call)
        await asyncio.sleep(0)
        text = self.respond(call)
        out = SimpleNamespace(token_ids=[ord(c) for c in text], text=text, finish_reason="stop", logprobs=None)
        return SimpleNamespace(outputs=[out])


def answer_text(label: dict, value) -> str:
    return f"Looking at the image carefully.\n{json.dumps({label.get('key', 'answer'): value})}<|im_end|>"


# -- a small dataset from `tessera build` ------------------------------------------------------------------------
BUILD = """
build: training-small
seed: 5
select: {tasks: [%s]}
per_task: {train: 4, validation: 2}
levels: [0, 1, 2]
shard_size: 5
""" % ", ".join(f'"{t}"' for t in TASKS)


@pytest.fixture(scope="module")
def built_dataset(taxonomy, tmp_path_factory) -> Path:
    from tessera.export.build import build
    from tessera.export.config import load_build_config

    config = tmp_path_factory.mktemp("cfg") / "small.yaml"
    config.write_text(BUILD.lstrip())
    out = tmp_path_factory.mktemp("built") / "ds"
    build(load_build_config(config, taxonomy), taxonomy, out, workers=1)
    return out


def source_rows(dataset: Path) -> dict[str, dict]:
    return {r["instance_id"]: r for f in sorted((dataset / "data").glob("*.parquet"))
            for r in pq.read_table(f).to_pylist()}


@pytest.fixture(scope="module")
def uneven_dataset(built_dataset, tmp_path_factory) -> Path:
    """The build with one training row of the last task removed: the export must equalise tasks."""
    import shutil

    out = tmp_path_factory.mktemp("uneven") / "ds"
    shutil.copytree(built_dataset, out)
    manifest = json.loads((out / "manifest.json").read_text())
    for entry in manifest["splits"]["train"]["files"]:
        path = out / entry["name"]
        table = pq.read_table(path)
        rows = table.to_pylist()
        victim = next((i for i, r in enumerate(rows) if r["task"] == TASKS[-1]), None)
        if victim is not None:
            pq.write_table(pa.Table.from_pylist(rows[:victim] + rows[victim + 1:], schema=table.schema), path)
            break
    return out


def strategy_for(**data):
    args = SimpleNamespace(data=SimpleNamespace(**data), use_ms=False)
    return SimpleNamespace(args=args, is_rank_0=lambda: True, print=lambda *a, **k: None)


def read_with_openrlhf(export_dir: Path, split: str, **data):
    """The rows as OpenRLHF's trainer reads `--data.prompt_dataset DIR --data.prompt_split SPLIT`."""
    from openrlhf.datasets import PromptDataset
    from openrlhf.datasets.utils import blending_datasets

    strategy = strategy_for(**data)
    rows = blending_datasets(str(export_dir / "data"), None, strategy, dataset_split=split)
    return PromptDataset(rows, CharProcessor(), strategy)


# -- the response inside a transcript ---------------------------------------------------------------------------
def test_response_is_the_text_after_the_last_assistant_marker():
    tok = CharProcessor()
    prompt = tok.apply_chat_template([{"role": "user", "content": [{"type": "image"}, {"type": "text",
                                      "text": 'Count them. End with {"answer": 3}.'}]}])
    query = prompt.replace("<|image_pad|>", "<|image_pad|>" * 50) + 'It is 4.\n{"answer": 4}<|im_end|><|endoftext|>'
    assert extract_response(query, prompt) == 'It is 4.\n{"answer": 4}'
    llama = ('<|start_header_id|>user<|end_header_id|>\n\nQ?<|eot_id|><|start_header_id|>assistant<|end_header_id|>'
             '\n\n{"answer": true}<|eot_id|>')
    assert extract_response(llama) == '{"answer": true}'
    assert extract_response("Q? " + '{"answer": 1}', "Q? ") == '{"answer": 1}'  # no chat template
    # a model that writes nothing: the prompt's own example must not be read as its answer
    assert extract_response(prompt + "<|im_end|>", prompt) == ""
    assert extract_response(None) == "" and extract_response(b"bytes") == ""


# -- the reward function, loaded and called by OpenRLHF ---------------------------------------------------------
def test_reward_function_loaded_and_called_by_openrlhf(built_dataset, tmp_path):
    from openrlhf.utils.agent import SingleTurnAgentExecutor

    export_offline(built_dataset, tmp_path / "x", images="bytes")
    dataset = read_with_openrlhf(tmp_path / "x", "train", input_key="prompt", label_key="label",
                                 apply_chat_template=True, image_key="images")
    executor = SingleTurnAgentExecutor(remote_rm_url=str(REWARD_FILE))
    assert executor.reward_func.__module__ == "reward_func"  # OpenRLHF's own loader, by path
    for datasource, prompt, label_text, images in dataset:
        label = json.loads(label_text)
        for value, expected in ((label["answer"], 1.0), (wrong_answer(label), 0.05)):
            engine = StandInEngine(lambda call, v=value: answer_text(label, v))
            out = asyncio.run(executor.execute(prompt, label_text, Params(max_tokens=64, logprobs=None),
                                               max_length=4096, hf_tokenizer=CharProcessor(), llm_engine=engine,
                                               images=images))
            assert out["reward"].tolist() == pytest.approx([expected])
            assert out["scores"].tolist() == [1.0 if expected == 1.0 else 0.0]
            logs = {k: v.item() for k, v in out["extra_logs"].items()}
            assert logs["answer_accuracy"] == out["scores"].item() and logs["format_rate"] == 1.0
            assert logs[f"domain/{datasource}/correct"] == out["scores"].item()  # tests/test_metrics.py: the rest
            assert logs[f"domain/{datasource}/share"] == 1.0
            assert set(logs) == {"answer_accuracy", "format_rate", *GROUP_KEYS}
            assert engine.calls[0]["images"], "the image reached the engine"


def test_reward_function_never_raises_and_stays_fast_on_adversarial_text(built_dataset, tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("reward_func", REWARD_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    export_offline(built_dataset, tmp_path / "x", images="bytes")
    label = pq.read_table(next((tmp_path / "x" / "data").glob("train-*.parquet"))).column("label")[0].as_py()
    head = "<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n"
    hostile = [
        head + "x" * 4_000_000 + '{"answer": 1}',
        head + "[" * 200_000 + '{"answer": ' + "[" * 100_000 + "1" + "]" * 100_000 + "}",
        head + "{" * 1_000_000,
        head + "}" * 1_000_000,
        head + '{"answer": "' + "\\" * 500_000 + '"}',
        head + "<|im_start|>assistant\n" * 100_000,
        head + "<|endoftext|>" * 200_000,
        "\x00\ud800" * 100_000,
    ]
    for query in hostile:
        t0 = time.process_time()
        out = module.reward_func([query], ["Q"], [label])
        assert time.process_time() - t0 < 0.5
        assert out["rewards"].shape == (1,) and 0.0 <= out["rewards"].item() <= 1.0
    for bad_label in (None, "not json", "[1, 2]", '{"type": "integer"}', b"\xff", 12, "{" * 100_000):
        out = module.reward_func([head + '{"answer": 1}'], [None], [bad_label])
        assert out["rewards"].tolist() == [0.0]
    out = module.reward_func(None, None, None)
    assert out["rewards"].tolist() == [0.0]


# -- the offline export, read by OpenRLHF's prompt dataset ------------------------------------------------------
def test_offline_export_is_task_uniform_and_read_by_openrlhf(uneven_dataset, taxonomy, tmp_path):
    info = export_offline(uneven_dataset, tmp_path / "export")
    assert info["splits"]["train"] == {**info["splits"]["train"], "rows": 9, "tasks": 3, "rows_per_task": 3,
                                       "dropped": 2}
    assert (tmp_path / "export" / "export.json").is_file() and not list(tmp_path.glob(".*partial"))
    dataset = read_with_openrlhf(tmp_path / "export", "train", input_key="prompt", label_key="label",
                                 apply_chat_template=True, image_key="images")
    assert len(dataset) == 9
    source = source_rows(uneven_dataset)
    per_task = {}
    from openrlhf.utils.vlm_utils import load_images

    for datasource, prompt, label_text, images in dataset:
        label = json.loads(label_text)
        row = source[label["instance_id"]]
        per_task[label["task"]] = per_task.get(label["task"], 0) + 1
        assert datasource == label["domain"] == row["domain"] == taxonomy.tasks[label["task"]].domain
        assert label["domains"] == {"charts": pytest.approx(1 / 3, abs=1e-5), "icons": pytest.approx(2 / 3, abs=1e-5)}
        assert {k: label[k] for k in json.loads(row["label"])} == json.loads(row["label"])  # the verifier label
        # the chat template put the image block before the prompt text, which ends with the format instruction
        assert "<|im_start|>user\n<|vision_start|><|image_pad|><|vision_end|>" + row["prompt"] in prompt
        assert prompt.endswith("<|im_start|>assistant\n")
        # the image path loads with OpenRLHF's loader and holds the instance's image
        (img,) = load_images(images)
        assert Path(images[0]).read_bytes() == row["image"]["bytes"] and img.size[0] >= 64
    assert per_task == {t: 3 for t in TASKS}
    # `--data.max_samples N` keeps the first N rows: every prefix of the file order is task-uniform
    order = [r["task"] for f in sorted((tmp_path / "export" / "data").glob("train-*")) for r in
             pq.read_table(f, columns=["task"]).to_pylist()]
    assert all(sorted(order[k:k + 3]) == sorted(TASKS) for k in range(0, 9, 3))
    evaluation = read_with_openrlhf(tmp_path / "export", "validation", input_key="prompt", label_key="label",
                                    apply_chat_template=True, image_key="images")
    assert len(evaluation) == 6


def test_export_command_and_its_errors(built_dataset, tmp_path, capsys):
    out = tmp_path / "e"
    assert main(["--root", str(ROOT), "export", str(built_dataset), "--format", "openrlhf", "--out", str(out),
                 "--rows-per-task", "2", "--split", "train", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["splits"]["train"]["rows"] == 6 and list(info["splits"]) == ["train"]
    assert main(["--root", str(ROOT), "export", str(built_dataset), "--format", "openrlhf", "--out", str(out),
                 "--images", "bytes", "--force"]) == 0
    assert "train: 12 rows = 3 tasks × 4" in capsys.readouterr().out
    for argv, message in [
        (["export", str(built_dataset), "--format", "openrlhf", "--out", str(out)], "exists"),
        (["export", str(tmp_path), "--format", "openrlhf", "--out", str(tmp_path / "f")], "no manifest.json"),
        (["export", str(built_dataset), "--format", "openrlhf", "--out", str(tmp_path / "g"), "--rows-per-task",
          "9"], "fewer rows"),
        (["export", "--format", "openrlhf", "--out", str(tmp_path / "h")], "exports a built dataset"),
        (["export", "--format", "openrlhf-online", "--out", str(tmp_path / "i"), "--task", "nope.task"],
         "unknown task"),
    ]:
        assert main(["--root", str(ROOT), *argv]) == 1
        assert message in capsys.readouterr().err


# -- the online executor ----------------------------------------------------------------------------------------
def make_executor(tmp_path, **curriculum):
    from tessera.training.online import AgentExecutor, AgentSettings

    settings = AgentSettings.from_mapping({"curriculum": curriculum, "state_dir": str(tmp_path / "state"),
                                           "ckpt_path": str(tmp_path / "ckpt"), "shared": False})
    return AgentExecutor(settings)


def latest_instance(executor):
    return next(reversed(executor.instances.values()))


def run_group(executor, engine, row_label: str, n: int = 8, prompt: str = "row"):
    """What OpenRLHF's rollout actor does for one prompt: n concurrent executes."""

    async def group():
        return await asyncio.gather(*[
            executor.execute(prompt, row_label, Params(max_tokens=None, logprobs=None), max_length=8192,
                             hf_tokenizer=CharProcessor(), llm_engine=engine) for _ in range(n)])

    return asyncio.run(group())


def test_online_rows_give_every_sample_of_a_group_the_same_instance(taxonomy, tmp_path):
    info = export_online(taxonomy, tmp_path / "rows", rows_per_task=3, eval_rows_per_task=2, tasks=list(TASKS),
                         eval_levels=[5, 7])
    assert info["splits"]["train"]["rows"] == 9 and info["splits"]["validation"]["rows"] == 6
    first = [json.loads(r["label"])["task"] for r in
             pq.read_table(tmp_path / "rows" / "data" / "train-00000-of-00001.parquet").to_pylist()][:3]
    assert sorted(first) == sorted(TASKS)  # round-robin: a max_samples prefix is task-uniform
    train = read_with_openrlhf(tmp_path / "rows", "train", input_key="prompt", label_key="label")
    validation = read_with_openrlhf(tmp_path / "rows", "validation", input_key="prompt", label_key="label")
    executor = make_executor(tmp_path)
    for datasource, prompt, label_text, images in [train[0], validation[1]]:
        row = json.loads(label_text)
        engine = StandInEngine(lambda call: answer_text(latest_instance(executor).label,
                                                        latest_instance(executor).answer))
        outs = run_group(executor, engine, label_text, prompt=prompt)
        level = row["level"] if isinstance(row["level"], int) else 0  # a new task starts at level 0
        fresh = generate(taxonomy.task(row["task"]), row["seed"], level, None, taxonomy.vocab)
        fresh_pixels = Image.open(io.BytesIO(fresh.png)).convert("RGB").tobytes()
        assert len(engine.calls) == 8
        for call in engine.calls:
            assert call["prompt_ids"] == engine.calls[0]["prompt_ids"]
            (size, pixels), = call["images"]
            assert Image.frombytes("RGB", size, pixels).tobytes() == fresh_pixels
        assert fresh.prompt in "".join(map(chr, engine.calls[0]["prompt_ids"]))
        # A validation row is an evaluation row: its reward is answer · eval_weight (the weights make OpenRLHF's
        # eval mean the macro answer accuracy, as offline), and it shares the macro datasource.
        weight = row.get("eval_weight")
        assert (weight is None) == (row["level"] == "curriculum")
        for out in outs:
            assert out["reward"] == pytest.approx(1.0 if weight is None else weight) and out["scores"] == 1.0
            assert out["prompt"] == prompt and out["label"] == label_text  # OpenRLHF maps eval datasources by prompt
            assert out["instance_id"] == fresh.instance_id
            assert out["extra_logs"]["level"] == level
            assert set(out["extra_logs"]) == {"answer_accuracy", "format_rate", *GROUP_KEYS, "level",
                                              "curriculum_level_mean", "gated"}
            start, end = out["action_ranges"][0]
            assert out["observation_tokens"][:start] == engine.calls[0]["prompt_ids"] and end == len(
                out["observation_tokens"])
        assert datasource == (row["domain"] if weight is None else "macro")
    counts = Counter(json.loads(label)["domain"] for _, _, label, _ in validation)
    assert info["splits"]["validation"]["eval_weights"] == {
        d: len(validation) / (len(counts) * n) for d, n in sorted(counts.items())}


def test_curriculum_promotes_at_the_threshold_and_keeps_a_window():
    c = Curriculum(CurriculumConfig(threshold=0.8, buffer_size=32, level_window=4))
    task = TASKS[0]
    for i in range(32):  # 7 misses, then 25 hits: 25/32 = 0.78 < 0.80
        assert c.record(task, 0, 0.0 if i < 7 else 1.0) is None
    assert c.level(task) == 0 and len(c.buffers[task]) == 32
    event = c.record(task, 0, 1.0)  # the oldest miss slides out: 26/32 = 0.81
    assert event == {**event, "task": task, "from": 0, "to": 1, "accuracy": 0.8125}
    exact = Curriculum(CurriculumConfig(threshold=0.8, buffer_size=10))
    results = [exact.record("t", 0, x) for x in [0.0, 0.0] + [1.0] * 8]  # exactly 0.80 on the 10th
    assert results[:9] == [None] * 9 and results[9]["to"] == 1
    assert c.level(task) == 1 and len(c.buffers[task]) == 0
    assert c.record(task, 0, 1.0) is None and len(c.buffers[task]) == 0  # a window level does not count
    c.levels[task] = 6
    drawn = {c.choose_level(task, seed) for seed in range(200)}
    assert drawn == {3, 4, 5, 6}
    assert all(c.choose_level(task, s) == c.choose_level(task, s) for s in range(20))
    c.levels[task] = 9
    for _ in range(32):
        assert c.record(task, 9, 1.0) is None  # max level


def test_executor_promotes_after_32_correct_rollouts(taxonomy, tmp_path):
    executor = make_executor(tmp_path, threshold=0.8, buffer_size=32, level_window=2)
    engine = StandInEngine(lambda call: answer_text(latest_instance(executor).label,
                                                    latest_instance(executor).answer))
    task = TASKS[1]
    levels = []
    for seed in range(5):
        token = json.dumps({"task": task, "seed": seed, "level": "curriculum", "domain": "icons",
                            "domains": {"icons": 1.0}})
        outs = run_group(executor, engine, token)
        levels.append({o["extra_logs"]["level"] for o in outs})
    assert levels[:4] == [{0.0}] * 4  # one level per group
    service = executor.backend.service
    assert service.curriculum.level(task) == 1
    assert levels[4] <= {0.0, 1.0} and len(levels[4]) == 1
    log = [json.loads(line) for line in (tmp_path / "state" / "curriculum_log.jsonl").read_text().splitlines()]
    assert [e["event"] for e in log] == ["promotion"] and log[0]["to"] == 1
    assert json.loads((tmp_path / "state" / "curriculum.json").read_text())["levels"] == {task: 1}


def test_curriculum_state_survives_checkpoint_save_and_restore(tmp_path):
    config = CurriculumConfig(buffer_size=4, save_interval=0.0)
    ckpt = tmp_path / "ckpt"
    clock = iter(range(100, 10_000, 10)).__next__
    service = CurriculumService(config, CurriculumStore(tmp_path / "state", ckpt, clock=clock))
    for _ in range(4):
        service.record("a", 0, 1.0)
    service.record("b", 0, 1.0)
    (ckpt / "_actor").mkdir(parents=True)
    (ckpt / "_actor" / "latest").write_text("global_step10")
    service.level_for("a", 0)  # the first level choice after a checkpoint snapshots the state under its tag
    at_checkpoint = service.state_dict()
    for _ in range(4):
        service.record("a", 1, 1.0)  # rollouts after the checkpoint: lost when the run resumes from it
    assert service.curriculum.level("a") == 2
    resumed = CurriculumService(config, CurriculumStore(tmp_path / "state", ckpt), restore=True)
    assert resumed.restored_from.endswith("global_step10.json")
    assert resumed.state_dict() == at_checkpoint
    assert resumed.curriculum.level("a") == 1 and list(resumed.curriculum.buffers["b"]) == [1.0]
    (ckpt / "_actor" / "latest").write_text("global_step20")  # no snapshot for it: the last state written
    latest = CurriculumService(config, CurriculumStore(tmp_path / "state", ckpt), restore=True)
    assert latest.restored_from.endswith("curriculum.json") and latest.curriculum.level("a") == 2
    from tessera.training.curriculum import CurriculumActor

    actor = CurriculumActor({"curriculum": {"buffer_size": 4}, "state_dir": str(tmp_path / "state"),
                             "ckpt_path": str(ckpt), "restore": True})  # the shared Ray actor's body
    assert actor.mean_level() == latest.curriculum.mean_level() and actor.level_for("a", 5) in (1, 2)
    fresh = CurriculumService(config, CurriculumStore(tmp_path / "empty", None), restore=True)
    assert fresh.restored_from is None and fresh.curriculum.levels == {}


def test_uncertainty_gate_downweights_groups_that_all_pass(taxonomy, tmp_path):
    executor = make_executor(tmp_path, gate="downweight", gate_weight=0.1)
    calls = iter(range(1000))

    def respond(call):  # every sample right; every other one with an extra key (format 0)
        inst = latest_instance(executor)
        k = next(calls)
        value = {"answer": inst.answer} if k % 2 else {"answer": inst.answer, "why": "x"}
        return json.dumps(value) + "<|im_end|>"

    engine = StandInEngine(respond)
    token = json.dumps({"task": TASKS[0], "seed": 3, "level": 2})
    outs = run_group(executor, engine, token)
    rewards = sorted(o["reward"] for o in outs)
    mean = (0.95 * 4 + 1.0 * 4) / 8
    assert rewards == pytest.approx([mean + 0.1 * (0.95 - mean)] * 4 + [mean + 0.1 * (1.0 - mean)] * 4)
    assert all(o["extra_logs"]["gated"] == 1.0 for o in outs)
    engine.respond = lambda call: answer_text({}, latest_instance(executor).answer if next(calls) % 2 else "nope")
    outs = run_group(executor, engine, json.dumps({"task": TASKS[0], "seed": 4, "level": 2}))
    assert sorted(o["reward"] for o in outs) == pytest.approx([0.05] * 4 + [1.0] * 4)  # mixed group: untouched
    assert all(o["extra_logs"]["gated"] == 0.0 for o in outs)


# -- the launcher -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("config", CONFIGS, ids=[c.stem for c in CONFIGS])
@pytest.mark.parametrize("mode", ["offline", "online"])
def test_launcher_command_is_accepted_by_openrlhf_parser(config, mode, tmp_path):
    launch = build_launch(config, mode=mode, cwd=tmp_path)
    args, _ = validate_with_openrlhf(launch.argv)
    assert args.algo.advantage.estimator == "group_norm" and args.rollout.n_samples_per_prompt == 8
    assert args.rollout.batch_size == 128 and args.actor.adam.lr == 1e-6 and args.ds.param_dtype == "bf16"
    assert tuple(args.actor.eps_clip_low_high) == (0.2, 0.28) and args.algo.kl.init_coef == 0
    assert not args.algo.kl.use_loss and not args.ds.packing_samples
    assert args.actor.num_gpus_per_node * args.actor.num_nodes == args.vllm.num_engines == 8
    assert args.data.max_images_per_prompt == 1 and args.data.label_key == "label"
    if mode == "offline":
        assert args.reward.remote_url == [str(REWARD_FILE)] and args.data.apply_chat_template
    else:
        agent_dir = tmp_path / load_config(config)["output"] / "agent"
        assert args.train.agent_func_path == str(agent_dir / "agent.py") and not launch.env
        settings = json.loads(launch.files[str(agent_dir / "tessera_agent.json")])
        assert settings["curriculum"]["threshold"] == 0.8 and settings["ckpt_path"] == args.ckpt.path


def test_launcher_refusals(tmp_path, capsys):
    base = (ROOT / "training" / "configs" / "qwen2_5_vl_3b.yaml").read_text()
    cases = [
        (base.replace("  train.seed: 42", "  train.sed: 42"), "unrecognized arguments"),
        (base.replace("  rollout.batch_size: 128 ", "  rollout.batch_size: 0 "), "effective number of actor"),
        (base.replace("  train.seed: 42", "  data.prompt_dataset: elsewhere"), "which the launcher sets"),
        (base.replace('gate: "off"', "gate: downweight").replace("mode: offline", "mode: online"),
         "no effect with group_norm"),
        (base.replace("threshold: 0.80", "threshold: 1.5"), "threshold must be in"),
    ]
    for i, (text, message) in enumerate(cases):
        path = tmp_path / f"c{i}.yaml"
        path.write_text(text)
        assert main(["train", str(path), "--dry-run"]) == 1
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err
    drop = tmp_path / "drop.yaml"
    drop.write_text(base.replace('gate: "off"', "gate: drop"))
    assert main(["train", str(drop), "--dry-run"]) == 0
    printed = capsys.readouterr().out
    assert "--algo.dynamic_filtering_enable --algo.dynamic_filtering_range 0 1" in printed
    assert "accepted by OpenRLHF's argument parser" in printed


def test_one_curriculum_is_shared_by_every_engine_under_ray(taxonomy, tmp_path):
    """Under Ray (as inside OpenRLHF's rollout actors) the executors of all engines talk to one named actor."""
    ray = pytest.importorskip("ray")
    from tessera.training.online import AgentExecutor, AgentSettings, RayCurriculum

    started_here = not ray.is_initialized()
    if started_here:
        start_ray(ray)
    try:
        settings = AgentSettings.from_mapping({"curriculum": {"buffer_size": 8}, "state_dir": str(tmp_path / "s"),
                                               "run": f"test-{os.getpid()}"})
        engines = [AgentExecutor(settings), AgentExecutor(settings)]  # two vLLM engines, one process each in a run
        assert all(isinstance(e.backend, RayCurriculum) for e in engines)
        for i, executor in enumerate(engines):  # 4 + 4 correct rollouts at level 0, split over the two engines
            engine = StandInEngine(lambda call, ex=executor: answer_text({}, latest_instance(ex).answer))
            token = json.dumps({"task": TASKS[2], "seed": i, "level": "curriculum"})
            outs = run_group(executor, engine, token, n=4)
            assert {o["extra_logs"]["level"] for o in outs} == {0.0}
        state = json.loads((tmp_path / "s" / "curriculum.json").read_text())
        assert state["levels"] == {TASKS[2]: 1} and state["rollouts"] == 8
    finally:
        if started_here:
            ray.shutdown()
