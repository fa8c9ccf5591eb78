#!/usr/bin/env bash
# Releases (docs/releases.md): a store evaluated on PostgreSQL is read by `headroom project` and
# `headroom report`, exported, imported into a SQLite file and exported again byte for byte, and
# `headroom reverify` on the import changes nothing. Then two releases whose verdicts a lax checker
# gave are imported and our checker overturns them: a KernelBench runs folder (eval_results.json)
# and a headroom release, both built here from the adversarial suite's cases that pass KernelBench's
# allclose (zeros for a softmax over 32768 columns; ReLU as the identity, right on inputs in [0, 1)).
set -uo pipefail
headroom=$1
src=$2
source "$src/tests/cli/lib/eval_on_postgres.sh"
work=$(mktemp -d)
admin=$(cat "$HEADROOM_TEST_POSTGRES_DIR/url")
db=release_$$
trap 'for d in $db ${db}_lax; do psql -q "$admin" -c "DROP DATABASE IF EXISTS $d WITH (FORCE)" 2>/dev/null; done; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
psql -q "$admin" -c "CREATE DATABASE $db" || fail "cannot create a database on the test server"
url=${admin/@\/postgres/@\/$db}
psql -q "$admin" -c "CREATE DATABASE ${db}_lax" || fail "cannot create a database on the test server"
lax_url=${admin/@\/postgres/@\/${db}_lax}
common=(--device cpu --python "$python" --cache "$work/cache" --no-timing)
adv="$src/suites/adversarial"

# The evaluation to release: two problems, four candidates, on the shared store.
mkdir -p "$work/problems" "$work/candidates"
cp "$adv/problems/relu.py" "$adv/problems/softmax_wide.py" "$work/problems/"
cp "$adv/candidates/relu_identity.py" "$work/candidates/relu_identity.py"
cp "$adv/candidates/nan_relu.py" "$work/candidates/relu_nan.py"
cp "$adv/candidates/zeros_softmax.py" "$work/candidates/softmax_wide_zeros.py"
cp "$adv/candidates/torch_fallback_softmax.py" "$work/candidates/softmax_wide_fallback.py"
"$headroom" eval "$work/problems" --candidates "$work/candidates" --source release-test "${common[@]}" --db "$url" \
  >"$work/eval.txt" 2>"$work/eval.err" || fail "eval: $(tail -5 "$work/eval.err")"

# project and report read the PostgreSQL store as they read a file: its source joined to a trace.
trace="$src/tests/data/h200-dlrm-train.json.gz"
"$headroom" project "$trace" --results "$url" --bootstrap 0 --json -o "$work/join.json" 2>"$work/join.err" ||
  fail "project --results on PostgreSQL: $(cat "$work/join.err")"
python3 - "$work/join.json" <<'PY' || fail "project --results on PostgreSQL: $(cat "$work/join.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert [s["source"] for s in j["sources"]] == ["release-test"], j["sources"]
PY
"$headroom" report "$trace" "$url" --bootstrap 0 -o "$work/report.html" 2>"$work/report.err" ||
  fail "report on PostgreSQL: $(cat "$work/report.err")"
grep -q "1 results source" "$work/report.err" || fail "report: $(cat "$work/report.err")"
grep -q "release-test" "$work/report.html" && grep -q "$db" "$work/report.html" || fail "the report lacks the store's source"
"$headroom" report "$trace" "postgresql://postgres@127.0.0.1:1/none" -o "$work/none.html" 2>"$work/none.err"
[[ $? -eq 2 ]] && grep -q "cannot connect to postgresql://postgres@127.0.0.1:1/none" "$work/none.err" ||
  fail "a store that cannot be reached: $(cat "$work/none.err")"

# export -> import -> export: the same bytes; reverify on the import: nothing changes.
"$headroom" results export "$url" -o "$work/release.jsonl" 2>/dev/null || fail "export from PostgreSQL failed"
[[ $(wc -l <"$work/release.jsonl") -eq $((1 + 2 + 4 + 4)) ]] || fail "release: $(cat "$work/release.jsonl")"
"$headroom" results import "$work/release.jsonl" --db "$work/imported.sqlite" 2>/dev/null || fail "import failed"
"$headroom" results export "$work/imported.sqlite" -o "$work/again.jsonl" 2>/dev/null || fail "export from SQLite failed"
cmp -s "$work/release.jsonl" "$work/again.jsonl" || fail "the release changed through a store: $(diff "$work/release.jsonl" "$work/again.jsonl" | head -5)"
"$headroom" results export "$work/imported.sqlite" -o - >"$work/stdout.jsonl" 2>/dev/null || fail "export to standard output failed"
cmp -s "$work/release.jsonl" "$work/stdout.jsonl" || fail "the release on standard output differs from the file"
# -o naming the store itself: refused (status 2) before anything is written, the store as it was.
store_sum=$(sha256sum <"$work/imported.sqlite")
"$headroom" results export "$work/imported.sqlite" -o "$work/imported.sqlite" 2>"$work/self.err"
[[ $? -eq 2 && -s "$work/self.err" ]] || fail "export over its own store: $(cat "$work/self.err")"
[[ $(sha256sum <"$work/imported.sqlite") == "$store_sum" ]] || fail "export over its own store changed the store"
"$headroom" reverify --db "$work/imported.sqlite" "${common[@]}" >"$work/same.txt" 2>"$work/same.err" || fail "reverify: $(tail -5 "$work/same.err")"
grep -q "^4 evaluation(s) reverified under checker v[0-9]*; 0 verdict(s) changed" "$work/same.txt" || fail "round trip: $(cat "$work/same.txt")"
# The checker version that judges now (eval/check.hpp's checker_version), as reverify names it.
checker=$(sed -n 's/^4 evaluation(s) reverified under checker v\([0-9]*\);.*/\1/p' "$work/same.txt")

# A KernelBench run that judged all but one of them correct: our checker overturns two.
kb="$work/kb"
mkdir -p "$kb/level1" "$kb/runs/lax_model"
cp "$adv/problems/softmax_wide.py" "$kb/level1/1_softmax_wide.py"
cp "$adv/problems/relu.py" "$kb/level1/2_relu.py"
cp "$adv/candidates/zeros_softmax.py" "$kb/runs/lax_model/level_1_problem_1_sample_0_kernel.py"
cp "$adv/candidates/torch_fallback_softmax.py" "$kb/runs/lax_model/level_1_problem_1_sample_1_kernel.py"
cp "$adv/candidates/relu_identity.py" "$kb/runs/lax_model/level_1_problem_2_sample_0_kernel.py"
cp "$adv/candidates/nan_relu.py" "$kb/runs/lax_model/level_1_problem_2_sample_1_kernel.py"
cat >"$kb/runs/lax_model/eval_results.json" <<'JSON'
{"1": [{"sample_id": 0, "compiled": true, "correctness": true, "runtime": 0.021, "ref_runtime": 0.105,
        "runtime_stats": {"mean": 0.021, "std": 0.001, "min": 0.02, "max": 0.024, "num_trials": 100, "hardware": "NVIDIA H100", "device": "cuda:0"},
        "metadata": {"hardware": "NVIDIA H100", "device": "cuda:0", "correctness_trials": "(5 / 5)", "max_difference": ["0.000031"]}},
       {"sample_id": 1, "compiled": true, "correctness": true, "runtime": 0.101, "ref_runtime": 0.105,
        "metadata": {"hardware": "NVIDIA H100", "device": "cuda:0", "correctness_trials": "(5 / 5)"}}],
 "2": [{"sample_id": 0, "compiled": true, "correctness": true, "runtime": 0.011, "ref_runtime": 0.012,
        "metadata": {"hardware": "NVIDIA H100", "device": "cuda:0", "correctness_trials": "(5 / 5)"}},
       {"sample_id": 1, "compiled": true, "correctness": false,
        "metadata": {"hardware": "NVIDIA H100", "device": "cuda:0", "correctness_issue": "Output mismatch", "correctness_trials": "(0 / 5)"}}]}
JSON
"$headroom" results import "$kb/runs/lax_model" --problems "$kb/level1" --db "$work/kb.sqlite" 2>"$work/kb-import.err" ||
  fail "KernelBench import: $(cat "$work/kb-import.err")"
[[ $(sqlite3 "$work/kb.sqlite" "select count(*) from evaluations where checker = 0 and source = 'lax_model' and verdict = 'correct'") -eq 3 ]] ||
  fail "KernelBench import: $(sqlite3 "$work/kb.sqlite" "select candidate_path, verdict, checker, speedup from evaluations")"
[[ $(sqlite3 "$work/kb.sqlite" "select round(speedup, 3) || ' ' || gpu || ' ' || candidate_samples from evaluations where candidate_path like '%problem_1_sample_0%'") == "5.0 NVIDIA H100 100" ]] ||
  fail "KernelBench import: $(sqlite3 "$work/kb.sqlite" "select speedup, gpu, candidate_samples from evaluations")"
"$headroom" reverify --db "$work/kb.sqlite" "${common[@]}" >"$work/kb-reverify.txt" 2>"$work/kb-reverify.err" ||
  fail "reverify KernelBench: $(tail -5 "$work/kb-reverify.err")"
cat "$work/kb-reverify.txt"
grep -q "^4 evaluation(s) reverified under checker v$checker; 2 verdict(s) changed" "$work/kb-reverify.txt" || fail "KernelBench reverify"
grep -q "level_1_problem_1_sample_0_kernel.py *correct (imported) *incorrect *mismatch" "$work/kb-reverify.txt" || fail "zeros not overturned"
grep -q "level_1_problem_2_sample_0_kernel.py *correct (imported) *incorrect *mismatch" "$work/kb-reverify.txt" || fail "identity not overturned"

# A headroom release with the same lax verdicts (checker 0, as another harness would have given them),
# imported into and reverified on a PostgreSQL store.
python3 - "$work/release.jsonl" "$work/lax.jsonl" <<'PY'
import json, sys
out = []
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("record") == "evaluation" and r["candidate_path"].endswith(("relu_identity.py", "softmax_wide_zeros.py")):
        r.update(verdict="correct", checker=0, reasons=[], verified=False)
    out.append(json.dumps(r))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
"$headroom" results import "$work/lax.jsonl" --db "$lax_url" 2>/dev/null || fail "import of the lax release failed"
"$headroom" reverify --db "$lax_url" "${common[@]}" >"$work/lax-reverify.txt" 2>/dev/null || fail "reverify of the lax release failed"
grep -q "^4 evaluation(s) reverified under checker v$checker; 2 verdict(s) changed" "$work/lax-reverify.txt" || fail "lax release: $(cat "$work/lax-reverify.txt")"
[[ $(psql -qtAX "$lax_url" -c "select count(*) from evaluations where checker = $checker") -eq 4 ]] ||
  fail "reverify did not store its verdicts in the PostgreSQL store"

# A release cut short is refused whole; so is a file that is not a release.
head -n 5 "$work/release.jsonl" >"$work/short.jsonl"
"$headroom" results import "$work/short.jsonl" --db "$work/short.sqlite" 2>"$work/short.err" && fail "a truncated release was imported"
grep -q "promises 4 evaluations and the file holds 0" "$work/short.err" || fail "truncated: $(cat "$work/short.err")"
[[ $(sqlite3 "$work/short.sqlite" "select count(*) from problems") -eq 0 ]] || fail "part of a truncated release was kept"
echo '{"hello": 1}' >"$work/other.jsonl"
"$headroom" results import "$work/other.jsonl" --db "$work/other.sqlite" 2>"$work/other.err"
[[ $? -eq 2 ]] && grep -q "not a headroom release" "$work/other.err" || fail "a foreign file: $(cat "$work/other.err")"
echo "releases: round trip unchanged; KernelBench and lax releases overturned as expected"
