#!/usr/bin/env bash
# One problem's own Model judged as itself on the CPU, with the candidate sandboxed (the default)
# and with --no-sandbox, alternating, REPS times each: whether the sandbox moves the CPU path's
# self-timing (bench/RESULTS.md, "The CPU path judging a problem's own Model as itself").
# usage: bench/self_timing_sandbox_ab.sh HEADROOM [PROBLEM.py] [REPS] [-- EVAL_ARGS...]
#   PROBLEM.py: default bench/self_timing/19_relu.py; EVAL_ARGS: default --max-time 1
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
headroom=${1:?HEADROOM}; shift
problem=${1:-$src/bench/self_timing/19_relu.py}; [[ $# -gt 0 ]] && shift
reps=${1:-2}; [[ $# -gt 0 ]] && shift
[[ ${1:-} == -- ]] && shift
args=("$@"); [[ ${#args[@]} -eq 0 ]] && args=(--max-time 1)
python=${HEADROOM_PYTHON:-/usr/bin/python3}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
echo "$(nproc) CPUs; torch intra-op threads $("$python" -c 'import torch; print(torch.get_num_threads())'); $(date -u +%F)"
echo "| mode | rep | load at start | speedup | paired rounds | paired spread | candidate median ms | reference median ms |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for r in $(seq 1 "$reps"); do
  for mode in sandbox no-sandbox; do
    extra=(); [[ $mode == no-sandbox ]] && extra=(--no-sandbox)
    load=$(cut -d' ' -f1 /proc/loadavg)
    "$headroom" eval "$problem" --reference-as-candidate --device cpu --python "$python" --force \
      --db "$work/$mode-$r.sqlite" --cache "$work/cache" "${args[@]}" "${extra[@]}" >/dev/null 2>"$work/err" ||
      { tail -5 "$work/err"; continue; }
    python3 - "$work/$mode-$r.sqlite" "$mode" "$r" "$load" <<'PY'
import sqlite3, sys
db, mode, rep, load = sys.argv[1:]
for s, n, spread, c, e in sqlite3.connect(db).execute(
        "select speedup, paired_rounds, paired_spread, candidate_median_ms, eager_median_ms from evaluations"):
    f = lambda v, d=3: "-" if v is None else f"{v:.{d}f}"
    print(f"| {mode} | {rep} | {load} | {f(s)} | {n if n is not None else '-'} | {f(spread)} | {f(c)} | {f(e)} |")
PY
  done
done
