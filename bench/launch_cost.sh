#!/usr/bin/env bash
# What `headroom profile` adds to the host cost of one kernel launch, setting by setting, in
# separate processes of bench/launch_cost (an empty kernel launched in rounds of 500, each round
# timed on the host; see launch_cost.cu). A tight launch loop varies far less between processes
# than a workload's steps do, so the per-launch cost of each kind of record, and of calls CUPTI
# intercepts without recording them (--queries), can be told apart where the workload A/B cannot.
# Run on a GPU machine (`scripts/gpu launch-cost` builds and runs it; the program is built with CUDA):
#
#   bench/launch_cost.sh [BUILD_DIR]                (default build/device)
#   REPS=3 CONFIGS="plain kernel default" bench/launch_cost.sh
#
# Configs: plain (no profiler); kernel, kernel+runtime, kernel+runtime+driver (--kinds); default
# (every kind); no-driver (every kind but driver: torch.profiler's CUDA activity records no driver
# calls either, but then a driver launch joins no call); calls (the default kinds with
# HEADROOM_PROFILE_API_ENABLE=calls); api-all (--api all).
# Each variant (runtime launches; runtime launches with 4 query calls each; driver launches) runs
# every config REPS times, interleaved. Prints a Markdown table: ns per launch (median over reps of
# each process's median round), the difference from plain, and rep 1's API calls and kernels.
set -uo pipefail
cd "$(dirname "$0")/.."
build=$(realpath -m "${1:-build/device}")
headroom=$build/bin/headroom program=$build/bench/launch_cost/launch_cost
for f in "$headroom" "$program"; do
  [[ -x $f ]] || { echo "no $f (scripts/gpu builds it)" >&2; exit 2; }
done
reps=${REPS:-3}
configs=${CONFIGS:-plain kernel kernel+runtime kernel+runtime+driver default no-driver calls api-all}
work=${OUT:-$(mktemp -d)}/launch_cost
mkdir -p "$work"
declare -A variant_args=([runtime]="--api runtime" [runtime-queries]="--api runtime --queries 4" [driver]="--api driver")
variants=${VARIANTS:-runtime runtime-queries driver}

run() {  # config variant rep
  local config=$1 variant=$2 rep=$3 base=$work/$1.$2.$3
  local profile=()
  case $config in
    plain) ;;
    kernel|kernel+runtime|kernel+runtime+driver) profile=(--kinds "${config//+/,}") ;;
    default|calls) ;;
    no-driver) profile=(--kinds kernel,memcpy,memset,runtime,nvtx,overhead,sync) ;;
    api-all) profile=(--api all) ;;
    *) echo "unknown config $config" >&2; return ;;
  esac
  # shellcheck disable=SC2086
  if [[ $config == plain ]]; then
    timeout 60 "$program" ${variant_args[$variant]}
  else
    env $([[ $config == calls ]] && echo HEADROOM_PROFILE_API_ENABLE=calls) \
      timeout 60 "$headroom" profile "${profile[@]}" -o "$base.sqlite" -- "$program" ${variant_args[$variant]}
  fi >"$base.json" 2>"$base.log" || echo "!! $config $variant rep $rep failed (log: $base.log)" >&2
  if [[ -f $base.sqlite ]]; then
    python3 bench/store_records.py "$base.sqlite" >"$base.records.json"
    rm -f "$base.sqlite"
  fi
}

for ((r = 1; r <= reps; r++)); do
  for variant in $variants; do
    for config in $configs; do run "$config" "$variant" "$r"; done
  done
done

python3 - "$work" "$configs" $variants <<'PY'
import glob, json, statistics, sys
work, configs, variants = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
def medians(config, variant):
    out = []
    for f in sorted(glob.glob(f"{work}/{config}.{variant}.*.json")):
        if f.endswith(".records.json"):
            continue
        try:
            out.append(json.loads(open(f).read().strip().splitlines()[-1])["median_ns"])
        except (OSError, ValueError, KeyError, IndexError):
            pass
    return out
def records(config, variant):
    try:
        n = json.load(open(f"{work}/{config}.{variant}.1.records.json"))
        return f"{n['api_calls']} / {n['kernels']} ({n['joined']})"
    except (OSError, ValueError, KeyError):
        return "n/a"
for variant in variants:
    print(f"\n{variant}:\n")
    print("| config | ns per launch, median (each rep) | over plain | API calls / kernels (joined), rep 1 |")
    print("| --- | ---: | ---: | --- |")
    plain = medians("plain", variant)
    base = statistics.median(plain) if plain else None
    for config in configs:
        ms = medians(config, variant)
        if not ms:
            print(f"| {config} | n/a | n/a | {records(config, variant)} |")
            continue
        m = statistics.median(ms)
        over = f"{m - base:+.0f} ns" if base is not None and config != "plain" else ""
        print(f"| {config} | {m:.0f} ({' '.join(f'{x:.0f}' for x in ms)}) | {over} | {records(config, variant)} |")
print("\n(rounds of 500 launches of an empty kernel, timed on the host; queries: 4 cudaGetDevice/cudaGetLastError calls"
      " before each launch, counted in its cost)")
PY
