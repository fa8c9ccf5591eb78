#!/usr/bin/env bash
# How repeatable is `headroom eval`'s speedup? The same correct candidate evaluated N times, each in
# a fresh run (fresh workers, fresh reference timing). Prints each run's candidate and eager medians
# and the speedup, then the spread of the speedup: (max - min) / median. The target is 0.3%.
#
#   bench/eval_repeatability.sh [HEADROOM] [N]   (env DEVICE=cuda, PROBLEM=..., CANDIDATE=...,
#                                                 EVAL_ARGS="--no-hold" for dispatch-included timing,
#                                                 KEEP=DIR to keep each run's store there;
#                                                 CANDIDATE=reference: the problem's own Model, as
#                                                 KernelBench's own-reference run evaluates it)
set -uo pipefail
cd "$(dirname "$0")/.."
headroom=${1:-build/device/bin/headroom}
n=${2:-5}
device=${DEVICE:-cuda}
problem=${PROBLEM:-suites/adversarial/problems/relu_gpu.py}
candidate=${CANDIDATE:-suites/adversarial/candidates/cuda_relu.py}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "| run | candidate median ms | rel. spread | samples, min, mean | eager median ms | rel. spread | samples, min, mean | speedup | how it was timed |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
which=(--candidates "$candidate")
[[ $candidate == reference ]] && which=(--reference-as-candidate)
for i in $(seq 1 "$n"); do
  "$headroom" eval "$problem" "${which[@]}" --device "$device" --db "$work/r$i.sqlite" \
    --cache "$work/cache" --no-compile-baseline ${EVAL_ARGS:-} >/dev/null 2>"$work/err$i" || { tail -5 "$work/err$i"; exit 1; }
  [[ -n ${KEEP:-} ]] && mkdir -p "$KEEP" && cp "$work/r$i.sqlite"* "$KEEP/"
  python3 - "$work/r$i.sqlite" "$i" <<'PY'
import sqlite3, sys
row = sqlite3.connect(sys.argv[1]).execute(
    "select candidate_median_ms, candidate_rel_spread, candidate_samples, candidate_min_ms, candidate_mean_ms,"
    " eager_median_ms, eager_rel_spread, eager_samples, eager_min_ms, eager_mean_ms, speedup, clocks from evaluations").fetchone()
c, cs, cn, cmin, cmean, e, es, en, emin, emean, s, clocks = row
print(f"| {sys.argv[2]} | {c:.4f} | {cs:.2%} | {cn}, {cmin:.4f}, {cmean:.4f} | {e:.4f} | {es:.2%} | {en}, {emin:.4f}, {emean:.4f} "
      f"| {s:.4f} | {clocks} |" if s else f"| {sys.argv[2]} | no speedup: {row} |")
with open(sys.argv[1] + ".speedup", "w") as f:
    f.write(str(s or ""))
PY
done
python3 - "$work" "$n" <<'PY'
import statistics, sys
v = []
for i in range(1, int(sys.argv[2]) + 1):
    t = open(f"{sys.argv[1]}/r{i}.sqlite.speedup").read().strip()
    if t:
        v.append(float(t))
if v:
    m = statistics.median(v)
    print(f"\nspeedup median {m:.4f}, range {min(v):.4f}..{max(v):.4f}, spread (max-min)/median {(max(v) - min(v)) / m:.2%}")
PY
