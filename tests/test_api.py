"""The Python API (`import tessera`): compile, task, generate, score, build, replay — each checked against the
pipeline functions it wraps, with the errors a caller gets for the mistakes a caller makes."""
from __future__ import annotations

import json
import sys
import textwrap

import pyarrow.parquet as pq
import pytest

import tessera
from tessera.cli import write_instance
from tessera.taxonomy import compile_taxonomy
from tessera.trace.instance import generate as pipeline_generate
from tessera.verify.score import canonical_response, wrong_answer
from tests.bounds import run_bounded
from tests.conftest import ROOT

TASK = "charts.bar_chart.extremum_label"


@pytest.fixture(scope="module")
def tax():
    return tessera.compile()


def test_import_is_light_and_the_api_is_lazy():
    """`import tessera` (what the CLI does first) loads none of the pipeline; the first API use loads it."""
    code = ("import sys, tessera; before = sorted(m for m in sys.modules if m.startswith('tessera'));"
            "tessera.score; print(before, 'tessera.api' in sys.modules)")
    out = run_bounded([sys.executable, "-c", code], 60, cwd=ROOT / "tests")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['tessera', 'tessera.version'] True"  # the version: one constant, no import
    assert set(tessera.__all__) == tessera._API | tessera._ERRORS | {"__version__"}
    assert all(getattr(tessera, name) is not None for name in tessera.__all__)
    with pytest.raises(AttributeError, match="module 'tessera' has no attribute 'compil'"):
        tessera.compil  # noqa: B018


def test_compile_defaults_to_the_bundled_library(tax):
    assert tax.root.resolve() == ROOT.resolve()
    direct = compile_taxonomy(ROOT)
    assert sorted(tax.tasks) == sorted(direct.tasks) and len(tax.tasks) > 100
    assert tax.task(TASK).id == TASK
    with pytest.raises(tessera.TesseraError, match=r"unknown task 'charts.bar_chart.extremum_lable'; did you mean "
                                                   r"charts.bar_chart.extremum_label"):
        tax.task("charts.bar_chart.extremum_lable")


def test_compile_reports_every_authoring_mistake(fixture_lib):
    path = fixture_lib / "contracts" / "integer_exact.yaml"
    path.write_text(path.read_text() + "\nbogus_key: 1\n")
    with pytest.raises(tessera.CompileFailed) as err:
        tessera.compile(fixture_lib)
    assert "integer_exact.yaml" in str(err.value) and "bogus_key" in str(err.value)


def test_generate_by_id_and_by_task_equals_the_pipeline(tax):
    by_id = tessera.generate(TASK, 7, level=3)
    by_task = tessera.generate(tax.task(TASK), 7, level=3)
    direct = pipeline_generate(tax.task(TASK), 7, 3, None, tax.vocab)
    assert by_id.png == by_task.png == direct.png
    assert by_id.trace == by_task.trace == direct.trace and by_id.instance_id == direct.instance_id
    forced = tessera.generate(TASK, 7, 3, query={"extreme": "lowest"}, taxonomy=tax)
    assert forced.trace["query"] == {"extreme": "lowest"} and forced.trace["query_forced"] is True
    boxed = tessera.generate(TASK, 7, 3, answer_format="boxed")
    assert boxed.label["format"] == "boxed" and "\\boxed" in boxed.prompt


def test_generate_errors_say_what_to_pass(tax, fixture_lib):
    cases = [
        (lambda: tessera.generate(TASK, 7, level=10), "level must be between 0 and 9, got 10"),
        (lambda: tessera.generate(TASK, "7"), "seed must be an integer, got str"),
        (lambda: tessera.generate(TASK, 7, level=True), "level must be an integer between 0 and 9, got bool"),
        (lambda: tessera.generate(TASK, 7, query=["lowest"]), "query must be a mapping"),
        (lambda: tessera.generate(TASK, 7, query={"extreme": "middle"}),
         "query {'extreme': 'middle'} is not in the query space of charts.bar_chart.extremum_label: "
         "extreme ∈ ['highest', 'lowest']"),
        (lambda: tessera.generate(42, 7), "task must be a task id or a task from taxonomy.task(id), got int"),
        (lambda: tessera.generate("no.such.task", 7), "unknown task 'no.such.task'"),
    ]
    for call, expected in cases:
        with pytest.raises(tessera.TesseraError) as err:
            call()
        assert expected in str(err.value)
    stranger = compile_taxonomy(fixture_lib)  # not compiled through the API: its vocabulary is unknown
    with pytest.raises(tessera.TesseraError, match="was not compiled by tessera.compile"):
        tessera.generate(stranger.task(TASK), 7)
    assert tessera.generate(stranger.task(TASK), 7, taxonomy=stranger).png == tessera.generate(TASK, 7).png
    with pytest.raises(tessera.TesseraError, match="is not a task of the taxonomy passed as taxonomy="):
        tessera.generate(stranger.task(TASK), 7, taxonomy=tax)


def test_score_takes_a_label_its_json_or_the_instance(tax):
    inst = tessera.generate("icons.shape_field.count_matching", 3, level=2)
    right = canonical_response(inst.label, inst.answer)
    wrong = canonical_response(inst.label, wrong_answer(inst.label))
    for label in (inst.label, json.dumps(inst.label), inst):
        s = tessera.score(label, right)
        assert (s.answer, s.format, s.reward) == (1.0, 1.0, 1.0)
        assert tessera.score(label, wrong).answer == 0.0
    assert tessera.score(inst, "no answer at all").reward == 0.0
    with pytest.raises(tessera.TesseraError, match="label is not valid JSON"):
        tessera.score("{not json", right)
    with pytest.raises(tessera.TesseraError, match="label must be a verifier label"):
        tessera.score(["a"], right)


def test_build_then_replay_a_dataset_and_a_sample_folder(tmp_path, tax):
    config = tmp_path / "tiny.yaml"
    config.write_text(textwrap.dedent("""
        build: tiny
        seed: 5
        select: {tasks: ["charts.bar_chart.*"]}
        per_task: {train: 2, validation: 1}
        levels: [0, 9]
        shard_size: 8
    """).lstrip())
    out = tmp_path / "ds"
    result = tessera.build(config, out, workers=1)
    rows = sum(pq.read_metadata(f).num_rows for f in (out / "data").glob("*.parquet"))
    assert rows == sum(s["rows"] for s in result.manifest["splits"].values()) == 3 * len(result.stats)
    replayed = tessera.replay(out)
    assert len(replayed) == rows and all(r.ok for r in replayed)
    assert tessera.build(config, out, workers=2).already_complete

    folder = tmp_path / "samples"
    inst = tessera.generate(TASK, 11, 4)
    write_instance(inst, folder)
    [result] = tessera.replay(folder)
    assert result.ok and set(result.checked) >= {"png", "json"}
    png = folder / f"{inst.instance_id}.png"
    png.write_bytes(png.read_bytes()[:-1] + b"\0")
    [result] = tessera.replay(folder / f"{inst.instance_id}.trace.json")
    assert not result.ok and result.differences == [f"{png.name}: the image bytes differ from the rebuilt image"]

    with pytest.raises(tessera.TesseraError, match="workers must be a positive integer, got 0"):
        tessera.build(config, tmp_path / "other", workers=0)
    with pytest.raises(tessera.TesseraError, match="no such file or folder"):
        tessera.replay(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(tessera.TesseraError, match="no trace files found"):
        tessera.replay(tmp_path / "empty")


def test_a_task_samples_with_the_vocabulary_it_was_compiled_against(taxonomy):
    """Vocab is bound at compile time: generate() without a vocabulary gives the instance generate() with the
    taxonomy's gives (0.9 sampled with an empty one and failed attempts later with a KeyError)."""
    from tessera.trace.instance import generate as generate_instance, instance_state

    task = taxonomy.task("charts.bar_chart.extremum_label")
    assert task.vocab is taxonomy.vocab and task.vocab
    for seed in (0, 7):
        bound = generate_instance(task, seed, 3)
        given = generate_instance(task, seed, 3, vocab=taxonomy.vocab)
        assert (bound.png, bound.answer, bound.prompt) == (given.png, given.answer, given.prompt)
        assert instance_state(task, seed, 3) == instance_state(task, seed, 3, taxonomy.vocab)
        state = instance_state(task, seed, 3)[1]
        assert state["topic"] in taxonomy.vocab["bar_topics"]  # drawn from the vocabulary
        assert {bar["label"] for bar in state["bars"]} <= set(state["topic"]["categories"])
