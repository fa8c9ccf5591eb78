#!/usr/bin/env bash
# One device call for the profiler (issue 3), on nvidia-h200-x2 (run through the device tool,
# carrying .deps): builds with CUDA, runs the profiler's GPU tests, then two lanes side by side:
#   GPU 0: bench/profile_overhead_ab.sh with headroom, then headroom's whole-run traces
#   GPU 1: bench/profile_overhead_ab.sh with torch.profiler, then torch.profiler's traces
# and compares the traces (bench/profile_agreement.sh). Each lane's figures are ratios inside one
# process or traces of one configuration, so running the lanes at once costs no fairness.
# PROBE=1 first runs bench/host_memory_probe.py (issue 4's host-memory question).
# Everything lands in $OUT (results.tgz: the device tool returns only a few files).
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/headroom-out}
mkdir -p "$OUT"
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
scripts/device-build build/device >"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
echo "build done at $(elapsed) s"
B=build/device/bin/headroom
(cd build/device && ctest -R gpu_profile --output-on-failure >"$OUT/ctest-gpu.log" 2>&1; echo "ctest gpu_profile rc $?";
 grep -E "tests passed|Passed|Failed|\*\*\*" "$OUT/ctest-gpu.log" | head -20)
[[ ${PROBE:-1} == 1 ]] && { timeout 90 python3 bench/host_memory_probe.py "${PROBE_GIB:-8}" >"$OUT/memory.txt" 2>&1; cat "$OUT/memory.txt"; }
echo "lanes start at $(elapsed) s"
work=/tmp/prof; mkdir -p $work
# LANE_SECONDS: each lane's limit (the A/B runs, then the agreement traces with what is left).
lane() {  # profiler gpu
  local p=$1 gpu=$2 end=$(( $(date +%s) + ${LANE_SECONDS:-330} ))
  export CUDA_VISIBLE_DEVICES=$gpu
  PROFILERS=$p OUT=$work timeout $(( end - $(date +%s) )) bench/profile_overhead_ab.sh "$B" >/dev/null 2>"$OUT/ab-$p.err" ||
    echo "ab lane $p stopped: $?" >>"$OUT/ab-$p.err"
  OUT=$work MODES=$p REPS=1 timeout $(( end - $(date +%s) )) bench/profile_overhead.sh "$B" >/dev/null 2>"$OUT/traces-$p.err" ||
    echo "trace lane $p stopped: $?" >>"$OUT/traces-$p.err"
}
lane headroom 0 &
lane torch 1 &
wait
echo "lanes done at $(elapsed) s"
cat "$OUT"/ab-*.err
OUT=$work TABLE_ONLY=1 bench/profile_overhead_ab.sh "$B" | tee "$OUT/ab.md"
OUT=$work timeout 120 bench/profile_agreement.sh "$B" | tee "$OUT/agreement.md"
(cd $work && tar czf "$OUT/results.tgz" --exclude '*.sqlite' --exclude '*.json.gz' . )
echo "total $(elapsed) s"
