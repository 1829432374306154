"""The real wheel: built from a copy of the sources (never in the checkout), inspected, installed (not editable)
into a fresh virtual environment, and run from a folder that is not the repository — the YAML library, fonts and
configs must come from the package data, and its instances must be the checkout's, byte for byte."""
from __future__ import annotations

import json
import os
import shutil
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

import tessera
from tests.bounds import run_bounded
from tests.conftest import LIBRARY_DIRS, ROOT

SOURCES = ("pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md", "compiler", "training", *LIBRARY_DIRS)
TASK, SEED, LEVEL = "charts.bar_chart.extremum_label", 7, 3


def _run(cmd, cwd, cpu_seconds=300, env=None):
    done = run_bounded(cmd, cpu_seconds, cwd=cwd, env=env)
    assert done.returncode == 0, f"{cmd}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("src")
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(ROOT / name, src / name)
    dist = tmp_path_factory.mktemp("dist")
    # the build backend from this environment (setuptools is in the test extras): no download while testing
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(dist), "."], src)
    [whl] = dist.glob("tessera-*.whl")
    return whl


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """A fresh venv holding the wheel; its dependencies come from this environment's site-packages (a path, not
    a processed site dir, so this environment's editable `tessera` is not visible there)."""
    env = tmp_path_factory.mktemp("venv")
    _run([sys.executable, "-m", "venv", "--without-pip", str(env)], env)
    purelib = Path(_run([str(env / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                        env).strip())
    deps = [p for p in sys.path if Path(p).name in ("site-packages", "dist-packages") and Path(p).is_dir()]
    (purelib / "deps.pth").write_text("\n".join(deps) + "\n")
    _run([sys.executable, "-m", "pip", "--python", str(env / "bin" / "python"), "install", "-q", "--no-deps",
          "--no-index", str(wheel)], env)
    return env


def test_the_wheel_holds_one_package_with_its_data_and_licences(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    dist_info = f"tessera-{tessera.__version__}.dist-info"
    assert {n.split("/")[0] for n in names} == {"tessera", dist_info}  # no `compiler`, no `training`
    for folder in LIBRARY_DIRS:
        shipped = sorted(n.removeprefix(f"tessera/library/{folder}/") for n in names
                         if n.startswith(f"tessera/library/{folder}/"))
        assert shipped == sorted(str(p.relative_to(ROOT / folder)) for p in (ROOT / folder).rglob("*.yaml")), folder
    fonts = ROOT / "compiler" / "render" / "fonts"
    shipped_fonts = sorted(n.removeprefix("tessera/render/fonts/") for n in names if n.startswith("tessera/render/fonts/"))
    assert shipped_fonts == sorted(str(p.relative_to(fonts)) for p in fonts.rglob("*")
                                   if p.is_file() and "__pycache__" not in p.parts and not p.name.startswith("."))
    for need in ("tessera/py.typed", "tessera/expr/expr.lark", "tessera/render/fonts/DejaVuSans.ttf",
                 "tessera/render/fonts/LICENSE-DejaVu.txt", "tessera/training/configs/qwen2_5_vl_3b.yaml",
                 "tessera/training/agent.py", "tessera/training/smoke_gpu.sh", f"{dist_info}/licenses/LICENSE",
                 "tessera/tools/session.py", "tessera/training/episode.py", "tessera/schema/grammar.schema.json",
                 "tessera/assets/geo/countries-110m.json", "tessera/assets/geo/manifest.csv",
                 "tessera/assets/geo/LICENSE-world-atlas", f"{dist_info}/licenses/compiler/assets/geo/LICENSE-world-atlas"):
        assert need in names, need
    with zipfile.ZipFile(wheel) as z:
        meta = Parser().parsestr(z.read(f"{dist_info}/METADATA").decode())
        assert z.read(f"{dist_info}/entry_points.txt").decode().split() == ["[console_scripts]",
                                                                             "tessera", "=", "tessera.cli:main"]
        assert z.read(f"{dist_info}/licenses/LICENSE") == (ROOT / "LICENSE").read_bytes()
    assert meta["Name"] == "tessera" and meta["Version"] == tessera.__version__
    assert meta["License-Expression"] == "Apache-2.0"


def test_the_installed_wheel_works_from_another_folder(venv, tmp_path, taxonomy):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    py, cli = str(venv / "bin" / "python"), str(venv / "bin" / "tessera")
    where = json.loads(_run([py, "-c", "import json, tessera, tessera.taxonomy as t; print(json.dumps("
                                       "[tessera.__file__, str(t.DEFAULT_ROOT)]))"], elsewhere, env=env))
    assert where[0].startswith(str(venv)) and where[1].startswith(str(venv)) and where[1].endswith("library")
    for generic in ("compiler", "training"):  # the distribution claims no generic top-level name
        probe = run_bounded([py, "-c", f"import {generic}"], 60, cwd=elsewhere, env=env)
        assert probe.returncode != 0 and f"No module named '{generic}'" in probe.stderr

    listed = json.loads(_run([cli, "compile", "--json"], elsewhere, env=env))
    assert listed["tasks"] == len(taxonomy.tasks) and listed["grammars"] == len(taxonomy.grammars)
    _run([cli, "sample", TASK, "--seed", str(SEED), "--level", str(LEVEL), "--out", "s"], elsewhere, env=env)
    from tessera.trace.instance import generate

    here = generate(taxonomy.task(TASK), SEED, LEVEL, None, taxonomy.vocab)
    assert (elsewhere / "s" / f"{here.instance_id}.png").read_bytes() == here.png  # same bytes as the checkout

    (elsewhere / "tiny.yaml").write_text("build: tiny\nseed: 1\nselect: {tasks: [charts.bar_chart.*]}\n"
                                         "per_task: {train: 1}\n")
    script = f"""
import json, tessera
inst = tessera.generate({TASK!r}, {SEED}, {LEVEL})
score = tessera.score(inst.label, "so " + json.dumps({{"answer": inst.answer}}))
result = tessera.build("tiny.yaml", "ds", workers=1)
print(json.dumps([inst.instance_id, score.reward, sum(s["rows"] for s in result.manifest["splits"].values()),
                  all(r.ok for r in tessera.replay("ds"))]))
"""
    seen = json.loads(_run([py, "-c", script], elsewhere, env=env))
    bar_tasks = [t for t in taxonomy.tasks if t.startswith("charts.bar_chart.")]
    assert seen == [here.instance_id, 1.0, len(bar_tasks), True]
    assert "valid" in _run([cli, "validate", "ds"], elsewhere, env=env)


def test_the_installed_demo_runs_from_another_folder(venv, tmp_path, taxonomy):
    """The installed demo compiles the whole bundled library and builds two of its domains (the checkout's demo
    builds every task: tests/test_cli.py)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = _run([str(venv / "bin" / "tessera"), "demo", "--out", "d", "--per-task", "1", "--domain", "puzzles",
                "--domain", "physics"], tmp_path, env=env)
    assert f"compiled {len(taxonomy.tasks)} tasks" in out
    assert "validate: valid; replay:" in out and "byte for byte" in out
    manifest = json.loads((tmp_path / "d" / "dataset" / "manifest.json").read_text())
    rows = sum(s["rows"] for s in manifest["splits"].values())
    chosen = [t for t in taxonomy.tasks if t.split(".")[0] in ("puzzles", "physics")]
    assert f"replay: {rows}/{rows} byte for byte" in out and manifest["splits"]["train"]["rows"] == len(chosen)
    assert (tmp_path / "d" / "gallery" / "index.html").is_file()


def test_every_source_package_is_in_the_packages_configuration():
    """Each folder of compiler/ and training/ with an __init__.py is listed in pyproject's [tool.setuptools]
    packages (0.11's tessera.dataset was not, and only the slow wheel tests caught it, by failing to import)."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    folders = {"tessera": ROOT / "compiler", "tessera.training": ROOT / "training"}
    found = {".".join((top, *p.parent.relative_to(base).parts)).rstrip(".")
             for top, base in folders.items() for p in base.rglob("__init__.py")}
    assert found - listed == set(), f"add to [tool.setuptools] packages in pyproject.toml: {sorted(found - listed)}"
