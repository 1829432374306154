"""The file named by `--train.agent_func_path`: a shim OpenRLHF loads by path; the executor is training/online.py.

OpenRLHF 0.11 runs `spec_from_file_location("agent_module", path)` + `exec_module` without registering the module in
`sys.modules`, so nothing here may need its own module to be importable: no dataclasses, no
`from __future__ import annotations` (dataclasses look their module up in `sys.modules` to resolve string
annotations, and die with AttributeError). The implementation lives in the registered module `training.online`.

`tessera train --mode online` copies this file to OUTPUT/agent/agent.py with the run's settings beside it
(`tessera_agent.json`, which also names the code root), so the settings travel with the path OpenRLHF hands every
vLLM engine, whether Ray was started by the run or was already running. Loaded from the repository itself, the
settings come from TESSERA_AGENT_CONFIG (e.g. shipped by `ray job submit --runtime-env-json`); neither is an error.
"""
import json
import sys
from pathlib import Path

_SETTINGS = Path(__file__).with_name("tessera_agent.json")


def _code_root() -> str:
    """The folder holding `compiler/` and `training/`: beside a repository checkout's training/, or as recorded in
    the settings file of a run-folder copy."""
    here = Path(__file__).resolve().parent.parent
    if (here / "training" / "online.py").is_file():
        return str(here)
    try:
        return str(json.loads(_SETTINGS.read_text())["code_root"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else f"{type(exc).__name__}: {exc}"
        raise ImportError(f"{__file__}: not inside a Tessera checkout and no readable 'code_root' in {_SETTINGS} "
                          f"({why}); rewrite the run folder with `tessera train CONFIG --mode online`") from None


_ROOT = _code_root()
if _ROOT not in sys.path:
    sys.path.append(_ROOT)

import training.online  # noqa: E402

# `training` is a common name: refuse another project's package found first on sys.path (or left in the process).
if Path(training.online.__file__).resolve().parent.parent != Path(_ROOT).resolve():
    raise ImportError(f"{__file__}: `training` resolves to {training.online.__file__}, not the Tessera code at {_ROOT}; "
                      f"put {_ROOT} first on PYTHONPATH")

from training.online import AgentExecutor as _OnlineExecutor  # noqa: E402
from training.online import load_settings  # noqa: E402


class AgentExecutor(_OnlineExecutor):
    """What OpenRLHF builds (`AgentExecutor()`, once per engine): the online executor with this run's settings."""

    def __init__(self, settings=None, backend=None):
        super().__init__(settings if settings is not None else load_settings(_SETTINGS), backend)
