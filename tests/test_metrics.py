"""The figures OpenRLHF logs from Tessera's reward function are exact answer accuracies.

Driven through OpenRLHF 0.11.2's own code: its reward-function loader (`SingleTurnAgentExecutor`), the function that
turns a rollout into an `Experience` (`SamplesGenerator._process_response_into_experience`), its eval metrics
(`compute_eval_metrics`) and its experience batching. The two trainer functions live in modules whose imports need
peft/deepspeed/vLLM, so they are taken from the installed source (ast) and run as they are; every figure is then
recomputed here from the labels and the responses we gave, independently of the verifier.
"""
from __future__ import annotations

import ast
import asyncio
import importlib.util
import json
import math
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("openrlhf")
pytest.importorskip("datasets")

from tessera.errors import TesseraError
from tessera.verify.score import wrong_answer
from tests.test_training import (  # noqa: F401 - built_dataset is a fixture, used by name
    CONFIGS,
    REWARD_FILE,
    CharProcessor,
    Params,
    StandInEngine,
    answer_text,
    built_dataset,
    read_with_openrlhf,
)
from tessera.training.export import export_offline
from tessera.training.launch import WANDB_KEY_PLACEHOLDER, build_launch, validate_with_openrlhf
from tessera.training.reward import MACRO_METRIC

N_SAMPLES = 4


def installed_function(relpath: str, name: str, **namespace):
    """A function of the installed OpenRLHF, compiled from its source file (top level or a method)."""
    spec = importlib.util.find_spec("openrlhf")
    path = Path(next(iter(spec.submodule_search_locations))) / relpath
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            node.decorator_list = []
            exec(compile(ast.Module(body=[node], type_ignores=[]), str(path), "exec"), namespace)  # noqa: S102
            return namespace[name]
    raise AssertionError(f"{path}: no function {name}")


@pytest.fixture(scope="module")
def openrlhf_parts():
    from openrlhf.trainer.ppo_utils.experience import Experience

    return {
        "eval_metrics": installed_function("trainer/ppo_trainer.py", "compute_eval_metrics", torch=torch),
        "to_experience": installed_function("trainer/ppo_utils/samples_generator.py",
                                            "_process_response_into_experience", torch=torch, Experience=Experience),
    }


@pytest.fixture(scope="module")
def export(built_dataset, tmp_path_factory) -> Path:  # noqa: F811 - the fixture imported above
    out = tmp_path_factory.mktemp("metrics") / "export"
    export_offline(built_dataset, out, images="bytes")
    return out


def respond(label: dict, kind: str) -> str:
    """'right': the answer; 'wrong': a well-formed wrong answer (earns the format bonus); 'mute': no answer at all."""
    if kind == "right":
        return answer_text(label, label["answer"])
    if kind == "wrong":
        return answer_text(label, wrong_answer(label))
    return "I cannot tell.<|im_end|>"


def rollouts(rows, kinds, parts):
    """Each row answered N_SAMPLES times, kinds(i, j) choosing the j-th response to row i; OpenRLHF's Experiences."""
    from openrlhf.utils.agent import SingleTurnAgentExecutor

    executor = SingleTurnAgentExecutor(remote_rm_url=str(REWARD_FILE))
    assert executor.reward_func.__module__ == "reward_func"  # loaded by OpenRLHF's own loader, by path
    samples, given = [], []

    async def run():
        for i, (_datasource, prompt, label_text, images) in enumerate(rows):
            label = json.loads(label_text)
            for j in range(N_SAMPLES):
                kind = kinds(i, j)
                engine = StandInEngine(lambda call, k=kind, lab=label: respond(lab, k))
                out = await executor.execute(prompt, label_text, Params(max_tokens=64, logprobs=None),
                                             max_length=4096, hf_tokenizer=CharProcessor(), llm_engine=engine,
                                             images=images)
                samples.append(parts["to_experience"](None, out, max_len=4096))
                given.append((i, label["domain"], kind == "right"))

    asyncio.run(run())
    return samples, given


def macro(given, reduce) -> float:
    """Mean over domains of the mean over the domain's rows of reduce(row's correctness flags)."""
    by_row: dict[int, tuple[str, list[bool]]] = {}
    for i, domain, right in given:
        by_row.setdefault(i, (domain, []))[1].append(right)
    by_domain: dict[str, list[float]] = {}
    for domain, flags in by_row.values():
        by_domain.setdefault(domain, []).append(reduce(flags))
    return sum(sum(v) / len(v) for v in by_domain.values()) / len(by_domain)


# -- evaluation: OpenRLHF's compute_eval_metrics -----------------------------------------------------------------
PATTERNS = {
    # charts rows all right; icons rows right once in four, the rest wrong but well formatted
    "uneven": lambda rows: lambda i, j: "right" if json.loads(rows[i][2])["domain"] == "charts" or j == 0 else "wrong",
    "all wrong, well formatted": lambda rows: lambda i, j: "wrong",
    "all right": lambda rows: lambda i, j: "right",
    "mixed with no answer": lambda rows: lambda i, j: ("right", "wrong", "mute")[(i + j) % 3],
}


@pytest.mark.parametrize("pattern", list(PATTERNS))
def test_eval_pass1_is_the_exact_macro_answer_accuracy(export, openrlhf_parts, pattern):
    rows = list(read_with_openrlhf(export, "validation", input_key="prompt", label_key="label",
                                   apply_chat_template=True, image_key="images"))
    assert {r[0] for r in rows} == {"macro"} and len({json.loads(r[2])["domain"] for r in rows}) == 2
    samples, given = rollouts(rows, PATTERNS[pattern](rows), openrlhf_parts)
    eval_dataloader = [tuple(map(list, zip(*rows)))]  # (datasources, prompts, labels, images) batches
    logs = openrlhf_parts["eval_metrics"](eval_dataloader, samples, N_SAMPLES)

    pass1 = macro(given, lambda flags: sum(flags) / len(flags))
    pass_k = macro(given, lambda flags: float(any(flags)))
    assert logs[MACRO_METRIC] == pytest.approx(pass1, abs=1e-12)
    assert logs[f"eval_macro_pass{N_SAMPLES}"] == pytest.approx(pass_k, abs=1e-12)
    assert not [k for k in logs if k.endswith("_pass1") and k != MACRO_METRIC]  # nothing else to pick as "best"
    micro = sum(r for _, _, r in given) / len(given)
    if pattern == "uneven":  # a case where the figure would differ if it were the micro mean or had the bonus
        assert (pass1, micro) == (pytest.approx(0.625), pytest.approx(0.5))
    if pattern == "all wrong, well formatted":
        assert logs[MACRO_METRIC] == 0.0  # the 0.05 format bonus does not leak into the eval figure


# -- training: extra_logs as OpenRLHF aggregates them -------------------------------------------------------------
def step_means(samples) -> dict[str, float]:
    """What the actor logs for a step: every info key averaged over all the step's samples (ppo_actor.py)."""
    from openrlhf.trainer.ppo_utils.experience import Experience, split_experience_batch

    batch = Experience.concat_experiences(samples, pad_token_id=0)
    assert len(split_experience_batch(batch)) == len(samples)  # same keys on every sample, or OpenRLHF fails
    return {k: v.float().mean().item() for k, v in batch.info.items()}


@pytest.mark.parametrize("composition", ["whole split", "charts-heavy step", "one domain only"])
def test_training_logs_give_each_domains_exact_accuracy(export, openrlhf_parts, composition):
    rows = list(read_with_openrlhf(export, "train", input_key="prompt", label_key="label",
                                   apply_chat_template=True, image_key="images"))
    domain_of = [json.loads(r[2])["domain"] for r in rows]
    charts = [r for r, d in zip(rows, domain_of) if d == "charts"]
    shapes = [r for r, d in zip(rows, domain_of) if d == "icons"]
    chosen = {"whole split": rows, "charts-heavy step": charts + shapes[:1], "one domain only": shapes}[composition]
    samples, given = rollouts(chosen, lambda i, j: ("right", "wrong", "mute", "right", "wrong")[(i + 2 * j) % 5],
                              openrlhf_parts)
    means = step_means(samples)
    assert all(0.0 <= v <= 1.0 for k, v in means.items() if k.startswith("domain/") or k.endswith(("_rate", "acc")))
    assert means["answer_accuracy"] == pytest.approx(sum(r for *_, r in given) / len(given))
    for domain in ("charts", "icons"):
        flags = [r for _, d, r in given if d == domain]
        assert means[f"domain/{domain}/share"] == pytest.approx(len(flags) / len(given))
        if flags:
            accuracy = means[f"domain/{domain}/correct"] / means[f"domain/{domain}/share"]
            assert accuracy == pytest.approx(sum(flags) / len(flags))
        else:
            assert means[f"domain/{domain}/correct"] == 0.0
    assert not [k for k in means if k.startswith("acc/")]


def test_reward_function_refuses_bad_eval_weights(export):
    spec = importlib.util.spec_from_file_location("reward_func", REWARD_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    from datasets import load_dataset

    row = load_dataset("parquet", data_files=str(next((export / "data").glob("validation-*.parquet"))))["train"][0]
    label = json.loads(row["label"])
    query = "<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n" + answer_text(label, label["answer"])
    for weight, reward in ((2.5, 2.5), (1, 1.0), (-1, 0.0), (0, 0.0), ("2", 0.0), (True, 0.0), (1e300, 0.0),
                           (math.inf, 0.0), (math.nan, 0.0), ([1], 0.0)):
        text = json.dumps({**label, "eval_weight": weight})  # NaN/Infinity as Python's json writes them
        out = module.reward_func([query], ["Q"], [text])
        assert out["rewards"].tolist() == [reward], weight
        assert out["scores"].tolist() == [1.0 if reward else 0.0]
    train_like = {k: v for k, v in label.items() if k != "eval_weight"}
    out = module.reward_func([query], ["Q"], [json.dumps(train_like)])
    assert out["rewards"].tolist() == [1.0]


def test_export_writes_exact_eval_weights_only_on_evaluation_splits(export):
    info = json.loads((export / "export.json").read_text())
    # validation: 2 rows per task, charts 1 task, icons 2 → N = 6, D = 2: charts 6/(2·2), icons 6/(2·4)
    assert info["splits"]["validation"]["eval_weights"] == {"charts": 1.5, "icons": 0.75}
    assert "eval_weights" not in info["splits"]["train"]
    train = list(read_with_openrlhf(export, "train", input_key="prompt", label_key="label"))
    assert all(ds == json.loads(lab)["domain"] and "eval_weight" not in json.loads(lab) for ds, _, lab, _ in train)


# -- the launcher: best checkpoint and wandb ----------------------------------------------------------------------
SECRET = "0123456789abcdef0123456789abcdef01234567"


def make_export_info(folder: Path, eval_weights: bool) -> None:
    folder.mkdir(parents=True)
    validation = {"rows": 6, **({"eval_weights": {"charts": 1.5}} if eval_weights else {})}
    (folder / "export.json").write_text(json.dumps({"format": "tessera.openrlhf/1", "kind": "openrlhf",
                                                    "splits": {"train": {"rows": 9}, "validation": validation}}))


@pytest.mark.parametrize("config", CONFIGS, ids=[c.stem for c in CONFIGS])
def test_launcher_sets_best_metric_and_takes_wandb_from_the_environment(config, tmp_path):
    make_export_info(tmp_path / "out" / "openrlhf" / "offline", eval_weights=True)
    environ = {"WANDB_API_KEY": SECRET, "WANDB_PROJECT": "tessera-rl", "WANDB_ENTITY": "lab",
               "WANDB_RUN_NAME": "try-3", "WANDB_RUN_GROUP": "ablation"}
    launch = build_launch(config, mode="offline", cwd=tmp_path, environ=environ)
    args, _ = validate_with_openrlhf(launch.argv)
    assert args.ckpt.best_metric_key == MACRO_METRIC == "eval_macro_pass1"
    w = args.logger.wandb
    assert (w.key, w.project, w.org, w.run_name, w.group) == (WANDB_KEY_PLACEHOLDER, "tessera-rl", "lab", "try-3",
                                                              "ablation")
    assert SECRET not in launch.shell() and SECRET not in json.dumps(launch.env)
    assert any("WANDB_API_KEY must be in the environment of the Ray workers" in n for n in launch.notes)

    quiet = build_launch(config, mode="offline", cwd=tmp_path, environ={"WANDB_PROJECT": "tessera-rl"})
    args, _ = validate_with_openrlhf(quiet.argv)
    assert args.logger.wandb.key is None and not [a for a in quiet.argv if a.startswith("--logger.wandb")]
    assert "wandb is off: WANDB_PROJECT set but WANDB_API_KEY is not" in quiet.notes
    named = build_launch(config, mode="offline", cwd=tmp_path, environ={"WANDB_API_KEY": SECRET})
    args, _ = validate_with_openrlhf(named.argv)
    assert args.logger.wandb.run_name == config.read_text().split("name: ", 1)[1].split()[0]  # the config's name

    online = build_launch(config, mode="online", cwd=tmp_path, environ={})
    args, _ = validate_with_openrlhf(online.argv)
    assert args.ckpt.best_metric_key == MACRO_METRIC  # online eval rows are weighted accuracies too


def test_launcher_refuses_wandb_in_configs_and_exports_without_eval_weights(tmp_path):
    base = (CONFIGS[0]).read_text()
    for flag in ("logger.wandb.key: abc", "logger.wandb.project: p", "ckpt.best_metric_key: eval_charts_pass1"):
        path = tmp_path / "c.yaml"
        path.write_text(base.replace("  train.seed: 42", f"  {flag}"))
        with pytest.raises(TesseraError, match="which the launcher sets"):
            build_launch(path, cwd=tmp_path, environ={})
    make_export_info(tmp_path / "out" / "openrlhf" / "offline", eval_weights=False)
    with pytest.raises(TesseraError, match=r"split 'validation' has no eval weights.*re-run `tessera export`"):
        build_launch(CONFIGS[0], mode="offline", cwd=tmp_path, environ={})
