"""Traces replay byte for byte — in this process, in a fresh process — and a tampered trace is caught."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from tessera.cli import main, write_instance
from tessera.trace.instance import generate
from tessera.validate.replay import replay_trace
from tests.conftest import ROOT


def _env():
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def test_many_seeds_replay_in_a_separate_process(taxonomy, tmp_path):
    written = 0
    # one task of every grammar (the grammar draws the picture; every task replays in-process in test_tasks.py),
    # seeds and levels in turn
    firsts = {}
    for tid in sorted(taxonomy.tasks):
        firsts.setdefault(taxonomy.tasks[tid].grammar.id, tid)
    for i, tid in enumerate(sorted(firsts.values())):
        seed = i % 4
        inst = generate(taxonomy.tasks[tid], seed, (seed * 3 + i) % 10, vocab=taxonomy.vocab)
        write_instance(inst, tmp_path / tid)
        written += 1
    proc = subprocess.run([sys.executable, "-m", "tessera.cli", "--root", str(ROOT), "replay", str(tmp_path),
                           "--json"], capture_output=True, text=True, env=_env())
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["replayed"] == written and report["matched"] == written


def test_tampered_trace_is_detected(taxonomy, tmp_path, capsys):
    inst = generate(taxonomy.tasks["charts.bar_chart.sorted_labels"], 5, 4, vocab=taxonomy.vocab)
    _, _, trace_file = write_instance(inst, tmp_path)
    trace = json.loads(trace_file.read_text())
    trace["state"]["bars"][0]["value"] += 1
    trace["hashes"]["image"] = "0" * 64
    trace_file.write_text(json.dumps(trace))
    assert main(["--root", str(ROOT), "replay", str(trace_file)]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH" in out and "state: differs" in out and "hashes.image: recorded 0000000000000000…" in out


def test_replay_notices_changed_task_definition(fixture_lib, monkeypatch):
    from tessera.taxonomy import compile_taxonomy

    monkeypatch.chdir(fixture_lib)
    tax = compile_taxonomy(fixture_lib)
    inst = generate(tax.tasks["charts.bar_chart.value_difference"], 2, 1, vocab=tax.vocab)
    path = fixture_lib / "programs/charts/bar_chart/value_difference.yaml"
    path.write_text(path.read_text().replace("high.value - low.value", "high.value - low.value + 1"))
    result = replay_trace(inst.trace, compile_taxonomy(fixture_lib))
    assert not result.ok
    assert result.differences[0] == "hashes.task_spec: the task's YAML changed since this trace was written"
    assert "answer: differs" in result.differences


def test_same_seed_same_bytes_in_another_process(taxonomy):
    task = taxonomy.tasks["icons.shape_field.relation"]
    here = generate(task, 11, 7, vocab=taxonomy.vocab)
    code = ("from compiler.taxonomy import compile_taxonomy; from tessera.trace.instance import generate;"
            "import hashlib; t = compile_taxonomy(); i = generate(t.tasks['icons.shape_field.relation'], 11, 7,"
            " vocab=t.vocab); print(i.instance_id, hashlib.sha256(i.png).hexdigest())")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    import hashlib

    assert proc.stdout.split() == [here.instance_id, hashlib.sha256(here.png).hexdigest()]


def test_malformed_traces_get_a_message(tmp_path, capsys):
    bad = tmp_path / "bad.trace.json"
    for text, fragment in [("[1, 2]", "not a Tessera trace"),
                           ('{"format": "tessera.trace/1", "task": "charts.bar_chart.extremum_label", "seed": "x",'
                            ' "level": 0, "query": {}}', "malformed trace"),
                           ('{"format": "tessera.trace/1", "task": "nope.nope.nope", "seed": 1, "level": 0,'
                            ' "query": {}}', "unknown task 'nope.nope.nope'"),
                           ("{oops", "not a readable JSON trace")]:
        bad.write_text(text)
        assert main(["--root", str(ROOT), "replay", str(bad)]) == 1
        err = capsys.readouterr().err
        assert fragment in err and "Traceback" not in err
