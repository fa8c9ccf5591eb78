#!/usr/bin/env bash
# The workloads' kernel swaps on the GPU (workloads/swap.py): every swapped operator's CUDA
# implementation against PyTorch on the same inputs (workload_swaps_ops.py), then a live check of
# one swap: DLRM inference traced by `headroom profile` with the embedding swap off and on, and
# `headroom check-swap` of the two, whose route audit must find every targeted kernel replaced; the
# same check against a second trace of the program before the swap (a swap that fell back whole)
# must name every targeted kernel as still running. $1 headroom, $2 source folder. Skips (77)
# without a GPU or without a Python whose PyTorch has CUDA.
set -uo pipefail
headroom=$1 src=$2
here=$(dirname "$0")
source "$here/lib/cuda_torch.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$python" "$here/workload_swaps_ops.py" "$src/workloads" || fail "the swapped operators differ from PyTorch's"

trace() {  # ARM FILE
  "$headroom" profile -o "$2" -- "$python" "$src/workloads/dlrm.py" --mode infer --swap embedding \
    --swap-arm "$1" --steps 12 >>"$tmp/log" 2>&1 || { tail -20 "$tmp/log"; fail "headroom profile ($1) exited $?"; }
}
trace off "$tmp/before.sqlite"
trace on "$tmp/after.sqlite"
trace off "$tmp/fallback.sqlite"
check() {  # AFTER OUT
  "$headroom" check-swap "$tmp/before.sqlite" --after "$1" --range 'swap:embedding_bag_forward=2' --json >"$2" ||
    fail "check-swap exited $?"
}
check "$tmp/after.sqlite" "$tmp/swap.json"
check "$tmp/fallback.sqlite" "$tmp/fallback.json"
"$python" - "$tmp/swap.json" "$tmp/fallback.json" <<'PY' || fail "route audit"
import json, sys
swap, fell = (json.load(open(p)) for p in sys.argv[1:3])
r = swap["route"]
assert r["targeted"] >= 1 and r["fallbacks"] == 0 and r["every_target_replaced"], r
assert r["appeared"] >= 1, r  # the swap's own kernel
assert swap["gain_points"]["measured"] > 0, swap["gain_points"]
f = fell["route"]
assert f["targeted"] == r["targeted"] and f["fallbacks"] == f["targeted"] and not f["every_target_replaced"], f
print(f"ok: {r['targeted']} targeted kernels replaced (gain {swap['gain_points']['measured']:+.2f} points); "
      f"the unswapped trace: {f['fallbacks']} fallbacks")
PY
