#!/usr/bin/env bash
# How long `headroom eval` takes on problems with big tensors, for two builds side by side: each
# problem evaluated with its own reference as the candidate, runs interleaved build by build (these
# machines drift, so the comparison is within one round). Prints, per run, the wall time and the
# parent's phases prepare_reference and evaluate_candidate (HEADROOM_EVAL_TRACE).
#
#   bench/eval_big_tensors.sh BUILD_A/bin BUILD_B/bin PROBLEM.py... (env ROUNDS=2, DEVICE=cpu,
#                                                                      EVAL_ARGS for more options)
# TOGETHER=1 evaluates all the problems in one run (what a KernelBench run does: buffers of one
# problem can serve the next) and prints the phases summed over them.
# KernelBench's level-1 problems reach gigabytes; scaled copies (a smaller batch) fit a CPU machine.
set -uo pipefail
[[ $# -ge 3 ]] || { sed -n 2,9p "$0"; exit 2; }
a=$1 b=$2; shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "| problem | build | round | wall s | prepare_reference s | evaluate_candidate s | verdict |"
echo "| --- | --- | ---: | ---: | ---: | ---: | --- |"
groups=("$@")
[[ ${TOGETHER:-0} == 1 ]] && groups=("$*")
for p in "${groups[@]}"; do
  for r in $(seq 1 "${ROUNDS:-2}"); do
    for build in "$a" "$b"; do
      t0=$(date +%s.%N)
      # shellcheck disable=SC2086  # a group is several problem paths
      HEADROOM_EVAL_TRACE=1 "$build/headroom" eval $p --reference-as-candidate --device "${DEVICE:-cpu}" \
        --trials 2 --timing-sets 1 --max-time 1 --no-compile-baseline --force --db "$work/r.sqlite" \
        --cache "$work/cache" ${EVAL_ARGS:-} >"$work/out" 2>"$work/err"
      rc=$?
      t1=$(date +%s.%N)
      phase() { grep "] $1 took" "$work/err" | awk '{s += $(NF-1)} END {printf "%.1f", s / 1000}'; }
      verdict=$(grep -o '^\[[0-9]*/[0-9]*\] [^ ]* *[^ ]* *[a-z_]*' "$work/err" | awk '{print $NF}' | sort | uniq -c | xargs)
      [[ $rc -eq 0 ]] || verdict="exit $rc"
      names=$(for x in $p; do basename "$x" .py; done | xargs)
      printf '| %s | %s | %d | %.1f | %s | %s | %s |\n' "$names" "$build" "$r" "$(echo "$t1 - $t0" | bc)" \
        "$(phase prepare_reference)" "$(phase evaluate_candidate)" "$verdict"
    done
  done
done
