"""`tessera dev TASK`: one round draws levels 0/5/9 onto a contact sheet; a mistake prints as path:line:col and the
next save is picked up."""
from __future__ import annotations

import io

from PIL import Image

from tessera.cli import main
from tessera.dev import LEVELS, one_round, watch
from tessera.taxonomy import library_hash, open_taxonomy
from tessera.trace.instance import generate
from tests.test_compile_cache import charts_root

TASK = "charts.bar_chart.extremum_label"


def test_one_round_draws_the_levels_and_an_edit_shows_on_the_next(tmp_path, monkeypatch, capsys):
    root = charts_root(tmp_path / "lib")
    monkeypatch.chdir(root)
    out = tmp_path / "dev"
    assert main(["dev", TASK, "--seed", "4", "--out", str(out), "--once"]) == 0
    printed = capsys.readouterr().out
    sheet = Image.open(out / "sheet.png")
    assert sheet.size[0] > sheet.size[1] > 0  # three columns, two rows (plain, strong)
    tax = open_taxonomy(root)
    for lv in LEVELS:  # each cell's instance is the one `tessera sample` gives
        inst = generate(tax.task(TASK), 4, lv, None, tax.vocab)
        assert (out / f"none-level{lv}" / f"{inst.instance_id}.png").read_bytes() == inst.png
        assert f"level {lv}: " in printed
    assert list((out / "strong-level9").glob("*.jpg"))  # variety strong writes JPEG files

    before = library_hash(root)
    path = root / "programs/charts/bar_chart/extremum_label.yaml"
    text = path.read_text()
    path.write_text(text.replace("answer:", "answr:", 1))
    assert library_hash(root) != before
    r = one_round(root, TASK, 4, out, None)
    assert not r.ok
    said = "\n".join(r.lines)
    assert f"unknown task '{TASK}'" in said and "a file that does not load defines no task" in said
    line = text.splitlines().index(next(x for x in text.splitlines() if x.startswith("answer:"))) + 1
    assert f"programs/charts/bar_chart/extremum_label.yaml:{line}:1: error: unknown key 'answr'" in said, said
    stream = io.StringIO()
    assert watch(root, TASK, 4, out, None, 0.1, once=True, stream=stream) == 2
    assert "error" in stream.getvalue()
    path.write_text(text)
    assert one_round(root, TASK, 4, out, None).ok


def test_dev_rejects_an_unknown_task_with_a_suggestion(tmp_path, monkeypatch, capsys):
    root = charts_root(tmp_path / "lib")
    monkeypatch.chdir(root)
    assert main(["dev", "charts.bar_chart.extremum_labl", "--out", str(tmp_path / "d"), "--once"]) == 2
    assert "did you mean charts.bar_chart.extremum_label" in capsys.readouterr().out
