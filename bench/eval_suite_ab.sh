#!/usr/bin/env bash
# How long `headroom eval --suite` takes for two builds, run in turn A B A B ... with a fresh cache
# each (every extension built again, as in a new run), with the ratio B/A per pair: these machines
# drift, so each comparison is within one pair. Prints, per run, the wall clock, the cases as
# expected, and the builds' time (HEADROOM_EVAL_TRACE's `build` lines, summed) and the longest
# wait of an evaluation for its candidate's build.
#
#   bench/eval_suite_ab.sh BUILD_A/bin BUILD_B/bin [MANIFEST] (env PAIRS=2, DEVICE=cpu, EVAL_ARGS)
#
# Default: the honest suite on the CPU at the settings of its CI test (tests/cli/honest_suite.sh).
set -uo pipefail
[[ $# -ge 2 ]] || { sed -n 2,10p "$0"; exit 2; }
a=$1 b=$2
src=$(cd "$(dirname "$0")/.." && pwd)
manifest=${3:-$src/suites/honest/manifest.toml}
python=${HEADROOM_PYTHON:-/usr/bin/python3}
args=${EVAL_ARGS:---max-time 0.25 --min-samples 5 --paired-rounds 2 --run-timeout 60 --no-compile-baseline}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() {  # build -> "wall s|as expected|build s|longest wait s"
  rm -rf "$work/cache" "$work/r.sqlite"
  local t0 t1
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086  # EVAL_ARGS is several options
  HEADROOM_EVAL_TRACE=1 "$1/headroom" eval --suite "$manifest" --device "${DEVICE:-cpu}" --python "$python" \
    --cache "$work/cache" --db "$work/r.sqlite" $args >"$work/out" 2>"$work/err"
  t1=$(date +%s.%N)
  local expected builds wait
  expected=$(grep -o '[0-9]* of [0-9]* case(s) got the expected verdict' "$work/out" | awk '{print $1 "/" $3}')
  builds=$(grep '\] build took' "$work/err" | awk '{s += $(NF-1)} END {printf "%.1f", s / 1000}')
  wait=$(grep '\] wait for the build took' "$work/err" | awk '$(NF-1) > m {m = $(NF-1)} END {printf "%.1f", m / 1000}')
  printf '%.1f|%s|%s|%s' "$(echo "$t1 - $t0" | bc)" "${expected:-none}" "$builds" "$wait"
}
echo "| pair | A wall s | B wall s | B / A | A as expected | B as expected | B's builds s | B's longest wait s |"
echo "| ---: | ---: | ---: | ---: | --- | --- | ---: | ---: |"
for p in $(seq 1 "${PAIRS:-2}"); do
  IFS='|' read -r wa ea _ _ <<<"$(run "$a")"
  IFS='|' read -r wb eb bb xb <<<"$(run "$b")"
  printf '| %d | %s | %s | %.3f | %s | %s | %s | %s |\n' "$p" "$wa" "$wb" "$(echo "$wb / $wa" | bc -l)" "$ea" "$eb" "$bb" "$xb"
done
