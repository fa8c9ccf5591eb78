#!/usr/bin/env bash
# How long `headroom report` takes on the bundled traces joined to the bundled published figures,
# and how large the file is, against `headroom analyze` of the same traces in the same run (the
# reading and analysis every report has to do).
#
#   bench/report_generation.sh [HEADROOM] [RUNS]
#
# Prints each command's median wall clock over RUNS runs (default 11), their ratio and the report's
# size in bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/release/bin/headroom}
runs=${2:-11}
traces=(tests/data/h200-gpt-train.json.gz tests/data/h200-dlrm-train.json.gz)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# median_seconds COMMAND...: the median wall clock of RUNS runs.
median_seconds() {
  local times=()
  for ((i = 0; i < runs; ++i)); do
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s.%N)
    times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}

analyze=$(median_seconds sh -c "'$bin' analyze '${traces[0]}' && '$bin' analyze '${traces[1]}'")
report=$(median_seconds "$bin" report "${traces[@]}" data/results/published-figures.csv -o "$tmp/report.html")
size=$(stat -c %s "$tmp/report.html")
printf 'headroom analyze (both traces)  %.3f s\n' "$analyze"
awk -v r="$report" -v a="$analyze" -v s="$size" 'BEGIN {
  printf "headroom report                 %.3f s  (%.2fx analyze)\n", r, r / a
  printf "report size                     %d bytes (%.1f KiB)\n", s, s / 1024
}'
