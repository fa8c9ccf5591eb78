#!/usr/bin/env bash
# What the evaluation sandbox costs (docs/eval.md, "Sandbox"), measured beside the unsandboxed run:
#  1. starting a sandbox at all: `headroom-sandbox ... -- /bin/true` against `/bin/true`, N times each,
#     alternating;
#  2. per evaluation: the same evaluations (each problem's own Model as its candidate, --no-timing,
#     so that only what the sandbox changes is measured: worker start-up, import, trials) run REPS
#     times with and without the sandbox, alternating; each evaluation's duration comes from the
#     store, and the table gives each mode's median and their difference.
# usage: bench/sandbox_cost.sh [BUILD_BIN] [REPS] [N]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$src/build/release/bin}
reps=${2:-5}
n=${3:-200}
python=${HEADROOM_PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "machine: $(nproc) CPUs, $(uname -r); $(date -u +%Y-%m-%d)"
echo "1. start and end of a sandbox running /bin/true ($n times each, alternating)"
python3 - "$bin/headroom-sandbox" "$n" <<'PY'
import statistics, subprocess, sys, time
sandbox, n = sys.argv[1], int(sys.argv[2])
args = [sandbox, "--tmpfs", "/tmp", str(64 << 20), "--setenv", "PATH=/usr/bin:/bin", "--", "/bin/true"]
plain, boxed = [], []
for _ in range(n):
    for cmd, out in ((["/bin/true"], plain), (args, boxed)):
        t = time.perf_counter()
        subprocess.run(cmd, check=True)
        out.append((time.perf_counter() - t) * 1e3)
p, b = statistics.median(plain), statistics.median(boxed)
print(f"   /bin/true: median {p:.2f} ms; in a sandbox: median {b:.2f} ms; added {b - p:.2f} ms")
PY

echo "2. evaluations with and without the sandbox ($reps runs each, alternating)"
mkdir -p "$work/problems"
cp "$src"/suites/adversarial/problems/{relu,matmul,embedding_bag_sum,scale_shift}.py "$work/problems/"
for r in $(seq 1 "$reps"); do
  for mode in sandbox none; do
    flag=(); [[ $mode == none ]] && flag=(--no-sandbox)
    "$bin/headroom" eval "$work/problems" --reference-as-candidate --device cpu --python "$python" --no-timing \
      --trials 2 --cache "$work/cache-$mode" --db "$work/$mode-$r.sqlite" "${flag[@]}" >/dev/null 2>&1
  done
done
python3 - "$work" "$reps" <<'PY'
import sqlite3, statistics, sys
work, reps = sys.argv[1], int(sys.argv[2])
def durations(mode):
    out = []
    for r in range(1, reps + 1):
        db = sqlite3.connect(f"{work}/{mode}-{r}.sqlite")
        out += [d for (d,) in db.execute("select duration_s from evaluations where verdict = 'correct'")]
    return out
s, n = durations("sandbox"), durations("none")
ms, mn = statistics.median(s) * 1e3, statistics.median(n) * 1e3
print(f"   {len(s)} sandboxed and {len(n)} unsandboxed evaluations")
print(f"   per evaluation: sandboxed median {ms:.0f} ms, unsandboxed median {mn:.0f} ms, added {ms - mn:+.0f} ms ({ms / mn:.3f}x)")
PY
