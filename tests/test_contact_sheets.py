"""The committed contact sheets (docs/assets-icons.png, docs/assets-objects.png, docs/solids.png) are what the marks
draw now: bench/contact_sheets.py --check redraws them through the real pipeline and compares bytes."""
from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _tool():
    spec = importlib.util.spec_from_file_location("contact_sheets", ROOT / "bench/contact_sheets.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_committed_sheets_are_current_and_a_changed_sheet_is_reported(tmp_path, capsys):
    tool = _tool()
    assert tool.main(["--check"]) == 0
    # a sheet that differs by one byte is stale: --check says which and exits 1
    tool.ROOT = tmp_path
    (tmp_path / "docs").mkdir()
    for rel in tool.SHEETS:
        (tmp_path / rel).write_bytes((ROOT / rel).read_bytes())
    bad = tmp_path / "docs/solids.png"
    bad.write_bytes(bad.read_bytes()[:-1] + b"\0")
    assert tool.main(["--check"]) == 1
    assert "stale: docs/solids.png" in capsys.readouterr().out
