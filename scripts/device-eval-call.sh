#!/usr/bin/env bash
# One device call for `headroom eval` (run through the device tool, carrying .deps):
#   PART=suite  builds, runs the GPU tests (ctest -L gpu: the profiler's and the adversarial suite's
#               CUDA cases; GPU_TESTS_EXCLUDE=gpu_eval_suite leaves out the tests that regex matches);
#   PART=repeat one correct candidate evaluated REPEAT times (the spread of its speedup);
#   PART=kb     evaluates KernelBench level 1 (.deps/KernelBench/level1, a public copy kept outside the
#               repository) with each problem's own Model as the candidate, and audits it, within
#               KB_SECONDS (KB_DIR continues an earlier call's store and audit). After the call, here:
#               scripts/kb-collect <files_at>/results.tgz puts its store into .deps/kb-prev for the next.
# REPEAT_SECONDS bounds the repeat part (default 600): keep it under the call's limit, since the
# archive of $OUT is made at the end (a call cut short brings back only a few loose files).
# PART=probe  small experiments (PROBES: first-call, placement, host-time; see run_probe).
# PART is a list: PART="suite repeat kb" does all three in one call. Everything lands in $OUT.
# BACKGROUND lists the parts that run one after another in the background, beside the others
# (default "repeat"): on a two-GPU machine give each lane its own GPU, e.g. BACKGROUND="repeat kb"
# REPEAT_DEVICE=cuda:1 KB_DEVICE=cuda:1 SUITE_DEVICE=cuda:0.
# The KernelBench run logs the parent's phases (HEADROOM_EVAL_TRACE, KB_TRACE=0 turns it off);
# KB_ARGS adds options to it (KB_ARGS="--lanes 2": two evaluations in flight per GPU); KB_FORCE
# evaluates the problems it names again first (KB_FORCE="5_ 57_").
set -uo pipefail
cd "$(dirname "$0")/.."
PART=${PART:-suite}
OUT=${OUT:-/tmp/headroom-out}
mkdir -p "$OUT"
B=build/device/bin/headroom
t0=$(date +%s)
if [[ ! -x $B || ! -x build/device/bin/headroom-worker ]] || [[ ${REBUILD:-1} == 1 ]]; then
  scripts/device-build build/device >"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
fi
echo "build done at $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
# Where the GPUs sit among the host's CPUs and NUMA nodes (a worker's host speed may depend on it).
{ nvidia-smi topo -m; lscpu; } >"$OUT/topology.txt" 2>&1
common=(--device "${KB_DEVICE:-cuda}" --cache /tmp/hc)
# PART repeat: one correct candidate evaluated REPEAT times, the spread of its speedup (target 0.3%),
# on REPEAT_DEVICE. It runs in the background, beside the suite and the KernelBench run: on a two-GPU
# machine give each its own GPU (REPEAT_DEVICE=cuda:1 SUITE_DEVICE=cuda:0 KB_DEVICE=cuda:0).
run_repeat() {
  # REPEAT_MODES: "hold" (launches held, the default timing), "sync" (--no-hold), "host-function"
  # (held by the old gate, a host function: HEADROOM_EVAL_HOLD=host-function), or several of them
  # (an A/B). Every sample lands in $OUT/samples-<mode> (HEADROOM_EVAL_SAMPLES_TO).
  (for mode in ${REPEAT_MODES:-hold}; do
     echo "timing mode: $mode"
     args=""; [[ $mode == sync ]] && args="--no-hold"
     gate=""; [[ $mode == host-function ]] && gate=host-function
     mkdir -p "$OUT/samples-$mode"
     HEADROOM_EVAL_SAMPLES_TO=$OUT/samples-$mode HEADROOM_EVAL_HOLD=$gate DEVICE=${REPEAT_DEVICE:-cuda} EVAL_ARGS="$args ${REPEAT_ARGS:-}" KEEP="$OUT/repeat-$mode" \
       timeout ${REPEAT_SECONDS:-600} bench/eval_repeatability.sh "$B" "${REPEAT:-5}"
   done >"$OUT/repeat.md" 2>&1
   python3 bench/sample_log_report.py "$OUT"/samples-* >>"$OUT/repeat.md" 2>&1
   echo "repeat done at $(( $(date +%s) - t0 )) s" >>"$OUT/repeat.md")
}
run_suite() {
  # The GPU tests: the profiler's and gpu_eval_suite (the adversarial suite's CUDA-meaningful cases).
  # The suite's store, cache and log stay in $OUT/suite (SUITE_DIR: an earlier call's, to continue).
  mkdir -p "$OUT/suite"; [[ -n ${SUITE_DIR:-} ]] && cp -r "$SUITE_DIR"/. "$OUT/suite/"
  (cd build/device && EVAL_SUITE_DIR="$OUT/suite" EVAL_SUITE_CACHE=/tmp/hc-suite EVAL_SUITE_DEVICE=${SUITE_DEVICE:-cuda} timeout ${SUITE_SECONDS:-540} ctest -L gpu ${GPU_TESTS_EXCLUDE:+-E "$GPU_TESTS_EXCLUDE"} --output-on-failure 2>&1 | tail -80)
  echo "gpu tests done at $(( $(date +%s) - t0 )) s"
}
run_kb() {
  KB=.deps/KernelBench/level1
  # KB_DIR: an earlier call's kb.sqlite* and kb-audit.jsonl (copied into .deps and carried) to continue from.
  [[ -n ${KB_DIR:-} ]] && cp "$KB_DIR"/kb* "$OUT/"
  # CALL_SECONDS: the call's own limit; the KernelBench run gets what is left of it (less 40 s).
  [[ -n ${CALL_SECONDS:-} ]] && KB_SECONDS=$(( CALL_SECONDS - ($(date +%s) - t0) - 40 ))
  if (( ${KB_SECONDS:-420} < 30 )); then echo "kb: no time left in the call (${KB_SECONDS} s)"; return; fi
  trace_env=(); [[ ${KB_TRACE:-1} != 0 ]] && trace_env=(HEADROOM_EVAL_TRACE=1)
  # Host memory every 10 s (lanes multiply it): used and available GiB, into kb-memory.log.
  (while sleep 10; do echo "$(( $(date +%s) - t0 )) s: $(free -g | awk 'NR==2 {print "used " $3 " GiB, available " $7 " GiB"}')"; done \
     >"$OUT/kb-memory.log" 2>&1) &
  local sampler=$!
  local kb_args=(--reference-as-candidate "${common[@]}" --db "$OUT/kb.sqlite" --trials 2 --timing-sets 1 --max-time 1
                 --no-compile-baseline --memory-budget 24 --audit-to "$OUT/kb-audit.jsonl" ${KB_ARGS:-})
  local began=$(date +%s)
  # KB_FORCE: problems (file name prefixes, e.g. "5_ 57_") evaluated again first (--force), within
  # the same time: a problem the harness now handles, or one to see again under changed timing.
  if [[ -n ${KB_FORCE:-} ]]; then
    local forced=()
    for p in $KB_FORCE; do forced+=("$KB/$p"*.py); done
    # Every timed sample of the forced problems' workers (a few problems: small logs), laid out after.
    mkdir -p "$OUT/kb-samples"
    env "${trace_env[@]}" HEADROOM_EVAL_SAMPLES_TO="$OUT/kb-samples" timeout ${KB_SECONDS:-420} $B eval "${forced[@]}" "${kb_args[@]}" --force \
      >"$OUT/kb-forced.txt" 2>"$OUT/kb-forced.err"
    echo "kb forced (${KB_FORCE}) exit $? at $(( $(date +%s) - t0 )) s"; grep '^\[\|ratios' "$OUT/kb-forced.err"
    python3 bench/sample_log_report.py "$OUT/kb-samples" >"$OUT/kb-samples.md" 2>&1
  fi
  local left=$(( ${KB_SECONDS:-420} - ($(date +%s) - began) ))
  env "${trace_env[@]}" timeout $(( left > 1 ? left : 1 )) $B eval $KB "${kb_args[@]}" >"$OUT/kb.txt" 2>"$OUT/kb.err"
  echo "kb eval exit $? at $(( $(date +%s) - t0 )) s"; tail -5 "$OUT/kb.err"
  kill $sampler 2>/dev/null
  sort -t' ' -k4 -n "$OUT/kb-memory.log" 2>/dev/null | tail -1 | sed 's/^/peak host memory use: /'
  cp -r /tmp/hc/logs "$OUT/kb-logs" 2>/dev/null  # the workers' own phase logs
  $B stats "$OUT/kb.sqlite"
  # The audit came with the run (--audit-to): the problems zeros pass under the legacy check.
  python3 - "$OUT/kb-audit.jsonl" <<'PY'
import json, sys
# A continued run appends: the last row of a problem is the one its latest checker wrote.
rows = list({r["problem"]: r for r in map(json.loads, open(sys.argv[1]))}.values())
zeros = [r["problem"] for r in rows if any(f["name"] == "zeros" and f["passes_legacy_1e-2"] for f in r["fakes"])]
weak = [r["problem"] for r in rows if not r["discriminating"]]
print(f"audited {len(rows)}; zeros pass legacy 1e-2 on {len(zeros)}: {zeros}; ours fails to reject a fake on {len(weak)}: {weak}")
PY
}
# PART probe, PROBES picks which (default "first-call placement"): where a worker's first forward
# call spends its seconds (bench/first_call_probe.py), whether a small problem's time depends on
# where its tensors sit (bench/placement_probe.py), and "host-time": whether a problem's host time
# per call is its own or the worker's allocator's (bench/host_time_probe.py; HOST_TIME_PROBLEMS,
# default 71_ and 12_).
run_probe() {
  local lib=build/device/lib/libheadroom_poison_alloc.so
  for probe in ${PROBES:-first-call placement}; do
    case $probe in
      first-call) timeout 300 python3 bench/first_call_probe.py $lib 2>&1 | tee "$OUT/first-call.txt" ;;
      placement) timeout 300 python3 bench/placement_probe.py 6 6 100 2>&1 | tee "$OUT/placement.txt" ;;
      host-time)
        local problems=()
        for p in ${HOST_TIME_PROBLEMS:-71_ 12_}; do problems+=(.deps/KernelBench/level1/"$p"*.py); done
        timeout 300 python3 bench/host_time_probe.py $lib "${problems[@]}" 2>&1 | tee "$OUT/host-time.txt" ;;
      *) echo "unknown probe: $probe" ;;
    esac
  done
  echo "probe done at $(( $(date +%s) - t0 )) s"
}
BACKGROUND=${BACKGROUND:-repeat}
(for part in $BACKGROUND; do [[ " $PART " == *" $part "* ]] && "run_$part"; done >"$OUT/background.log" 2>&1) &
for part in suite probe kb; do
  [[ " $PART " == *" $part "* && " $BACKGROUND " != *" $part "* ]] && "run_$part"
done
wait
[[ -s $OUT/background.log ]] && cat "$OUT/background.log"
[[ -f $OUT/repeat.md ]] && cat "$OUT/repeat.md"
# The device tool brings back only a few files: the stores and logs travel as one archive.
(cd "$OUT" && tar czf /tmp/results.tgz --exclude build.log . && ls -A | grep -vx 'build.log\|kb.txt\|kb.err' | xargs rm -rf && mv /tmp/results.tgz .)
echo "total $(( $(date +%s) - t0 )) s"
