#!/usr/bin/env bash
# Which recorded kinds cost what on a launch-bound workload: DLRM inference step time plain, under
# `headroom profile` with every kind, and without driver API records. Run on the GPU machine after
# scripts/device-build. REPS (default 2) interleaved runs of STEPS (default 20) timed steps each.
set -uo pipefail
cd "$(dirname "$0")/.."
headroom=$(realpath "${1:-build/device/bin/headroom}")
reps=${REPS:-2} steps=${STEPS:-20}
work=$(mktemp -d)
run() {  # label command...
  local label=$1; shift
  "$@" >"$work/log" 2>&1 || echo "!! $label failed" >&2
  grep -o 'median=[0-9.]* ms' "$work/log" | sed "s/^/$label /"
}
for ((r = 1; r <= reps; r++)); do
  run plain python3 workloads/dlrm.py --mode infer --steps "$steps"
  run all-kinds "$headroom" profile -o "$work/a.sqlite" -- python3 workloads/dlrm.py --mode infer --steps "$steps"
  run no-driver "$headroom" profile --kinds kernel,memcpy,memset,runtime,nvtx,overhead -o "$work/b.sqlite" -- \
    python3 workloads/dlrm.py --mode infer --steps "$steps"
done
rm -rf "$work"
