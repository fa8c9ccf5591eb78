#!/usr/bin/env bash
# One device call for the profiler (issue 3), on nvidia-h200-x2 (run through the device tool,
# carrying .deps): builds with CUDA, runs the profiler's GPU tests, then two lanes side by side.
#   GPU 0: bench/profile_overhead_ab.sh for AB_PROFILERS (default "headroom"), then whole-run
#          traces (bench/profile_overhead.sh, MODES=TRACE_MODES, default "headroom") of TRACE_WORKLOADS
#   GPU 1: SECOND_LANE=torch (default): the same for torch.profiler (A/B, then its traces);
#          SECOND_LANE=eval: scripts/device-eval-call.sh PART="suite kb" on GPU 1 (SUITE_DIR,
#          KB_DIR continue earlier stores), given what is left of CALL_SECONDS
# then compares the traces (bench/profile_agreement.sh). Each lane's figures are ratios inside one
# process or traces of one configuration, so running the lanes at once costs no fairness.
# PROBE=1 (default) first runs bench/host_memory_probe.py (issue 4's host-memory question).
# KEEP_STORES=1 returns the trace stores and torch traces in results.tgz.
# OVERHEAD=1 instead: only the overhead in separate processes (bench/profile_overhead.sh: plain,
# headroom and torch.profiler runs interleaved, REPS rounds of every workload; a round takes about
# 300 s on the H200) on one GPU (the nvidia-h200 kind is enough; OVERHEAD_LANES=2 on nvidia-h200-x2
# runs a lane per GPU), within CALL_SECONDS, continuing earlier calls' runs: after a call,
# here, `mkdir -p .deps/overhead-prev && tar xzf <files_at>/results.tgz -C .deps/overhead-prev`,
# and OVERHEAD_DIR=.deps/overhead-prev/profile_overhead on the next (carry .deps).
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
[[ ${PROBE:-$(( ${OVERHEAD:-0} == 1 ? 0 : 1 ))} == 1 ]] && { timeout 90 python3 bench/host_memory_probe.py "${PROBE_GIB:-8}" >"$OUT/memory.txt" 2>&1; cat "$OUT/memory.txt"; }
echo "lanes start at $(elapsed) s"
work=/tmp/prof; mkdir -p $work
if [[ ${OVERHEAD:-0} == 1 ]]; then
  mkdir -p $work/profile_overhead
  [[ -n ${OVERHEAD_DIR:-} ]] && cp "$OVERHEAD_DIR"/*.json $work/profile_overhead/ 2>/dev/null
  # This call's rounds are numbered after the earlier calls' last.
  last=$(ls $work/profile_overhead/ 2>/dev/null | sed -nE 's/.*\.([0-9]+)\.json$/\1/p' | sort -n | tail -1)
  left=$(( ${CALL_SECONDS:-560} - $(elapsed) - 30 ))
  # OVERHEAD_LANES=2 (nvidia-h200-x2): a lane per GPU, each its own reps (lane g numbers its reps
  # after lane g-1's), twice the runs a call. Each lane interleaves its modes as one lane does.
  for ((g = 0; g < ${OVERHEAD_LANES:-1}; g++)); do
    CUDA_VISIBLE_DEVICES=$g OUT=$work FIRST_REP=$(( ${last:-0} + 1 + g * ${REPS:-5} )) REPS=${REPS:-5} MODES="plain headroom torch" \
      timeout $(( left > 1 ? left : 1 )) bench/profile_overhead.sh "$B" >/dev/null 2>"$work/profile_overhead/overhead-gpu$g.err" &
  done
  wait
  cat $work/profile_overhead/overhead-gpu*.err >"$work/profile_overhead/overhead.err"
  pkill -f 'workloads/(gpt|dlrm|resnet50)\.py' && sleep 2  # a run the time limit cut
  OUT=$work REPS=0 bench/profile_overhead.sh "$B" 2>/dev/null | tee "$OUT/overhead.md"
  (cd $work && tar czf /tmp/results.tgz profile_overhead/*.json profile_overhead/overhead*.err)
  (cd "$OUT" && ls -A | grep -vx 'build.log' | xargs rm -rf && mv /tmp/results.tgz .)
  echo "total $(elapsed) s"
  exit 0
fi
# LANE_SECONDS: each profiler lane's limit (the A/B runs, then the traces with what is left).
lane() {  # gpu ab-profilers trace-modes
  local gpu=$1 profilers=$2 modes=$3 end=$(( $(date +%s) + ${LANE_SECONDS:-330} ))
  export CUDA_VISIBLE_DEVICES=$gpu
  PROFILERS=$profilers WORKLOADS=${AB_WORKLOADS:-gpt_train gpt_infer dlrm_train dlrm_infer resnet50_train} OUT=$work \
    timeout $(( end - $(date +%s) )) bench/profile_overhead_ab.sh "$B" >/dev/null 2>"$OUT/ab-gpu$gpu.err" ||
    echo "A/B lane on GPU $gpu stopped: $?" >>"$OUT/ab-gpu$gpu.err"
  OUT=$work MODES=$modes REPS=1 WORKLOADS=${TRACE_WORKLOADS:-gpt_train gpt_infer dlrm_train dlrm_infer resnet50_train} \
    timeout $(( end - $(date +%s) )) bench/profile_overhead.sh "$B" >/dev/null 2>"$OUT/traces-gpu$gpu.err" ||
    echo "trace lane on GPU $gpu stopped: $?" >>"$OUT/traces-gpu$gpu.err"
}
lane 0 "${AB_PROFILERS:-headroom}" "${TRACE_MODES:-headroom}" &
if [[ ${SECOND_LANE:-torch} == eval ]]; then
  left=$(( ${CALL_SECONDS:-560} - $(elapsed) ))
  (PART="suite kb" BACKGROUND=none SUITE_DEVICE=cuda:1 KB_DEVICE=cuda:1 REBUILD=0 OUT=$OUT/eval CALL_SECONDS=$left \
     bash scripts/device-eval-call.sh >"$OUT/eval.log" 2>&1) &
else
  lane 1 torch torch &
fi
wait
# A lane's timeout ends its script, not the workload that script was running: end those too, so
# the comparison below reads only finished traces.
pkill -f 'workloads/(gpt|dlrm|resnet50)\.py' && sleep 2
echo "lanes done at $(elapsed) s"
cat "$OUT"/ab-*.err
[[ -f $OUT/eval.log ]] && tail -n 30 "$OUT/eval.log"
OUT=$work TABLE_ONLY=1 bench/profile_overhead_ab.sh "$B" | tee "$OUT/ab.md"
OUT=$work WORKLOADS=${TRACE_WORKLOADS:-gpt_train gpt_infer dlrm_train dlrm_infer resnet50_train} timeout 120 \
  bench/profile_agreement.sh "$B" | tee "$OUT/agreement.md"
# Which API calls a workload makes most: what `--api launches` leaves out.
for s in $work/profile_overhead/*.headroom.1.sqlite; do
  [[ -f $s ]] && echo "== $(basename "$s")" && python3 - "$s" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for name, n in db.execute("SELECT s.value, count(*) FROM api_calls c JOIN strings s ON s.id = c.name "
                          "GROUP BY 1 ORDER BY 2 DESC LIMIT 12"):
    print(f"{n:8d}  {name}")
PY
done | tee "$OUT/api-counts.txt"
# The device tool returns only a few files: everything travels as one archive.
excl=(--exclude '*.sqlite' --exclude '*.json.gz'); [[ ${KEEP_STORES:-0} == 1 ]] && excl=()
(cd $work && tar czf "$OUT/prof.tgz" "${excl[@]}" . )
(cd "$OUT" && tar czf /tmp/results.tgz --exclude build.log . && ls -A | grep -vx 'build.log' | xargs rm -rf && mv /tmp/results.tgz .)
echo "total $(elapsed) s"
