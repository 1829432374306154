"""Issue 9, class 7: a build never hangs and never mixes versions, and I/O errors name the file.

A dead worker stops the build at once with a message, and a rerun resumes to the bytes of an uninterrupted build;
so does Ctrl-C. A resume after an edit of any input (program, grammar, contract, component, vocabulary, code,
versions) is refused with the tasks and shards named; `validate` refuses shards of two builds mixed in one
dataset. Disk-full and read-only errors say `error: <path>: <what> (<errno name>)` at every stage of a build, and
the dataset is never marked finished."""
from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tessera.cli import main, os_error_message
from tessera.errors import CompileFailed, TesseraError
from tessera.export import build as build_mod
from tessera.dataset import provenance
from tessera.export.build import BuildFailed, BuildInterrupted, WorkerDied, build
from tessera.export.config import load_build_config
from tessera.dataset.rows import named_io, write_shard
from tessera.taxonomy import compile_taxonomy
from tessera.validate.dataset import validate_dataset
from tests.bounds import poll_bounded, self_and_children_cpu_seconds, wait_bounded, wait_gone
from tests.conftest import ROOT
from tests.test_build import rows, same_tree

CHARTS, SHAPES = "charts.bar_chart.value_difference", "icons.shape_grid.empty_cells"

# Two tasks, one row per shard: train-00000 holds the charts task's first row, train-00001 the shapes task's.
TWO = f"""
build: two
seed: 5
select: {{tasks: ["{CHARTS}", "{SHAPES}"]}}
per_task: {{train: 2, validation: 1}}
levels: [0, 4]
shard_size: 1
jsonl: true
"""

# For the process tests: a short train split, then a validation split long enough to kill a worker in.
POOL = f"""
build: pool
seed: 3
select: {{tasks: ["{CHARTS}", "{SHAPES}"]}}
per_task: {{train: 4, validation: 20}}
levels: [0, 3]
shard_size: 2
"""


def _config_file(folder: Path, text: str) -> Path:
    path = folder / "build.yaml"
    path.write_text(textwrap.dedent(text).lstrip())
    return path


@pytest.fixture(scope="module")
def two_cfg(tmp_path_factory):
    return _config_file(tmp_path_factory.mktemp("two"), TWO)


@pytest.fixture(scope="module")
def two_ref(two_cfg, tmp_path_factory, taxonomy):
    out = tmp_path_factory.mktemp("two-ref") / "ds"
    build(load_build_config(two_cfg, taxonomy), taxonomy, out, workers=1)
    return out


@pytest.fixture(scope="module")
def pool_cfg(tmp_path_factory):
    return _config_file(tmp_path_factory.mktemp("pool"), POOL)


@pytest.fixture(scope="module")
def pool_ref(pool_cfg, tmp_path_factory, taxonomy):
    out = tmp_path_factory.mktemp("pool-ref") / "ds"
    build(load_build_config(pool_cfg, taxonomy), taxonomy, out, workers=1)
    return out


def _cli(config: Path, out: Path, workers: int) -> list[str]:
    return [sys.executable, "-m", "tessera.cli", "--root", str(ROOT), "build", str(config), "--out", str(out),
            "--workers", str(workers)]


ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def _pool_workers(pid: int) -> set[int]:
    """Children of `pid` running its own command line: forked pool workers (not Python's helper processes)."""
    try:
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        me = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return set()
    found = set()
    for k in kids:
        try:
            if Path(f"/proc/{k}/cmdline").read_bytes() == me:
                found.add(int(k))
        except OSError:
            pass
    return found


def _finish(proc: subprocess.Popen, cpu_seconds: float) -> tuple[int, str]:
    """Wait for the build to end; it fails if its process tree computes past `cpu_seconds` of CPU (it builds on
    instead of stopping) or stops computing without ending (it is blocked), never because the machine is slow."""
    _, err = wait_bounded(proc, cpu_seconds, "the build")
    return proc.returncode, err


# -- a dead worker --------------------------------------------------------------------------------------------
@pytest.mark.skipif(not Path("/proc/self/task").is_dir() or not hasattr(os, "fork"), reason="needs Linux /proc")
def test_killed_worker_stops_the_build_and_a_rerun_resumes_to_identical_bytes(pool_cfg, pool_ref, taxonomy,
                                                                                tmp_path):
    out = tmp_path / "ds"
    proc = subprocess.Popen(_cli(pool_cfg, out, 2), env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    train_workers: set[int] = set()
    victim = None

    def found_victim() -> bool:
        nonlocal victim
        now = _pool_workers(proc.pid)
        if len(list((out / "data").glob("train-*.parquet"))) < 4:
            train_workers.update(now)  # the train split's pool
        else:
            fresh = now - train_workers  # the validation split's pool: it has 60 items still to build
            victim = min(fresh) if fresh else None
        return victim is not None

    poll_bounded(found_victim, proc, 60, "a worker of the validation split's pool")
    assert victim is not None, "no worker of the validation split's pool was seen"
    os.kill(victim, signal.SIGKILL)
    rc, err = _finish(proc, 30)  # the whole build's CPU: it stops, it does not build the other 60 items
    assert rc == 1 and "Traceback" not in err
    assert f"error: a build worker process died (pid {victim}, killed by SIGKILL), so the build stopped; " in err
    kept = len(list((out / "data").glob("*.parquet")))
    assert kept >= 4  # the train split's shards, and any of validation's done before the kill
    assert f"{kept} finished shard(s) are kept in {out}; rerun the same command to resume" in err
    assert "ran out of memory: try fewer --workers" in err
    assert not (out / "manifest.json").exists()
    assert "manifest.json is missing" in validate_dataset(out).problems[0]
    assert build(load_build_config(pool_cfg, taxonomy), taxonomy, out, workers=2).resumed_shards == kept
    assert same_tree(pool_ref, out)


def _die_on_validation_item(item):
    """A worker that dies in the middle of an item (as the OOM killer would do it)."""
    if item.split == "validation" and item.task == SHAPES:
        os.kill(os.getpid(), signal.SIGKILL)
    return _real_build_item(item)


_real_build_item = build_mod.build_item


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the dying worker is patched in through fork")
def test_dead_worker_in_process_message_and_kept_shards(two_cfg, two_ref, taxonomy, tmp_path, monkeypatch):
    out = tmp_path / "ds"
    config = load_build_config(two_cfg, taxonomy)
    monkeypatch.setattr(build_mod, "build_item", _die_on_validation_item)
    started = self_and_children_cpu_seconds()
    with pytest.raises(WorkerDied) as info:
        build(config, taxonomy, out, workers=2)
    assert self_and_children_cpu_seconds() - started < 30
    msg = str(info.value)
    assert msg.startswith("a build worker process died (pid ") and ", killed by SIGKILL), so the build stopped" in msg
    assert f"4 finished shard(s) are kept in {out}; rerun the same command to resume" in msg
    monkeypatch.undo()
    result = build(config, taxonomy, out, workers=2)
    assert result.resumed_shards == 4
    assert same_tree(two_ref, out)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir() or not hasattr(os, "fork"), reason="needs Linux /proc")
def test_workers_end_when_the_parent_is_killed(pool_cfg, tmp_path):
    out = tmp_path / "ds"
    proc = subprocess.Popen(_cli(pool_cfg, out, 2), env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen: set[int] = set()

    def both_seen() -> bool:
        seen.update(_pool_workers(proc.pid))
        return len(seen) >= 2

    poll_bounded(both_seen, proc, 60, "the build's two pool workers")
    assert len(seen) == 2
    proc.kill()
    proc.wait()

    def alive(pid: int) -> bool:
        try:
            return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False

    left = wait_gone(list(seen), alive, 15, "the pool workers of a killed build")
    for p in left:  # do not leave them behind if the assertion fails
        os.kill(p, signal.SIGKILL)
    assert not left, f"workers {left} outlived their killed parent"


def test_a_worker_that_compiles_another_library_refuses_to_build(two_cfg, taxonomy, library_copy, monkeypatch):
    """Workers that compile the library themselves (spawn, Ray) check it is the one the build was planned from."""
    from tessera.dataset.provenance import fingerprint

    fp = fingerprint(load_build_config(two_cfg, taxonomy), taxonomy)
    _edit(library_copy, "program")
    item = build_mod.plan(load_build_config(two_cfg, taxonomy), taxonomy)["train"][0]
    monkeypatch.setattr(build_mod, "_WORKER", {})
    build_mod.init_worker(str(library_copy), {}, 12, 2, {"code": fp.code_sha256, "tasks": fp.tasks})
    with pytest.raises(BuildFailed, match=rf"^the library changed while the build ran \(tasks {CHARTS}\); rerun "
                                          rf"the build when the edit is done$"):
        build_mod.build_item(item)
    assert build_mod._stale_worker({"code": "0" * 64, "tasks": fp.tasks}, build_mod._WORKER["taxonomy"]) == (
        "a worker runs other tessera code or library versions than the build's parent")


# -- Ctrl-C ---------------------------------------------------------------------------------------------------
def test_ctrl_c_exits_cleanly_and_resumes(pool_cfg, pool_ref, taxonomy, tmp_path):
    out = tmp_path / "ds"
    proc = subprocess.Popen(_cli(pool_cfg, out, 2), env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    poll_bounded(lambda: len(list((out / "data").glob("*.parquet"))) >= 4, proc, 60, "four written shards")
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole process group
    rc, err = _finish(proc, 30)
    assert rc == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert err.strip().startswith("interrupted: the build stopped; ") and "finished shard(s) are kept in" in err
    assert not (out / "manifest.json").exists()
    kept = int(err.split("stopped; ")[1].split(" finished")[0])
    assert kept == len(list((out / "data").glob("*.parquet"))) >= 4
    assert build(load_build_config(pool_cfg, taxonomy), taxonomy, out, workers=2).resumed_shards == kept
    assert same_tree(pool_ref, out)


# -- resume after an edit -------------------------------------------------------------------------------------
def _interrupt_after(monkeypatch, shards: int) -> None:
    real = build_mod.write_shard
    calls = []

    def write(rows_, path, record=None):
        if len(calls) == shards:
            raise KeyboardInterrupt
        calls.append(path)
        real(rows_, path, record)

    monkeypatch.setattr(build_mod, "write_shard", write)


@pytest.fixture(scope="module")
def partial(two_cfg, taxonomy, tmp_path_factory):
    """An interrupted build of TWO holding its first shard: train-00000, one row of the charts task."""
    mp = pytest.MonkeyPatch()
    out = tmp_path_factory.mktemp("partial") / "ds"
    _interrupt_after(mp, 1)
    try:
        with pytest.raises(BuildInterrupted, match="1 finished shard"):
            build(load_build_config(two_cfg, taxonomy), taxonomy, out, workers=1)
    finally:
        mp.undo()
    assert sorted(p.name for p in (out / "data").glob("*.parquet")) == ["train-00000-of-00004.parquet"]
    return out


EDITS = {  # kind → (file, text, replacement): each a change of what the charts task's rows are made from
    "program": ("programs/charts/bar_chart/value_difference.yaml",
                "summary: Difference between", "summary: The difference between"),
    "grammar": ("grammars/charts/bar_chart.yaml", "Vertical bars, one per category",
                "Upright bars, one per category"),
    "contract": ("contracts/integer_exact.yaml", "summary: An integer, exact match", "summary: An integer, exactly"),
    "component": ("components/bar_chart.yaml", "summary: Vertical bars from zero", "summary: Upright bars from zero"),
    "vocab": ("taxonomy/vocab.yaml", "fruits: [apple, banana, cherry,", "fruits: [apple, fig, banana, cherry,"),
}


def _edit(library: Path, kind: str) -> None:
    rel, old, new = EDITS[kind]
    path = library / rel
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize("kind, tasks, part", [
    ("program", [CHARTS], "program"),
    ("grammar", [CHARTS], "grammar"),
    ("contract", [CHARTS], "contract"),  # only the charts task has a finished shard
    ("component", [CHARTS], "components"),
    ("vocab", [CHARTS], "vocab"),
])
def test_resume_after_an_edit_is_refused_naming_the_task(kind, tasks, part, partial, two_cfg, library_copy,
                                                         tmp_path, monkeypatch):
    monkeypatch.chdir(library_copy)
    _edit(library_copy, kind)
    edited = compile_taxonomy(library_copy)
    out = tmp_path / "ds"
    shutil.copytree(partial, out)
    before = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
    with pytest.raises(BuildFailed) as info:
        build(load_build_config(two_cfg, edited), edited, out, workers=1)
    lines = str(info.value).splitlines()
    assert lines[0] == (f"{out} holds finished shards of an interrupted build made from other inputs; resuming "
                        f"would mix old and new rows, so the build stops:")
    old = provenance.read_record(out / "data" / "train-00000-of-00004.parquet")["tasks"]
    new = provenance.fingerprint(load_build_config(two_cfg, edited), edited).tasks
    where = {"program": str(edited.tasks[CHARTS].source), "grammar": str(edited.tasks[CHARTS].grammar.source),
             "contract": "contract integer_exact", "components": "the components its scene uses",
             "vocab": "the vocabulary"}[part]
    assert where.endswith(EDITS[kind][0]) or kind not in ("program", "grammar")  # the file the author edited
    assert lines[1:] == [f"  task {t}: its {part} changed ({where}: sha256 {old[t][part][:12]}… → "
                         f"{new[t][part][:12]}…; 1 shard(s))" for t in tasks] + [
        f"to rebuild only those, rerun with --discard-stale (or delete them and rerun: rm "
        f"{out / 'data' / 'train-00000-of-00004.parquet'})",
        "or build into a fresh --out folder"]
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == before  # nothing was touched


def test_deleting_the_named_shards_resumes_to_a_fresh_build_of_the_edit(partial, two_cfg, library_copy, tmp_path,
                                                                        monkeypatch):
    monkeypatch.chdir(library_copy)
    _edit(library_copy, "program")
    edited = compile_taxonomy(library_copy)
    config = load_build_config(two_cfg, edited)
    out = tmp_path / "ds"
    shutil.copytree(partial, out)
    with pytest.raises(BuildFailed):
        build(config, edited, out, workers=1)
    (out / "data" / "train-00000-of-00004.parquet").unlink()
    build(config, edited, out, workers=1)
    fresh = tmp_path / "fresh"
    build(config, edited, fresh, workers=1)
    assert same_tree(fresh, out)
    assert validate_dataset(out).ok


def test_an_edit_of_a_task_with_no_finished_shard_resumes(partial, two_cfg, library_copy, tmp_path, monkeypatch):
    """Only train-00000 (the charts task) is finished: an edit of the shapes task mixes nothing."""
    monkeypatch.chdir(library_copy)
    prog = library_copy / "programs/icons/shape_grid/empty_cells.yaml"
    prog.write_text(prog.read_text().replace("How many cells of the board are empty?",
                                             "How many of the board's cells are empty?"))
    edited = compile_taxonomy(library_copy)
    config = load_build_config(two_cfg, edited)
    out = tmp_path / "ds"
    shutil.copytree(partial, out)
    assert build(config, edited, out, workers=1).resumed_shards == 1
    fresh = tmp_path / "fresh"
    build(config, edited, fresh, workers=1)
    assert same_tree(fresh, out)
    assert any("How many of the board's cells" in r["prompt"] for r in rows(out))


def test_discard_stale_rebuilds_only_the_edited_shards(partial, two_cfg, library_copy, tmp_path, monkeypatch):
    monkeypatch.chdir(library_copy)
    _edit(library_copy, "program")
    out = tmp_path / "ds"
    shutil.copytree(partial, out)
    argv = ["--root", str(library_copy), "build", str(two_cfg), "--out", str(out), "--workers", "1"]
    assert main(argv) == 1  # refused
    assert main([*argv, "--discard-stale"]) == 0
    edited = compile_taxonomy(library_copy)
    fresh = tmp_path / "fresh"
    build(load_build_config(two_cfg, edited), edited, fresh, workers=1)
    assert same_tree(fresh, out)
    assert validate_dataset(out).ok


def test_an_edit_that_changes_no_instance_resumes(partial, two_cfg, two_ref, library_copy, tmp_path, monkeypatch):
    """Comments, blank lines and trailing spaces are not in the parsed spec the hashes cover."""
    monkeypatch.chdir(library_copy)
    for rel in ("programs/charts/bar_chart/value_difference.yaml", "grammars/charts/bar_chart.yaml",
                "contracts/integer_exact.yaml", "components/bar_chart.yaml"):
        path = library_copy / rel
        first, rest = path.read_text().split("\n", 1)  # the first line is a plain `key: id`
        path.write_text(f"# edited: a comment and some whitespace\n\n{first}   # its id\n\n{rest}\n\n# the end\n")
    edited = compile_taxonomy(library_copy)
    out = tmp_path / "ds"
    shutil.copytree(partial, out)
    assert build(load_build_config(two_cfg, edited), edited, out, workers=1).resumed_shards == 1
    assert same_tree(two_ref, out)


# A selection that still matches after one of its tasks is deleted from the library.
GLOB = f"""
build: glob
seed: 5
select: {{tasks: ["charts.bar_chart.[sv]*"]}}
per_task: {{train: 2}}
levels: [0]
shard_size: 1
jsonl: true
"""
GONE = "programs/charts/bar_chart/sorted_labels.yaml"


@pytest.fixture
def glob_partial(taxonomy, tmp_path, monkeypatch):
    """(config, an interrupted build of GLOB holding its first shard, of sorted_labels then value_difference)."""
    cfg = _config_file(tmp_path, GLOB)
    out = tmp_path / "glob-partial"
    with monkeypatch.context() as m:
        _interrupt_after(m, 1)
        with pytest.raises(BuildInterrupted):
            build(load_build_config(cfg, taxonomy), taxonomy, out, workers=1)
    return cfg, out


def test_a_task_removed_before_the_resume_is_named(glob_partial, library_copy, tmp_path, monkeypatch):
    """0.8.0 resumed: the plan's shards got other names (train-…-of-00002), the old train-00000-of-00004 stayed in
    data/ beside them, the build said it finished, and `validate` and `datasets` refused the dataset."""
    cfg, partial_out = glob_partial
    monkeypatch.chdir(library_copy)
    (library_copy / GONE).unlink()
    edited = compile_taxonomy(library_copy)
    config = load_build_config(cfg, edited)
    out = tmp_path / "ds"
    shutil.copytree(partial_out, out)
    with pytest.raises(BuildFailed) as info:
        build(config, edited, out, workers=1)
    assert str(info.value).splitlines() == [
        f"{out} holds an unfinished build made from other inputs; resuming would mix old and new rows, so the "
        f"build stops:",
        "  the build's tasks changed: task(s) charts.bar_chart.sorted_labels no longer in the build (removed from "
        "the library, or no longer selected)",
        "to finish that build, rerun with its config and library; to throw its shards away and build this one "
        "here, rerun with --discard-stale; or build into a fresh --out folder"]
    # a build state written before the task list was recorded: the stray shard is caught by its name
    state = out / ".tessera-build" / "config.json"
    old = json.loads(state.read_text())
    state.write_text(json.dumps({k: old[k] for k in ("build", "config_sha256", "code_sha256")}))
    with pytest.raises(BuildFailed, match=r"\n  not a shard of this build's plan \(the selected tasks or their "
                                          r"counts changed\) \(1 shard\(s\)\)\n"):
        build(config, edited, out, workers=1)
    build(config, edited, out, workers=1, discard_stale=True)
    fresh = tmp_path / "fresh"
    build(config, edited, fresh, workers=1)
    assert same_tree(fresh, out)
    assert validate_dataset(out).ok


def test_a_task_removed_from_a_finished_dataset_is_not_called_done(glob_partial, library_copy, taxonomy,
                                                                   monkeypatch):
    cfg, out = glob_partial
    build(load_build_config(cfg, taxonomy), taxonomy, out, workers=1)
    monkeypatch.chdir(library_copy)
    (library_copy / GONE).unlink()
    edited = compile_taxonomy(library_copy)
    with pytest.raises(BuildFailed, match=r"already holds a finished dataset of this config, but built from other "
                                          r"inputs \(the build's tasks changed: task\(s\) "
                                          r"charts.bar_chart.sorted_labels no longer in the build"):
        build(load_build_config(cfg, edited), edited, out, workers=1, discard_stale=True)
    assert (out / "manifest.json").exists()  # a finished dataset is never discarded


def test_a_config_edited_before_the_resume_is_named(partial, two_cfg, taxonomy, tmp_path):
    cfg = _config_file(tmp_path, TWO.replace("seed: 5", "seed: 6"))
    config = load_build_config(cfg, taxonomy)
    out = tmp_path / "ds"
    shutil.copytree(partial, out)
    was = load_build_config(two_cfg, taxonomy).sha256
    with pytest.raises(BuildFailed) as info:
        build(config, taxonomy, out, workers=1)
    assert str(info.value).splitlines()[1] == (f"  the build config changed (seed 5 → 6; config sha256 {was[:12]}… → "
                                               f"{config.sha256[:12]}…)")
    build(config, taxonomy, out, workers=1, discard_stale=True)
    fresh = tmp_path / "fresh"
    build(config, taxonomy, fresh, workers=1)
    assert same_tree(fresh, out)


@pytest.mark.parametrize("change, expect", [
    ("code", "  the tessera code changed (files of the compiler package) (1 shard(s))"),
    ("versions", "  versions changed (numpy {was} → 0.0-other) (1 shard(s))"),
])
def test_resume_with_other_code_or_versions_is_refused(change, expect, partial, two_cfg, taxonomy, tmp_path,
                                                       monkeypatch):
    out = tmp_path / "ds"
    shutil.copytree(partial, out)
    real = provenance.versions()
    if change == "code":
        monkeypatch.setattr(provenance, "code_sha256", lambda: "0" * 64)
    else:
        monkeypatch.setattr(provenance, "versions", lambda: {**real, "numpy": "0.0-other"})
    with pytest.raises(BuildFailed) as info:
        build(load_build_config(two_cfg, taxonomy), taxonomy, out, workers=1)
    assert str(info.value).splitlines()[1] == expect.format(was=real["numpy"])


def test_finished_dataset_of_other_inputs_is_not_called_done(two_ref, two_cfg, library_copy, monkeypatch):
    monkeypatch.chdir(library_copy)
    _edit(library_copy, "component")
    edited = compile_taxonomy(library_copy)
    with pytest.raises(TesseraError, match=rf"already holds a finished dataset of this config, but built from "
                                           rf"other inputs \(task {CHARTS}: its components changed\); to build "
                                           rf"it again, choose a new --out folder"):
        build(load_build_config(two_cfg, edited), edited, two_ref, workers=1)


def test_shard_of_an_older_tessera_is_refused(partial, two_cfg, taxonomy, tmp_path):
    out = tmp_path / "ds"
    shutil.copytree(partial, out)
    shard = out / "data" / "train-00000-of-00004.parquet"
    import pyarrow.parquet as pq

    write_shard(pq.read_table(shard).to_pylist(), shard)  # no build record, as before this fix
    with pytest.raises(BuildFailed, match=r"\n  no build record: written by an older tessera, or damaged "
                                          r"\(1 shard\(s\)\)\n"):
        build(load_build_config(two_cfg, taxonomy), taxonomy, out, workers=1)


# -- validate on mixed datasets -------------------------------------------------------------------------------
def _swap_in(ds: Path, other: Path, name: str) -> None:
    """Copy shard `name` of `other` into `ds` and fix the manifest's size and hash, as a careful hand would."""
    shutil.copy(other / "data" / name, ds / "data" / name)
    _rehash(ds, name)


def _rehash(ds: Path, name: str) -> None:
    from tessera.export.build import _sha256_file

    manifest = json.loads((ds / "manifest.json").read_text())
    for split in manifest["splits"].values():
        for f in split["files"]:
            if f["name"] == f"data/{name}":
                f["sha256"] = _sha256_file(ds / "data" / name)
                f["bytes"] = (ds / "data" / name).stat().st_size
    (ds / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def test_validate_refuses_a_shard_from_another_spec(two_ref, two_cfg, library_copy, tmp_path, monkeypatch):
    monkeypatch.chdir(library_copy)
    _edit(library_copy, "grammar")
    edited = compile_taxonomy(library_copy)
    other = tmp_path / "other"
    build(load_build_config(two_cfg, edited), edited, other, workers=1)
    ds = tmp_path / "mixed"
    shutil.copytree(two_ref, ds)
    name = "train-00000-of-00004.parquet"
    _swap_in(ds, other, name)
    rep = validate_dataset(ds)
    assert rep.problems == [
        f"data/{name}: its build record differs from the manifest's (spec_sha256): the shard comes from another "
        f"build",
        f"data/{name}: built from other specs of task(s) {CHARTS} than the manifest records: rows of two "
        f"versions of a task are mixed"]
    # the CLI says it too, and fails
    assert main(["validate", str(ds)]) == 1


def test_validate_refuses_shards_of_other_code_or_without_a_record(two_ref, two_cfg, taxonomy, tmp_path,
                                                                   monkeypatch, capsys):
    other = tmp_path / "other"
    with monkeypatch.context() as m:
        m.setattr(provenance, "code_sha256", lambda: "0" * 64)
        build(load_build_config(two_cfg, taxonomy), taxonomy, other, workers=1)
    ds = tmp_path / "mixed"
    shutil.copytree(two_ref, ds)
    _swap_in(ds, other, "train-00001-of-00004.parquet")
    import pyarrow.parquet as pq

    bare = ds / "data" / "validation-00001-of-00002.parquet"
    write_shard(pq.read_table(bare).to_pylist(), bare)  # same rows, no record
    _rehash(ds, "validation-00001-of-00002.parquet")
    rep = validate_dataset(ds)
    assert rep.problems == [
        "data/train-00001-of-00004.parquet: its build record differs from the manifest's (spec_sha256): the shard "
        "comes from another build",
        "data/train-00001-of-00004.parquet: built by other tessera code or versions than the rest of the dataset",
        "data/validation-00001-of-00002.parquet: carries no build record (not written by `tessera build`, or "
        "damaged)"]
    # a manifest from before provenance records
    manifest = json.loads((ds / "manifest.json").read_text())
    del manifest["code_sha256"]
    (ds / "manifest.json").write_text(json.dumps(manifest))
    assert validate_dataset(ds).problems[0].startswith("manifest.json: no build provenance (code_sha256, "
                                                       "taxonomy.inputs): written by an older tessera")


def test_validate_given_the_library_warns_of_changed_tasks(two_ref, library_copy, monkeypatch, capsys):
    monkeypatch.chdir(library_copy)
    _edit(library_copy, "contract")
    assert main(["--root", str(library_copy), "validate", str(two_ref), "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["ok"] and not rep["problems"]  # the dataset is intact; the library moved on
    assert rep["warnings"] == [f"task {t}: its contract changed in the library since the build: replay will not "
                               f"match its rows" for t in (CHARTS, SHAPES)]


# -- I/O errors name the file ---------------------------------------------------------------------------------
def _enospc(*_a, **_k):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


STAGES = {
    # stage → (what to patch, the file the error must name (relative to the out folder)); where the bytes run out
    # inside a write, test_a_disk_that_fills_up_inside_any_write covers it
    "fsync": ("fsync", "data/.train-00000-of-00004.parquet.tmp"),
    "card_fsync": ("fsync", ".README.md.tmp"),
    "rename": ("replace", "data/.train-00000-of-00004.parquet.tmp"),
}


def _fail_at(monkeypatch, stage: str, out: Path, first: str) -> Path:
    """Make stage's call fail with ENOSPC the way it does: fsync(2) with no file name, a rename with both."""
    what, rel = STAGES[stage]
    target = out / rel.format(first=first)
    if what == "fsync":
        real_fsync = os.fsync
        monkeypatch.setattr(os, "fsync", lambda fd: _enospc() if os.readlink(f"/proc/self/fd/{fd}") == str(target)
                            else real_fsync(fd))
    else:
        real = getattr(Path, what)

        def patched(self, *a, **k):
            if self == target:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))
            return real(self, *a, **k)

        monkeypatch.setattr(Path, what, patched)
    return target


def _disk_full_hint() -> str:
    return ("hint: the disk is full: free some space, or choose an --out folder on another disk; finished shards are "
            "kept and the dataset is not marked finished; rerun the same command to resume")


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc to tell the file written")
@pytest.mark.parametrize("stage", list(STAGES))
def test_disk_full_at_each_stage_names_the_file_and_resumes(stage, two_cfg, two_ref, taxonomy, tmp_path,
                                                            monkeypatch):
    out = tmp_path / "ds"
    config = load_build_config(two_cfg, taxonomy)
    first = rows(two_ref, "train")[0]["instance_id"]
    with monkeypatch.context() as m:
        target = _fail_at(m, stage, out, first)
        with pytest.raises(OSError) as info:
            build(config, taxonomy, out, workers=1)
    assert (info.value.errno, info.value.filename) == (errno.ENOSPC, str(target))
    assert os_error_message(info.value, "build").splitlines() == [
        f"error: {target}: No space left on device (ENOSPC)", _disk_full_hint()]
    # never mistaken for finished, and no half-written temporary file left by the atomic writers
    assert not (out / "manifest.json").exists()
    assert not [p for p in out.rglob(".*.tmp") if p.is_file()]
    assert "manifest.json is missing" in validate_dataset(out).problems[0]
    build(config, taxonomy, out, workers=1)
    assert same_tree(two_ref, out)


class _SmallDisk:
    """The disk under `out`, with `room` bytes left (None: unlimited). Writes fail the way the kernel and pyarrow
    fail on a full disk: write(2) takes what fits, then raises ENOSPC with no file name; pyarrow leaves the bytes
    that fitted and raises a message with the errno in its text. Every file written is logged in order."""

    def __init__(self, out: Path, room: int | None = None):
        self.out, self.room = f"{out}{os.sep}", room
        self.written: dict[str, int] = {}  # path → bytes, in the order first written

    def take(self, path: str, n: int) -> int:
        self.written[path] = self.written.get(path, 0) + n
        if self.room is None:
            return n
        k = min(n, self.room)
        self.room -= k
        return k

    def install(self, monkeypatch) -> None:
        import io

        import pyarrow.parquet as pq

        real_write, real_open, real_table = os.write, io.open, pq.write_table
        disk = self

        def write(fd, data):
            path = os.readlink(f"/proc/self/fd/{fd}")
            if not path.startswith(disk.out):
                return real_write(fd, data)
            k = disk.take(path, len(data))
            if k == 0 and len(data):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return real_write(fd, data[:k])

        class Budgeted:  # what Path.write_text / write_bytes write through (io.open), sized the same way
            def __init__(self, path):
                self.path, self.f = path, real_open(path, "wb")

            def write(self, data):
                raw = data.encode() if isinstance(data, str) else bytes(data)
                k = disk.take(self.path, len(raw))
                self.f.write(raw[:k])
                if k < len(raw):
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                return len(data)

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self.f.close()

        def open_(file, mode="r", *a, **k):
            if any(c in mode for c in "wax") and str(file).startswith(disk.out):
                return Budgeted(str(file))
            return real_open(file, mode, *a, **k)

        def write_table(table, where, *a, **k):
            real_table(table, where, *a, **k)
            size = Path(where).stat().st_size
            if str(where).startswith(disk.out):
                k = disk.take(str(where), size)
                if k < size:
                    os.truncate(where, k)
                    raise OSError("Error writing bytes to file. Detail: [errno 28] No space left on device")

        monkeypatch.setattr(os, "write", write)
        monkeypatch.setattr(io, "open", open_)
        monkeypatch.setattr(pq, "write_table", write_table)


@pytest.fixture(scope="module")
def two_writes(two_cfg, taxonomy, tmp_path_factory) -> dict[str, int]:
    """Every file an uninterrupted build of TWO writes (relative to its out folder) → bytes, in order."""
    out = tmp_path_factory.mktemp("writes") / "ds"
    disk = _SmallDisk(out)
    with pytest.MonkeyPatch.context() as m:
        disk.install(m)
        build(load_build_config(two_cfg, taxonomy), taxonomy, out, workers=1)
    return {str(Path(p).relative_to(out)): n for p, n in disk.written.items()}


# the write the bytes run out in (half of it fits) → its file; each after train-00000 and train-00001 are finished
FULL_AT = {
    "shard statistics": ".tessera-build/shards/.train-00002-of-00004.parquet.json.tmp",
    "image": "images/train/.{image}.png.tmp",
    "jsonl": "jsonl/.train-00002-of-00004.jsonl.tmp",
    "parquet": "data/.train-00002-of-00004.parquet.tmp",
    "card": ".README.md.tmp",
    "manifest": ".manifest.json.tmp",
}


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc to tell the file written")
@pytest.mark.parametrize("stage", ["build state", *FULL_AT])
def test_a_disk_that_fills_up_inside_any_write(stage, two_cfg, two_ref, two_writes, taxonomy, tmp_path):
    """0.8.0 named the file only where pyarrow wrote it: a JSON, JSONL, image or card write that ran out of disk
    said `error: No space left on device (ENOSPC)` with no path, since write(2) gives Python none."""
    image = rows(two_ref, "train")[2]["instance_id"]
    rel = ".tessera-build/.config.json.tmp" if stage == "build state" else FULL_AT[stage].format(image=image)
    names = list(two_writes)
    before = sum(two_writes[n] for n in names[:names.index(rel)])
    out = tmp_path / "ds"
    config = load_build_config(two_cfg, taxonomy)
    with pytest.MonkeyPatch.context() as m:
        _SmallDisk(out, before + two_writes[rel] // 2).install(m)
        with pytest.raises(OSError) as info:
            build(config, taxonomy, out, workers=1)
    target = out / rel
    assert (info.value.errno, info.value.filename) == (errno.ENOSPC, str(target))
    assert os_error_message(info.value, "build").splitlines() == [
        f"error: {target}: No space left on device (ENOSPC)", _disk_full_hint()]
    assert not (out / "manifest.json").exists()  # never taken for finished
    assert not [p for p in out.rglob(".*.tmp") if p.is_file()]  # no half file left
    finished = [] if stage == "build state" else ["train-00000-of-00004.parquet", "train-00001-of-00004.parquet"]
    if stage in ("card", "manifest"):
        finished = sorted(p.name for p in (two_ref / "data").glob("*.parquet"))
    assert sorted(p.name for p in (out / "data").glob("*.parquet")) == finished  # none lost, none half
    for name in finished:
        assert (out / "data" / name).read_bytes() == (two_ref / "data" / name).read_bytes()
    assert build(config, taxonomy, out, workers=1).resumed_shards == len(finished)
    assert same_tree(two_ref, out)
    assert validate_dataset(out).ok


def test_cli_prints_the_file_and_errno_and_no_traceback(two_cfg, tmp_path, monkeypatch, capsys):
    out = tmp_path / "ds"
    real = Path.mkdir

    def mkdir(self, *a, **k):
        if self == out / ".tessera-build" / "shards":
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(self))
        return real(self, *a, **k)

    monkeypatch.setattr(Path, "mkdir", mkdir)
    assert main(["--root", str(ROOT), "build", str(two_cfg), "--out", str(out), "--workers", "1"]) == 1
    err = [line for line in capsys.readouterr().err.splitlines() if line]  # (the progress bar leaves a blank line)
    assert err == [f"error: {out}/.tessera-build/shards: Read-only file system (EROFS)",
                   "hint: the file system is read-only: choose an --out folder on a writable disk; finished shards "
                   "are kept and the dataset is not marked finished; rerun the same command to resume"]


def test_read_only_out_folder(two_cfg, tmp_path, capsys):
    parent = tmp_path / "ro"
    parent.mkdir()
    parent.chmod(0o555)
    try:
        probe = parent / "probe"
        try:
            probe.mkdir()
        except PermissionError:
            pass
        else:
            probe.rmdir()
            pytest.skip("running as root: chmod does not stop writes (test_cli_prints_the_file_and_errno covers it)")
        out = parent / "ds"
        assert main(["--root", str(ROOT), "build", str(two_cfg), "--out", str(out), "--workers", "1"]) == 1
        err = [line for line in capsys.readouterr().err.splitlines() if line]
        assert err[0] == f"error: {out}: Permission denied (EACCES)"
        assert err[1].startswith("hint: permission denied: check the folder's owner and mode")
    finally:
        parent.chmod(0o755)


@pytest.mark.parametrize("exc, text", [
    (OSError(errno.ENOSPC, "No space left on device"), "error: No space left on device (ENOSPC)"),
    (OSError(errno.EXDEV, "Invalid cross-device link", "/a", None, "/b"),
     "error: /a → /b: Invalid cross-device link (EXDEV)"),
    (OSError("pyarrow says something"), "error: pyarrow says something"),
])
def test_os_error_message_forms(exc, text):
    assert os_error_message(exc).splitlines()[0] == text


def test_named_io_gives_pyarrow_errors_a_file_and_errno(tmp_path):
    with pytest.raises(OSError) as info, named_io(tmp_path / "x.parquet"):
        raise OSError("Error writing bytes to file. Detail: [errno 30] Read-only file system")
    assert (info.value.errno, info.value.strerror, info.value.filename) == (
        errno.EROFS, "Read-only file system", str(tmp_path / "x.parquet"))
    with pytest.raises(OSError) as info, named_io(tmp_path / "y"):
        raise OSError(errno.EACCES, "Permission denied", "/somewhere/else")
    assert info.value.filename == "/somewhere/else"  # a file name it has already is kept


@pytest.mark.parametrize("room", [0.1, 0.5, 1.15])
def test_a_real_full_disk(room, two_cfg, two_ref, taxonomy, tmp_path):
    """A small tmpfs that fills up mid-build (needs root and mount, as in CI containers; skipped elsewhere). `room`:
    the disk's size over the dataset's bytes (a tmpfs rounds each file up to pages, so 1.15 still fills up). 0.8.0
    failed the first: the build state's JSON ran out of disk and the error named no file."""
    disk = tmp_path / "disk"
    disk.mkdir()
    used = sum(p.stat().st_size for p in two_ref.rglob("*") if p.is_file())
    size_kb = max(8, int(used * room) // 1024)
    if shutil.which("mount") is None or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size_kb}k", "tmpfs", str(disk)], capture_output=True).returncode:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        out = disk / "ds"
        config = load_build_config(two_cfg, taxonomy)
        with pytest.raises(OSError) as info:
            build(config, taxonomy, out, workers=1)
        assert info.value.errno == errno.ENOSPC and str(info.value.filename).startswith(f"{out}/")
        assert os_error_message(info.value, "build").splitlines() == [
            f"error: {info.value.filename}: No space left on device (ENOSPC)", _disk_full_hint()]
        assert not (out / "manifest.json").exists()
        assert not [p for p in out.rglob(".*.tmp") if p.is_file()]  # the half-written file was removed
        subprocess.run(["mount", "-o", f"remount,size={used * 4 // 1024 + 1024}k", str(disk)], check=True)
        build(config, taxonomy, out, workers=1)
        assert same_tree(two_ref, out)
        assert validate_dataset(out).ok
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)  # lazy: open handles do not keep it


# -- what the hashes cover ------------------------------------------------------------------------------------
def test_task_inputs_cover_nested_components(taxonomy):
    # the pets scene uses `sprites`, which uses one component per sprite family: an edit two levels down counts
    task = next(t for t in taxonomy.tasks.values() if t.grammar.id == "illustrations.pets")
    assert provenance._components_used(task.grammar.scene, set()) == {
        "sprites", "sprite_animals", "sprite_buildings", "sprite_furniture", "sprite_people", "sprite_plants",
        "sprite_things", "sprite_vehicles"}
    parts = provenance.task_parts(task, taxonomy)
    other = provenance.task_parts(task, taxonomy, {**provenance.component_hashes(ROOT.resolve()),
                                                   "sprite_animals": "edited"})
    assert [p for p in provenance.TASK_PARTS if parts[p] != other[p]] == ["components"]


def test_code_hash_covers_code_and_fonts_not_caches_or_swap_files(tmp_path):
    pkg = tmp_path / "compiler"
    (pkg / "render" / "fonts").mkdir(parents=True)
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "render" / "fonts" / "F.ttf").write_bytes(b"font")

    def sha():
        return provenance._code_files_sha(pkg)

    first = sha()
    (pkg / "__pycache__").mkdir()
    (pkg / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    (pkg / ".a.py.swp").write_bytes(b"\0")
    assert sha() == first
    (pkg / "render" / "fonts" / "F.ttf").write_bytes(b"other font")
    second = sha()
    assert second != first
    (pkg / "a.py").write_text("x = 2\n")
    assert sha() not in (first, second)


def test_an_edit_in_the_same_library_shows_in_one_process(two_cfg, library_copy, monkeypatch):
    monkeypatch.chdir(library_copy)
    tax = compile_taxonomy(library_copy)
    before = provenance.fingerprint(load_build_config(two_cfg, tax), tax)
    _edit(library_copy, "component")
    tax = compile_taxonomy(library_copy)
    after = provenance.fingerprint(load_build_config(two_cfg, tax), tax)
    assert provenance.differences(before.record([CHARTS, SHAPES]), after, [CHARTS, SHAPES]) == (
        [], {CHARTS: ["components"]})


@pytest.mark.parametrize("counts, expected", [
    ("per_task: {train: 1000000000000}",
     "build.yaml:4:19: error: 1,000,000,000,000 instances per task in split 'train' is more than one build makes "
     "(at most 100,000 per task and 2,000,000 rows in all; build a larger dataset as several builds with other "
     "seeds)  [bound]"),
    ("total: {train: 10, validation: 99999999999}",
     "build.yaml:4:32: error: 99,999,999,999 instances over 2 tasks in split 'validation' is more than one build "
     "makes (at most 100,000 per task and 2,000,000 rows in all; build a larger dataset as several builds with "
     "other seeds)  [bound]"),
])
def test_absurd_build_sizes_are_positioned_errors_before_anything_is_planned(tmp_path, taxonomy, monkeypatch,
                                                                            counts, expected):
    """0.8.0 accepted `per_task: {train: 10^12}` silently and planned rows until the machine killed it."""
    import time

    monkeypatch.chdir(tmp_path)
    path = _config_file(tmp_path, f"""
        build: huge
        seed: 1
        select: {{tasks: ["{CHARTS}", "{SHAPES}"]}}
        {counts}
        """)
    started = time.process_time()
    with pytest.raises(CompileFailed) as info:
        load_build_config(Path("build.yaml"), taxonomy)
    assert [str(d) for d in info.value.diagnostics.sorted()] == [expected]
    assert time.process_time() - started < 5  # refused, not planned


def test_the_rows_of_a_whole_build_are_bounded(tmp_path, taxonomy, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _config_file(tmp_path, """
        build: wide
        seed: 1
        select: {domains: [charts, symbolic]}
        per_task: {train: 100000, validation: 100000}
        """)
    with pytest.raises(CompileFailed) as info:
        load_build_config(Path("build.yaml"), taxonomy)
    n = 2 * 100_000 * len([t for t in taxonomy.tasks if t.startswith(("charts.", "symbolic."))])
    assert [str(d) for d in info.value.diagnostics.sorted()] == [
        f"build.yaml:4:11: error: the build would make {n:,} rows; the most one build makes is 2,000,000 (fewer "
        f"tasks or instances, or several builds with other seeds)  [bound]"]
