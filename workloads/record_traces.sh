#!/usr/bin/env bash
# Records torch.profiler traces of the reference workloads into DIR (default ./out), with a summary
# of step times per run; traces are Kineto JSON, gzip'd. Needs a GPU and a CUDA PyTorch
# (`scripts/gpu traces` runs it on the GPU machine). Usage: workloads/record_traces.sh [DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
dest=${1:-out}
mkdir -p "$dest"
export PYTHONUNBUFFERED=1
run() {  # name script args... (a later --profile overrides the default)
  local name=$1 script=$2; shift 2
  echo "== $name"
  timeout 300 python3 "$script" --profile torch "$@" --trace "$dest/$name.json.gz" --summary "$dest/$name.summary.json" \
    || echo "!! $name failed with status $?"
}
run gpt_train workloads/gpt.py --mode train --steps 9 --active 5
run gpt_train_cpu workloads/gpt.py --mode train --steps 9 --active 5 --profile torch-cpu
run gpt_infer workloads/gpt.py --mode infer --steps 9 --active 5
run dlrm_train workloads/dlrm.py --mode train --steps 9 --active 5
run dlrm_infer workloads/dlrm.py --mode infer --steps 9 --active 5
run resnet50_train workloads/resnet50.py --mode train --steps 9 --active 5
# A small GPT training step (4 layers), CPU and CUDA activity.
run example_gpt_small workloads/gpt.py --mode train --layers 4 --d-model 1024 --seq 1024 --batch 4 \
  --steps 6 --active 3 --profile torch-cpu
