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
    return compile_taxonomy(ROOT)


@pytest.fixture
def library_copy(tmp_path) -> Path:
    """A writable copy of the bundled YAML library, for tests that break it on purpose."""
    for d in LIBRARY_DIRS:
        shutil.copytree(ROOT / d, tmp_path / d)
    return tmp_path
