#!/usr/bin/env bash
# Reader throughput and peak memory on a large synthetic Kineto trace, against Python's json module.
# Builds nothing: give it a build folder that has bench/synthetic_kineto and bench/read_kineto_bench.
#
#   bench/analyze_throughput.sh BUILD_DIR [TRACE.json] [--bytes N]
#
# Without TRACE it generates one (default 2.2 GB) in a temporary folder and deletes it afterwards.
set -euo pipefail

build=${1:?usage: analyze_throughput.sh BUILD_DIR [TRACE.json] [--bytes N]}
shift
trace=""
bytes=2200000000
while [[ $# -gt 0 ]]; do
  case $1 in
    --bytes) bytes=$2; shift 2 ;;
    *) trace=$1; shift ;;
  esac
done

timer=/usr/bin/time
[[ -x $timer ]] || { echo "needs GNU time at /usr/bin/time (apt-get install time)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [[ -z $trace ]]; then
  trace=$tmp/synthetic.pt.trace.json
  "$build/bench/synthetic_kineto" "$trace" --bytes "$bytes"
fi
size=$(stat -c %s "$trace")

# run NAME COMMAND...: one table row from /usr/bin/time -v's wall clock and maximum resident set.
rows=()
run() {
  local name=$1; shift
  local log=$tmp/$name.time
  if ! "$timer" -v -o "$log" "$@" > "$tmp/$name.out" 2>&1; then
    echo "$name failed:" >&2; tail -5 "$tmp/$name.out" >&2
  fi
  local wall rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$log" |
         awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
  rows+=("$(awk -v n="$name" -v s="$wall" -v r="$rss" -v f="$size" 'BEGIN {
    printf "%-22s %9.2f %9.1f %12.1f %10.2f", n, s, (s > 0 ? f / 1e6 / s : 0), r / 1024, 100 * r * 1024 / f }')")
}

run read_kineto_bench "$build/bench/read_kineto_bench" "$trace"
if [[ -x $build/bin/headroom ]]; then
  run headroom_analyze "$build/bin/headroom" analyze "$trace"
fi
run python_json python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$trace"

echo
echo "trace: $trace ($(awk -v f="$size" 'BEGIN { printf "%.1f MB", f / 1e6 }'))"
grep -E "kernels|events|max buffer|warning" "$tmp/read_kineto_bench.out" || true
echo
printf "%-22s %9s %9s %12s %10s\n" tool seconds "MB/s" "peak RSS MB" "RSS % file"
for row in "${rows[@]}"; do echo "$row"; done
