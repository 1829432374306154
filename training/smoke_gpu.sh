#!/usr/bin/env bash
# GPU smoke run: a few GRPO steps of a small vision-language model on ONE GPU, through `tessera train` and the
# same code paths as a full run, writing the reward curve to $OUT/reward_curve.tsv. Run it where a GPU is lent;
# never in CI.
#
#   MODE=online  (default) (task, seed, level) rows served by training/agent.py with its curriculum; needs no dataset
#   MODE=offline DATASET=<a `tessera build` folder>: exported instances scored by training/reward_func.py
#
# Needs: python with this repository installed (pip install -e .) and `pip install "openrlhf[vllm]==0.11.2"`
# (vLLM, DeepSpeed, Ray, flash-attn), and the model weights in the Hugging Face cache or at $MODEL (a folder).
# Knobs: MODEL, STEPS, PROMPTS (per step), SAMPLES (per prompt), MAX_NEW_TOKENS, ATTN, OUT, PYTHON.
set -euo pipefail
cd "$(dirname "$0")/.."

MODEL=${MODEL:-Qwen/Qwen2.5-VL-3B-Instruct}
MODE=${MODE:-online}
DATASET=${DATASET:-}
STEPS=${STEPS:-6}
PROMPTS=${PROMPTS:-16}
SAMPLES=${SAMPLES:-4}
MAX_NEW_TOKENS=${MAX_NEW_TOKENS:-512}
ATTN=${ATTN:-flash_attention_2}
OUT=${OUT:-out/smoke-gpu}
PY=${PYTHON:-python3}

"$PY" - <<'EOF' || { echo "smoke_gpu.sh: needs a CUDA GPU and openrlhf[vllm]==0.11.2 installed" >&2; exit 2; }
import torch, ray, vllm, deepspeed, openrlhf  # noqa: F401
assert torch.cuda.is_available(), "no CUDA device"
print(f"GPU: {torch.cuda.get_device_name(0)}; torch {torch.__version__}, vllm {vllm.__version__}")
EOF

rm -rf "$OUT"
mkdir -p "$OUT"
ROWS=$((STEPS * PROMPTS))
if [ "$MODE" = online ]; then
  # Enough rows that every step draws from every task; OpenRLHF stops after data.max_samples prompts.
  "$PY" -m compiler.cli export --format openrlhf-online --rows-per-task "$ROWS" --out "$OUT/export"
elif [ "$MODE" = offline ]; then
  [ -n "$DATASET" ] || { echo "MODE=offline needs DATASET=<a tessera build folder>" >&2; exit 2; }
  "$PY" -m compiler.cli export "$DATASET" --format openrlhf --split train --out "$OUT/export"
else
  echo "MODE is online or offline" >&2; exit 2
fi

cat > "$OUT/smoke.yaml" <<EOF
name: tessera-smoke
model: $MODEL
mode: $MODE
data: {$MODE: $OUT/export}
output: $OUT/run
cluster: {nodes: 1, gpus_per_node: 1, vllm_tensor_parallel_size: 1}
eval: {enabled: false}
curriculum: {buffer_size: 8, threshold: 0.8, level_window: 2, gate: "off"}   # small buffer: promotions can happen
openrlhf:
  algo.advantage.estimator: group_norm
  rollout.n_samples_per_prompt: $SAMPLES
  rollout.batch_size: $PROMPTS
  train.batch_size: $((PROMPTS * SAMPLES))
  rollout.micro_batch_size: 4
  train.micro_batch_size: 2
  data.max_samples: $ROWS
  train.num_episodes: 1
  train.max_epochs: 1
  actor.adam.lr: 1.0e-6
  actor.eps_clip_low_high: [0.2, 0.28]
  algo.kl.init_coef: 0
  ds.param_dtype: bf16
  ds.zero_stage: 3
  ds.attn_implementation: $ATTN
  actor.gradient_checkpointing_enable: true
  data.max_len: $((MAX_NEW_TOKENS + 1536))
  rollout.max_new_tokens: $MAX_NEW_TOKENS
  rollout.temperature: 1.0
  train.colocate_all: true
  vllm.enable_sleep: true
  ds.enable_sleep: true
  vllm.gpu_memory_utilization: 0.4
  logger.logging_steps: 1
EOF

"$PY" -m compiler.cli train "$OUT/smoke.yaml" --dry-run | tee "$OUT/command.txt"
"$PY" -m compiler.cli train "$OUT/smoke.yaml" 2>&1 | tee "$OUT/train.log"

# OpenRLHF logs one line per step: "Global step N: {'rollout/reward_mean': ..., 'answer_accuracy': ..., ...}".
"$PY" - "$OUT" <<'EOF'
import re, sys
from pathlib import Path

out = Path(sys.argv[1])
keys = ["rollout/reward_mean", "answer_accuracy", "format_rate", "level", "curriculum_level_mean", "policy_loss"]
rows = []
for line in (out / "train.log").read_text(errors="replace").splitlines():
    m = re.search(r"Global step (\d+): (\{.*)", line)
    if m:
        values = {k: re.search(rf"'{re.escape(k)}': (?:tensor\()?([-+0-9.eE]+|nan)", m.group(2)) for k in keys}
        rows.append([m.group(1)] + [v.group(1) if v else "" for v in values.values()])
table = "\t".join(["step"] + keys) + "\n" + "".join("\t".join(r) + "\n" for r in rows)
(out / "reward_curve.tsv").write_text(table)
print(table, end="")
if not rows:
    sys.exit("no training step was logged: see train.log")
EOF
echo "reward curve: $OUT/reward_curve.tsv; curriculum: $OUT/run/curriculum/"
