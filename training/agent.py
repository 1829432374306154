"""The file named by `--train.agent_func_path`: a shim OpenRLHF loads by path; the executor is training/online.py.

OpenRLHF 0.11 runs `spec_from_file_location("agent_module", path)` + `exec_module` without registering the module in
`sys.modules`, so nothing here may need its own module to be importable: no dataclasses, no
`from __future__ import annotations` (dataclasses look their module up in `sys.modules` to resolve string
annotations, and die with AttributeError). The implementation lives in the registered module `tessera.training.online`.

`tessera train --mode online` copies this file to OUTPUT/agent/agent.py with the run's settings beside it
(`tessera_agent.json`, which also records the tessera version that wrote it), so the settings travel with the path OpenRLHF hands every
vLLM engine, whether Ray was started by the run or was already running. Loaded from the repository itself, the
settings come from TESSERA_AGENT_CONFIG (e.g. shipped by `ray job submit --runtime-env-json`); neither is an error.
"""
import json
import sys
from pathlib import Path

_SETTINGS = Path(__file__).with_name("tessera_agent.json")


try:
    import tessera
    import tessera.training.online
except ModuleNotFoundError as exc:  # a Ray worker whose Python lacks the package: say which Python
    if exc.name != "tessera":
        raise
    raise ImportError(f"{__file__}: the tessera package is not installed in {sys.executable} (this vLLM engine's "
                      f"Python); install the same tessera on every node of the Ray cluster") from None


def _check_version() -> None:
    """A run-folder copy records the tessera that wrote it: an engine running another version would sample other
    instances than the run's evaluation rows and the curriculum's state describe."""
    try:
        wanted = json.loads(_SETTINGS.read_text()).get("tessera_version")
    except (OSError, ValueError, AttributeError):
        return  # no settings file beside this copy: load_settings reports what is missing
    if wanted is not None and wanted != tessera.__version__:
        raise ImportError(f"{__file__}: the run was written by tessera {wanted}, but this engine imports tessera "
                          f"{tessera.__version__} from {Path(tessera.__file__).parent}; install tessera {wanted} on "
                          f"every node, or rewrite the run folder with `tessera train CONFIG --mode online`")


_check_version()

from tessera.training.online import AgentExecutor as _OnlineExecutor
from tessera.training.online import load_settings


class AgentExecutor(_OnlineExecutor):
    """What OpenRLHF builds (`AgentExecutor()`, once per engine): the online executor with this run's settings."""

    def __init__(self, settings=None, backend=None):
        super().__init__(settings if settings is not None else load_settings(_SETTINGS), backend)
