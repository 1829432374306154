"""Tool episodes online: OpenRLHF loads the run's agent file with its own `_load_agent_executor`, drives GRPO groups
through `RolloutRayActor.generate_responses`, and each sample offered tools runs through OpenRLHF's own
`MultiTurnAgentExecutor` (tokenising with `process_prompt_with_images`, feeding `environment_images`) against a
stand-in vLLM engine that plays a scripted policy: zoom, crop and inspect calls, malformed and out-of-bounds calls,
then an answer. The zoomed images the engine receives equal a direct render of the region at that scale, every
image has its placeholder, lengths stay within max_length, and the episodes' traces replay."""
from __future__ import annotations

import asyncio
import io
import json

import numpy as np
import pytest

pytest.importorskip("openrlhf", reason="install the train extra: make test")
pytest.importorskip("ray")
pq = pytest.importorskip("pyarrow.parquet")
torch = pytest.importorskip("torch")
from PIL import Image  # noqa: E402

from tessera.errors import TesseraError  # noqa: E402
from tessera.trace.instance import generate  # noqa: E402
from tessera.validate.replay import replay_trace  # noqa: E402
from tessera.training.chat import user_turn_after_reply  # noqa: E402
from tessera.training.episode import ANSWER_ROOM, NO_ROOM, ToolsConfig  # noqa: E402
from tessera.training.export import export_online  # noqa: E402
from tessera.training.launch import build_launch, validate_with_openrlhf  # noqa: E402
# vllm_engine and engine_env are test_online_loader's fixtures (imported, pytest finds them here)
from tests.test_online_loader import (IMAGE_OPEN, StandInLLM, engine_env, online_config, start_engine,  # noqa: E402,F401
                                      vllm_engine)
from tests.test_training import CharProcessor, Params, StandInEngine, answer_text  # noqa: E402

FRUIT_TOTAL = "charts.stacked_bars.fruit_total"  # offered zoom, crop and inspect
EXTREMUM = "charts.bar_chart.extremum_label"  # offered zoom and crop
TOOLS = {"enabled": True, "max_calls": 3, "max_turns": 4, "tool_cost": 0.05}
ASSISTANT = "<|im_start|>assistant"


def rgb(image) -> np.ndarray:
    return np.asarray(image.convert("RGB"))


def call(name: str, **args) -> str:
    return "Let me look closer.\n<tool>" + json.dumps({"name": name, **args}) + "</tool><|im_end|>"


def the_instance(executor, text_in: str, images):
    """The built instance whose prompt and first image the engine received."""
    with executor.instances_lock:
        built = list(executor.instances.values())
    found = [i for i in built if i.prompt in text_in and np.array_equal(rgb(images[0]),
                                                                      rgb(Image.open(io.BytesIO(i.png))))]
    assert len(found) == 1
    return found[0]


ZOOM_BOX, ZOOM_K = [40, 60, 200, 180], 2
SMALL_BOX, SMALL_K = [100, 100, 160, 150], 4


def scripted_policy(executor):
    """Per task, the reply for each turn (the turn is the number of replies already in the transcript)."""

    def respond(text_in: str, images):
        inst = the_instance(executor, text_in, images)
        turn = text_in.count(ASSISTANT) - 1
        answer = answer_text(inst.label, inst.answer)
        if inst.task.id == FRUIT_TOTAL:
            x, y = inst.trace["render"]["render_map"]["segs[0]"]["point"]
            script = [call("zoom", box=ZOOM_BOX, scale=ZOOM_K), call("inspect", point=[round(x), round(y)]),
                      '<tool>{"name": "zoom", "box": [0, 0</tool><|im_end|>', answer]
        else:
            script = [call("zoom", box=[400, 300, 900, 380], scale=2), call("zoom", box=SMALL_BOX, scale=SMALL_K),
                      answer]
        return script[turn]

    return respond


def direct_region(taxonomy, inst, box, k):
    """The independent computation: the instance generated again at image_scale=k, cut to box·k."""
    big = generate(inst.task, inst.trace["seed"], inst.trace["level"], None, taxonomy.vocab, image_scale=k)
    x0, y0, x1, y1 = box
    return big.rgb[y0 * k:y1 * k, x0 * k:x1 * k, :3]


def test_tool_episodes_through_openrlhfs_multi_turn_executor(vllm_engine, engine_env, tmp_path,  # noqa: F811
                                                             taxonomy):
    rows_dir = tmp_path / "rows"
    export_online(taxonomy, rows_dir, rows_per_task=1, tasks=[FRUIT_TOTAL, EXTREMUM])
    rows = pq.read_table(rows_dir / "data" / "train-00000-of-00001.parquet").to_pylist()
    config = json.loads(online_config(tmp_path, rows_dir, buffer_size=8).read_text())
    config["tools"] = TOOLS
    (tmp_path / "tools.yaml").write_text(json.dumps(config))
    launch = build_launch(tmp_path / "tools.yaml", cwd=tmp_path)
    args, _ = validate_with_openrlhf(launch.argv)
    assert args.data.max_images_per_prompt == 4  # the instance's image and one per call
    launch.write_files()
    llm = StandInLLM(lambda text, images: "")
    actor = start_engine(vllm_engine, launch.argv[launch.argv.index("--train.agent_func_path") + 1], llm)
    executor = actor.executor
    assert executor.settings.tools == ToolsConfig.from_mapping(TOOLS)
    llm.respond = scripted_policy(executor)
    n, max_length = 2, 8192

    async def go():
        return await asyncio.gather(*[
            actor.generate_responses(prompt=r["prompt"], label=r["label"], sampling_params=Params(max_tokens=None,
                                                                                                    logprobs=None),
                                     max_length=max_length, hf_tokenizer=CharProcessor(), num_samples=n)
            for r in rows])

    groups = asyncio.run(go())
    assert len(llm.requests) == n * (4 + 3)  # four replies per fruit_total episode, three per extremum_label

    zooms_checked = 0
    for request in llm.requests:
        text, images = request["text"], request["images"]
        assert text.count(IMAGE_OPEN) == len(images)  # every image handed to vLLM has its placeholder
        assert len(text) <= max_length  # one token per character
        inst = the_instance(executor, text, images)
        if inst.task.id == FRUIT_TOTAL and len(images) >= 2:  # the zoom's image, from turn 1 on
            assert np.array_equal(rgb(images[1]), direct_region(taxonomy, inst, ZOOM_BOX, ZOOM_K))
            zooms_checked += 1
        if inst.task.id == EXTREMUM and len(images) == 2:
            assert np.array_equal(rgb(images[1]), direct_region(taxonomy, inst, SMALL_BOX, SMALL_K))
            zooms_checked += 1
        if inst.task.id == EXTREMUM and text.count(ASSISTANT) >= 2:  # the out-of-bounds box came back as text
            # after the reply's own end of turn (not closed twice), a user turn, then the next assistant turn
            assert ("</tool><|im_end|>\n<|im_start|>user\ntool error: box [400, 300, 900, 380] is not inside the "
                    f"image: need 0 ≤ x0 < x1 ≤ 512 and 0 ≤ y0 < y1 ≤ 384<|im_end|>\n{ASSISTANT}\n") in text
        if inst.task.id == FRUIT_TOTAL and text.count(ASSISTANT) == 4:  # the malformed call came back as text
            assert "tool error: a call is one JSON object between <tool> and </tool>" in text
            store = inst.trace["state"]["segs"][0]["store"]
            assert f"]: store = {store}<|im_end|>" in text
    assert zooms_checked == n * (3 + 1)

    expected = {FRUIT_TOTAL: (3, 1, 2), EXTREMUM: (2, 1, 2)}  # calls, of them errors, images shown
    for group, row in zip(groups, rows):
        calls, errors, shown = expected[json.loads(row["label"])["task"]]
        assert len(group) == n
        for out in group:
            assert out["label"] == row["label"] and out["prompt"] == row["prompt"]
            assert len(out["observation_tokens"]) <= max_length
            assert len(out["action_ranges"]) == calls + 1
            mm = out["mm_train_inputs"]
            assert mm["pixel_values"].shape[0] == mm["image_grid_thw"].shape[0] == shown  # inspect: text only
            assert out["scores"] == 1.0 and out["reward"] == pytest.approx(1.0 - 0.05 * calls)
            logs = out["extra_logs"]
            assert (logs["tools_offered"], logs["tool_calls"], logs["tool_errors"]) == (1.0, calls, errors)
            assert logs["answer_accuracy"] == 1.0
            token = json.loads(row["label"])
            inst = generate(taxonomy.task(token["task"]), token["seed"], 0, None, taxonomy.vocab)
            assert out["instance_id"] == inst.instance_id
            episode = json.loads(json.dumps({**inst.trace, "tools": out["tools"]}))
            replayed = replay_trace(episode, taxonomy)
            assert (replayed.ok, replayed.checked, replayed.differences) == (True, ["trace", "tools"], [])
            tampered = json.loads(json.dumps(episode))
            tampered["tools"]["calls"][-1 if token["task"] == EXTREMUM else 0]["image"]["sha256"] = "f" * 64
            assert not replay_trace(tampered, taxonomy).ok


# -- the executor alone, OpenRLHF's multi-turn loop inside -------------------------------------------------------
@pytest.fixture
def compiled_once(taxonomy, monkeypatch):
    """Executors built in these tests share the session's taxonomy instead of compiling their own."""
    from tessera.training import online

    monkeypatch.setattr(online, "open_taxonomy", lambda root: taxonomy)
    return taxonomy


def tools_executor(tmp_path, **tools):
    from tessera.training.online import AgentExecutor, AgentSettings

    settings = AgentSettings.from_mapping({"curriculum": {}, "state_dir": str(tmp_path / "state"),
                                           "ckpt_path": str(tmp_path / "ckpt"), "shared": False,
                                           "tools": {"enabled": True, **tools}})
    return AgentExecutor(settings)


def run(executor, engine, task: str, seed: int, n: int = 1, max_length: int = 8192):
    label = json.dumps({"task": task, "seed": seed, "level": 0, "domain": task.split(".")[0]})

    async def group():
        return await asyncio.gather(*[executor.execute("row", label, Params(max_tokens=None, logprobs=None),
                                                       max_length, CharProcessor(), engine) for _ in range(n)])

    return asyncio.run(group())


def test_the_call_limit_and_the_turn_limit(compiled_once, taxonomy, tmp_path):
    executor = tools_executor(tmp_path, max_calls=1, max_turns=3)
    inst = generate(taxonomy.task(EXTREMUM), 4, 0, None, taxonomy.vocab)
    replies = [call("crop", box=[0, 0, 64, 64]), call("crop", box=[0, 0, 64, 64]), call("crop", box=[0, 0, 9, 9])]
    engine = StandInEngine(lambda c: replies[len(engine.calls) - 1])
    (out,) = run(executor, engine, EXTREMUM, 4)
    texts = ["".join(map(chr, c["prompt_ids"])) for c in engine.calls]
    assert "at most 1 calls" in texts[0]
    assert "crop [0, 0, 64, 64]: 64 × 64 pixels of the image as shown" in texts[1]
    assert "tool error: no calls left (1 per episode): answer now" in texts[2]
    assert [len(c["images"]) for c in engine.calls] == [1, 2, 2]
    # the third reply is the last turn: scored as the answer (a call is no answer), the call in it never runs
    assert len(out["action_ranges"]) == 3 and out["scores"] == 0.0 and out["reward"] == 0.0
    assert [c["text"][:20] for c in out["tools"]["calls"]] == ["crop [0, 0, 64, 64]:", "tool error: no calls"]
    assert out["instance_id"] == inst.instance_id


def test_a_result_that_would_not_fit_max_length_is_not_shown(compiled_once, taxonomy, tmp_path):
    executor = tools_executor(tmp_path)
    zoom = call("zoom", box=[0, 0, 100, 100], scale=2)
    inst = generate(taxonomy.task(EXTREMUM), 5, 0, None, taxonomy.vocab)
    answer = json.dumps({inst.label.get("key", "answer"): inst.answer}) + "<|im_end|>"  # within ANSWER_ROOM
    assert len(answer) <= ANSWER_ROOM
    engine = StandInEngine(lambda c: zoom if len(engine.calls) == 1 else answer)
    (roomy,) = run(executor, engine, EXTREMUM, 5)
    assert roomy["scores"] == 1.0 and len(engine.calls[1]["images"]) == 2
    base = len(engine.calls[0]["prompt_ids"]) + len(zoom)  # the prompt and the first reply
    refusal = len(user_turn_after_reply(CharProcessor(), NO_ROOM, False, True))
    # room for the refusal and the answer, not for the image: the model is told to answer
    engine.calls.clear()
    (tight,) = run(executor, engine, EXTREMUM, 5, max_length=base + refusal + ANSWER_ROOM)
    assert [len(c["images"]) for c in engine.calls] == [1, 1]
    assert "".join(map(chr, engine.calls[1]["prompt_ids"])).endswith(NO_ROOM + "<|im_end|>\n" + ASSISTANT + "\n")
    assert tight["tools"]["calls"][0]["withheld"] == "no room left in the episode for the result"
    assert tight["scores"] == 1.0 and len(tight["observation_tokens"]) <= base + refusal + ANSWER_ROOM
    # no room for the refusal either: the episode ends on the call, which is no answer
    engine.calls.clear()
    (ended,) = run(executor, engine, EXTREMUM, 5, max_length=base + refusal + ANSWER_ROOM - 1)
    assert len(engine.calls) == 1 and ended["scores"] == 0.0 and len(ended["action_ranges"]) == 1
    replayed = replay_trace(json.loads(json.dumps({**inst.trace, "tools": tight["tools"]})), taxonomy)
    assert replayed.ok, replayed.differences


def test_samples_not_offered_tools_answer_in_one_turn(compiled_once, taxonomy, tmp_path):
    """The executor asks `offers_tools` per sample (a curriculum may ask part of a group without tools): such a
    sample gets the plain prompt and one reply, and logs that it had no tools."""
    executor = tools_executor(tmp_path)

    async def every_other(task, seed, index):
        return index % 2 == 0

    executor.offers_tools = every_other
    inst = generate(taxonomy.task(EXTREMUM), 6, 0, None, taxonomy.vocab)
    engine = StandInEngine(lambda c: answer_text(inst.label, inst.answer))
    outs = run(executor, engine, EXTREMUM, 6, n=4)
    prompts = ["".join(map(chr, c["prompt_ids"])) for c in engine.calls]
    assert sorted("<tool>" in p for p in prompts) == [False, False, True, True]
    assert [o["extra_logs"]["tools_offered"] for o in outs] == [1.0, 0.0, 1.0, 0.0]
    assert all(o["reward"] == pytest.approx(1.0) and len(o["action_ranges"]) == 1 for o in outs)
    assert ["tools" in o for o in outs] == [True, False, True, False]


def test_tools_config_is_checked_and_offline_rows_stay_tool_free(tmp_path):
    assert ToolsConfig.from_mapping({}).enabled is False and ToolsConfig().images_per_prompt == 1
    for data, message in [
        ({"max_calls": 3, "max_turns": 3}, "tools: max_turns must be from max_calls + 1 (4) to 16"),
        ({"tool_cost": 0.31}, "tools: tool_cost must be >= 0 with tool_cost × max_calls < 0.9 (a correct answer "
                             "after every call must earn more than a wrong one)"),
        ({"enabled": "yes"}, "tools.enabled: expected bool, got 'yes'"),
        ({"offer": ["zoom", "paint"]}, "tools: offer lists tools among zoom, crop, inspect, each at most once"),
        ({"max_cals": 1}, "tools: unknown key(s) max_cals"),
    ]:
        with pytest.raises(TesseraError) as err:
            ToolsConfig.from_mapping(data)
        assert str(err.value).startswith(message)
    config = {"name": "t", "model": "m", "mode": "offline", "data": {"offline": str(tmp_path / "x")},
              "output": str(tmp_path / "run"), "tools": {"enabled": True}}
    (tmp_path / "c.yaml").write_text(json.dumps(config))
    with pytest.raises(TesseraError) as err:
        build_launch(tmp_path / "c.yaml", cwd=tmp_path)
    assert "tools need the online mode (offline rows stay tool-free" in str(err.value)


def test_margin_needs_tools_and_paired_groups_ask_half_without(tmp_path):
    """The curriculum's margin rule reads with- and without-tools outcomes: refused in a run without tools; with
    tools, a paired group's odd samples are not offered them (curriculum.tools_for) and each outcome is recorded
    as with or without."""
    import asyncio

    from tessera.errors import TesseraError
    from tessera.training.online import AgentExecutor, AgentSettings

    base = {"curriculum": {"rule": "margin", "paired_share": 1.0}, "state_dir": str(tmp_path / "s"),
            "ckpt_path": None, "restore": False, "run": "t", "shared": False}
    with pytest.raises(TesseraError, match="compares answers with and without tools, but tools are off"):
        AgentSettings.from_mapping(base)
    settings = AgentSettings.from_mapping({**base, "tools": {"enabled": True}})
    ex = AgentExecutor(settings)
    offered = [asyncio.run(ex.offers_tools("charts.bar_chart.extremum_label", 5, i)) for i in range(4)]
    assert offered == [True, False, True, False]
    assert offered == [settings.curriculum.tools_for("charts.bar_chart.extremum_label", 5, i) for i in range(4)]


def test_paired_groups_record_outcomes_with_and_without_tools(compiled_once, taxonomy, tmp_path):
    from tessera.training.online import AgentExecutor, AgentSettings

    settings = AgentSettings.from_mapping({"curriculum": {"rule": "margin", "paired_share": 1.0},
                                           "state_dir": str(tmp_path / "state"), "ckpt_path": str(tmp_path / "ckpt"),
                                           "shared": False, "tools": {"enabled": True}})
    executor = AgentExecutor(settings)
    label = json.dumps({"task": EXTREMUM, "seed": 6, "level": "curriculum", "domain": "charts"})
    inst = generate(taxonomy.task(EXTREMUM), 6, 0, None, taxonomy.vocab)
    engine = StandInEngine(lambda c: answer_text(inst.label, inst.answer) if "<tool>" in
                           "".join(map(chr, c["prompt_ids"])) else "no idea<|im_end|>")

    async def group():
        return await asyncio.gather(*[executor.execute("row", label, Params(max_tokens=None, logprobs=None), 8192,
                                                       CharProcessor(), engine) for _ in range(4)])

    outs = asyncio.run(group())
    assert [o["extra_logs"]["tools_offered"] for o in outs] == [1.0, 0.0, 1.0, 0.0]
    # right with tools, wrong without: the curriculum's level-0 windows hold exactly that
    figures = executor.backend.service.curriculum.figures(EXTREMUM)
    assert figures[0]["tools"] == [1.0, 2] and figures[0]["plain"] == [0.0, 2]
