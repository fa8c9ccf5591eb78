#!/usr/bin/env bash
# Run on the GPU machine after scripts/device-build: confirms the evaluation worker's C++ operator
# record (docs/eval.md, "The operator record") with the machine's own torch (a pip wheel): that the
# library was built against it, what it costs a recorded call (bench/op_record_cost.py), and that
# the suite's cases that hide a PyTorch fallback are caught on the GPU while the correct CUDA cases
# stay unflagged. Exit status 1 when any of that fails.
# Usage: scripts/device-op-record-check.sh [BUILD_DIR]   (default build/device)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/device}
lib=$build/lib/libheadroom_op_record.so
if [[ ! -f $lib ]]; then
  echo "no $lib: scripts/device-build's configure said why (\"no C++ operator record\")"
  exit 1
fi
python3 bench/op_record_cost.py "$lib" --device cuda

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The cases of the manifest that concern the record, with their problems and candidates by path.
python3 - "$PWD/suites/adversarial" "$work/suite.toml" <<'PY'
import re, sys
root, out = sys.argv[1], sys.argv[2]
head, *cases = open(root + "/manifest.toml").read().split("[[case]]")
keep = ("fallback_", "torch_fallback_softmax", "softmax_python", "matmul_addmm_blocked", "cuda_relu",
        "cuda_softmax", "other_stream_matmul")
text = head
for case in cases:
    case = case.split("\n# ---")[0]
    if re.search(r'name = "([^"]+)"', case).group(1).startswith(keep):
        text += "[[case]]" + re.sub(r'= "(problems|candidates)/', r'= "%s/\1/' % root, case) + "\n"
open(out, "w").write(text)
PY
rc=0
"$build/bin/headroom" eval --suite "$work/suite.toml" --device cuda --cache "$work/cache" --db "$work/r.sqlite" \
  >"$work/out.txt" 2>&1 || rc=$?
cat "$work/out.txt"
if grep -q "records operators in Python" "$work/out.txt"; then
  echo "FAIL: the worker fell back to the Python record"
  exit 1
fi
exit $rc
