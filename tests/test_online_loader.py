"""The online agent as OpenRLHF 0.11 itself loads and drives it: `_load_agent_executor` (spec_from_file_location +
exec_module, unregistered) on the file the launcher names, then `RolloutRayActor.__init__` / `generate_responses` /
`generate` of the installed vllm_engine.py with a stand-in vLLM engine.

vLLM needs a GPU and is not installed in CI: vllm_engine.py imports it only for `TokensPrompt`, `random_uuid`, its
version and the engine classes, so a stand-in `vllm` module with those names is put in sys.modules for the import
(the real vLLM is used where it is installed). Everything else here is OpenRLHF's own code.
"""
from __future__ import annotations

import asyncio
import io
import json
import sys
import types
import uuid
from pathlib import Path

import pytest

pytest.importorskip("openrlhf", reason="install the train extra: make test")
pytest.importorskip("ray")
pq = pytest.importorskip("pyarrow.parquet")
from PIL import Image  # noqa: E402

import tessera  # noqa: E402
from tessera.errors import TesseraError  # noqa: E402
from tessera.trace.instance import generate  # noqa: E402
from tests.bounds import run_bounded
from tests.conftest import ROOT  # noqa: E402
from tests.test_training import TASKS, CharProcessor, Params, answer_text  # noqa: E402
from tessera.training.export import export_online  # noqa: E402
from tessera.training.launch import build_launch  # noqa: E402

ENV = "TESSERA_AGENT_CONFIG"
IMAGE_OPEN = "<|vision_start|>"  # one per image placeholder in CharProcessor's Qwen2.5-VL chat template


class StandInLLM:
    """What `vllm.AsyncLLMEngine` gives RolloutRayActor: `generate(prompt, params, request_id)` streaming outputs.
    Answers with `respond(prompt_text, images)`; records every request as vLLM receives it."""

    def __init__(self, respond):
        self.respond = respond
        self.requests: list[dict] = []

    async def is_sleeping(self):
        return False

    async def generate(self, prompt, sampling_params, request_id):
        text_in = "".join(map(chr, prompt["prompt_token_ids"]))
        images = (prompt.get("multi_modal_data") or {}).get("image") or []
        self.requests.append({"text": text_in, "images": list(images), "request_id": request_id})
        await asyncio.sleep(0)  # let the other samples of the group start, as a real engine would
        text = self.respond(text_in, images)
        out = types.SimpleNamespace(token_ids=[ord(c) for c in text], text=text, finish_reason="stop",
                                    logprobs=None)
        yield types.SimpleNamespace(outputs=[out])


@pytest.fixture(scope="module")
def vllm_engine():
    """openrlhf.trainer.ray.vllm_engine, imported with a stand-in `vllm` when vLLM is not installed."""
    saved = {k: v for k, v in sys.modules.items() if k == "vllm" or k.startswith(("vllm.", "openrlhf.trainer"))}
    stubbed = False
    try:
        import vllm  # noqa: F401
    except ImportError:
        stubbed = True
        vllm = types.ModuleType("vllm")
        vllm.__version__ = "0.11.0"
        vllm.inputs = types.ModuleType("vllm.inputs")
        vllm.inputs.TokensPrompt = dict  # a TypedDict in vLLM
        vllm.utils = types.ModuleType("vllm.utils")
        vllm.utils.random_uuid = lambda: uuid.uuid4().hex
        vllm.AsyncEngineArgs = lambda *a, **kw: types.SimpleNamespace(args=a, kwargs=kw)
        vllm.AsyncLLMEngine = types.SimpleNamespace(from_engine_args=lambda args: args.kwargs["model"])
        sys.modules.update({"vllm": vllm, "vllm.inputs": vllm.inputs, "vllm.utils": vllm.utils})
    from openrlhf.trainer.ray import vllm_engine as module

    yield types.SimpleNamespace(module=module, stubbed=stubbed)
    if stubbed:  # leave no stand-in behind for other test modules
        for k in [k for k in sys.modules if k == "vllm" or k.startswith(("vllm.", "openrlhf.trainer"))]:
            del sys.modules[k]
        sys.modules.update(saved)


@pytest.fixture
def engine_env(monkeypatch):
    """What RolloutRayActor.__init__ sets in os.environ is undone after the test; no settings variable set."""
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setenv("RAY_ADDRESS", "stand-in:0")  # else it asks the (absent) Ray worker for the GCS address
    monkeypatch.setenv("VLLM_ALLOW_INSECURE_SERIALIZATION", "1")
    return monkeypatch


def online_config(tmp_path: Path, rows: Path, **curriculum) -> Path:
    text = {"name": "online-loader", "model": "stand-in-vlm", "mode": "online", "data": {"online": str(rows)},
            "output": str(tmp_path / "run"), "cluster": {"nodes": 1, "gpus_per_node": 1},
            "eval": {"enabled": False}, "curriculum": curriculum,
            "openrlhf": {"algo.advantage.estimator": "group_norm", "rollout.n_samples_per_prompt": 4}}
    path = tmp_path / "online.yaml"
    path.write_text(json.dumps(text))  # JSON is YAML
    return path


def start_engine(vllm_engine, agent_path: str, llm: StandInLLM):
    """One vLLM rollout actor as OpenRLHF constructs it (`RolloutRayActor.remote(**actor_kwargs)`), minus Ray."""
    cls = vllm_engine.module.RolloutRayActor.__ray_metadata__.modified_class
    actor = object.__new__(cls)
    kwargs = {"model": llm, "agent_func_path": agent_path, "remote_rm_url": None, "mm_pad_token_ids": set(),
              "num_gpus": 1, "bundle_indices": None, "distributed_executor_backend": "uni",
              "full_determinism": False, "limit_mm_per_prompt": {"image": 1}}
    if vllm_engine.stubbed:
        asyncio.run(cls.__init__(actor, **kwargs))
    else:  # a real vLLM would build a real engine: only the agent loading is OpenRLHF's code then
        actor.executor = vllm_engine.module._load_agent_executor(agent_path)
        actor.llm, actor._mm_pad_token_ids = llm, set()
    return actor


def run_groups(actor, rows: list[tuple[str, str]], n: int):
    """Several prompts in flight at once, each a GRPO group of n samples (`generate_responses(num_samples=n)`)."""

    async def go():
        return await asyncio.gather(*[
            actor.generate_responses(prompt=prompt, label=label, sampling_params=Params(max_tokens=None,
                                                                                        logprobs=None),
                                     max_length=8192, hf_tokenizer=CharProcessor(), num_samples=n)
            for prompt, label in rows])

    return asyncio.run(go())


def pixels(png: bytes, mode: str = "RGB") -> bytes:
    return Image.open(io.BytesIO(png)).convert(mode).tobytes()


def instance_seen(actor, text_in: str, images) -> object:
    """The built instance whose prompt and image the engine received (several seeds may share a prompt text)."""
    (image,) = images
    with actor.executor.instances_lock:  # other groups' instances are being built in worker threads
        built = list(actor.executor.instances.values())
    found = [i for i in built if i.prompt in text_in and pixels(i.png, image.mode) == image.tobytes()]
    assert len(found) == 1, "the engine got the prompt and image of no single built instance"
    return found[0]


def correct_answer(actor):
    """A stand-in policy that reads the image right."""
    return lambda text_in, images: (lambda inst: answer_text(inst.label, inst.answer))(
        instance_seen(actor, text_in, images))


# -- loading by path --------------------------------------------------------------------------------------------
def test_the_launchers_agent_file_loads_through_openrlhf_with_no_environment(vllm_engine, engine_env, tmp_path,
                                                                              taxonomy):
    """`tessera train --mode online` writes OUTPUT/agent/; OpenRLHF's loader builds the executor from that path
    alone — the launching shell's environment is not needed (engines of a Ray started earlier never see it)."""
    rows = tmp_path / "rows"
    export_online(taxonomy, rows, rows_per_task=2, tasks=[TASKS[1]])
    launch = build_launch(online_config(tmp_path, rows, buffer_size=8, threshold=0.8, level_window=2),
                          cwd=tmp_path)
    agent_path = launch.argv[launch.argv.index("--train.agent_func_path") + 1]
    assert agent_path == str(tmp_path / "run" / "agent" / "agent.py") and launch.env == {}
    assert not Path(agent_path).exists()  # a dry run writes nothing
    launch.write_files()
    executor = vllm_engine.module._load_agent_executor(agent_path)
    from openrlhf.utils.agent import AgentExecutorBase

    from tessera.training.online import AgentExecutor as OnlineExecutor

    assert isinstance(executor, AgentExecutorBase) and isinstance(executor, OnlineExecutor)
    assert "agent_module" not in sys.modules  # loaded exactly as OpenRLHF does: unregistered
    s = executor.settings
    assert (s.run, s.state_dir, s.ckpt_path, s.restore) == ("online-loader", str(tmp_path / "run" / "curriculum"),
                                                            str(tmp_path / "run" / "ckpt"), True)
    assert (s.curriculum.buffer_size, s.curriculum.threshold, s.curriculum.level_window) == (8, 0.8, 2)


def test_the_repository_agent_file_loads_through_openrlhf_from_the_environment(vllm_engine, engine_env, tmp_path):
    """`ray job submit --runtime-env-json` ships training/agent.py with the settings in TESSERA_AGENT_CONFIG."""
    settings = {"curriculum": {"buffer_size": 5}, "state_dir": str(tmp_path / "s"), "ckpt_path": str(tmp_path / "c"),
                "restore": False, "run": "from-env", "shared": False}
    engine_env.setenv(ENV, json.dumps(settings))
    executor = vllm_engine.module._load_agent_executor(str(ROOT / "training" / "agent.py"))
    assert executor.settings.run == "from-env" and executor.settings.curriculum.buffer_size == 5
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({**settings, "run": "from-file"}))
    engine_env.setenv(ENV, str(path))
    assert vllm_engine.module._load_agent_executor(str(ROOT / "training" / "agent.py")).settings.run == "from-file"


def test_missing_or_broken_settings_stop_the_engine_with_a_message(vllm_engine, engine_env, tmp_path):
    agent = str(ROOT / "training" / "agent.py")
    with pytest.raises(TesseraError) as err:
        vllm_engine.module._load_agent_executor(agent)
    message = str(err.value)
    assert message.startswith("tessera agent settings missing in this vLLM engine (host ")
    assert f"no {ROOT / 'training' / 'tessera_agent.json'} and no {ENV} in its environment" in message
    assert "tessera train CONFIG --mode online" in message and "ray start --head" in message

    full = {"curriculum": {}, "state_dir": "s", "ckpt_path": "c", "restore": True, "run": "r"}
    copy = tmp_path / "agent" / "agent.py"
    copy.parent.mkdir()
    copy.write_text((ROOT / "training" / "agent.py").read_text())
    beside = copy.with_name("tessera_agent.json")
    cases = [
        (beside, '{"tessera_version": %s, "curriculum": {}}' % json.dumps(tessera.__version__),
         f"{beside}: agent settings lack state_dir, ckpt_path, restore, run (an engine never falls back to defaults"),
        (beside, json.dumps({**full, "curriculm": {}}), f"{beside}: unknown key(s) curriculm"),
        (beside, json.dumps({**full, "curriculum": {"threshold": 2}}), "threshold"),
        (beside, json.dumps(full)[:-1], f"{beside}: {beside} is not valid JSON"),
        (beside, json.dumps([str(ROOT)]), f"{beside}: agent settings are a JSON object, got list"),
        (beside, json.dumps({"tessera_version": "0.0.1", **full}),
         f"{copy}: the run was written by tessera 0.0.1, but this engine imports tessera {tessera.__version__} "
         f"from {ROOT / 'compiler'}; install tessera 0.0.1 on every node"),
    ]
    for path, text, expected in cases:
        path.write_text(text)
        with pytest.raises((TesseraError, ImportError)) as err:
            vllm_engine.module._load_agent_executor(str(copy))
        assert expected in str(err.value), (text, str(err.value))
    beside.unlink()
    for value, expected in [("{not json", f"{ENV}: not valid inline JSON"),
                            (str(tmp_path / "nowhere.json"), f"{ENV}: cannot read {tmp_path / 'nowhere.json'}"),
                            (json.dumps({"curriculum": {}}), f"{ENV}: agent settings lack state_dir")]:
        engine_env.setenv(ENV, value)
        with pytest.raises(TesseraError) as err:
            vllm_engine.module._load_agent_executor(agent)
        assert expected in str(err.value)


# -- GRPO groups through OpenRLHF's engine path -----------------------------------------------------------------
def test_grpo_groups_through_openrlhfs_engine_path(vllm_engine, engine_env, tmp_path, taxonomy):
    """Rows read back from the export, groups of 4 in flight together, through RolloutRayActor.generate_responses →
    our executor → RolloutRayActor.generate → the stand-in engine: one instance per group, as many image
    placeholders in the prompt as images handed to vLLM, and a promotion after 8 correct rollouts."""
    rows_dir = tmp_path / "rows"
    export_online(taxonomy, rows_dir, rows_per_task=3, tasks=[TASKS[1], TASKS[2]])
    rows = pq.read_table(rows_dir / "data" / "train-00000-of-00001.parquet").to_pylist()
    launch = build_launch(online_config(tmp_path, rows_dir, buffer_size=8, threshold=0.8, level_window=1),
                          cwd=tmp_path)
    launch.write_files()
    llm = StandInLLM(lambda text, images: "")
    actor = start_engine(vllm_engine, launch.argv[launch.argv.index("--train.agent_func_path") + 1], llm)
    llm.respond = correct_answer(actor)

    n = 4
    first = run_groups(actor, [(r["prompt"], r["label"]) for r in rows[:2]], n)  # one row of each task at once
    second = run_groups(actor, [(r["prompt"], r["label"]) for r in rows[2:4]], n)
    assert len(llm.requests) == 4 * n
    for group, row in zip(first + second, rows[:4]):
        token = json.loads(row["label"])
        assert len(group) == n and {o["label"] for o in group} == {row["label"]}
        assert len({o["instance_id"] for o in group}) == 1  # one instance per group
        prompts = {tuple(o["observation_tokens"][:o["action_ranges"][0][0]]) for o in group}
        assert len(prompts) == 1
        inst = generate(taxonomy.task(token["task"]), token["seed"], 0, None, taxonomy.vocab)
        assert group[0]["instance_id"] == inst.instance_id  # level 0 until the promotion
        assert [(o["reward"], o["extra_logs"]["level"]) for o in group] == [(pytest.approx(1.0), 0.0)] * n, (token, group[0]["extra_logs"])
    seen = {}
    for request in llm.requests:
        assert request["text"].count(IMAGE_OPEN) == len(request["images"]) == 1  # placeholder ↔ image
        inst = instance_seen(actor, request["text"], request["images"])
        seen.setdefault(inst.instance_id, []).append(request["text"])
    assert len(seen) == 4 and all(len(texts) == n and len(set(texts)) == 1 for texts in seen.values())

    # 2 groups × 4 correct rollouts per task = the buffer of 8 at 0.8: both tasks promoted to level 1.
    state_dir = tmp_path / "run" / "curriculum"
    assert json.loads((state_dir / "curriculum.json").read_text())["levels"] == {TASKS[1]: 1, TASKS[2]: 1}
    log = [json.loads(line) for line in (state_dir / "curriculum_log.jsonl").read_text().splitlines()]
    assert sorted((e["event"], e["task"], e["from"], e["to"]) for e in log) == [
        ("promotion", TASKS[1], 0, 1), ("promotion", TASKS[2], 0, 1)]
    third = run_groups(actor, [(r["prompt"], r["label"]) for r in rows[4:6]], n)
    for group, row in zip(third, rows[4:6]):  # promoted: the next group of each task is built at level 1
        token = json.loads(row["label"])
        inst = generate(taxonomy.task(token["task"]), token["seed"], 1, None, taxonomy.vocab)
        assert [(o["instance_id"], o["extra_logs"]["level"]) for o in group] == [(inst.instance_id, 1.0)] * n
        assert group[0]["extra_logs"]["curriculum_level_mean"] == 1.0


FRESH_ENGINE = r"""
import json, sys, types, uuid
try:
    import vllm  # noqa: F401
except ImportError:  # the same stand-in as the fixture: vllm_engine.py needs only these names to import
    vllm = types.ModuleType("vllm"); vllm.__version__ = "0.11.0"
    vllm.inputs = types.ModuleType("vllm.inputs"); vllm.inputs.TokensPrompt = dict
    vllm.utils = types.ModuleType("vllm.utils"); vllm.utils.random_uuid = lambda: uuid.uuid4().hex
    sys.modules.update({"vllm": vllm, "vllm.inputs": vllm.inputs, "vllm.utils": vllm.utils})
from openrlhf.trainer.ray.vllm_engine import _load_agent_executor
assert "tessera" not in sys.modules
executor = _load_agent_executor(sys.argv[1])
s = executor.settings
print(json.dumps({"run": s.run, "state_dir": s.state_dir, "buffer": s.curriculum.buffer_size,
                  "online": sys.modules["tessera.training.online"].__file__}))
"""


def test_a_fresh_engine_process_loads_the_run_copy_from_anywhere(engine_env, tmp_path, taxonomy):
    """As in a new vLLM actor process: nothing of Tessera imported, another working directory, no PYTHONPATH and no
    settings variable — the copy imports the installed tessera and finds the settings beside it."""
    import os
    import subprocess

    rows = tmp_path / "rows"
    export_online(taxonomy, rows, rows_per_task=1, tasks=[TASKS[0]])
    launch = build_launch(online_config(tmp_path, rows, buffer_size=6), cwd=tmp_path)
    launch.write_files()
    agent = launch.argv[launch.argv.index("--train.agent_func_path") + 1]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", ENV)}
    done = run_bounded([sys.executable, "-c", FRESH_ENGINE, agent], 120, cwd=elsewhere, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {"run": "online-loader", "state_dir": str(tmp_path / "run" / "curriculum"), "buffer": 6,
                    "online": str(ROOT / "training" / "online.py")}
