#!/usr/bin/env bash
# DLRM-Bench's CPU-sized suite (DLRM_BENCH_PRESET=cpu) through headroom eval, end to end: every
# problem's own Model is correct as its candidate, the discrimination audit rejects every fake on all
# of them, every recommender trap candidate of suites/dlrm-bench/manifest.toml gets its expected
# verdict, the CUDA solutions pair with their problems by name, and stats reads the store. Skips (77)
# without Debian's CPU PyTorch.
set -uo pipefail
headroom=$1
src=$2
worker="$(dirname "$headroom")/headroom-worker"
if [[ ! -x $worker ]]; then echo "no headroom-worker (libpython3-dev missing at build time): skipped"; exit 77; fi
python=${HEADROOM_PYTHON:-/usr/bin/python3}
if ! "$python" -c "import torch" 2>/dev/null; then echo "$python cannot import torch: skipped"; exit 77; fi
work=$(mktemp -d "${TMPDIR:-/tmp}/dlrm-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
suite="$src/suites/dlrm-bench"
export DLRM_BENCH_PRESET=cpu
common=(--device cpu --python "$python" --cache "$work/cache" --no-timing --lanes 2 --run-timeout 60)

# 1. Each problem's own Model as its candidate: 12 of 12 correct (flagged torch_fallback, as the
#    reference always is, and nothing else).
"$headroom" eval "$suite/problems" --reference-as-candidate "${common[@]}" --db "$work/self.sqlite" \
  >"$work/self.txt" 2>"$work/self.err" || fail "eval --reference-as-candidate: $(tail -5 "$work/self.err")"
count() { sqlite3 "$work/$1" "$2"; }
[[ $(count self.sqlite "select count(*) from evaluations") == 12 ]] || fail "not 12 evaluations: $(cat "$work/self.txt")"
[[ $(count self.sqlite "select count(*) from evaluations where verdict = 'correct'") == 12 ]] ||
  fail "a problem's own Model is not correct: $(cat "$work/self.txt")"

# 2. The discrimination audit: zeros, the constant 1, the mean and the input pass-through are
#    rejected on every problem (--strict: exit 1 otherwise).
"$headroom" audit "$suite/problems" --strict --json --device cpu --python "$python" --cache "$work/cache" \
  >"$work/audit.json" 2>"$work/audit.err" || fail "audit: $(tail -5 "$work/audit.err") $(head -c 2000 "$work/audit.json")"
"$python" - "$work/audit.json" <<'PY' || fail "audit: $(head -c 3000 "$work/audit.json")"
import json, sys
problems = json.load(open(sys.argv[1]))["problems"]
assert len(problems) == 12, len(problems)
for p in problems:
    assert not p["error"], p
    assert p["discriminating"], p
    assert not any(f["passes_ours"] for f in p["fakes"]), p
PY

# 3. The traps: an fp16-accumulating embedding bag, a per-occurrence Adagrad, a dropped last id, the
#    layout and ordering conventions, padding, a mean loss: each gets its expected verdict.
"$headroom" eval --suite "$suite/manifest.toml" "${common[@]}" --db "$work/traps.sqlite" \
  >"$work/traps.txt" 2>"$work/traps.err"
rc=$?
cat "$work/traps.txt"
[[ $rc -eq 0 ]] || fail "a trap did not get its expected verdict (exit $rc): $(tail -5 "$work/traps.err")"
cases=$(grep -c '^\[\[case\]\]' "$suite/manifest.toml")
grep -q "^$cases of $cases case(s) got the expected verdict" "$work/traps.txt" || fail "not every case ran"
verdict() { sqlite3 "$work/traps.sqlite" "select verdict from evaluations where candidate_path like '%/$1'"; }
[[ $(verdict 01_embedding_bag_zipf_fp16_accumulate.py) == incorrect ]] || fail "fp16 accumulation passed"
[[ $(verdict 04_tbe_backward_rowwise_adagrad_per_occurrence.py) == incorrect ]] || fail "per-occurrence Adagrad passed"
[[ $(verdict 01_embedding_bag_zipf_drop_last.py) == incorrect ]] || fail "dropping the last id passed"

# 4. The CUDA solutions pair with their problems by name (PROBLEMS --candidates SOLUTIONS, as is);
#    without a CUDA build of PyTorch they cannot load, which is all this CPU can say about them (with
#    one, load_inline would build all twelve here: the GPU run shows the pairing instead).
if [[ $("$python" -c "import torch; print(torch.version.cuda is None)") == True ]]; then
  "$headroom" eval "$suite/problems" --candidates "$suite/solutions" "${common[@]}" --trials 1 \
    --db "$work/solutions.sqlite" >"$work/solutions.txt" 2>"$work/solutions.err" ||
    fail "eval --candidates solutions: $(tail -5 "$work/solutions.err")"
  pairs=$(sqlite3 "$work/solutions.sqlite" "select problem || ' ' || candidate_path from evaluations")
  [[ $(wc -l <<<"$pairs") == 12 ]] || fail "not 12 solution evaluations: $pairs"
  while read -r problem path; do
    [[ ${problem#problems/} == "$(basename "$path" .py)" ]] || fail "$path paired with $problem"
  done <<<"$pairs"
  "$headroom" stats "$work/solutions.sqlite" --csv >"$work/stats2.csv" || fail "stats failed"
  grep -q "^solutions," "$work/stats2.csv" || fail "stats has no row for the solutions: $(cat "$work/stats2.csv")"
fi

# 5. stats reports the suite like any source.
"$headroom" stats "$work/traps.sqlite" --csv >"$work/stats.csv" || fail "stats failed"
grep -q "^suite," "$work/stats.csv" || fail "stats has no row for the suite: $(cat "$work/stats.csv")"
echo "dlrm-bench: 12 problems correct against themselves, audit clean, $cases traps rejected, solutions paired"
