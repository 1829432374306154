"""Tools over an instance (tessera.tools): zoom redraws a region from the state and the render stream and equals a
direct render at that scale, pixel for pixel; crop and inspect; every bad call is a text answer; the inspect
declaration is type-checked and withheld where it would give the answer away; tool episodes replay."""
from __future__ import annotations

import asyncio
import io
import json
import shutil
import textwrap

import numpy as np
import pytest
from PIL import Image

from tessera.errors import CompileFailed, TesseraError
from tessera.taxonomy import compile_taxonomy
from tessera.tools.limits import ToolLimits
from tessera.tools.session import ToolSession, replay_calls
from tessera.trace.instance import generate
from tessera.validate.replay import replay_trace
from tests.conftest import ROOT

FRUIT_TOTAL = "charts.stacked_bars.fruit_total"  # offered inspect (its program never reads a segment's store)
TOP_STORE = "charts.stacked_bars.top_store"  # its answer is a store: inspect withheld


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def call(name: str, **args) -> str:
    return "<tool>" + json.dumps({"name": name, **args}) + "</tool>"


def direct_region(taxonomy, task_id: str, seed: int, level: int, k: int, box, variety: str = "none"):
    """The independent computation: the whole instance generated at image_scale=k, cut to box·k."""
    big = generate(taxonomy.task(task_id), seed, level, None, taxonomy.vocab, image_scale=k, variety=variety)
    x0, y0, x1, y1 = box
    return big, big.rgb[y0 * k:y1 * k, x0 * k:x1 * k, :3]


@pytest.mark.parametrize("task_id, seed, boxes", [
    ("charts.bar_chart.extremum_label", 1, [(37, 51, 160, 140), (0, 0, 512, 60)]),
    ("graphs.weighted_graph.cheapest_route", 1, [(0, 0, 100, 80), (111, 13, 356, 377)]),  # curves, slanted lines
    ("symbolic.clock_row.read_time", 1, [(200, 100, 400, 300)]),
    (FRUIT_TOTAL, 2, [(40, 50, 200, 150)]),
])
def test_zoom_equals_a_direct_render_of_the_region(taxonomy, task_id, seed, boxes):
    inst = generate(taxonomy.task(task_id), seed, 0, None, taxonomy.vocab)
    session = ToolSession(inst, ToolLimits(max_calls=8))
    for box in boxes:
        for k in (2, 4):
            w, h = (box[2] - box[0]) * k, (box[3] - box[1]) * k
            if w * h > session.limits.max_image_pixels:
                continue
            result = session.call(call("zoom", box=list(box), scale=k))
            assert result.text == (f"zoom [{box[0]}, {box[1]}, {box[2]}, {box[3]}] at {k}×: the box redrawn at {k} "
                                   f"times the resolution, {w} × {h} pixels")
            _, expected = direct_region(taxonomy, task_id, seed, 0, k, box)
            got = pixels(result.png)
            assert got.shape == (h, w, 3) and np.array_equal(got, expected), (task_id, box, k)
            # a redraw, not an enlarged crop: the shown pixels repeated k × k are another picture
            x0, y0, x1, y1 = box
            enlarged = np.kron(inst.rgb[y0:y1, x0:x1, :3], np.ones((k, k, 1), dtype=np.uint8))
            assert not np.array_equal(got, enlarged)


def _no_pixel_scale(decisions: dict) -> dict:
    return {**decisions, "canvas": {**(decisions.get("canvas") or {}), "pixel_scale": None}}


@pytest.mark.parametrize("task_id, seed, edits", [
    # since 0.10 every strong picture ends as a JPEG file (the file edit), here at the jpeg edit's low quality in
    # the second case; the zoom's k× redraw goes through the same file edit before it is cut
    ("charts.bar_chart.extremum_label", 0, ["warp", "tone", "vignette", "gauss", "file"]),
    ("graphs.weighted_graph.cheapest_route", 34, ["blur", "tone", "vignette", "scanlines", "file"]),
    ("graphs.weighted_graph.cheapest_route", 12, ["warp", "gauss", "salt_pepper", "file"]),
])
def test_zoom_with_strong_variety_equals_the_direct_render_at_that_scale(taxonomy, task_id, seed, edits):
    """Raster edits (a warp, noise, blur, compression) are applied to the k× drawing with their drawn parameters,
    as generate(image_scale=k) applies them: the same bytes where that render took the same decisions."""
    inst = generate(taxonomy.task(task_id), seed, 0, None, taxonomy.vocab, variety="strong")
    assert [e["edit"] for e in inst.trace["render"]["decisions"]["raster"]] == edits
    box, k = (40, 50, 200, 150), 2
    result = ToolSession(inst).call(call("zoom", box=list(box), scale=k))
    big, expected = direct_region(taxonomy, task_id, seed, 0, k, box, "strong")
    assert _no_pixel_scale(big.trace["render"]["decisions"]) == _no_pixel_scale(inst.trace["render"]["decisions"])
    assert np.array_equal(pixels(result.png), expected)


def test_crop_is_the_shown_pixels_and_inspect_reads_the_declared_field(taxonomy):
    inst = generate(taxonomy.task(FRUIT_TOTAL), 3, 1, None, taxonomy.vocab)
    session = ToolSession(inst, ToolLimits(max_calls=20))
    assert session.offered == ("zoom", "crop", "inspect")
    assert "- inspect {\"point\": [x, y]}: the store a segment belongs to" in session.describe()
    result = session.call(call("crop", box=[10.4, 20, 130.6, 90]))  # numbers round to whole pixels
    assert result.text == "crop [10, 20, 131, 90]: 121 × 70 pixels of the image as shown"
    assert np.array_equal(pixels(result.png), inst.rgb[20:90, 10:131, :3])
    render_map = inst.trace["render"]["render_map"]
    segs = inst.trace["state"]["segs"]
    for i, seg in enumerate(segs):
        x, y = render_map[f"segs[{i}]"]["point"]
        x, y = round(x), round(y)
        assert session.call(call("inspect", point=[x, y])).text == f"inspect [{x}, {y}]: store = {seg['store']}"
    assert session.call(call("inspect", point=[1, 1])).text == "inspect [1, 1]: no mark there that inspect reads"


def test_inspect_is_withheld_where_the_program_reads_the_field(taxonomy):
    """top_store's answer is 'Store ' + best.store: inspect on a segment would read the answer's text out."""
    top = taxonomy.task(TOP_STORE)
    assert top.inspect == {} and top.inspect_withheld == {"segs": "the program reads 'store'"}
    assert set(taxonomy.task(FRUIT_TOTAL).inspect) == {"segs"}
    inst = generate(top, 3, 1, None, taxonomy.vocab)
    session = ToolSession(inst)
    assert session.offered == ("zoom", "crop") and "inspect" not in session.describe()
    x, y = inst.trace["render"]["render_map"]["segs[0]"]["point"]
    result = session.call(call("inspect", point=[x, y]))
    assert result.text == "tool error: inspect is not available for this picture (tools: zoom, crop)"
    assert result.png is None and inst.answer not in result.text
    # No other grammar declares inspect: no task anywhere is offered it by default.
    assert [t for t in taxonomy.tasks.values() if t.inspect] == [taxonomy.task(FRUIT_TOTAL)]


def test_every_bad_call_is_answered_with_text(taxonomy):
    inst = generate(taxonomy.task("charts.bar_chart.extremum_label"), 1, 0, None, taxonomy.vocab)  # 512 × 384
    session = ToolSession(inst, ToolLimits(max_calls=20, max_image_pixels=100_000, max_render_pixels=1_000_000))
    cases = [
        ('<tool>{"name": "zoom", "box": [1, 2</tool>', "tool error: a call is one JSON object between <tool> and "
                                                      "</tool>, e.g. <tool>{\"name\": \"zoom\", \"box\": [x0, y0, "
                                                      "x1, y1], \"scale\": 2}</tool> (JSONDecodeError: Expecting "
                                                      "',' delimiter: line 1 column 30 (char 29))"),
        ("<tool>[1, 2]</tool>", 'tool error: a call is a JSON object with a "name", e.g. <tool>{"name": "zoom", '
                                '"box": [x0, y0, x1, y1], "scale": 2}</tool>'),
        (call("rotate", angle=3), "tool error: unknown tool 'rotate' (tools: zoom, crop)"),
        (call("inspect", point=[3, 4]), "tool error: inspect is not available for this picture (tools: zoom, crop)"),
        (call("zoom", box=[0, 0, 10], scale=2), 'tool error: zoom needs "box": [x0, y0, x1, y1], four numbers '
                                                "(pixels of the first image)"),
        (call("zoom", box=[0, 0, 10, 10], scale=2, colour="red"), "tool error: zoom takes box, scale; got 'colour'"),
        (call("zoom", box=[400, 300, 600, 380], scale=2), "tool error: box [400, 300, 600, 380] is not inside the "
                                                          "image: need 0 ≤ x0 < x1 ≤ 512 and 0 ≤ y0 < y1 ≤ 384"),
        (call("crop", box=[50, 50, 50, 60]), "tool error: box [50, 50, 50, 60] is not inside the image: need "
                                             "0 ≤ x0 < x1 ≤ 512 and 0 ≤ y0 < y1 ≤ 384"),
        (call("zoom", box=[0, 0, 10, 10], scale=5), "tool error: zoom's \"scale\" is a whole number from 2 to 4, "
                                                    "got 5"),
        (call("zoom", box=[0, 0, 10, 10], scale=2.5), "tool error: zoom's \"scale\" is a whole number from 2 to 4, "
                                                      "got 2.5"),
        ('<tool>{"name": "crop", "box": [0, 0, NaN, 9]}</tool>', "tool error: NaN is not a number a call can hold"),
        (call("zoom", box=[0, 0, 200, 200], scale=2), "tool error: zoom would return 400 × 400 = 160000 pixels; the "
                                                      "limit is 100000: ask for a smaller box or scale"),
        (call("zoom", box=[0, 0, 20, 20], scale=3), "tool error: zoom at 3× would redraw 1769472 pixels; the limit "
                                                    "is 1000000: use a smaller scale"),
    ]
    for raw, expected in cases:
        result = session.call(raw)
        assert (result.text, result.png) == (expected, None), raw
    assert session.call("no call at all, just {text").text.startswith("tool error: a call is one JSON object")
    assert len(session.calls) == len(cases) + 1
    limited = ToolSession(inst, ToolLimits(max_calls=1))
    assert limited.call(call("crop", box=[0, 0, 8, 8])).ok
    assert limited.call(call("crop", box=[0, 0, 8, 8])).text == "tool error: no calls left (1 per episode): answer now"


def test_a_call_past_the_time_limit_is_a_text_error_and_replays_its_arguments(taxonomy):
    inst = generate(taxonomy.task("charts.bar_chart.extremum_label"), 1, 0, None, taxonomy.vocab)
    session = ToolSession(inst, ToolLimits(time_limit_s=0.0005))
    result = asyncio.run(session.acall(call("zoom", box=[0, 0, 128, 128], scale=4)))
    assert result.timed_out and result.png is None
    assert result.text == "tool error: zoom took longer than 0.0005 s"
    assert session.calls == [{"raw": '{"name": "zoom", "box": [0, 0, 128, 128], "scale": 4}', "tool": "zoom",
                              "args": {"box": [0, 0, 128, 128], "scale": 4}, "text": result.text, "image": None,
                              "timed_out": True}]
    assert replay_calls(generate(inst.task, 1, 0, None, taxonomy.vocab), session.trace()) == []


def test_tool_episode_traces_replay_and_tampering_is_found(taxonomy):
    inst = generate(taxonomy.task(FRUIT_TOTAL), 3, 1, None, taxonomy.vocab, variety="mild")
    session = ToolSession(inst)
    x, y = inst.trace["render"]["render_map"]["segs[2]"]["point"]
    for raw in (call("zoom", box=[10, 10, 200, 200], scale=2), call("inspect", point=[x, y]), "<tool>oops</tool>",
                call("crop", box=[0, 0, 30, 30])):
        session.call(raw)
    assert [c["image"] is not None for c in session.calls] == [True, False, False, False]  # the 4th: no calls left
    trace = json.loads(json.dumps({**inst.trace, "tools": session.trace()}))
    result = replay_trace(trace, taxonomy)
    assert (result.ok, result.checked, result.differences) == (True, ["trace", "tools"], [])

    tampered = json.loads(json.dumps(trace))
    tampered["tools"]["calls"][0]["image"]["sha256"] = "0" * 64
    tampered["tools"]["calls"][1]["text"] = "inspect: store = Z"
    tampered["tools"]["offered"] = ["zoom"]
    result = replay_trace(tampered, taxonomy)
    assert not result.ok
    assert result.differences[0] == "tools.offered: recorded ['zoom'], rebuilt ['zoom', 'crop', 'inspect']"
    assert result.differences[1].startswith("tools.calls[0]: the image differs (recorded 380 × 380, sha256 "
                                            "0000000000000000…, rebuilt 380 × 380, sha256 ")
    assert result.differences[2].startswith("tools.calls[1]: text differs (recorded 'inspect: store = Z', rebuilt")
    limits = json.loads(json.dumps(trace))
    limits["tools"]["limits"]["max_calls"] = 4  # under other limits the 4th call would have run
    assert replay_trace(limits, taxonomy).differences[0].startswith("tools.calls[3]: args differs (recorded 'None'")
    for bad, message in [(5, "malformed trace: 'tools' should be a tool episode (format 'tessera.tools/1')"),
                         ({"format": "tessera.tools/1", "calls": [1]},
                          "malformed trace: 'tools.calls' should be a list of recorded calls"),
                         ({"format": "tessera.tools/1", "calls": [], "limits": {"max_scale": "x"}},
                          "malformed trace: tools.limits.max_scale: expected int, got 'x'")]:
        with pytest.raises(TesseraError) as err:
            replay_trace({**trace, "tools": bad}, taxonomy)
        assert str(err.value) == message


def test_limits_are_checked():
    assert ToolLimits.from_mapping({"offer": ["zoom"], "max_calls": 2}).to_mapping() == {
        "offer": ["zoom"], "max_calls": 2, "max_scale": 4, "max_image_pixels": 262144,
        "max_render_pixels": 8388608, "time_limit_s": 10.0}
    for data, message in [({"max_cals": 2}, "tools: unknown key(s) max_cals (keys: offer, max_calls, max_scale, "
                                            "max_image_pixels, max_render_pixels, time_limit_s)"),
                          ({"offer": ["zoom", "zoom"]}, "tools: offer lists tools among zoom, crop, inspect, each at "
                                                        "most once"),
                          ({"max_scale": 1}, "tools: max_scale must be from 2 to 16"),
                          ({"max_calls": True}, "tools.max_calls: expected int, got True"),
                          ({"time_limit_s": 0}, "tools: time_limit_s must be > 0")]:
        with pytest.raises(TesseraError) as err:
            ToolLimits.from_mapping(data)
        assert str(err.value) == message


# -- the declaration: render.tools.inspect ------------------------------------------------------------------------
def small_root(tmp_path, grammar_text: str, programs: dict[str, str]):
    """A library of one grammar (a copy of stacked bars with its tools block replaced) and the given programs."""
    for d in ("contracts", "components"):
        shutil.copytree(ROOT / d, tmp_path / d)
    (tmp_path / "taxonomy").mkdir()
    shutil.copy(ROOT / "taxonomy" / "vocab.yaml", tmp_path / "taxonomy" / "vocab.yaml")
    (tmp_path / "taxonomy" / "taxonomy.yaml").write_text(
        'taxonomy: tools-test\nversion: 1\ndomains:\n  charts: {summary: s, tasks: ["charts.*"]}\n')
    (tmp_path / "grammars" / "charts").mkdir(parents=True)
    (tmp_path / "grammars" / "charts" / "stacked_bars.yaml").write_text(grammar_text)
    (tmp_path / "programs" / "charts").mkdir(parents=True)
    for name, text in programs.items():
        (tmp_path / "programs" / "charts" / f"{name}.yaml").write_text(textwrap.dedent(text).lstrip("\n"))
    return tmp_path


STACKED = (ROOT / "grammars" / "charts" / "stacked_bars.yaml").read_text()
TOOLS_BLOCK = STACKED[STACKED.index("  tools:\n"):STACKED.index("  scene:\n")]


def with_tools(block: str) -> str:
    return STACKED.replace(TOOLS_BLOCK, textwrap.indent(textwrap.dedent(block).lstrip("\n"), "  "))


def test_inspect_declarations_are_type_checked_at_their_position(tmp_path, monkeypatch):
    text = with_tools("""
        tools:
          inspect:
            segz: store
            n: label
            segs: {field: value}
            stores: {field: nme}
        """)
    monkeypatch.chdir(small_root(tmp_path, text, {}))
    with pytest.raises(CompileFailed) as err:
        compile_taxonomy(".")
    first = text.splitlines().index("    inspect:") + 2  # the 1-based line of its first key
    at = dict(zip(("segz", "n", "segs", "stores"), range(first, first + 4)))
    assert [str(d) for d in err.value.diagnostics.sorted() if d.pos.path.startswith("grammars/")] == [
        f"grammars/charts/stacked_bars.yaml:{at['segz']}:7: error: render.tools.inspect: 'segz' is not a list of "
        f"records in the state of charts.stacked_bars (no such state field); inspect names marks bound to such "
        f"records  [scene-shape]",
        f"grammars/charts/stacked_bars.yaml:{at['n']}:7: error: render.tools.inspect: 'n' is not a list of records "
        f"in the state of charts.stacked_bars (it is integer); inspect names marks bound to such records  [scene-shape]",
        f"grammars/charts/stacked_bars.yaml:{at['segs']}:21: error: render.tools.inspect.segs: 'value' is integer; "
        f"inspect returns a text label (a string field), never a quantity  [scene-shape]",
        f"grammars/charts/stacked_bars.yaml:{at['stores']}:23: error: render.tools.inspect.stores: its records have "
        f"no field 'nme' (fields: name, color)  [unknown-field]",
    ]


def test_inspect_is_withheld_from_a_task_that_reads_the_field_by_any_route(tmp_path):
    """Read directly, through a function the task declares, or through a state field that was built by reading it
    (segs reads stores[j].name): each withholds the rule; a task that reads neither is offered both."""
    text = with_tools("""
        tools:
          inspect:
            segs: store
            stores: name
        """)
    task = """
        task: charts.stacked_bars.{name}
        grammar: charts.stacked_bars
        summary: s
        operations: [count]
        bucket: counting
        {functions}
        answer: {{value: "{answer}", contract: integer_exact}}
        witness: {{set: stores}}
        prompt: p
        """
    programs = {
        "direct": task.format(name="direct", functions="", answer="len(segs[0].store)"),
        "by_function": task.format(name="by_function", functions='functions: {shop: "s -> s.store"}',
                                   answer="len(shop(segs[0]))"),
        "through_state": task.format(name="through_state", functions="", answer="len(segs)"),
        "neither": task.format(name="neither", functions="", answer="count(stores, s -> s.color == 'red')"),
    }
    tax = compile_taxonomy(small_root(tmp_path, text, programs))
    offered = {tid.split(".")[-1]: (sorted(t.inspect), t.inspect_withheld) for tid, t in tax.tasks.items()}
    both = {"segs": "the program reads 'store'", "stores": "the program reads 'name'"}
    assert offered == {
        "direct": ([], both),
        "by_function": ([], both),
        "through_state": (["segs"], {"stores": "the program reads 'name'"}),
        "neither": (["segs", "stores"], {}),
    }


def test_replay_runs_under_the_codes_limits_never_a_traces(taxonomy):
    """A crafted trace may not raise its own tool limits: 0.8.0 replayed thousands of full-picture zooms under a
    recorded max_render_pixels of 10^12 (seconds of CPU and a GB each). Now a limit over the code's ceiling is a
    malformed trace, named, before any call runs; limits under the ceilings still replay."""
    from tessera.tools.limits import CEILINGS

    inst = generate(taxonomy.task(FRUIT_TOTAL), 3, 1, None, taxonomy.vocab)
    session = ToolSession(inst)
    session.call(call("zoom", box=[10, 10, 200, 200], scale=2))
    episode = session.trace()
    rebuilt = generate(taxonomy.task(FRUIT_TOTAL), 3, 1, None, taxonomy.vocab)
    assert replay_calls(rebuilt, episode) == []
    for name, value in (("max_render_pixels", 10**12), ("max_image_pixels", 10**12), ("max_calls", 10_000),
                        ("time_limit_s", 1e9), ("max_scale", 64)):
        crafted = {**episode, "limits": {**episode["limits"], name: value}}
        crafted["calls"] = episode["calls"] * 5_000  # thousands of zooms: none may run
        with pytest.raises(TesseraError) as info:
            replay_calls(rebuilt, crafted)
        assert str(info.value).startswith("malformed trace: tools.limits: "), str(info.value)
        assert name in str(info.value)
    at_most = {**episode, "limits": {**episode["limits"], **{k: v for k, v in CEILINGS.items()}}}
    assert replay_calls(rebuilt, at_most) == []  # the ceilings themselves are allowed
    with pytest.raises(TesseraError, match="max_calls 65 is over the most any episode may have"):
        ToolLimits.from_mapping({"max_calls": 65})  # a config is held to the same ceilings
