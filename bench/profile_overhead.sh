#!/usr/bin/env bash
# Overhead of `headroom profile` against a plain run and torch.profiler (CUDA activity only, every
# timed step: --profile torch-all), on the reference workloads. Builds nothing: `scripts/gpu overhead` builds headroom and runs it on a
# GPU machine.
#
#   bench/profile_overhead.sh [HEADROOM]      (default build/device/bin/headroom)
#   REPS=3 STEPS=30 RUN_TIMEOUT=120 WORKLOADS="gpt_train gpt_infer" bench/profile_overhead.sh
#   MODES="headroom torch" REPS=1 ...   only the traces bench/profile_agreement.sh compares
#   FIRST_REP=6 REPS=5 OUT=DIR ...      five more reps beside earlier ones in DIR/profile_overhead
#                                       (the table reads every rep there: runs add up across calls)
#
# Each workload runs REPS times in each mode, interleaved (plain, headroom, torch, plain, ...), so a
# drift of clocks or temperature hits every mode alike; REPS=0 prints the table of the runs there. A mode's figure is the median over reps of
# each run's median step time. Prints a Markdown table; writes $OUT/profile_overhead.csv when $OUT
# is set, and keeps the stores and torch traces in $OUT (or a temporary folder) for
# bench/profile_agreement.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
headroom=$(realpath "${1:-build/device/bin/headroom}")
[[ -x $headroom ]] || { echo "no headroom executable at $headroom (scripts/gpu builds it)" >&2; exit 2; }
reps=${REPS:-3} first=${FIRST_REP:-1} run_timeout=${RUN_TIMEOUT:-120}
dest=${OUT:-$(mktemp -d)}
mkdir -p "$dest/profile_overhead"
work=$dest/profile_overhead
export PYTHONUNBUFFERED=1

declare -A script=([gpt_train]="workloads/gpt.py --mode train" [gpt_infer]="workloads/gpt.py --mode infer"
                   [dlrm_train]="workloads/dlrm.py --mode train" [dlrm_infer]="workloads/dlrm.py --mode infer"
                   [resnet50_train]="workloads/resnet50.py --mode train")
workloads=${WORKLOADS:-gpt_train gpt_infer dlrm_train dlrm_infer resnet50_train}
# Timed steps per run (STEPS overrides): about 4 s of steps each. DLRM's steps vary by 40-50% from
# one to the next, so 30 of them leave the wall-clock denominator of the addressable fraction
# several points apart between two runs (bench/RESULTS.md, "Profiler agreement with torch.profiler").
declare -A default_steps=([gpt_train]=30 [gpt_infer]=80 [dlrm_train]=300 [dlrm_infer]=1000 [resnet50_train]=120)

run_one() {  # workload mode rep: one run, its summary in $work/<workload>.<mode>.<rep>.json
  local w=$1 mode=$2 rep=$3 steps=${STEPS:-${default_steps[$1]}}
  local base=$work/$w.$mode.$rep
  # shellcheck disable=SC2086
  case $mode in
    plain) timeout "$run_timeout" python3 ${script[$w]} --steps "$steps" --summary "$base.json" ;;
    headroom) timeout "$run_timeout" "$headroom" profile -o "$base.sqlite" -- \
                python3 ${script[$w]} --steps "$steps" --summary "$base.json" ;;
    torch) timeout "$run_timeout" python3 ${script[$w]} --steps "$steps" --profile torch-all \
             --trace "$base.json.gz" --summary "$base.json" ;;
  esac >"$base.log" 2>&1
  local status=$?
  [[ $status -eq 0 ]] || echo "!! $w $mode rep $rep failed with status $status (log: $base.log)" >&2
  tail -2 "$base.log" | sed "s/^/   [$w $mode $rep] /" >&2
}

# Reps outermost: a run cut short by a time limit leaves every workload with the same number of
# reps rather than the last workloads with none.
for ((r = first; r < first + reps; r++)); do
  for w in $workloads; do
    for mode in ${MODES:-plain headroom torch}; do run_one "$w" "$mode" "$r"; done
  done
done

python3 - "$work" "${OUT:+$dest/profile_overhead.csv}" $workloads <<'PY'
import glob, json, os, statistics, sys
work, csv_path, workloads = sys.argv[1], sys.argv[2], sys.argv[3:]
def median_of(w, mode):
    # Every rep in the folder, this call's and earlier calls' (FIRST_REP).
    runs = []
    for path in glob.glob(f"{work}/{w}.{mode}.*.json"):
        try:
            runs.append(json.load(open(path))["median_seconds"])
        except (OSError, ValueError, KeyError):
            pass
    return (statistics.median(runs) if runs else None), len(runs)
def paired_pct(w, mode):
    # Per rep, the mode's run against the plain run beside it (the same round, minutes apart at
    # most): the median of those ratios, robust to a drift between rounds the separate medians are not.
    ratios = []
    for path in glob.glob(f"{work}/{w}.plain.*.json"):
        rep = path.rsplit(".", 2)[-2]
        try:
            plain = json.load(open(path))["median_seconds"]
            other = json.load(open(f"{work}/{w}.{mode}.{rep}.json"))["median_seconds"]
        except (OSError, ValueError, KeyError):
            continue
        ratios.append(100 * (other / plain - 1))
    return statistics.median(ratios) if ratios else None
rows = []
for w in workloads:
    (plain, n0), (ours, n1), (torch, n2) = median_of(w, "plain"), median_of(w, "headroom"), median_of(w, "torch")
    pct = lambda x: None if x is None or plain is None else 100 * (x - plain) / plain
    rows.append((w, plain, ours, torch, pct(ours), pct(torch), f"{n0}/{n1}/{n2}", paired_pct(w, "headroom"),
                 paired_pct(w, "torch")))
ms = lambda x: "n/a" if x is None else f"{x * 1e3:.3f}"
pc = lambda x: "n/a" if x is None else f"{x:+.2f}%"
print("\n| workload | plain ms/step | headroom ms/step | torch ms/step | headroom overhead | torch overhead | runs (plain/headroom/torch) | headroom, paired | torch, paired |")
print("| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |")
for w, p, o, t, po, pt, n, qo, qt in rows:
    print(f"| {w} | {ms(p)} | {ms(o)} | {ms(t)} | {pc(po)} | {pc(pt)} | {n} | {pc(qo)} | {pc(qt)} |")
for label, column in (("headroom overhead", 4), ("torch.profiler overhead", 5), ("headroom overhead, paired", 7),
                      ("torch.profiler overhead, paired", 8)):
    values = [r[column] for r in rows if r[column] is not None]
    if values:
        print(f"median {label} over workloads: {statistics.median(values):+.2f}%" +
              (" (target <= 0.5%)" if column in (4, 7) else ""))
print("(median over reps of each run's median step time; overhead = (mode - plain) / plain; paired: the"
      " median over reps of each rep's run against that rep's plain run)")
if csv_path:
    with open(csv_path, "w") as f:
        f.write("workload,plain_s,headroom_s,torch_s,headroom_overhead_pct,torch_overhead_pct,runs,"
                "headroom_paired_pct,torch_paired_pct\n")
        for r in rows:
            f.write(",".join("" if v is None else str(v) for v in r) + "\n")
    print(f"wrote {csv_path}")
PY
echo "stores and torch traces: $work" >&2
