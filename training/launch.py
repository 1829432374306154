"""`tessera train CONFIG [--dry-run]`: the exact OpenRLHF command for a training config.

A config (training/configs/*.yaml) names the model, the mode (offline: an exported prompt set scored by
training/reward_func.py; online: (task, seed, level) rows served by training/agent.py with its curriculum), the
export folder, the cluster, the curriculum and any OpenRLHF flags (dotted names, as OpenRLHF ≥ 0.10.2 spells them).
The launcher adds the flags that tie OpenRLHF to Tessera (data columns, reward or agent file, checkpoint and log
folders, cluster sizes) and refuses a config that sets one of them itself.

The command is checked against OpenRLHF's own argument parser and its own consistency checks: they live in the
`if __name__ == "__main__":` block of `openrlhf/cli/train_ppo_ray.py`, a module whose imports need ray, vLLM and a
GPU, so that block alone is taken from the installed file (ast) and run with the command's arguments, stopping
before `train(args)`. Nothing of the config is evaluated as code.
"""
from __future__ import annotations

import ast
import contextlib
import importlib.util
import io
import json
import os
import shlex
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml

from tessera import __version__
from tessera.errors import TesseraError

from .curriculum import CurriculumConfig
from .episode import ToolsConfig, check_rule_needs_tools
from .export import EXPORT_FORMAT, offline_flags, online_flags
from .reward import MACRO_METRIC

TRAINING_DIR = Path(__file__).resolve().parent
REPO_ROOT = TRAINING_DIR.parent  # a checkout's root, or the installed `tessera` package: both hold training/
MODES = ("offline", "online")
CONFIG_KEYS = {"name", "model", "mode", "data", "output", "cluster", "eval", "curriculum", "tools", "openrlhf"}
AGENT_ENV = "TESSERA_AGENT_CONFIG"
AGENT_SETTINGS_FILE = "tessera_agent.json"  # beside the agent file; read by training/online.py:load_settings


@dataclass
class Launch:
    """Everything `tessera train` runs: the environment additions and the command."""

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # path → text, written just before the command starts

    def write_files(self) -> None:
        for path, text in self.files.items():
            try:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
                Path(path).write_text(text)
            except OSError as exc:
                raise TesseraError(f"cannot write {path}: {exc.strerror}") from None

    def shell(self) -> str:
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.env.items())
        return (f"{env} " if env else "") + shlex.join(self.argv)


def _flag_items(flags: dict, where: str) -> list[str]:
    """`{name: value}` → argv. true → bare switch, false/null → omitted, a list → several values."""
    argv: list[str] = []
    for name, value in flags.items():
        if not isinstance(name, str) or not name or name.startswith("-"):
            raise TesseraError(f"{where}: flag names are written without dashes, got {name!r}")
        if value is None or value is False:
            continue
        argv.append(f"--{name}")
        if value is True:
            continue
        values = value if isinstance(value, list) else [value]
        for v in values:
            if isinstance(v, (dict, list)) or isinstance(v, bool):
                raise TesseraError(f"{where}.{name}: expected numbers or strings, got {v!r}")
            argv.append(str(v))
    return argv


def load_config(path: Path) -> dict:
    try:
        data = yaml.safe_load(Path(path).read_text())
    except OSError as exc:
        raise TesseraError(f"{path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise TesseraError(f"{path}: not valid YAML ({exc})") from None
    if not isinstance(data, dict):
        raise TesseraError(f"{path}: a training config is a mapping")
    unknown = sorted(set(data) - CONFIG_KEYS)
    if unknown:
        raise TesseraError(f"{path}: unknown key(s) {', '.join(unknown)} (keys: {', '.join(sorted(CONFIG_KEYS))})")
    for key in ("name", "model", "data", "output"):
        if not data.get(key):
            raise TesseraError(f"{path}: '{key}' is required")
    return data


def _resolve(base: Path, p: str) -> Path:
    q = Path(os.path.expanduser(p))
    return q if q.is_absolute() else (base / q)


# Flags the launcher owns: a config that sets them would silently disconnect OpenRLHF from Tessera.
OWNED = {
    "actor.model_name_or_path", "actor.num_nodes", "actor.num_gpus_per_node", "ref.num_nodes", "ref.num_gpus_per_node",
    "vllm.num_engines", "vllm.tensor_parallel_size", "data.prompt_dataset", "data.prompt_split", "data.input_key", "data.label_key",
    "data.image_key", "data.apply_chat_template", "data.max_images_per_prompt", "reward.remote_url",
    "train.agent_func_path", "eval.dataset", "eval.split", "ckpt.path", "ckpt.output_dir", "ckpt.load_enable",
    "logger.tensorboard_dir", "algo.dynamic_filtering_enable", "algo.dynamic_filtering_range",
    "ckpt.best_metric_key", *(f"logger.wandb.{k}" for k in ("key", "org", "group", "project", "run_name")),
}

# wandb is configured from the environment only, so no committed config holds an account, a project or a key.
# {environment variable: OpenRLHF flag}; WANDB_API_KEY itself never enters the command (it would show in `ps`, in
# --dry-run output and in the run's uploaded config): wandb reads it from the environment in the trainer, and the
# flag only gets a placeholder, which OpenRLHF needs to switch wandb on.
WANDB_ENV = {"WANDB_ENTITY": "logger.wandb.org", "WANDB_PROJECT": "logger.wandb.project",
             "WANDB_RUN_GROUP": "logger.wandb.group", "WANDB_RUN_NAME": "logger.wandb.run_name"}
WANDB_KEY_PLACEHOLDER = "from-env:WANDB_API_KEY"


def wandb_flags(environ, run_name: str) -> tuple[list[str], list[str]]:
    """(flags, notes) for wandb from the environment: off unless WANDB_API_KEY is set."""
    wanted = sorted(k for k in WANDB_ENV if environ.get(k))
    if not environ.get("WANDB_API_KEY"):
        return [], ([f"wandb is off: {', '.join(wanted)} set but WANDB_API_KEY is not"] if wanted else [])
    argv = ["--logger.wandb.key", WANDB_KEY_PLACEHOLDER]
    values = {flag: environ.get(var) for var, flag in WANDB_ENV.items()}
    values["logger.wandb.run_name"] = values["logger.wandb.run_name"] or environ.get("WANDB_NAME") or run_name
    for flag, value in values.items():
        if value:
            argv += [f"--{flag}", str(value)]
    note = ("wandb is on: WANDB_API_KEY must be in the environment of the Ray workers too "
            "(export it before `ray start`, or in the cluster's environment)")
    return argv, [note]


def build_launch(config_path: Path | str, mode: str | None = None, cwd: Path | None = None,
                 environ=None) -> Launch:
    """The command for a config. Relative paths in the config are relative to the working directory; wandb
    settings come from `environ` (default: this process's environment)."""
    config_path = Path(config_path)
    cfg = load_config(config_path)
    cwd = Path(cwd or Path.cwd())
    where = str(config_path)
    mode = mode or cfg.get("mode", "offline")
    if mode not in MODES:
        raise TesseraError(f"{where}: mode must be one of {', '.join(MODES)}, got {mode!r}")
    data = cfg["data"]
    if not isinstance(data, dict) or not data.get(mode):
        raise TesseraError(f"{where}: data.{mode} must name the export folder for the {mode} mode")
    export = _resolve(cwd, data[mode])
    output = _resolve(cwd, cfg["output"])
    cluster = cfg.get("cluster") or {}
    nodes, gpus = int(cluster.get("nodes", 1)), int(cluster.get("gpus_per_node", 8))
    vllm_tp = int(cluster.get("vllm_tensor_parallel_size", 1))
    ray_address = cluster.get("ray_address")
    if nodes < 1 or gpus < 1 or vllm_tp < 1 or (nodes * gpus) % vllm_tp:
        raise TesseraError(f"{where}: cluster needs nodes ≥ 1, gpus_per_node ≥ 1 and a tensor-parallel size that "
                           f"divides nodes × gpus_per_node")
    curriculum = CurriculumConfig.from_mapping(cfg.get("curriculum"), f"{where}: curriculum")
    tools = ToolsConfig.from_mapping(cfg.get("tools"), f"{where}: tools")
    check_rule_needs_tools(curriculum, tools, where)
    flags = cfg.get("openrlhf") or {}
    if not isinstance(flags, dict):
        raise TesseraError(f"{where}: openrlhf is a mapping of flag names to values")
    owned = sorted(set(flags) & OWNED)
    if owned:
        raise TesseraError(f"{where}: openrlhf sets {', '.join(owned)}, which the launcher sets from the config "
                           f"(model, data, output, cluster, curriculum)")

    # Under `ray job submit` the folder holding training/ is shipped as the job's working directory: name files relative to it.
    code_path = (lambda p: str(p.relative_to(REPO_ROOT))) if ray_address else (lambda p: str(p))
    argv = [sys.executable if not ray_address else "python3", "-m", "openrlhf.cli.train_ppo_ray",
            "--actor.model_name_or_path", str(cfg["model"]),
            "--actor.num_nodes", str(nodes), "--actor.num_gpus_per_node", str(gpus),
            "--vllm.num_engines", str(nodes * gpus // vllm_tp), "--vllm.tensor_parallel_size", str(vllm_tp)]
    kl = flags.get("algo.kl.init_coef", 0.01)  # OpenRLHF's default; a reference model exists only when > 0
    if isinstance(kl, (int, float)) and kl > 0 or flags.get("algo.kl.use_loss"):
        argv += ["--ref.num_nodes", str(nodes), "--ref.num_gpus_per_node", str(gpus)]
    env: dict[str, str] = {}
    notes: list[str] = []
    launch_files: dict[str, str] = {}
    eval_cfg = cfg.get("eval") or {}
    if mode == "offline":
        argv += offline_flags(export)
        argv += ["--reward.remote_url", code_path(TRAINING_DIR / "reward_func.py")]
        if curriculum.gate == "downweight":
            raise TesseraError(f"{where}: curriculum.gate 'downweight' needs the online mode (the agent sees whole "
                               f"groups); offline, use 'drop'")
        if tools.enabled:
            raise TesseraError(f"{where}: tools need the online mode (offline rows stay tool-free: their rewards are "
                               f"scored on one reply); use --mode online, or tools.enabled: false")
    else:
        argv += online_flags(export, tools.images_per_prompt)
        settings = {"root": None, "curriculum": asdict(curriculum), "state_dir": str(output / "curriculum"),
                    "ckpt_path": str(output / "ckpt"), "restore": True, "shared": True, "run": str(cfg["name"]),
                    "tools": asdict(tools)}
        if tools.enabled:
            notes.append(f"tools: up to {tools.max_calls} calls per episode ({', '.join(tools.offer)}), so up to "
                         f"{tools.images_per_prompt} images per prompt; raise data.max_len for the extra image "
                         f"tokens")
        if ray_address:
            # `ray job submit` ships the repository and these env_vars to every worker of the job.
            argv += ["--train.agent_func_path", code_path(TRAINING_DIR / "agent.py")]
            env[AGENT_ENV] = json.dumps(settings, sort_keys=True, separators=(",", ":"))
        else:
            # The settings ride on the agent path itself: OpenRLHF hands that path to every vLLM engine, while the
            # launching shell's environment does not reach engines of a Ray started earlier (`ray start --head`).
            agent_dir = output / "agent"
            argv += ["--train.agent_func_path", str(agent_dir / "agent.py")]
            launch_files[str(agent_dir / "agent.py")] = (TRAINING_DIR / "agent.py").read_text()
            launch_files[str(agent_dir / AGENT_SETTINGS_FILE)] = json.dumps(
                {"tessera_version": __version__, **settings}, indent=2, sort_keys=True) + "\n"
            notes.append(f"writes {agent_dir}/agent.py and {AGENT_SETTINGS_FILE} (the agent settings) before starting")
        if curriculum.gate == "downweight":
            estimator = flags.get("algo.advantage.estimator", "gae")
            if estimator == "group_norm" and not flags.get("algo.advantage.no_std_norm"):
                raise TesseraError(f"{where}: curriculum.gate 'downweight' has no effect with group_norm, which "
                                   f"divides each group by its own spread: set openrlhf.algo.advantage.no_std_norm, "
                                   f"use dr_grpo/rloo/reinforce_baseline, or use gate 'drop'")
    if eval_cfg.get("enabled", True):
        argv += ["--eval.dataset", str(export / "data"), "--eval.split", str(eval_cfg.get("split", "validation"))]
        # the exact macro answer accuracy over domains (training/reward.py; online rows are scored the same way
        # by training/online.py), not OpenRLHF's default: the alphabetically first datasource's mean reward
        argv += ["--ckpt.best_metric_key", MACRO_METRIC]
    if curriculum.gate == "drop":
        # scores are the answer accuracy: a group whose mean is 0 or 1 is dropped and replaced by a new prompt
        argv += ["--algo.dynamic_filtering_enable", "--algo.dynamic_filtering_range", "0", "1"]
    argv += ["--ckpt.path", str(output / "ckpt"), "--ckpt.output_dir", str(output / "model"), "--ckpt.load_enable",
             "--logger.tensorboard_dir", str(output / "tensorboard")]
    argv += _flag_items(flags, f"{where}: openrlhf")
    wandb_argv, wandb_notes = wandb_flags(os.environ if environ is None else environ, str(cfg["name"]))
    argv += wandb_argv
    notes += wandb_notes

    if ray_address:
        runtime_env = {"working_dir": str(REPO_ROOT), "excludes": [".venv", ".git", "out"], "env_vars": env}
        argv = ["ray", "job", "submit", "--address", str(ray_address), "--runtime-env-json",
                json.dumps(runtime_env, sort_keys=True), "--", *argv]
        env = {}
        notes.append("multi-node: the export, output and model folders must be on storage every node reads, and "
                     f"every node's Python needs tessera {__version__} installed")
    info = _export_info(export)
    if info is None:
        notes.append(f"{export}: no export yet — write it with `tessera export` before training")
    elif info.get("format") != EXPORT_FORMAT or info.get("kind") != ("openrlhf" if mode == "offline" else
                                                                      "openrlhf-online"):
        raise TesseraError(f"{export}: holds a '{info.get('kind')}' export, but mode {mode} needs "
                           f"'{'openrlhf' if mode == 'offline' else 'openrlhf-online'}'")
    else:
        split = str(eval_cfg.get("split", "validation"))
        if "train" not in info.get("splits", {}):
            raise TesseraError(f"{export}: the export has no train split")
        if eval_cfg.get("enabled", True) and split not in info.get("splits", {}):
            raise TesseraError(f"{export}: eval is enabled but the export has no '{split}' split "
                               f"(set eval.enabled: false, or export one)")
        if eval_cfg.get("enabled", True) and "eval_weights" not in info["splits"][split]:
            raise TesseraError(f"{export}: split '{split}' has no eval weights, so OpenRLHF's eval would log mean "
                               f"rewards (format bonus included) instead of answer accuracy: re-run `tessera export`"
                               f"{' (the train split cannot be the eval split)' if split == 'train' else ''}")
    return Launch(argv, env, notes, launch_files)


def _export_info(export: Path) -> dict | None:
    path = export / "export.json"
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text())
    except ValueError:
        raise TesseraError(f"{path}: not readable JSON") from None


# -- OpenRLHF's own parser --------------------------------------------------------------------------------------
def _openrlhf_cli_source() -> Path:
    spec = importlib.util.find_spec("openrlhf")
    if spec is None or not spec.submodule_search_locations:
        raise TesseraError("openrlhf is not installed: pip install -e '.[train]' && "
                           "pip install --no-deps openrlhf==0.11.2")
    path = Path(list(spec.submodule_search_locations)[0]) / "cli" / "train_ppo_ray.py"
    if not path.is_file():
        raise TesseraError(f"{path}: missing from the installed openrlhf")
    return path


def _main_block(path: Path) -> ast.Module:
    tree = ast.parse(path.read_text(), str(path))
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare) \
                and isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__":
            body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
                                                 and isinstance(s.value.func, ast.Name)
                                                 and s.value.func.id == "train")]
            if len(body) == len(node.body):
                raise TesseraError(f"{path}: its main block no longer ends in train(args); update the launcher")
            return ast.Module(body=body, type_ignores=[])
    raise TesseraError(f"{path}: no `if __name__ == \"__main__\":` block")


def validate_with_openrlhf(argv: list[str]):
    """Run OpenRLHF's parser and checks on the arguments after `-m openrlhf.cli.train_ppo_ray`.
    Returns (hierarchized args, the warnings it printed); raises TesseraError with its message when it refuses."""
    try:
        at = argv.index("openrlhf.cli.train_ppo_ray")
    except ValueError:
        raise TesseraError("not an openrlhf.cli.train_ppo_ray command") from None
    args = argv[at + 1:]
    path = _openrlhf_cli_source()
    code = compile(_main_block(path), str(path), "exec")
    import argparse
    from datetime import datetime

    namespace = {"__name__": "tessera_validate_openrlhf", "argparse": argparse, "os": os, "datetime": datetime}
    out, err = io.StringIO(), io.StringIO()
    saved = sys.argv
    sys.argv = ["openrlhf.cli.train_ppo_ray", *args]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            exec(code, namespace)  # noqa: S102 - OpenRLHF's own argument parsing, taken from its installed source
    except SystemExit as exc:
        message = err.getvalue().strip().splitlines()
        raise TesseraError("OpenRLHF rejects the command: " + (message[-1] if message else f"exit {exc.code}")) \
            from None
    except AssertionError as exc:
        raise TesseraError(f"OpenRLHF rejects the command: {exc}") from None
    finally:
        sys.argv = saved
    warnings = [line for line in out.getvalue().splitlines() if "warning" in line.lower() or "recommend" in line.lower()]
    return namespace["args"], warnings


def run_launch(launch: Launch) -> int:
    launch.write_files()
    env = os.environ | launch.env
    try:
        return subprocess.call(launch.argv, env=env)
    except FileNotFoundError as exc:
        raise TesseraError(f"cannot start {launch.argv[0]}: {exc.strerror}") from None
