#!/usr/bin/env bash
# GPU smoke run: a few GRPO steps of a small vision-language model on ONE GPU, offline and then online, through
# `tessera train` and the same code paths as a full run. Everything lands in $OUT:
#   offline/ and online/   the export, the config, the exact command, train.log, the run folder
#   reward_curve.tsv       per mode and step: reward, answer accuracy, format rate, mean level, policy loss
#   pass_by_level.tsv      per mode and step: pass rate at each level seen (level/<L>/correct ÷ level/<L>/share)
# Run it where a GPU is lent; never in CI. With the defaults it fits in about 8 minutes on one H100/H200
# (model load and vLLM start-up are most of it).
#
#   MODES="offline online" (default; either alone works)
#   offline: builds a small dataset (SMOKE_TASKS, levels 0-9) unless DATASET=<a `tessera build` folder> is given,
#            exports it, and scores rollouts with training/reward_func.py
#   online:  (task, seed, level) rows served by training/agent.py with its curriculum (a small buffer, so
#            promotions can happen within the run)
#
# Needs: python with tessera installed (`pip install .`) and `pip install "openrlhf[vllm]==0.11.2"` (vLLM,
# DeepSpeed, Ray, flash-attn), and the model weights already in the Hugging Face cache or at $MODEL (a folder):
# the run is offline (HF_HUB_OFFLINE=1) and never downloads. Qwen2.5-VL is the VLM family OpenRLHF 0.11 documents.
# Knobs: MODEL, MODES, DATASET, SMOKE_TASKS, STEPS, PROMPTS (per step), SAMPLES (per prompt), MAX_NEW_TOKENS,
# ATTN, OUT, PYTHON. SMOKE_DRY=1 does everything but train (no GPU needed): builds, exports, and the exact commands,
# checked by OpenRLHF's own parser (tests/test_smoke_script.py runs it so).
set -euo pipefail

MODEL=${MODEL:-Qwen/Qwen2.5-VL-3B-Instruct}
MODES=${MODES:-offline online}
DATASET=${DATASET:-}
SMOKE_TASKS=${SMOKE_TASKS:-"charts.bar_chart.* icons.shape_field.* symbolic.clock_row.*"}
STEPS=${STEPS:-4}
PROMPTS=${PROMPTS:-16}
SAMPLES=${SAMPLES:-4}
MAX_NEW_TOKENS=${MAX_NEW_TOKENS:-384}
ATTN=${ATTN:-flash_attention_2}
OUT=${OUT:-out/smoke-gpu}
PY=${PYTHON:-python3}
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false

[ -n "${SMOKE_DRY:-}" ] || "$PY" - "$MODEL" <<'EOF' || { echo "smoke_gpu.sh: needs a CUDA GPU, openrlhf[vllm]==0.11.2 and the model in the local HF cache" >&2; exit 2; }
import os, sys
import torch, ray, vllm, deepspeed, openrlhf, tessera  # noqa: F401
assert torch.cuda.is_available(), "no CUDA device"
model = sys.argv[1]
if not os.path.isdir(model):
    from huggingface_hub import snapshot_download
    snapshot_download(model, local_files_only=True)  # raises when the weights are not in the cache
print(f"GPU: {torch.cuda.get_device_name(0)}; torch {torch.__version__}, vllm {vllm.__version__}, "
      f"tessera {tessera.__version__}; model {model}")
EOF

rm -rf "$OUT"
mkdir -p "$OUT"
ROWS=$((STEPS * PROMPTS))

run_mode() {
  local mode=$1 dir="$OUT/$1"
  mkdir -p "$dir"
  if [ "$mode" = online ]; then
    # Enough rows that every step draws from every task; OpenRLHF stops after data.max_samples prompts.
    "$PY" -m tessera.cli export --format openrlhf-online --rows-per-task "$ROWS" --eval-rows-per-task 0 \
      --out "$dir/export"
  else
    local data=$DATASET
    if [ -z "$data" ]; then
      {
        echo "build: smoke-gpu"
        echo "seed: 1"
        echo "select: {tasks: [$(printf '"%s", ' $SMOKE_TASKS | sed 's/, $//')]}"
        echo "total: {train: $ROWS}"
        echo "levels: {range: [0, 9]}"
      } > "$dir/build.yaml"
      "$PY" -m tessera.cli build "$dir/build.yaml" --out "$dir/dataset"
      data="$dir/dataset"
    fi
    "$PY" -m tessera.cli export "$data" --format openrlhf --split train --out "$dir/export"
  fi

  cat > "$dir/smoke.yaml" <<EOF
name: tessera-smoke-$mode
model: $MODEL
mode: $mode
data: {$mode: $dir/export}
output: $dir/run
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
  "$PY" -m tessera.cli train "$dir/smoke.yaml" --dry-run | tee "$dir/command.txt"
  [ -n "${SMOKE_DRY:-}" ] && return 0
  "$PY" -m tessera.cli train "$dir/smoke.yaml" 2>&1 | tee "$dir/train.log"
  "$PY" -c "import ray; ray.shutdown()" 2>/dev/null || true
  ray stop --force >/dev/null 2>&1 || true  # the next mode starts its own Ray
}

for mode in $MODES; do
  case "$mode" in offline|online) run_mode "$mode" ;; *) echo "MODES lists offline and/or online" >&2; exit 2 ;; esac
done

[ -n "${SMOKE_DRY:-}" ] && { echo "SMOKE_DRY: exports and commands written under $OUT; no training run"; exit 0; }
"$PY" -m tessera.training.smoke_report "$OUT" $MODES
echo "reward curve: $OUT/reward_curve.tsv; pass rate per level: $OUT/pass_by_level.tsv; curriculum: $OUT/online/run/curriculum/"
