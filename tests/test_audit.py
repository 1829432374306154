"""`tessera audit`: figures recomputed independently from a real build, exit codes, thresholds, bad input, cache."""
from __future__ import annotations

import json
import math
import shutil
import textwrap
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tessera.cli import main
from tessera.export.build import build
from tessera.export.config import load_build_config
from tessera.validate.audit import (Row, cv_majority, cv_naive_bayes, cv_prompt_lookup, folds, growth, level_figures,
                                     normalised_entropy, spearman)
from tests.conftest import ROOT

OPTION_TASK = "symbolic.clock_row.time_after_option"
YES_TASK = "puzzles.tiles.has_line"
COUNT_TASK = "games.chess.count_on_shade"
CONFIG = f"""
build: audit-test
seed: 3
select: {{tasks: ["{OPTION_TASK}", "{YES_TASK}", "{COUNT_TASK}"]}}
per_task: {{train: 24, validation: 2}}
levels: {{range: [0, 9]}}
shard_size: 30
"""


# The clock task's wrong options as they were before issue 11 (the right time ±10/30/60 minutes): a shortcut the
# audit must find. The bundled task no longer has it, so the build uses a copy of the library with this program.
SLIPS_PROGRAM = """
task: symbolic.clock_row.time_after_option
grammar: symbolic.clock_row
summary: Choose, among lettered times, the time a clock will show some minutes later.
operations: [lookup, formula, matching]
bucket: math
levels:
  delta_hi: 12 + 12 * level
  options_1: 3 + level // 4
compute:
  pick: choice(clocks)
  delta: 5 * randint(2, delta_hi)
  right: format_time(add_minutes(pick, delta))
  slips: "[-delta, delta + 60, delta - 60, delta + 30, delta - 30, delta + 10, delta - 10]"
  others: "difference(unique(map(slips, d -> format_time(add_minutes(pick, d)))), [right])"
  options: "shuffle(union([right], sample(others, options_1)))"
answer: {value: "letter(index(options, right))", contract: option_letter}
witness: {bbox: pick}
prompt: |-
  What time will clock {{ pick.label }} show {{ delta }} minutes from now?
  {{ options | lettered }}
"""


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    from tessera.taxonomy import compile_taxonomy

    root = tmp_path_factory.mktemp("library")
    for d in ("taxonomy", "grammars", "programs", "contracts", "components"):
        shutil.copytree(ROOT / d, root / d)
    (root / "programs" / "symbolic" / "clock_row" / "time_after_option.yaml").write_text(SLIPS_PROGRAM.lstrip())
    taxonomy = compile_taxonomy(root)
    cfg = tmp_path_factory.mktemp("cfg") / "audit.yaml"
    cfg.write_text(textwrap.dedent(CONFIG).lstrip())
    out = tmp_path_factory.mktemp("ds") / "ds"
    build(load_build_config(cfg, taxonomy), taxonomy, out, workers=1)
    return out


def audit(capsys, dataset, out, *extra) -> tuple[int, str, str]:
    code = main(["--root", str(ROOT), "audit", str(dataset), "--out", str(out), *extra])
    o, e = capsys.readouterr()
    return code, o, e


@pytest.fixture(scope="module")
def report_dir(dataset, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    code = main(["--root", str(ROOT), "audit", str(dataset), "--out", str(out)])
    return out, code


def dataset_rows(ds: Path) -> list[dict]:
    rows = []
    for f in sorted((ds / "data").glob("*.parquet")):
        rows += pq.read_table(f, columns=["task", "answer", "phash", "level", "split"]).to_pylist()
    return rows


def test_figures_match_an_independent_count(report_dir, dataset):
    out, _ = report_dir
    report = json.loads((out / "audit.json").read_text())
    by_task: dict[str, Counter] = {}
    for r in dataset_rows(dataset):
        by_task.setdefault(r["task"], Counter())[r["answer"]] += 1
    assert set(report["tasks"]) == set(by_task) == {OPTION_TASK, YES_TASK, COUNT_TASK}
    for task, answers in by_task.items():
        n = sum(answers.values())
        p = [c / n for c in answers.values()]
        entropy = -sum(x * math.log(x) for x in p) / math.log(len(p)) if len(p) > 1 else 0.0
        info = report["tasks"][task]
        assert info["rows"] == n == 26
        assert info["distinct_answers"] == len(answers)
        assert info["entropy"] == pytest.approx(entropy, abs=1e-4)
        assert info["top_share"] == pytest.approx(max(answers.values()) / n, abs=1e-4)
        assert info["top_count"] == max(answers.values())
    yes = by_task[YES_TASK]
    assert set(yes) <= {"true", "false"}
    assert report["tasks"][YES_TASK]["yes"] == {"share": round(yes["true"] / 26, 4), "yes": yes["true"], "n": 26}
    assert "yes" not in report["tasks"][COUNT_TASK]
    letters = report["tasks"][OPTION_TASK]["letters"]
    assert sum(letters.values()) == 26 and set(letters) <= set("ABCDEFG")
    assert report["tasks"][OPTION_TASK]["options_only"]["rows"] == 26
    assert report["headline"]["rows"] == 78 and report["headline"]["tasks"] == 3


def test_option_task_shortcut_exceeds_the_default_threshold(report_dir):
    out, code = report_dir
    report = json.loads((out / "audit.json").read_text())
    opts = report["tasks"][OPTION_TASK]["options_only"]
    # the clock's wrong options are ±10/30/60 minutes from the right one: `derived` finds it
    assert opts["best_rule"] == "derived" and opts["best_accuracy"] > opts["chance"] + 0.10
    assert code == 1 and not report["ok"]
    hits = [v for v in report["violations"] if v["threshold"] == "options_only"]
    assert [v["task"] for v in hits] == [OPTION_TASK]
    assert report["worst"]["options_only"][0]["task"] == OPTION_TASK
    # the learned scorer finds the same relation from the options alone
    assert opts["learned"] > opts["chance"] + 0.15
    assert [v["task"] for v in report["violations"] if v["threshold"] == "options_learned"] == [OPTION_TASK]
    assert report["threshold_sources"]["options_only_margin"] == "default"


def test_exit_status_and_listing(capsys, dataset, report_dir, tmp_path):
    out, _ = report_dir
    shutil.copytree(out / "cache", tmp_path / "cache")  # the cache makes reruns cheap
    code, stdout, _ = audit(capsys, dataset, tmp_path)
    assert code == 1
    assert f"exceeded options_only: {OPTION_TASK}: rule derived is right" in stdout
    code, stdout, _ = audit(capsys, dataset, tmp_path, "--threshold", "options_only_margin=1",
                            "--threshold", "options_learned_margin=1",
                            "--threshold", "yes_share_min=0", "--threshold", "yes_share_max=1",
                            "--threshold", "top_share_floor=1")  # unbalanced build: the count task's answers skew
    assert code == 0, stdout
    report = json.loads((tmp_path / "audit.json").read_text())
    assert report["ok"] and report["threshold_sources"]["options_only_margin"] == "command line"
    code, stdout, _ = audit(capsys, dataset, tmp_path, "--threshold", "options_only_margin=1",
                            "--threshold", "options_learned_margin=1",
                            "--threshold", "yes_share_min=0.99", "--threshold", "yes_share_max=1")
    assert code == 1
    assert f"exceeded yes_share: {YES_TASK}:" in stdout and "options_" not in stdout
    # too few rows to flag: reported, never flagged
    code, _, _ = audit(capsys, dataset, tmp_path, "--threshold", "min_rows=27")
    assert code == 0
    assert json.loads((tmp_path / "audit.json").read_text())["headline"]["tasks_flaggable"] == 0


def test_build_config_thresholds_and_command_line_override(capsys, dataset, report_dir, tmp_path):
    ds = tmp_path / "ds"
    shutil.copytree(dataset, ds)
    manifest = json.loads((ds / "manifest.json").read_text())
    manifest["config"]["audit"] = {"options_only_margin": 0.9, "options_learned_margin": 0.9, "yes_share_min": 0.0}
    (ds / "manifest.json").write_text(json.dumps(manifest))
    code, _, _ = audit(capsys, ds, tmp_path / "rep")
    report = json.loads((tmp_path / "rep" / "audit.json").read_text())
    assert report["thresholds"]["options_only_margin"] == 0.9
    assert report["threshold_sources"]["options_only_margin"] == "build config"
    assert not [v for v in report["violations"] if v["threshold"] == "options_only"]
    code, _, _ = audit(capsys, ds, tmp_path / "rep", "--threshold", "options_only_margin=0.05")
    report = json.loads((tmp_path / "rep" / "audit.json").read_text())
    assert code == 1 and report["threshold_sources"]["options_only_margin"] == "command line"
    manifest["config"]["audit"] = {"options_only": 0.1}
    (ds / "manifest.json").write_text(json.dumps(manifest))
    code, _, err = audit(capsys, ds, tmp_path / "rep")
    assert code == 2 and "manifest.json: config.audit: unknown threshold 'options_only'" in err


def test_bad_input_exits_2(capsys, dataset, tmp_path):
    code, _, err = audit(capsys, tmp_path / "nowhere", tmp_path / "rep")
    assert code == 2 and f"error: {tmp_path / 'nowhere'}: no such dataset folder" in err
    (tmp_path / "empty").mkdir()
    code, _, err = audit(capsys, tmp_path / "empty", tmp_path / "rep")
    assert code == 2 and "no manifest.json; not a finished dataset" in err
    ds = tmp_path / "ds"
    shutil.copytree(dataset, ds)
    shard = sorted((ds / "data").glob("train-*.parquet"))[0]
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0xFF
    shard.write_bytes(bytes(data))
    code, _, err = audit(capsys, ds, tmp_path / "rep")
    assert code == 2
    assert f"error: data/{shard.name}: sha256 differs from the manifest (the file was changed" in err
    assert "Traceback" not in err
    for bad, message in (("nonsense", "expected NAME=VALUE"), ("speed=1", "unknown threshold 'speed'"),
                         ("min_rows=lots", "threshold min_rows needs a number, got 'lots'"),
                         ("yes_share_min=-1", "needs a number ≥ 0"),
                         ("yes_share_min=0.7", "yes_share_min 0.7 is above yes_share_max 0.6")):
        code, _, err = audit(capsys, dataset, tmp_path / "rep", "--threshold", bad)
        assert code == 2 and message in err, (bad, err)
    code, _, err = audit(capsys, dataset, tmp_path / "rep", "--near-duplicate-bits", "400")
    assert code == 2 and "--near-duplicate-bits should be 0..256, got 400" in err
    (tmp_path / "file").write_text("x")
    code, _, err = audit(capsys, dataset, tmp_path / "file")
    assert code == 2 and "--out is a file" in err


def test_html_report(report_dir):
    out, _ = report_dir
    page = (out / "index.html").read_text()
    assert "<table id='headline'>" in page and "option tasks whose best options-only rule" in page
    assert f"id='{OPTION_TASK}'" in page and "<svg" in page
    assert "class=\"bad\"" in page  # the exceeded options-only cell is red
    assert "<script" not in page and "http://" not in page.replace("http://www.w3.org/2000/svg", "")


def test_hashes_are_cached_per_shard_and_match_the_builder(capsys, dataset, report_dir, tmp_path):
    out, _ = report_dir
    report = json.loads((out / "audit.json").read_text())
    assert report["reading"]["decoded_images"] == 78
    cache = sorted((out / "cache").glob("dhash-*.bin"))
    assert len(cache) == report["reading"]["shards"]
    # the decoded hashes are the builder's phash column, in row order
    by_shard = json.loads((dataset / "manifest.json").read_text())["splits"]
    expected = {f["sha256"]: b"".join(r["phash"] for r in pq.read_table(dataset / f["name"], columns=["phash"])
                                      .to_pylist()) for s in by_shard.values() for f in s["files"]}
    assert {p.name[6:-4]: p.read_bytes() for p in cache} == expected
    work = tmp_path / "rep"
    shutil.copytree(out / "cache", work / "cache")
    audit(capsys, dataset, work)
    assert json.loads((work / "audit.json").read_text())["reading"] == {
        "decoded_images": 0, "cached_shards": len(cache), "shards": len(cache)}
    damaged = sorted((work / "cache").glob("dhash-*.bin"))[0]
    damaged.write_bytes(b"short")  # a damaged cache is decoded again, never trusted
    audit(capsys, dataset, work)
    reading = json.loads((work / "audit.json").read_text())["reading"]
    assert reading["cached_shards"] == len(cache) - 1 and reading["decoded_images"] > 0
    assert json.loads((work / "audit.json").read_text())["tasks"] == report["tasks"]


# -- the statistics on rows made by hand ----------------------------------------------------------------------------
def row(i: int, prompt: str, answer: str, level: int = 0, work: float = 1.0, value=None) -> Row:
    return Row(f"{i * 2654435761 % 2 ** 32:08x}" + "0" * 16, "train", "t.t.t", level, "string", prompt,
               json.dumps(answer), value if value is not None else answer, work, 1.0, 1.0, None, None)


def test_text_baselines():
    # the prompt's word gives the answer away: both text baselines find it, the majority cannot
    rows = [row(i, f"is it {w}?", w) for i, w in enumerate(["red", "blue", "green"] * 20)]
    f = folds(rows)
    assert set(f.tolist()) == set(range(5))
    assert cv_naive_bayes(rows, f) == 1.0 and cv_prompt_lookup(rows, f) == 1.0
    assert cv_majority(rows, f) < 0.5
    # one prompt for every row: only the answer counts help, which are uniform
    same = [row(i, "which colour?", w) for i, w in enumerate(["red", "blue", "green"] * 20)]
    assert cv_naive_bayes(same, folds(same)) < 0.5 and cv_prompt_lookup(same, folds(same)) < 0.5


def test_entropy_and_growth():
    assert normalised_entropy([5, 5, 5]) == pytest.approx(1.0)
    assert normalised_entropy([10]) == 0.0
    assert normalised_entropy([9, 1]) == pytest.approx(-(0.9 * math.log(0.9) + 0.1 * math.log(0.1)) / math.log(2))
    assert spearman([0, 1, 2, 3], [1, 2, 3, 4]) == pytest.approx(1.0)
    assert growth({0: 1.0, 5: 2.0, 9: 3.0})["grows"]
    assert not growth({0: 2.0, 5: 2.0, 9: 2.0})["grows"]
    assert not growth({0: 1.0, 5: 3.0, 9: 0.5})["grows"]  # the top level is below the bottom one
    assert not growth({3: 1.0})["grows"]
    flat = [row(i, "p", str(i % 3), level=i % 10, work=7.0, value=i % 3) for i in range(40)]
    figures = level_figures(flat)
    assert figures["flat"] and not figures["answer_or_work_grows"] and figures["answer_figure"] == "answer_magnitude"
    rising = [row(i, "p", str(i % 10), level=i % 10, work=float(i % 10), value=i % 10) for i in range(40)]
    assert level_figures(rising)["answer_or_work_grows"]


def test_hash_diversity_counts_each_pair_once_in_any_chunking():
    from tessera.validate.audit import cross_task_near_duplicates, hash_diversity

    def h(ones: int) -> bytes:
        return (b"\xff" * (ones // 8) + bytes([(0xff << (8 - ones % 8)) & 0xff] if ones % 8 else b"")).ljust(32, b"\0")

    rows = [row(i, "p", "a") for i in range(4)]
    for r, ones in zip(rows, (0, 3, 200, 203)):
        r.phash = h(ones)
    rows[3].split = "validation"
    for chunk in (1, 2, 256):
        info = hash_diversity(rows, bits=12, chunk=chunk)
        assert info["pairs"] == 6 and sum(info["histogram"]) == 6
        assert info["near_duplicate_pairs"] == 2  # 0–3 and 200–203
        assert info["split_near_duplicate_pairs"] == 1  # 200 (train) – 203 (validation)
        assert info["min_distance"] == 3
    rows[2].task = rows[3].task = "u.u.u"
    cross = cross_task_near_duplicates(rows, bits=12)
    assert cross["pairs"] == 0  # the near pairs are within a task
    rows[1].task = "u.u.u"
    cross = cross_task_near_duplicates(rows, bits=12)
    assert cross["pairs"] == 1 and cross["task_pairs"][0]["tasks"] == ["t.t.t", "u.u.u"]


def test_learned_options_scorer_finds_a_relation_to_the_question():
    import random

    from tessera.validate.audit import cv_options_learned, question_tokens

    def make(related: bool, seed: int) -> list[Row]:
        rnd = random.Random(seed)
        rows = []
        for i in range(80):
            f, r = rnd.randrange(8), rnd.randrange(1, 9)
            square = f"{'abcdefgh'[f]}{r}"
            others = set()
            while len(others) < 3:  # squares off the piece's file and rank
                g, s = rnd.randrange(8), rnd.randrange(1, 9)
                if g != f and s != r:
                    others.add(f"{'abcdefgh'[g]}{s}")
            right = f"{'abcdefgh'[f]}{(r % 8) + 1}" if related else others.pop()
            if not related:
                g, s = rnd.randrange(8), rnd.randrange(1, 9)
                others.add(f"{'abcdefgh'[(f + 1 + g % 7) % 8]}{s}")
            options = sorted(others | {right})
            rnd.shuffle(options)
            prompt = f"Where can the rook on {square} move?\n" + "\n".join(
                f"{chr(65 + k)}. {o}" for k, o in enumerate(options))
            rw = row(i, prompt, chr(65 + options.index(right)))
            rw.options, rw.right = options, options.index(right)
            rows.append(rw)
        return rows

    related = make(True, 1)
    square = related[0].prompt.split()[5]
    assert question_tokens(related[0].prompt, related[0].options) == ["Where", "can", "the", "rook", "on", square,
                                                                      "move"]  # the option lines are left out
    assert cv_options_learned(related, folds(related)) > 0.8  # the right square shares the rook's file
    unrelated = make(False, 2)
    assert cv_options_learned(unrelated, folds(unrelated)) < 0.45  # chance is 0.25


def test_a_malformed_row_is_named(capsys, dataset, tmp_path):
    import hashlib

    import pyarrow as pa

    ds = tmp_path / "ds"
    shutil.copytree(dataset, ds)
    manifest = json.loads((ds / "manifest.json").read_text())
    entry = manifest["splits"]["train"]["files"][0]
    shard = ds / entry["name"]
    table = pq.read_table(shard)
    levels = table.column("level").to_pylist()
    levels[3] = 42
    table = table.set_column(table.schema.get_field_index("level"), "level", pa.array(levels, pa.int32()))
    pq.write_table(table, shard)
    entry["sha256"] = hashlib.sha256(shard.read_bytes()).hexdigest()  # a forged manifest that agrees
    (ds / "manifest.json").write_text(json.dumps(manifest))
    code, _, err = audit(capsys, ds, tmp_path / "rep")
    assert code == 2
    assert f"error: {entry['name']} row 3 (" in err and "field 'level': should be an integer 0..9, got 42" in err


def test_shortcut_flags_need_more_than_sampling_noise():
    from tessera.validate.audit import significantly_above

    assert not significantly_above(0.38, 66, 0.35)  # 2.4 σ of noise on 66 rows: not a shortcut
    assert significantly_above(0.84, 66, 0.35) and significantly_above(0.45, 2000, 0.35)
    assert not significantly_above(0.35, 10_000, 0.35)


def _rows(level_answers: dict[int, list[int]], objects=lambda lv: 10.0, work=lambda lv: 5.0):
    from tessera.validate.audit import Row

    return [Row(f"{lv:02d}{i:022d}", "train", "t.g.x", lv, "integer", "q", json.dumps(a), a, work(lv), objects(lv),
                objects(lv), None, None) for lv, answers in level_answers.items() for i, a in enumerate(answers)]


def test_a_saturated_reading_grows_through_its_scene_only():
    """A bounded reading (every row its own answer, no growth in size) passes level growth only when its scene
    grows; answers that repeat must grow themselves."""
    from tessera.validate.audit import level_figures

    readings = {lv: [10 * lv + i for i in range(6)][::-1] if lv % 2 else [60 - 10 * lv + i for i in range(6)]
                for lv in range(10)}
    flat_scene = level_figures(_rows(readings))
    assert flat_scene["answers_saturated"] and not flat_scene["answer_or_work_grows"]
    growing_scene = level_figures(_rows(readings, objects=lambda lv: 10.0 + 5 * lv))
    assert growing_scene["answers_saturated"] and growing_scene["answer_or_work_grows"]
    repeated = {lv: [7, 7, 7, 8, 8, 8] for lv in range(10)}  # few answers: the scene alone is not enough
    assert not level_figures(_rows(repeated, objects=lambda lv: 10.0 + 5 * lv))["answer_or_work_grows"]


def test_answer_sizes_read_the_witness_marks_only():
    from tessera.validate.audit import answer_sizes

    trace = {"witness": {"kind": "set", "objects": ["bars[1]", "labels"]},
             "render": {"render_map": {
                 "bars[0]": {"bbox": [0, 0, 2, 2], "mark": "rect"},  # not named by the witness: never counted
                 "bars[1]": {"bbox": [10, 20, 16, 90], "mark": "rect"},  # 6 px wide
                 "bars[10]": {"bbox": [0, 0, 1, 1], "mark": "rect"},  # a path that only starts like bars[1]
                 "labels[0]": {"bbox": [5, 5, 40, 17], "mark": "text"},  # 12 px high
                 "labels[1]": {"bbox": [5, 30, 30, 39.5], "mark": "text"},  # 9.5 px high
                 "labels[2]": {"bbox": "broken", "mark": "text"},  # malformed entries are skipped, not raised
                 "labels.title": {"bbox": [0, 50, 100, 80], "mark": "circle"}}}}
    assert answer_sizes(trace) == (9.5, 6.0)
    assert answer_sizes({"witness": {"objects": ["labels[0]"]}, "render": trace["render"]}) == (12.0, None)
    assert answer_sizes({"witness": "x", "render": None}) == (None, None)


def test_the_audit_reports_the_smallest_answer_bearing_sizes(report_dir, dataset):
    out, _ = report_dir
    report = json.loads((out / "audit.json").read_text())
    traces: dict[str, list[tuple[int, dict]]] = {}
    for f in sorted((dataset / "data").glob("*.parquet")):
        for r in pq.read_table(f, columns=["task", "level", "trace"]).to_pylist():
            traces.setdefault(r["task"], []).append((r["level"], json.loads(r["trace"])))
    for task, rows in traces.items():
        marks = []  # recomputed here: the short side of every witness object's own box
        for level, tr in rows:
            boxes = [tr["render"]["render_map"][p]["bbox"] for p in tr["witness"].get("objects", [])
                     if p in tr["render"]["render_map"] and tr["render"]["render_map"][p]["mark"] != "text"]
            if boxes:
                marks.append((level, min(min(b[2] - b[0], b[3] - b[1]) for b in boxes)))
        sizes = report["tasks"][task]["sizes"]
        if not marks:
            continue
        assert sizes["mark_px"]["min"] <= round(min(m for _, m in marks), 2) + 1e-9
        assert len(marks) <= sizes["mark_px"]["rows"] <= len(rows) and 0 < sizes["mark_px"]["min"] <= sizes["mark_px"]["median"]
        width = max(tr["render"]["width"] for _, tr in rows)
        assert sizes["mark_px"]["median"] < width
        assert set(map(int, sizes["mark_px"]["by_level"])) == {lv for lv, _ in marks}
    assert "smallest answer text / mark px" in (out / "index.html").read_text()
