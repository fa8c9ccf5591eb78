#!/usr/bin/env bash
# headroom eval on the CPU, end to end, over the honest suite (suites/honest): every case
# meaningful on the CPU is a correct kernel written the way real submissions are (algorithmic
# rewrites that do less work than the reference, persistent output buffers, library calls, fused
# epilogues, float32 math done differently, C++ extensions), and each must be judged correct with no
# disqualifying flag: no false rejections. Skips (77) without Debian's CPU PyTorch.
# Sampling is shorter than eval's default (0.25 s a timing, at least 5 calls, alternating calls at
# least 2 x 5 a side): the verdicts and flags are decided as at the default settings, and the corpus
# fits CI's time (suites/honest/README.md). The kernels' margins over their floors (1.7x and up)
# are far above what the shorter sampling moves.
set -uo pipefail
headroom=$1
src=$2
source "$(dirname "$0")/lib/eval_prelude.sh"
manifest="$src/suites/honest/manifest.toml"

"$headroom" eval --suite "$manifest" --device cpu --python "$python" --cache "$work/cache" --db "$work/r.sqlite" \
  --max-time 0.25 --min-samples 5 --paired-rounds 2 --run-timeout 60 --no-compile-baseline >"$work/out.txt" 2>"$work/err.txt"
rc=$?
cat "$work/out.txt"

# Every CPU case has its evaluation, once.
cpu_cases=$("$python" - "$manifest" <<'PY'
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    print(sum("cpu" in c.get("devices", ["cpu", "cuda"]) for c in tomllib.load(f)["case"]))
PY
)
stored=$(sqlite3 "$work/r.sqlite" "select count(*) from evaluations" 2>/dev/null || echo 0)
[[ $stored -eq $cpu_cases ]] || { tail -20 "$work/err.txt"; fail "$stored evaluations stored for $cpu_cases cpu cases"; }

# What was refused, and why, before the verdict on the whole run.
refused=$(sqlite3 -separator ' | ' "$work/r.sqlite" \
  "select candidate_path, verdict, reasons from evaluations where verdict != 'correct' or reasons like '%torch_fallback%'
     or reasons like '%excessive_speedup%' or reasons like '%below_speed_of_light%' or reasons like '%other_stream_work%'
     or reasons like '%timing_modes_differ%'")
[[ -n $refused ]] && echo "refused or flagged: $refused"
[[ $rc -eq 0 ]] || { tail -20 "$work/err.txt"; fail "some honest case did not get its expected verdict (exit $rc)"; }
grep -q "of .* case(s) got the expected verdict" "$work/out.txt" || fail "no summary line"
[[ $(sqlite3 "$work/r.sqlite" "select count(*) from evaluations where verdict = 'correct'") -eq $cpu_cases ]] ||
  fail "not every honest case is correct"
echo "honest suite: $cpu_cases evaluations, all correct"
