"""Shared fixtures. The repo root goes first on sys.path so our `tests` package wins over any installed package of
the same name (the openrlhf wheel ships a top-level `tests`). `tessera` itself is the installed package, and it must
be this checkout's (`pip install -e .`, as `make test` does): testing another copy would prove nothing."""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import tessera  # noqa: E402

if Path(tessera.__file__).resolve().parent != ROOT / "compiler":
    raise pytest.UsageError(f"`import tessera` gives {Path(tessera.__file__).parent}, not this checkout's "
                            f"{ROOT / 'compiler'}: install it with `pip install -e {ROOT}` (make test does)")

# The repository root is on sys.path, so its source folders would import as top-level `compiler` and `training`:
# a second copy of the code, which a test could patch or check without touching the `tessera` it runs. Refuse them.
for _folder in ("compiler", "training"):
    sys.modules[_folder] = None  # `import compiler` now raises ImportError

# The compile cache of this test run: empty at the start (a user's ~/.cache never decides a test), shared by the
# xdist workers started after this import, gone with the temporary folder.
os.environ.setdefault("TESSERA_CACHE_DIR", tempfile.mkdtemp(prefix="tessera-test-cache-"))

from tessera.taxonomy import compile_taxonomy  # noqa: E402

LIBRARY_DIRS = ("taxonomy", "grammars", "programs", "contracts", "components")


@pytest.fixture(scope="session")
def taxonomy():
    """The bundled library, compiled once per process (each xdist worker) on first use, never at collection. The
    workers share the compile cache: the first to get here checks the library under a lock and stores the results,
    the others wait for it and load them instead of checking all of it again (compiled closures are built per process
    either way). Without the lock every worker of a fresh run checks the whole library at the same moment."""
    import fcntl
    folder = Path(os.environ.get("TESSERA_CACHE_DIR") or tempfile.gettempdir())
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "bundled-library.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        return compile_taxonomy(ROOT)


def library_task_ids(root: Path = ROOT) -> list[str]:
    """The task ids of the bundled programs, read from each file's `task:` header line without compiling anything:
    what tests parametrize over (collection stays cheap, and every worker collects the same list)."""
    ids = []
    for path in sorted((root / "programs").rglob("*.yaml")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("task:"):
                ids.append(line.split(":", 1)[1].split("#", 1)[0].strip().strip("'\""))
                break
    return sorted(ids)


@pytest.fixture
def library_copy(tmp_path) -> Path:
    """A writable copy of the bundled YAML library, for tests that break it on purpose."""
    for d in LIBRARY_DIRS:
        shutil.copytree(ROOT / d, tmp_path / d)
    return tmp_path


FIXTURE_LIB = ROOT / "tests/data/fixture_lib"


@pytest.fixture
def fixture_lib(tmp_path) -> Path:
    """A writable copy of tests/data/fixture_lib, a small library (charts.bar_chart and icons.icon_tally with a task
    or two each, every contract, the vocabulary) that compiles clean: what a test that breaks a library on purpose
    copies when it does not need the bundled library itself (20 files, not the bundled library's thousand)."""
    shutil.copytree(FIXTURE_LIB, tmp_path, dirs_exist_ok=True)
    return tmp_path


# Memory profile of a test run: with TESSERA_TEST_RSS_LOG=<folder>, every process (each xdist worker, or the one
# process without xdist) records its peak resident set after each test and, at the end, writes its peak and the tests
# that raised it most to <folder>/<worker>.txt. A worker that grows is found by reading which tests grew it.
_RSS_LOG = os.environ.get("TESSERA_TEST_RSS_LOG")
_rss_growths: list[tuple[int, str]] = []


def _peak_rss_mb() -> float:
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


if _RSS_LOG:
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        before = _peak_rss_mb()
        yield
        grown = _peak_rss_mb() - before
        if grown > 0:
            _rss_growths.append((round(grown), item.nodeid))

    def pytest_sessionfinish(session, exitstatus):
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        folder = Path(_RSS_LOG)
        folder.mkdir(parents=True, exist_ok=True)
        top = sorted(_rss_growths, reverse=True)[:40]
        lines = [f"peak_rss_mb {_peak_rss_mb():.0f}", *(f"{mb:6d} MB  {nodeid}" for mb, nodeid in top)]
        (folder / f"{worker}.txt").write_text("\n".join(lines) + "\n")


def probe_taxonomy(tmp: Path) -> None:
    """The shared part of a small probe library under `tmp`: the bundled contracts, components and vocabulary, and
    a taxonomy with one domain, `probe`, taking every `probe.*` task. A test adds its own grammar and program."""

    for d in ("contracts", "components"):
        shutil.copytree(ROOT / d, tmp / d)
    (tmp / "taxonomy").mkdir()
    shutil.copy(ROOT / "taxonomy/vocab.yaml", tmp / "taxonomy/vocab.yaml")
    (tmp / "taxonomy/taxonomy.yaml").write_text(
        'taxonomy: probe\nversion: 1\ndomains:\n  probe:\n    summary: Probe tasks.\n    tasks: ["probe.*"]\n')
