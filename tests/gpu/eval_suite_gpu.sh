#!/usr/bin/env bash
# Live test of `headroom eval` on a GPU: every case of the adversarial suite meaningful on CUDA gets
# its expected verdict (other-stream work flagged, illegal address, CUDA out of memory, a failing
# TORCH_CHECK, partial CUDA writes, L2 persistence, correct CUDA kernels...). $1 headroom, $2 source
# folder. Skips (77) without a GPU or without a Python that can import torch with CUDA.
set -uo pipefail
headroom=$1 src=$2
source "$(dirname "$0")/lib/cuda_torch.sh"
# --run-timeout 30: the longest CUDA case took 10.6 s in all on the H200; hang_forever
# waits the whole timeout, so it sets most of this test's device time.
# EVAL_SUITE_DIR keeps the store, cache and output there (a later run continues from the store);
# EVAL_SUITE_DEVICE picks the GPUs (default cuda: every visible one, a worker each).
if [[ -n ${EVAL_SUITE_DIR:-} ]]; then
  work=$EVAL_SUITE_DIR; mkdir -p "$work"
else
  work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fi
"$headroom" eval --suite "$src/suites/adversarial/manifest.toml" --device "${EVAL_SUITE_DEVICE:-cuda}" --python "$python" --db "$work/r.sqlite" \
  --cache "${EVAL_SUITE_CACHE:-$work/cache}" --max-time 1 --run-timeout 30 --no-compile-baseline --jobs 8 >"$work/out.txt" 2> >(tee "$work/err.txt" >&2)
rc=$?
cat "$work/out.txt"
[[ $rc -eq 0 ]] || { tail -20 "$work/err.txt"; echo "FAIL: some case did not get its expected verdict"; exit 1; }
echo "ok: every CUDA-meaningful case got its expected verdict"
