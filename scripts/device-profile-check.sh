#!/usr/bin/env bash
# One device call for the profiler's open questions (issue 3), on nvidia-h200, run through the
# device tool carrying .deps; every stage is bounded so that the call ends inside CALL_SECONDS:
#   1. builds (REBUILD=0 on a warm machine skips it) and runs the profiler's GPU tests;
#   2. NVTX from PyTorch: a short DLRM inference run under `headroom profile` must hold its 20
#      ProfilerStep#N ranges; it also lists the libcupti files mapped in a recorded torch process
#      (two files: two CUPTI copies, the reason NVTX_INJECTION64_PATH names the injection library);
#      (GPU_TEST_ENVS="VAR=VALUE ..." runs them again under each setting);
#   2b. with LAUNCH_COST=1, bench/launch_cost.sh: the host cost of one launch under each setting;
#   3. the A/B (bench/profile_overhead_ab.sh) of AB_PROFILERS (default "none headroom torch":
#      none records nothing, the control for how often a process turns slow on its own) on
#      AB_WORKLOADS (default dlrm_infer), AB_REPS processes each (default 3);
#   4. the agreement: AGREE_WORKLOADS (default "dlrm_train resnet50_train") under headroom and
#      torch-all in separate processes, AGREE_REPS of each (default 1), then
#      bench/profile_agreement.sh (the median over reps on each side).
# What comes back: at most 8 files of 16 MiB from $OUT, so the tables and logs are one archive and
# the agreement's stores come back only with KEEP_STORES=1, each gzip'd on its own when it fits.
#
#   OUT=$OUT bash scripts/device-profile-check.sh
#   REBUILD=0 AB_WORKLOADS="dlrm_infer resnet50_train" AGREE_WORKLOADS= OUT=$OUT bash scripts/device-profile-check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/headroom-out}
mkdir -p "$OUT"
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( ${CALL_SECONDS:-560} - $(elapsed) )); }
B=build/device/bin/headroom
W=/tmp/profile-check
rm -rf "$W" && mkdir -p "$W"

if [[ ${REBUILD:-1} == 1 || ! -x $B ]]; then
  scripts/device-build build/device >"$W/build.log" 2>&1 || { tail -40 "$W/build.log"; exit 1; }
fi
echo "build done at $(elapsed) s"
(cd build/device && ctest -R gpu_profile --output-on-failure >"$W/ctest-gpu.log" 2>&1; echo "ctest gpu_profile rc $?";
 grep -E "tests passed|Passed|Failed|FAIL" "$W/ctest-gpu.log" | head -20)
# The same tests under other injection settings (GPU_TEST_ENVS: space-separated VAR=VALUE words).
for setting in ${GPU_TEST_ENVS:-}; do
  (cd build/device && env "$setting" ctest -R gpu_profile --output-on-failure >"$W/ctest-gpu.$setting.log" 2>&1
   echo "ctest gpu_profile with $setting rc $?"; grep -E "tests passed|Failed|FAIL" "$W/ctest-gpu.$setting.log" | head -10)
done

# 2. NVTX ranges from a PyTorch program (NVTX_CHECK=0 skips it).
if [[ ${NVTX_CHECK:-1} == 1 ]]; then
timeout 120 "$B" profile -o "$W/nvtx.sqlite" -- python3 workloads/dlrm.py --mode infer --steps 20 >"$W/nvtx.log" 2>&1
echo "nvtx run rc $?"
python3 - "$W/nvtx.sqlite" <<'PY'
import sqlite3, sys
try:
    c = sqlite3.connect(sys.argv[1])
    n = c.execute("SELECT count(*) FROM ranges r JOIN strings s ON s.id = r.name WHERE s.value LIKE 'ProfilerStep#%'").fetchone()[0]
    print(f"NVTX ProfilerStep#N ranges in the PyTorch trace: {n} (expected 20): {'ok' if n == 20 else 'FAIL'}")
except Exception as e:
    print(f"NVTX check: FAIL, the store could not be read ({e})")
PY
timeout 60 "$B" profile -o "$W/maps.sqlite" -- python3 -c "
import torch; torch.zeros(1, device='cuda'); torch.cuda.nvtx.range_push('x'); torch.cuda.nvtx.range_pop()
print(sorted({l.split()[-1] for l in open('/proc/self/maps') if 'libcupti' in l}))" 2>&1 | grep -v "^headroom:" | sed 's/^/libcupti files mapped: /'
fi

# 2b. The host cost of one launch under each setting (bench/launch_cost.sh; LAUNCH_COST=1 runs it,
#     LAUNCH_COST_REPS processes of each, default 3).
if [[ ${LAUNCH_COST:-0} == 1 && $(left) -gt 120 ]]; then
  REPS=${LAUNCH_COST_REPS:-3} OUT=$W timeout $(( $(left) / 3 )) bench/launch_cost.sh build/device 2>"$W/launch-cost.err" | tee "$W/launch-cost.md"
  echo "launch cost done at $(elapsed) s"
fi

# 3. The A/B with its control.
if [[ -n ${AB_WORKLOADS-dlrm_infer} && $(left) -gt 60 ]]; then
  REPS=${AB_REPS:-3} WORKLOADS=${AB_WORKLOADS-dlrm_infer} PROFILERS=${AB_PROFILERS:-none headroom torch} OUT=$W \
    timeout $(( $(left) - ${AGREE_SECONDS:-150} > 30 ? $(left) - ${AGREE_SECONDS:-150} : 30 )) \
    bench/profile_overhead_ab.sh "$B" >"$W/ab.md" 2>"$W/ab.err"
  echo "A/B done at $(elapsed) s"
  pkill -f "[w]orkloads/(gpt|dlrm|resnet50)\.py" && sleep 1
  TABLE_ONLY=1 WORKLOADS=${AB_WORKLOADS-dlrm_infer} OUT=$W bench/profile_overhead_ab.sh | tee "$W/ab.md"
fi

# 4. The agreement.
if [[ -n ${AGREE_WORKLOADS-dlrm_train resnet50_train} && $(left) -gt 40 ]]; then
  MODES="headroom torch" REPS=${AGREE_REPS:-1} WORKLOADS=${AGREE_WORKLOADS-dlrm_train resnet50_train} OUT=$W \
    timeout $(( $(left) - 25 )) bench/profile_overhead.sh "$B" >/dev/null 2>"$W/agree-runs.err"
  pkill -f "[w]orkloads/(gpt|dlrm|resnet50)\.py" && sleep 1
  OUT=$W WORKLOADS=${AGREE_WORKLOADS-dlrm_train resnet50_train} timeout 20 bench/profile_agreement.sh "$B" | tee "$W/agree.md"
fi

(cd "$W" && tar czf "$OUT/results.tgz" --exclude='*.sqlite' --exclude='*.json.gz' .)
if [[ ${KEEP_STORES:-0} == 1 ]]; then
  for f in "$W"/profile_overhead/*.headroom.1.sqlite "$W"/profile_overhead/*.torch.1.json.gz; do
    [[ -f $f ]] || continue
    name=$(basename "$f")
    if [[ $f == *.sqlite ]]; then gzip -c "$f" >"$OUT/$name.gz"; name=$name.gz; else cp "$f" "$OUT/"; fi
    (( $(stat -c %s "$OUT/$name") <= 16 * 1024 * 1024 )) || { rm -f "$OUT/$name"; echo "$name is over 16 MiB; left there"; }
  done
fi
echo "total $(elapsed) s"
