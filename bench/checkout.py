"""Which checkout's code a bench runs: `load_tessera(root)` makes `import tessera` resolve to root/compiler.

The editable install maps `tessera` to this checkout's compiler/, whatever sys.path says, so a bench that only put
another checkout on sys.path compared this code with that checkout's YAML. Registering the package from its own
__init__.py before anything imports it makes every submodule load from root/compiler (the editable finder comes
after the path finder)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def load_tessera(root: Path) -> None:
    if "tessera" in sys.modules:
        loaded = Path(sys.modules["tessera"].__file__).resolve().parent
        if loaded != (root / "compiler").resolve():
            raise SystemExit(f"tessera is already imported from {loaded}, not {root / 'compiler'}")
        return
    spec = importlib.util.spec_from_file_location("tessera", root / "compiler" / "__init__.py",
                                                  submodule_search_locations=[str(root / "compiler")])
    module = importlib.util.module_from_spec(spec)
    sys.modules["tessera"] = module
    spec.loader.exec_module(module)
