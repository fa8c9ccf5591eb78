#!/usr/bin/env bash
# Do `headroom analyze` on our trace and on torch.profiler's trace of the same configuration agree
# on the addressable fraction? Reads what bench/profile_overhead.sh left (rep 1 of each workload):
#
#   OUT=/tmp/o bench/profile_overhead.sh && OUT=/tmp/o bench/profile_agreement.sh [HEADROOM]
#
# Each pair is analysed twice: --window steady (analyze picks the steady steps itself: our store has
# the workloads' NVTX ProfilerStep#N ranges around timed steps, torch's CUDA-only trace has no step
# markers and falls back to repeating units) and --window whole (our store also holds start-up and
# warm-up steps, torch's only the timed ones), then as "matched": our steady window with no step
# skipped (every timed step, by its NVTX ProfilerStep#N marker) against torch's whole trace (its
# torch-all mode records exactly the timed steps): the same steps on both sides, which is the
# comparison the target is about. Target: within 1 point.
set -uo pipefail
cd "$(dirname "$0")/.."
headroom=$(realpath "${1:-build/device/bin/headroom}")
work=${OUT:?set OUT to the folder bench/profile_overhead.sh wrote}/profile_overhead
workloads=${WORKLOADS:-gpt_train gpt_infer dlrm_train dlrm_infer resnet50_train}
# Beside the addressable fraction (over wall clock) each side's window length and the addressable
# share of GPU-busy time: when the latter agrees and the former does not, the two runs differ in
# idle time (host jitter between runs), not in what the kernels were classified as.
echo "| workload | window | headroom trace | torch trace | difference (points) | wall ms (ours / torch) | addressable of busy (ours / torch) |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
for window in steady whole matched; do
for w in $workloads; do
  ours=$work/$w.headroom.1.sqlite theirs=$work/$w.torch.1.json.gz
  ours_args=(--window "$window") theirs_window=$window
  [[ $window == matched ]] && ours_args=(--window steady --warmup 0) theirs_window=whole
  totals='import json,sys; t=json.load(sys.stdin)["total"]; print(t["addressable_fraction"], t["wall_ns"], t["addressable_busy_ns"] / max(1, t["busy_ns"]))'
  fa=$(timeout 120 "$headroom" analyze "$ours" "${ours_args[@]}" --json 2>"$work/$w.$window.agree.ours.log" |
       python3 -c "$totals" 2>/dev/null)
  fb=$(timeout 120 "$headroom" analyze "$theirs" --window "$theirs_window" --json 2>"$work/$w.$window.agree.torch.log" |
       python3 -c "$totals" 2>/dev/null)
  python3 - "$w" "$window" "${fa:-}" "${fb:-}" <<'PY'
import sys
w, window, a, b = sys.argv[1:5]
a, b = (a.split() if a else None), (b.split() if b else None)
f = lambda x: f"{100 * float(x[0]):.2f}%" if x else "n/a"
d = f"{100 * (float(a[0]) - float(b[0])):+.2f}" if a and b else "n/a"
wall = lambda x: f"{float(x[1]) / 1e6:.1f}" if x else "n/a"
share = lambda x: f"{100 * float(x[2]):.2f}%" if x else "n/a"
print(f"| {w} | {window} | {f(a)} | {f(b)} | {d} | {wall(a)} / {wall(b)} | {share(a)} / {share(b)} |")
PY
done
done
echo "(addressable fraction of all timelines; logs in $work/*.agree.*.log)"
# The two runs' own speed (their summaries' median step): fractions of wall clock can agree only
# when the runs do; a recorded run that turned slow (bench/RESULTS.md, session 13) has more idle time.
python3 - "$work" $workloads <<'PY'
import json, sys
work, workloads = sys.argv[1], sys.argv[2:]
def median_ms(path):
    try:
        return 1e3 * json.load(open(path))["median_seconds"]
    except (OSError, ValueError, KeyError):
        return None
print("\n| workload | median step ms (headroom run / torch run) | ratio |")
print("| --- | ---: | ---: |")
for w in workloads:
    a, b = median_ms(f"{work}/{w}.headroom.1.json"), median_ms(f"{work}/{w}.torch.1.json")
    ratio = f"{a / b:.3f}" if a and b else "n/a"
    print(f"| {w} | {a or float('nan'):.3f} / {b or float('nan'):.3f} | {ratio} |")
print("(a ratio outside 0.99-1.01 makes a 1-point agreement of wall-clock fractions a matter of luck)")
PY
