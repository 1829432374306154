"""Shared fixtures. The repo root goes first on sys.path so our `tests` and `compiler` packages win over any
installed package of the same name (the openrlhf wheel ships a top-level `tests`)."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from compiler.taxonomy import compile_taxonomy  # noqa: E402

LIBRARY_DIRS = ("taxonomy", "grammars", "programs", "contracts", "components")


@pytest.fixture(scope="session")
def taxonomy():
    return compile_taxonomy(ROOT)


@pytest.fixture
def library_copy(tmp_path) -> Path:
    """A writable copy of the bundled YAML library, for tests that break it on purpose."""
    for d in LIBRARY_DIRS:
        shutil.copytree(ROOT / d, tmp_path / d)
    return tmp_path
