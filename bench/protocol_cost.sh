#!/usr/bin/env bash
# What the measurement protocol's own checks cost per evaluation (docs/eval.md, "Integrity inside
# the worker": a plan asked per timed call, fresh inputs made per call, start and end announced,
# every kept call's outputs sketched, eight calls run again on the reference's worker), measured
# beside a build without them. The same evaluations (each problem's own Model as its candidate,
# timing on, paired rounds off so that both builds time the same way) run REPS times with each
# build, alternating; each evaluation's duration and its timed-sample count come from the stores.
# usage: bench/protocol_cost.sh NEW_BIN OLD_BIN [REPS]
#   NEW_BIN, OLD_BIN: folders holding headroom, headroom-worker and headroom-sandbox of each build
#   (OLD_BIN: a build of the commit before the protocol, e.g. a worktree at 1f68f70)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
new=${1:?NEW_BIN}
old=${2:?OLD_BIN}
reps=${3:-3}
python=${HEADROOM_PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "machine: $(nproc) CPUs, $(uname -r); $(date -u +%Y-%m-%d); load average $(cut -d' ' -f1-3 /proc/loadavg)"
mkdir -p "$work/problems"
cp "$src"/suites/adversarial/problems/{relu,matmul,embedding_bag_sum,scale_shift}.py "$work/problems/"
for r in $(seq 1 "$reps"); do
  for build in new old; do
    bin=$new; [[ $build == old ]] && bin=$old
    "$bin/headroom" eval "$work/problems" --reference-as-candidate --device cpu --python "$python" \
      --paired-rounds 0 --max-time 0.5 --no-compile-baseline --cache "$work/cache-$build" \
      --db "$work/$build-$r.sqlite" >/dev/null 2>&1 || true
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work" "$reps" <<'PY'
import sqlite3, statistics, sys
work, reps = sys.argv[1], int(sys.argv[2])
def rows(build):
    out = {}
    for r in range(1, reps + 1):
        db = sqlite3.connect(f"{work}/{build}-{r}.sqlite")
        for problem, d, verdict in db.execute("select problem, duration_s, verdict from evaluations"):
            out.setdefault(problem.rsplit("/", 1)[-1], []).append((d, verdict))
    return out
new, old = rows("new"), rows("old")
print(f"| problem | verdicts (new / old) | new median s | old median s | new / old |")
print(f"|---|---|---:|---:|---:|")
ratios = []
for p in sorted(set(new) | set(old)):
    n = [d for d, _ in new.get(p, [])]; o = [d for d, _ in old.get(p, [])]
    vn = ",".join(sorted({v for _, v in new.get(p, [])})); vo = ",".join(sorted({v for _, v in old.get(p, [])}))
    if n and o:
        mn, mo = statistics.median(n), statistics.median(o)
        ratios.append(mn / mo)
        print(f"| {p} | {vn} / {vo} | {mn:.2f} | {mo:.2f} | {mn / mo:.3f} |")
if ratios:
    g = 1.0
    for x in ratios: g *= x
    print(f"geometric mean new / old: {g ** (1 / len(ratios)):.3f} over {len(ratios)} problems, {reps} runs each")
PY
