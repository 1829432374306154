"""The compile cache and lazy compiling: a cached or lazy compile reports and builds exactly what a cold one does.

Every comparison here is cold (no cache) against warm (the same cache read a second time, every entry a hit): the
same diagnostics in the same words and positions, the same summaries, the same instance bytes. The cache is read as
untrusted: garbage, foreign and half-written entries are misses, and concurrent writers never break a reader."""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tessera.cache import Cache
from tessera.cli import summary
from tessera.errors import CompileFailed
from tessera.taxonomy import compile_taxonomy, open_taxonomy
from tessera.trace.instance import canonical_json, generate
from tests.bounds import run_bounded, wait_bounded
from tests.conftest import LIBRARY_DIRS, ROOT


def _outcome(root: Path, cache: Cache) -> tuple[str, list[str]]:
    """('ok', summary and warnings) or ('failed', every diagnostic) of compiling `root` with `cache`."""
    try:
        tax = compile_taxonomy(root, cache=cache)
    except CompileFailed as exc:
        return "failed", [str(d) for d in exc.diagnostics.sorted()]
    info = summary(tax, 0.0)
    return "ok", [json.dumps(info, sort_keys=True), *(str(w) for w in tax.warnings)]


def _cold_and_warm(root: Path, folder: Path):
    cold = _outcome(root, Cache(None))
    first = Cache(folder)
    filled = _outcome(root, first)
    warm_cache = Cache(folder)
    warm = _outcome(root, warm_cache)
    return cold, filled, warm, first, warm_cache


def charts_root(dest: Path) -> Path:
    """A root holding only the charts domain (with every contract and component): a subset root."""
    for d in ("taxonomy", "contracts", "components"):
        shutil.copytree(ROOT / d, dest / d)
    for d in ("grammars", "programs"):
        shutil.copytree(ROOT / d / "charts", dest / d / "charts")
    return dest


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"))


# -- the whole library ---------------------------------------------------------------------------------------------
def test_cached_compile_of_the_library_is_the_cold_one_and_builds_the_same_bytes(tmp_path, taxonomy):
    cold, filled, warm, first, warm_cache = _cold_and_warm(ROOT, tmp_path / "cache")
    assert cold[0] == "ok" and cold == filled == warm
    assert first.misses > 0 and warm_cache.misses == 0 and warm_cache.hits > 0
    # Warm, nothing was compiled to summarise it; each task compiled on demand gives the cold compile's bytes.
    lazy = open_taxonomy(ROOT, cache=Cache(tmp_path / "cache"))
    assert lazy._compiler.compiled == {}
    assert sorted(lazy.tasks) == sorted(taxonomy.tasks)
    assert list(lazy.domains.items()) == list(taxonomy.domains.items())  # in order: JSON keeps it
    for i, tid in enumerate(sorted(taxonomy.tasks)):
        seed, level = i, i % 10
        a = generate(taxonomy.tasks[tid], seed, level, None, taxonomy.vocab)
        b = generate(lazy.tasks[tid], seed, level, None, lazy.vocab)
        assert (a.png, canonical_json(a.trace), a.prompt) == (b.png, canonical_json(b.trace), b.prompt), tid
        assert list(lazy.info(tid).queries.items()) == list(taxonomy.tasks[tid].queries.items())
        assert lazy.info(tid).answer_type == taxonomy.tasks[tid].answer_type
    assert len(lazy._compiler.compiled) > 0


# -- errors: the same diagnostics cold and warm -------------------------------------------------------------------
BROKEN = {
    "yaml syntax": ("contracts/broken.yaml", "contract: broken\nsummary: [unclosed\n"),
    "schema": ("programs/charts/bad_schema.yaml", """
        task: charts.bar_chart.bad_schema
        grammar: charts.bar_chart
        summary: s
        operations: [count]
        bucket: nowhere
        answer: {value: len(bars), contract: integer_exact}
        witness: {set: bars}
        prompt: p
        """),
    "types": ("programs/charts/bad_types.yaml", """
        task: charts.bar_chart.bad_types
        grammar: charts.bar_chart
        summary: s
        operations: [lookup]
        bucket: math
        compute:
          best: argmax(bars, b -> b.valu)
        answer: {value: "bars[0].label", contract: integer_exact}
        witness: {bbox: "bars[0]"}
        prompt: "{{ nope( }}"
        """),
    "references": ("programs/charts/bad_refs.yaml", """
        task: charts.bar_chart.bad_refs
        grammar: charts.no_such_grammar
        summary: s
        operations: [count]
        bucket: counting
        answer: {value: len(bars), contract: no_such_contract}
        witness: {set: bars}
        prompt: p
        """),
    "unknown component": ("grammars/charts/bad_use.yaml", """
        grammar: charts.bad_use
        summary: s
        state:
          n: randint(1, 3)
        render:
          scene:
            use: no_such_component
        """),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_library_reports_the_same_diagnostics_cold_and_warm(tmp_path, monkeypatch, case):
    root = charts_root(tmp_path / "lib")
    monkeypatch.chdir(root)
    rel, text = BROKEN[case]
    write(root, rel, text)
    cold, filled, warm, _, warm_cache = _cold_and_warm(root, tmp_path / "cache")
    assert cold[0] == "failed" and cold == filled == warm, case
    assert warm_cache.misses == 0
    assert any(rel in line for line in cold[1]), cold[1]


def test_a_component_edit_reaches_the_grammars_that_use_it(tmp_path, monkeypatch):
    root = charts_root(tmp_path / "lib")
    monkeypatch.chdir(root)
    cache = tmp_path / "cache"
    assert _outcome(root, Cache(cache))[0] == "ok"
    path = root / "components" / "bar_chart.yaml"
    path.write_text(path.read_text().replace("summary:", "summary: edited.", 1))
    edited = Cache(cache)
    assert _outcome(root, edited)[0] == "ok"
    assert edited.misses > 0  # the grammars that use bar_chart (and their tasks) were checked again
    text = path.read_text()
    assert "params:" in text
    path.write_text(text.replace("params:", "params:\n  broken_param: {kind: no_such_kind}", 1))
    cold = _outcome(root, Cache(None))
    warm = _outcome(root, Cache(cache))
    assert cold[0] == "failed" and warm == cold
    assert any("components/bar_chart.yaml" in line for line in cold[1])


def test_a_subset_root_compiles_with_a_warning_per_empty_domain(tmp_path, monkeypatch):
    root = charts_root(tmp_path / "lib")
    monkeypatch.chdir(root)
    tax = compile_taxonomy(root, cache=Cache(None))
    assert set(tax.domains["charts"]) == set(tax.tasks) and tax.domains["games"] == []
    warned = sorted(str(w) for w in tax.warnings)
    assert len(warned) == len(tax.domains) - 1
    assert all(": warning: pattern '" in w and "matches no task" in w for w in warned)
    assert any("pattern 'games.*' matches no task (domain 'games' is empty in this root)" in w for w in warned)


# -- lazy commands ---------------------------------------------------------------------------------------------------
def test_a_mistake_elsewhere_does_not_stop_a_task_but_its_own_does(tmp_path, monkeypatch):
    root = charts_root(tmp_path / "lib")
    monkeypatch.chdir(root)
    rel, text = BROKEN["types"]
    write(root, rel, text)
    write(root, *BROKEN["yaml syntax"])
    tax = open_taxonomy(root, cache=Cache(None))
    inst = generate(tax.task("charts.bar_chart.extremum_label"), 3, 4, None, tax.vocab)
    assert inst.png.startswith(b"\x89PNG")
    assert [str(d) for d in tax.problems] == [
        "contracts/broken.yaml:3:1: error: YAML syntax: did not find expected ',' or ']' (while parsing a flow "
        "sequence)  [yaml-syntax]"]
    with pytest.raises(CompileFailed) as info:
        tax.task("charts.bar_chart.bad_types")
    lines = [str(d) for d in info.value.diagnostics.sorted()]
    assert lines == [line for line in _outcome(root, Cache(None))[1] if line.startswith(rel)]
    assert any("unknown field 'valu'" in line for line in lines)


# -- the cache as untrusted input ------------------------------------------------------------------------------------
def _rows(db: Path) -> list[tuple[str, str, str]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT kind, key, data FROM entries ORDER BY kind, key").fetchall()


def test_garbage_foreign_and_oversized_entries_are_misses(tmp_path, monkeypatch):
    root = charts_root(tmp_path / "lib")
    monkeypatch.chdir(root)
    folder = tmp_path / "cache"
    good = _outcome(root, Cache(folder))
    db = Cache(folder).path
    rows = _rows(db)
    assert len(rows) > 100
    # Each entry gets another entry's value (well formed, for another key), garbage, NaN, deep nesting, a value
    # past the 8 MiB bound, or an empty object: every one must be a miss, and the compile the same.
    poison = [lambda i: rows[(i + 1) % len(rows)][2], lambda i: "\x00garbage", lambda i: '{"a": NaN}',
              lambda i: "[" * 100_000, lambda i: " " * (9 << 20), lambda i: "{}"]
    with sqlite3.connect(db) as conn:
        conn.executemany("UPDATE entries SET data = ? WHERE kind = ? AND key = ?",
                         [(poison[i % len(poison)](i), kind, key) for i, (kind, key, _) in enumerate(rows)])
    again = Cache(folder)
    assert _outcome(root, again) == good
    assert again.hits == 0 and again.misses > 0
    rebuilt = Cache(folder)
    assert _outcome(root, rebuilt) == good and rebuilt.misses == 0 and rebuilt.hits > 0


@pytest.mark.parametrize("damage", ["garbage file", "foreign schema", "trigger", "link"])
def test_an_unusable_cache_file_is_set_aside_and_rebuilt(tmp_path, monkeypatch, damage):
    root = charts_root(tmp_path / "lib")
    monkeypatch.chdir(root)
    folder = tmp_path / "cache"
    good = _outcome(root, Cache(None))
    db = Cache(folder).path
    folder.mkdir()
    if damage == "garbage file":
        db.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 64)
    elif damage == "link":
        (tmp_path / "elsewhere.sqlite").write_bytes(b"")
        db.symlink_to(tmp_path / "elsewhere.sqlite")
    else:
        with sqlite3.connect(db) as conn:
            conn.execute("CREATE TABLE entries (kind TEXT NOT NULL, key TEXT NOT NULL, data TEXT NOT NULL, "
                         "PRIMARY KEY (kind, key)) WITHOUT ROWID")
            if damage == "trigger":
                conn.execute("CREATE TABLE spy (data TEXT)")
                conn.execute("CREATE TRIGGER copy AFTER INSERT ON entries BEGIN INSERT INTO spy VALUES "
                             "(new.data); END")
            else:
                conn.execute("CREATE TABLE other (x)")
    first = Cache(folder)
    assert _outcome(root, first) == good and first.hits == 0
    assert list(folder.glob("*.unusable-*")), "the unusable file was moved aside"
    assert db.is_file() and not db.is_symlink() and (tmp_path / "elsewhere.sqlite").read_bytes() in (b"", None) \
        if damage == "link" else db.is_file()
    warm = Cache(folder)
    assert _outcome(root, warm) == good and warm.misses == 0


def test_concurrent_compiles_share_one_cache(tmp_path):
    root = charts_root(tmp_path / "lib")
    env = {**os.environ, "TESSERA_CACHE_DIR": str(tmp_path / "cache")}
    cmd = [sys.executable, "-m", "tessera.cli", "--root", str(root), "compile", "--json"]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) for _ in range(4)]
    outs = [wait_bounded(p, 300, "a concurrent compile") for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1].decode()[-2000:] for o in outs]
    infos = [json.loads(o[0]) for o in outs]
    for info in infos:
        info.pop("compile_seconds")
    assert all(info == infos[0] for info in infos)
    db = Cache(tmp_path / "cache").path
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    for _, _, data in _rows(db):
        json.loads(data)  # every entry whole
    warm = Cache(tmp_path / "cache")
    assert _outcome(root, warm)[0] == "ok" and warm.misses == 0


def test_no_cache_writes_nothing(tmp_path):
    root = charts_root(tmp_path / "lib")
    env = {**os.environ, "TESSERA_CACHE_DIR": str(tmp_path / "cache")}
    r = run_bounded([sys.executable, "-m", "tessera.cli", "--root", str(root), "--no-cache", "list"], 300, env=env)
    assert r.returncode == 0, r.stderr
    assert "charts.bar_chart.extremum_label" in r.stdout
    assert not (tmp_path / "cache").exists()
    env["TESSERA_NO_CACHE"] = "1"
    r = run_bounded([sys.executable, "-m", "tessera.cli", "--root", str(root), "list"], 300, env=env)
    assert r.returncode == 0 and not (tmp_path / "cache").exists()


def test_compile_filters_check_their_tasks_and_leave_the_rest(tmp_path, monkeypatch, capsys):
    from tessera.cli import main

    root = charts_root(tmp_path / "lib")
    monkeypatch.chdir(root)
    write(root, "programs/games/elsewhere.yaml", BROKEN["references"][1].replace("charts.bar_chart.bad_refs",
                                                                               "games.board.bad_refs"))
    assert main(["compile"]) == 2
    assert "programs/games/elsewhere.yaml:2:10: error: task 'games.board.bad_refs' uses unknown grammar" in \
        capsys.readouterr().err
    assert main(["compile", "--domain", "charts", "--json"]) == 0
    out = capsys.readouterr()
    info = json.loads(out.out)
    assert info["tasks"] == 40 and info["by_domain"] == {"charts": {"grammars": 18, "tasks": 40}}
    assert "note: 2 problems elsewhere in the library" in out.err
    assert main(["compile", "--task", "charts.bar_chart.*", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["grammars"] == 1
    write(root, *BROKEN["types"])
    assert main(["compile", "--grammar", "charts.bar_chart"]) == 2
    err = capsys.readouterr().err
    assert "programs/charts/bad_types.yaml:" in err and "elsewhere.yaml" not in err


@pytest.mark.parametrize("case", ["types", "unknown component"])
def test_a_cold_compile_on_several_workers_reports_what_one_process_does(tmp_path, monkeypatch, case):
    import tessera.taxonomy as taxonomy_module

    root = charts_root(tmp_path / "lib")
    monkeypatch.chdir(root)
    monkeypatch.setattr(taxonomy_module, "MIN_UNITS_PER_WORKER", 1)
    monkeypatch.setenv("TESSERA_COMPILE_WORKERS", "1")
    assert taxonomy_module.compile_workers(500) == 1
    good_serial = _outcome(root, Cache(tmp_path / "serial-good"))
    write(root, *BROKEN[case])
    serial = _outcome(root, Cache(tmp_path / "serial"))
    monkeypatch.setenv("TESSERA_COMPILE_WORKERS", "3")
    assert taxonomy_module.compile_workers(500) == 3
    parallel_cache = tmp_path / "parallel"
    parallel = _outcome(root, Cache(parallel_cache))
    assert serial[0] == "failed" and parallel == serial
    warm = Cache(parallel_cache)  # the workers wrote the entries: a second run finds them all
    assert _outcome(root, warm) == serial and warm.misses == 0
    (root / BROKEN[case][0]).unlink()
    assert _outcome(root, Cache(tmp_path / "parallel-good")) == good_serial


def test_where_the_cache_lives(monkeypatch, tmp_path):
    from tessera.cache import default_dir

    monkeypatch.setenv("TESSERA_CACHE_DIR", str(tmp_path / "a"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_dir() == tmp_path / "a"
    monkeypatch.delenv("TESSERA_CACHE_DIR")
    assert default_dir() == tmp_path / "xdg" / "tessera"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_dir() == tmp_path / "home" / ".cache" / "tessera"
    for off in ("1", "yes"):
        monkeypatch.setenv("TESSERA_NO_CACHE", off)
        assert default_dir() is None and not Cache.default().enabled
    monkeypatch.setenv("TESSERA_NO_CACHE", "0")
    assert default_dir() == tmp_path / "home" / ".cache" / "tessera"


def test_an_unwritable_cache_folder_is_no_cache(tmp_path, monkeypatch):
    root = charts_root(tmp_path / "lib")
    monkeypatch.chdir(root)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would be")
    cache = Cache(blocker / "cache")
    assert _outcome(root, cache) == _outcome(root, Cache(None))
    assert not cache.enabled and blocker.read_text().startswith("a file")
