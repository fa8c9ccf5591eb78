#!/usr/bin/env bash
# Live test of `headroom profile` on a PyTorch program: a DLRM inference run of 20 timed steps must
# leave its 20 ProfilerStep#N NVTX ranges in the store (PyTorch loads a CUPTI of its own, so the
# ranges reach ours only through NVTX_INJECTION64_PATH; docs/profiler.md). $1 headroom, $2 source
# folder. Skips (77) without a GPU or without a Python whose PyTorch has CUDA.
set -uo pipefail
headroom=$1 src=$2
source "$(dirname "$0")/lib/cuda_torch.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$headroom" profile -o "$tmp/t.sqlite" -- "$python" "$src/workloads/dlrm.py" --mode infer --steps 20 >"$tmp/log" 2>&1 ||
  { tail -20 "$tmp/log"; echo "FAIL: headroom profile exited $?"; exit 1; }
n=$(python3 - "$tmp/t.sqlite" <<'PY'
import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute(
    "SELECT count(*) FROM ranges r JOIN strings s ON s.id = r.name WHERE s.value LIKE 'ProfilerStep#%'").fetchone()[0])
PY
)
[[ $n == 20 ]] || { echo "FAIL: $n ProfilerStep#N ranges in the store, expected 20"; exit 1; }
echo "ok: 20 ProfilerStep#N ranges"
