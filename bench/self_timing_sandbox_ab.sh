#!/usr/bin/env bash
# One problem's own Model judged as itself on the CPU, with the candidate sandboxed (the default)
# and with --no-sandbox, alternating, REPS times each: whether the sandbox moves the CPU path's
# self-timing (bench/RESULTS.md, "The CPU path judging a problem's own Model as itself").
# usage: bench/self_timing_sandbox_ab.sh HEADROOM [PROBLEM.py] [REPS] [-- EVAL_ARGS...]
#   PROBLEM.py: default bench/self_timing/19_relu.py; EVAL_ARGS: default --max-time 1
#   AB_THREADS: the intra-op thread settings to cross with the two modes, e.g. "default 1" (default:
#   "default", PyTorch's own choice; a number sets OMP_NUM_THREADS for the parent and both workers);
#   AB_MODES: "sandbox no-sandbox" (default) or one of them; AB_ENVS: settings to cross as well, each
#   "-" (none) or NAME=VALUE[,NAME=VALUE...] (default "-")
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
headroom=${1:?HEADROOM}; shift
problem=${1:-$src/bench/self_timing/19_relu.py}; [[ $# -gt 0 ]] && shift
reps=${1:-2}; [[ $# -gt 0 ]] && shift
[[ ${1:-} == -- ]] && shift
args=("$@"); [[ ${#args[@]} -eq 0 ]] && args=(--max-time 1)
python=${HEADROOM_PYTHON:-/usr/bin/python3}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
read -ra thread_settings <<<"${AB_THREADS:-default}"
read -ra modes <<<"${AB_MODES:-sandbox no-sandbox}"
read -ra env_settings <<<"${AB_ENVS:--}"
vuln=/sys/devices/system/cpu/vulnerabilities
echo "$(nproc) CPUs; torch intra-op threads $("$python" -c 'import torch; print(torch.get_num_threads())'); $(date -u +%F)"
echo "kernel $(uname -r); spec_store_bypass: $(cat $vuln/spec_store_bypass 2>/dev/null); spectre_v2: $(cat $vuln/spectre_v2 2>/dev/null)"
echo "cgroup: $(tr '\n' ' ' </proc/self/cgroup)"
# The forward alone, in a loop, inside headroom-sandbox (the candidate's confinement) and outside it:
# whether the confinement itself slows the problem's compute, with no protocol around it.
sandbox=$(dirname "$headroom")/headroom-sandbox
micro='import time, torch
x = torch.randn(16, 262144)
for _ in range(20): torch.relu(x)
blocks = []
for _ in range(7):
    t = time.perf_counter()
    for _ in range(50): torch.relu(x)
    blocks.append((time.perf_counter() - t) / 50 * 1e3)
print(f"threads {torch.get_num_threads()} relu 16x262144 median {sorted(blocks)[3]:.4f} ms")'
binds=()
for p in "$("$python" -c 'import os, sys; print(os.path.realpath(sys.prefix))')" \
         "$("$python" -c 'import os, sys; print(os.path.realpath(sys.base_prefix))')"; do
  case $p in /usr|/usr/*|/etc/*|/lib/*|/lib64/*) ;; *) binds+=(--ro "$p" "$p") ;; esac
done
for threads in "${thread_settings[@]}"; do
  env=(); setenv=(); [[ $threads != default ]] && env=(OMP_NUM_THREADS="$threads") setenv=(--setenv OMP_NUM_THREADS="$threads")
  echo "outside the sandbox: $(env "${env[@]}" "$python" -c "$micro" 2>&1 | tail -1)"
  echo "inside the sandbox:  $("$sandbox" "${binds[@]}" --tmpfs /tmp 268435456 --setenv PATH=/usr/bin:/bin "${setenv[@]}" \
    -- "$(command -v "$python")" -c "$micro" 2>&1 | tail -1)"
done
echo "| threads | settings | mode | rep | load at start | speedup | paired rounds | paired spread | candidate median ms | reference median ms |"
echo "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for r in $(seq 1 "$reps"); do
  for threads in "${thread_settings[@]}"; do
   for setting in "${env_settings[@]}"; do
    for mode in "${modes[@]}"; do
      extra=(); [[ $mode == no-sandbox ]] && extra=(--no-sandbox)
      env=(); [[ $threads != default ]] && env=(OMP_NUM_THREADS="$threads")
      [[ $setting != - ]] && { IFS=, read -ra more <<<"$setting"; env+=("${more[@]}"); }
      load=$(cut -d' ' -f1 /proc/loadavg)
      db=$work/$threads-${setting//[^A-Za-z0-9]/_}-$mode-$r.sqlite
      env "${env[@]}" "$headroom" eval "$problem" --reference-as-candidate --device cpu --python "$python" --force \
        --db "$db" --cache "$work/cache" "${args[@]}" "${extra[@]}" >/dev/null 2>"$work/err" ||
        { tail -5 "$work/err"; continue; }
      python3 - "$db" "$threads" "$setting" "$mode" "$r" "$load" <<'PY'
import sqlite3, sys
db, threads, setting, mode, rep, load = sys.argv[1:]
for s, n, spread, c, e in sqlite3.connect(db).execute(
        "select speedup, paired_rounds, paired_spread, candidate_median_ms, eager_median_ms from evaluations"):
    f = lambda v, d=3: "-" if v is None else f"{v:.{d}f}"
    print(f"| {threads} | {setting} | {mode} | {rep} | {load} | {f(s)} | {n if n is not None else '-'} | {f(spread)} | {f(c)} | {f(e)} |")
PY
    done
   done
  done
done
