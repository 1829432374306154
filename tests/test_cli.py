"""The `tessera` command line: compile, list, sample, score, demo; machine-readable output and exit codes."""
from __future__ import annotations

import json
import shutil

from tessera.cli import main
from tests.conftest import ROOT


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(["--root", str(ROOT), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_compile_json_summary(capsys, taxonomy):
    code, out, _ = run(capsys, "compile", "--json")
    info = json.loads(out)
    assert code == 0
    assert info["domains"] == len(taxonomy.domains) >= 2
    assert info["grammars"] == len(taxonomy.grammars) >= 4
    assert info["tasks"] == len(taxonomy.tasks) >= 12
    assert len(info["answer_types"]) >= 4
    assert sum(info["buckets"].values()) == info["tasks"]
    assert sum(1 for t in taxonomy.tasks.values() if len(t.query_space()) > 1) >= 3


def test_list_filters_by_domain(capsys):
    code, out, _ = run(capsys, "list", "--domain", "puzzles", "--json")
    rows = json.loads(out)
    assert code == 0 and rows and all(r["domain"] == "puzzles" for r in rows)
    code, _, err = run(capsys, "list", "--domain", "nope")
    assert code == 1 and "unknown domain 'nope'" in err


def test_sample_writes_three_files_and_score_reads_them(capsys, tmp_path):
    code, out, _ = run(capsys, "sample", "charts.bar_chart.extremum_label", "--seed", "4", "--level", "2",
                       "--query", "extreme=lowest", "--out", str(tmp_path), "--json")
    assert code == 0
    info = json.loads(out)
    png, record, trace = (tmp_path / f"{info['instance_id']}{ext}" for ext in (".png", ".json", ".trace.json"))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rec = json.loads(record.read_text())
    assert rec["query"] == {"extreme": "lowest"} and rec["level"] == 2
    bars = json.loads(trace.read_text())["state"]["bars"]
    assert rec["answer"] == min(bars, key=lambda b: b["value"])["label"]
    response = tmp_path / "response.txt"
    response.write_text(f'The shortest bar is {rec["answer"]}.\n{{"answer": "{rec["answer"].upper()}"}}')
    code, out, _ = run(capsys, "score", str(record), str(response))
    assert code == 0 and json.loads(out)["reward"] == 1.0


def test_bad_cli_input_is_a_message(capsys, tmp_path):
    code, _, err = run(capsys, "sample", "charts.bar_chart.extremum_lable", "--seed", "1", "--out", str(tmp_path))
    assert code == 1 and "unknown task 'charts.bar_chart.extremum_lable'; did you mean charts.bar_chart.extremum_label" in err
    code, _, err = run(capsys, "sample", "charts.bar_chart.extremum_label", "--seed", "1", "--query", "extreme=mid",
                       "--out", str(tmp_path))
    assert code == 1 and "'mid' is not a value of extreme (values: highest, lowest)" in err
    code, _, err = run(capsys, "replay", str(tmp_path / "missing.trace.json"))
    assert code == 1 and "no such file or folder" in err
    (tmp_path / "x.json").write_text("{not json")
    code, _, err = run(capsys, "score", str(tmp_path / "x.json"), "-")
    assert code == 1 and "cannot read a JSON label" in err


def test_demo_writes_gallery(capsys, tmp_path, taxonomy):
    out = tmp_path / "demo"
    code, stdout, _ = run(capsys, "demo", "--out", str(out), "--per-task", "1")
    assert code == 0
    page = (out / "gallery" / "index.html").read_text()
    assert page.count('class="card"') == 2 * len(taxonomy.tasks)  # one train + one validation row per task
    assert (out / "dataset" / "manifest.json").exists()
    assert not (out / "gallery.partial").exists()
    assert "replay: " in stdout and "valid" in stdout
    # the audit of the demo build, linked from the gallery: every row counted, none flagged (too few rows per task)
    audit = json.loads((out / "audit" / "audit.json").read_text())
    assert audit["headline"]["rows"] == 2 * len(taxonomy.tasks) and audit["headline"]["tasks"] == len(taxonomy.tasks)
    assert f"audit: {len(taxonomy.tasks)} ({2 * len(taxonomy.tasks)} rows; 0 with enough rows to flag); " \
           f"0 threshold(s) exceeded" in stdout
    assert '<a href="../audit/index.html">audit</a>' in page and (out / "audit" / "index.html").is_file()


def test_demo_rebuilds_a_folder_built_from_other_inputs(capsys, tmp_path):
    """A demo folder built from other inputs (an older checkout) is rebuilt, not refused: the demo owns its folder
    (on one domain of the library: the bundled demo itself runs in the test above)."""
    from tests.test_fuzz import make_subset_root

    root, out = make_subset_root("puzzles", tmp_path / "lib"), tmp_path / "demo"
    shutil.copytree(ROOT / "taxonomy" / "builds", root / "taxonomy" / "builds")
    code, _, _ = run(capsys, "--root", str(root), "demo", "--out", str(out), "--per-task", "1")
    assert code == 0
    manifest_path = out / "dataset" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["code_sha256"] = "0" * 64
    manifest_path.write_text(json.dumps(manifest))
    code, stdout, _ = run(capsys, "--root", str(root), "demo", "--out", str(out), "--per-task", "1")
    assert code == 0 and "was built from other inputs; building it again" in stdout
    assert json.loads(manifest_path.read_text())["code_sha256"] != "0" * 64
    code, stdout, _ = run(capsys, "--root", str(root), "demo", "--out", str(tmp_path / "d2"), "--domain", "chess")
    assert code == 2 and f"error: no domain chess in {root}; its domains are puzzles" in " ".join(stdout.split())
    assert not (tmp_path / "d2").exists()
