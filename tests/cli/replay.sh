#!/usr/bin/env bash
# End to end: headroom project --replay on real Kineto traces. $1 binary, $2 source dir, $3 fixtures.
set -euo pipefail
bin=$1
fixtures=$3/kineto-hta
[[ -d $fixtures ]] || exit 77
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Console: Amdahl's projection, then per step the measured, replayed and shrunk step with Amdahl's.
"$bin" project "$fixtures/nccl_parser_config_nccl_data.json.gz" --speedup 2 --replay >"$tmp/out.txt"
grep -q 'Projected end-to-end speedup' "$tmp/out.txt" || fail "no Amdahl projection"
grep -q '^Replay: ' "$tmp/out.txt" || fail "no replay section"
grep -q 'replay error over 2 steps: mean 0.00%, max 0.00%' "$tmp/out.txt" || fail "replay does not reproduce the steps"
grep -q '^Replayed end-to-end speedup' "$tmp/out.txt" || fail "no replayed speedup"

# JSON, and the replayed timeline beside the measured one as a Chrome trace.
"$bin" project "$fixtures/critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz" --kernel 'gemm=2' \
  --replay --json --replay-trace "$tmp/replayed.json" >"$tmp/out.json"
python3 - "$tmp/out.json" "$tmp/replayed.json" <<'PY' || fail "replay JSON or Chrome trace"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["kind"] == "replay_projection"
assert p["graph"]["synchronizations"] == 21 and p["graph"]["event_waits"] == 20
t = p["timelines"][0]
assert t["replayed"] and t["error"]["max"] == 0
assert p["parts"][0]["label"] == "kernels /gemm/"
events = json.load(open(sys.argv[2]))["traceEvents"]
names = [e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"]
assert any(n.startswith("measured: ") for n in names) and any(n.startswith("replayed: ") for n in names)
PY

# A CUDA-only trace (kernels, no runtime calls): Amdahl's figure and the reason there is no replay.
python3 - "$tmp/cuda_only.json" <<'PY'
import json, sys
events = [{"ph": "X", "cat": "kernel", "name": "triton_poi_fused_add_0", "pid": 0, "tid": 7, "ts": 1000 + 10 * k,
           "dur": 8, "args": {"device": 0, "stream": 7, "correlation": 100 + k}} for k in range(40)]
json.dump({"traceEvents": events}, open(sys.argv[1], "w"))
PY
"$bin" project "$tmp/cuda_only.json" --speedup 2 --replay >"$tmp/none.txt"
grep -q 'Projected end-to-end speedup' "$tmp/none.txt" || fail "no Amdahl projection for a CUDA-only trace"
grep -q 'no replay: no device activity in this trace is tied to a launch call' "$tmp/none.txt" ||
  fail "no reason for the missing replay"
echo OK
