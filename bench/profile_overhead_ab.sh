#!/usr/bin/env bash
# Recording overhead measured inside one process: each workload alternates blocks of unrecorded and
# recorded timed steps (workloads/common.py, --ab), recorded by `headroom profile --capture-range
# cudaProfilerApi` (cudaProfilerStart/Stop around the recorded blocks) or by torch.profiler (CUDA
# activity only, one session per recorded block). Separate runs of the same workload differ by
# several percent on their own (bench/RESULTS.md, DLRM plain runs 7% apart): a difference between
# processes cannot resolve the 0.5% target, a ratio within one can. Builds nothing:
# `scripts/gpu overhead-ab` builds headroom and runs it on a GPU machine.
#
#   bench/profile_overhead_ab.sh [HEADROOM]         (default build/device/bin/headroom)
#   REPS=2 PROFILERS="headroom torch" WORKLOADS="gpt_train dlrm_infer" bench/profile_overhead_ab.sh
#   PROFILERS="headroom headroom-all=--api+all headroom-nodriver=--kinds+kernel,runtime" ...
#     (a headroom-NAME=ARGS entry passes ARGS, '+' for spaces, to `headroom profile`: which setting costs;
#      words of ARGS shaped VAR=VALUE go into the environment instead, for the injection library's
#      variables that have no flag: headroom-cz=HEADROOM_PROFILE_ZEROING=cupti; a torch-NAME=VAR=VALUE
#      entry runs torch.profiler with those variables: torch-td=TEARDOWN_CUPTI=1; the entry none runs
#      the same blocks recording nothing, the control for what the processes differ by on their own)
#
# Each (workload, profiler) runs REPS processes; a process's figure is the median of its recorded
# steps over the median of its unrecorded ones, less one (the first step of every block left out on
# both sides). A second table gives what recording leaves behind: the unrecorded blocks against the
# one block timed before anything was recorded, and the host time of a step against its wall clock. Writes $OUT/profile_overhead_ab/<workload>.<profiler>.<rep>.{json,log} and prints a
# Markdown table (the median over processes). PROFILERS="headroom" and PROFILERS="torch" can run as
# two lanes on two GPUs (CUDA_VISIBLE_DEVICES) into the same OUT; TABLE_ONLY=1 then prints the table.
set -uo pipefail
cd "$(dirname "$0")/.."
headroom=$(realpath -m "${1:-build/device/bin/headroom}")
reps=${REPS:-2} run_timeout=${RUN_TIMEOUT:-150}
dest=${OUT:-$(mktemp -d)}
work=$dest/profile_overhead_ab
mkdir -p "$work"
export PYTHONUNBUFFERED=1
workloads=${WORKLOADS:-gpt_train gpt_infer dlrm_train dlrm_infer resnet50_train}
# Script, block length and timed steps: blocks of about 0.1-0.8 s, 8-20 blocks a run.
declare -A script=([gpt_train]="workloads/gpt.py --mode train" [gpt_infer]="workloads/gpt.py --mode infer"
                   [dlrm_train]="workloads/dlrm.py --mode train" [dlrm_infer]="workloads/dlrm.py --mode infer"
                   [resnet50_train]="workloads/resnet50.py --mode train" [llama_decode]="workloads/llama.py --mode infer"
                   [bert_infer]="workloads/bert.py --mode infer" [dlrmv2_train]="workloads/dlrmv2.py --mode train"
                   [hstu_train]="workloads/hstu.py --mode train" [vit_infer]="workloads/vit.py --mode infer"
                   [hstu_train_fused]="workloads/hstu.py --mode train --attention fused")
declare -A block=([gpt_train]=5 [gpt_infer]=10 [dlrm_train]=20 [dlrm_infer]=50 [resnet50_train]=10 [llama_decode]=20
                  [bert_infer]=5 [dlrmv2_train]=20 [hstu_train]=5 [vit_infer]=10 [hstu_train_fused]=5)
declare -A steps=([gpt_train]=40 [gpt_infer]=80 [dlrm_train]=400 [dlrm_infer]=1000 [resnet50_train]=120 [llama_decode]=320
                  [bert_infer]=60 [dlrmv2_train]=320 [hstu_train]=60 [vit_infer]=120 [hstu_train_fused]=60)

if [[ -z ${TABLE_ONLY:-} ]]; then
  [[ -x $headroom ]] || { echo "no headroom executable at $headroom (scripts/gpu builds it)" >&2; exit 2; }
  for w in $workloads; do
    for ((r = 1; r <= reps; r++)); do
      for entry in ${PROFILERS:-headroom torch}; do
        p=${entry%%=*} words=() extra=() vars=()
        [[ $entry == *=* ]] && IFS=+ read -ra words <<<"${entry#*=}"
        for word in ${words[@]+"${words[@]}"}; do
          if [[ $word =~ ^[A-Z_][A-Z0-9_]*= ]]; then vars+=("$word"); else extra+=("$word"); fi
        done
        base=$work/$w.$p.$r
        recorder=torch; [[ $p == headroom* ]] && recorder=headroom; [[ $p == none ]] && recorder=none
        # shellcheck disable=SC2086
        args=(${script[$w]} --ab "${block[$w]}" --ab-profiler "$recorder" --steps "${steps[$w]}" --summary "$base.json")
        if [[ $recorder == headroom ]]; then
          env ${vars[@]+"${vars[@]}"} timeout "$run_timeout" "$headroom" profile --capture-range cudaProfilerApi ${extra[@]+"${extra[@]}"} -o "$base.sqlite" -- python3 "${args[@]}"
        else
          env ${vars[@]+"${vars[@]}"} timeout "$run_timeout" python3 "${args[@]}"
        fi >"$base.log" 2>&1 || echo "!! $w $p rep $r failed (log: $base.log)" >&2
        grep -h "overhead=\|headroom: [0-9]* process" "$base.log" | sed "s/^/   [$w $p $r] /" >&2
        # What the store holds, before it goes: an A/B whose headroom process recorded no launch
        # call measured something else than the target's "while recording launch calls" (a setting
        # that recorded none looked cheaper: docs/profiler.md, "Which API calls, and when").
        [[ $recorder == headroom && -f $base.sqlite ]] && python3 bench/store_records.py "$base.sqlite" >"$base.records.json"
        [[ ${KEEP_STORES:-0} == 1 ]] || rm -f "$base.sqlite"
      done
    done
  done
fi

labels=$(for e in ${PROFILERS:-headroom torch}; do echo "${e%%=*}"; done | sort -u | tr '\n' ' ')
[[ -n ${TABLE_ONLY:-} ]] && labels=$(ls "$work" | sed -n 's/^[a-z0-9_]*\.\([a-z-]*\)\.[0-9]*\.json$/\1/p' | sort -u | tr '\n' ' ')
python3 - "$work" "$labels" $workloads <<'PY'
import glob, json, os, statistics, sys
work, labels, workloads = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
labels = sorted(labels, key=lambda p: (p != "headroom", p != "torch", p))
def runs(w, p):
    out = []
    for f in sorted(glob.glob(f"{work}/{w}.{p}.*.json")):
        if f.endswith(".records.json"):
            continue
        try:
            out.append(json.load(open(f)))
        except (OSError, ValueError):
            pass
    return out
print("| workload | step ms (unrecorded) | " + " | ".join(f"{p} overhead per process | median" for p in labels) + " |")
print("| --- | ---: | " + " | ".join("--- | ---:" for p in labels) + " |")
medians = {p: [] for p in labels}
for w in workloads:
    cells, step = [], None
    for p in labels:
        rs = runs(w, p)
        pcts = [r["ab_overhead_pct"] for r in rs]
        if rs and step is None:
            step = statistics.median(r["ab_off_median_seconds"] for r in rs) * 1e3
        m = statistics.median(pcts) if pcts else None
        if m is not None:
            medians[p].append(m)
        cells += [" ".join(f"{x:+.2f}%" for x in pcts) or "n/a", "n/a" if m is None else f"{m:+.2f}%"]
    print(f"| {w} | {'n/a' if step is None else f'{step:.3f}'} | " + " | ".join(cells) + " |")
for p, ms in medians.items():
    if ms:
        print(f"\nmedian {p} overhead over {len(ms)} workloads: {statistics.median(ms):+.2f}%" +
              (" (target <= 0.5%, and no worse than torch.profiler)" if p == "headroom" else ""))
print("(in-process A/B: recorded vs unrecorded blocks of steps; the first step of each block left out)")
def busiest(r):
    # The two busiest threads at the end of the run (workloads/common.py, thread_cpu): a recorder's
    # thread that burns CPU beside the program's shows here.
    ts = r.get("threads") or []
    return ", ".join(f"{t['name']} {t['cpu_seconds']:.1f} s" for t in ts[:2]) or "n/a"
def recorded(w, p):
    # API calls / kernels (joined to their launch) of each headroom process's store.
    out = []
    for f in sorted(glob.glob(f"{work}/{w}.{p}.*.records.json")):
        try:
            n = json.load(open(f))
            out.append(f"{n['api_calls']} / {n['kernels']} ({n['joined']})")
        except (OSError, ValueError, KeyError):
            out.append("?")
    return "; ".join(out) or "n/a"
print("\n| workload | profiler | unrecorded after recording vs before any, per process | host ms / step ms | busiest threads (CPU s), per process | API calls / kernels (joined), per process |")
print("| --- | --- | --- | --- | --- | --- |")
for w in workloads:
    for p in labels:
        rs = [r for r in runs(w, p) if "ab_after_recording_pct" in r]
        if rs:
            host = statistics.median(statistics.median(r["host_seconds"]) for r in rs) * 1e3
            step = statistics.median(r["ab_off_median_seconds"] for r in rs) * 1e3
            after = " ".join(f"{r['ab_after_recording_pct']:+.2f}%" for r in rs)
            threads = "; ".join(busiest(r) for r in rs)
            print(f"| {w} | {p} | {after} | {host:.3f} / {step:.3f} | {threads} | {recorded(w, p)} |")
# A headroom process that recorded kernels but no API call did not record launches.
for f in sorted(glob.glob(f"{work}/*.records.json")):
    try:
        n = json.load(open(f))
    except (OSError, ValueError):
        continue
    if n.get("kernels", 0) > 0 and n.get("api_calls", 0) == 0:
        print(f"\nnote: {os.path.basename(f)[:-len('.records.json')]} recorded no API call: its figure is not the cost of recording launches")
PY
