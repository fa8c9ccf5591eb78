#!/usr/bin/env bash
# headroom eval on the CPU, end to end, with real candidates: every case of the adversarial suite
# that is meaningful on the CPU gets its expected verdict; an interrupted run continues without
# duplicates; a second writer of one store is refused; stats, audit and reverify read what it
# stored (reverify --no-timing keeps timed rows); two lanes on one device share its problems. Skips (77) without Debian's CPU PyTorch.
set -uo pipefail
headroom=$1
src=$2
source "$(dirname "$0")/lib/eval_prelude.sh"
common=(--device cpu --python "$python" --cache "$work/cache" --max-time 0.5 --min-samples 5 --run-timeout 20 --no-compile-baseline)
manifest="$src/suites/adversarial/manifest.toml"

# The judge's environment holds a "secret" that no candidate may see (sandbox_escape_host checks).
export HEADROOM_TEST_CANARY=judge-only

# An interrupted run: stop it after a few evaluations are stored...
"$headroom" eval --suite "$manifest" "${common[@]}" --db "$work/r.sqlite" --audit-to "$work/audit.jsonl" \
  >"$work/first.txt" 2>"$work/first.err" &
pid=$!
for _ in $(seq 1 600); do
  n=$(sqlite3 "$work/r.sqlite" "select count(*) from evaluations" 2>/dev/null || echo 0)
  [[ ${n:-0} -ge 4 ]] && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.5
done
# A second run writing the same store while the first runs is refused (each would replace the
# other's rows), with a message naming the file; the first goes on.
if kill -0 $pid 2>/dev/null; then
  "$headroom" eval --suite "$manifest" "${common[@]}" --db "$work/r.sqlite" >/dev/null 2>"$work/second.err"
  rc=$?
  [[ $rc -eq 2 ]] || fail "a second writer of one store got exit $rc: $(tail -3 "$work/second.err")"
  grep -q "r.sqlite: another headroom process is writing this results store" "$work/second.err" ||
    fail "second writer: $(cat "$work/second.err")"
  kill -0 $pid 2>/dev/null || fail "the refused second writer stopped the first"
fi
# (SIGTERM: a background job of a non-interactive shell ignores SIGINT)
kill -TERM $pid 2>/dev/null
wait $pid
stored=$(sqlite3 "$work/r.sqlite" "select count(*) from evaluations")
[[ $stored -ge 4 ]] || fail "only $stored evaluations stored before the interruption"
sleep 0.5
pgrep -f "headroom-worker.*$work" >/dev/null && fail "a worker outlived the interrupted run"

# ...then start it again: it continues, evaluates only what is missing, and every case is as expected.
"$headroom" eval --suite "$manifest" "${common[@]}" --db "$work/r.sqlite" --audit-to "$work/audit.jsonl" \
  >"$work/out.txt" 2>"$work/err.txt"
rc=$?
cat "$work/out.txt"
[[ $rc -eq 0 ]] || { cat "$work/err.txt" | tail -20; fail "some case did not get its expected verdict (exit $rc)"; }
cases=$(grep -c '^\[\[case\]\]' "$manifest")
cpu_cases=$(grep -c "of .* case(s) got the expected verdict" "$work/out.txt")
[[ $cpu_cases -eq 1 ]] || fail "no summary line"
total=$(sqlite3 "$work/r.sqlite" "select count(*) from evaluations")
distinct=$(sqlite3 "$work/r.sqlite" "select count(distinct candidate_hash || problem_hash) from evaluations")
[[ $total -eq $distinct ]] || fail "duplicates: $total rows for $distinct evaluations"
grep -q "^\[1/$((total - stored))\]" "$work/err.txt" || fail "the second run did not continue where the first stopped ($stored stored, $total in all)"

# The verdicts a user relies on, read back from the store.
verdict() { sqlite3 "$work/r.sqlite" "select verdict from evaluations where candidate_path like '%/$1'"; }
[[ $(verdict zeros_softmax.py) == incorrect ]] || fail "zeros passed"
[[ $(verdict stale_empty.py) == incorrect ]] || fail "an unwritten output passed"
[[ $(verdict hang_forever.py) == timeout ]] || fail "a hang was not a timeout"
[[ $(verdict crash_abort.py) == crash ]] || fail "an abort was not a crash"
[[ $(verdict relu_ext.py) == correct ]] || fail "the correct C++ extension was not correct"

# The sandbox's cases left nothing behind: the store still says what the judge said (the tampering
# candidate's processes died with its evaluation), no process it started is alive, and the 3 GiB log
# was capped.
sleep 1
[[ $(verdict sandbox_db_tamper.py) == incorrect ]] || fail "the results store was rewritten by a candidate"
[[ $(sqlite3 "$work/r.sqlite" "select count(*) from evaluations where speedup >= 999") == 0 ]] || fail "a forged speedup in the store"
pgrep -f "headroom-outlive-[c]anary" >/dev/null && fail "a candidate's process outlived its evaluation"
flood_log=$(grep -l "bytes of output dropped" "$work"/cache/logs/candidate-*.log | head -1)
[[ -n $flood_log ]] || fail "no log says its output was capped"
(( $(stat -c %s "$flood_log") < 9 * 1024 * 1024 )) || fail "a capped log holds $(stat -c %s "$flood_log") bytes"
grep -q "3221225472 bytes of output dropped\|32[0-9]\{8\} bytes of output dropped" "$flood_log" || fail "the dropped bytes were not counted: $(grep dropped "$flood_log")"

# Without the sandbox the same attacks work: the cases are real. (Only those harmless to this
# machine: they look, they do not touch.)
for c in sandbox_network sandbox_escape_host sandbox_other_builds; do
  "$headroom" eval "$src/suites/adversarial/problems/relu.py" --candidates "$src/suites/adversarial/candidates/$c.py" \
    --no-sandbox --no-timing --trials 1 --device cpu --python "$python" --cache "$work/cache" --db "$work/unsandboxed.sqlite" \
    >/dev/null 2>&1
  got=$(sqlite3 "$work/unsandboxed.sqlite" "select verdict || ' ' || reasons from evaluations where candidate_path like '%/$c.py'")
  [[ $got == runtime_error*"sandbox escape"* ]] || fail "$c without the sandbox: expected its escape to show, got: $got"
done
pkill -f "headroom-outlive-[c]anary"

# As an unprivileged user (the sandbox then nests user namespaces): a copy of the binaries and of
# some cases, readable by anyone, and a cache that user owns.
if [[ $(id -u) -eq 0 ]] && command -v setpriv >/dev/null; then
  u="$work/unprivileged"
  mkdir -p "$u/bin" "$u/suite/problems" "$u/suite/candidates" "$u/cache"
  cp "$headroom" "$worker" "$(dirname "$headroom")/headroom-sandbox" "$u/bin/"
  [[ -d $(dirname "$headroom")/../lib ]] && cp -r "$(dirname "$headroom")/../lib" "$u/"
  cp "$src/suites/adversarial/problems/relu.py" "$u/suite/problems/"
  : >"$u/suite/manifest.toml"
  for c in sandbox_kill_parent sandbox_escape_host sandbox_read_memory sandbox_network sandbox_fork_bomb \
           sandbox_ptrace_reference relu_ext; do
    cp "$src/suites/adversarial/candidates/$c.py" "$u/suite/candidates/"
    flags='["torch_fallback"]'; [[ $c == relu_ext ]] && flags='[]'
    printf '[[case]]\nname = "%s"\nproblem = "problems/relu.py"\ncandidate = "candidates/%s.py"\nexpect = "correct"\nreasons = %s\n\n' \
      "$c" "$c" "$flags" >>"$u/suite/manifest.toml"
  done
  chmod -R a+rX "$work"
  chown -R 65534:65534 "$u/cache"
  (cd "$u/cache" && setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$u/cache" HEADROOM_TEST_CANARY=judge-only \
      "$u/bin/headroom" eval --suite "$u/suite/manifest.toml" --device cpu --python "$python" --cache "$u/cache/c" \
      --db "$u/cache/r.sqlite" --no-timing --trials 2) >"$work/unprivileged.txt" 2>&1 ||
    fail "as an unprivileged user: $(tail -20 "$work/unprivileged.txt")"
  pgrep -f "headroom-outlive-[c]anary" >/dev/null && fail "a candidate's process outlived its evaluation (unprivileged)"
fi

# The audit that came with the run: every problem whose reference was prepared rejects every fake,
# but the degenerate one, which the audit names.
python3 - "$work/audit.jsonl" <<'PY' || fail "eval --audit-to: $(cat "$work/audit.jsonl")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert rows, "no audit rows"
# The one problem the harness cannot judge says why; every other one rejects every fake.
failed = {r["problem"]: r["error"] for r in rows if r["error"]}
assert list(failed) == ["problems/scale_by_seed"], failed
assert "under another seed" in failed["problems/scale_by_seed"], failed
degenerate = {r["problem"]: r["degenerate"] for r in rows if r["degenerate"]}
assert list(degenerate) == ["problems/gemm_max_sub_gelu"], degenerate
assert "does not depend on the inputs" in degenerate["problems/gemm_max_sub_gelu"], degenerate
assert all(r["discriminating"] for r in rows if not r["error"] and not r["degenerate"]), rows
PY
# Every problem a candidate was run on (not stopped at compilation) has its audit row, the
# interrupted first run's included: the line is written before the problem's evaluation is stored.
sqlite3 "$work/r.sqlite" "select distinct problem from evaluations where reasons not like '%\"code\": \"compile%'" \
  | sort >"$work/evaluated.txt"
python3 -c 'import json,sys; print("\n".join(sorted({json.loads(l)["problem"] for l in open(sys.argv[1])})))' \
  "$work/audit.jsonl" >"$work/audited.txt"
missing=$(comm -23 "$work/evaluated.txt" "$work/audited.txt")
[[ -z $missing ]] || fail "evaluated without an audit row: $missing"

# stats reads the store.
"$headroom" stats "$work/r.sqlite" --csv >"$work/stats.csv" || fail "stats failed"
grep -q "^suite," "$work/stats.csv" || fail "stats has no row for the suite: $(cat "$work/stats.csv")"
# The degenerate problem's evaluation (zeros, correct, flagged) is left out of every figure and counted.
python3 - "$work/stats.csv" <<'PY' || fail "stats: the degenerate problem's row: $(cat "$work/stats.csv")"
import csv, sys
row = next(r for r in csv.DictReader(open(sys.argv[1])) if r["source"] == "suite")
assert row["degenerate"] == "1", row
PY
"$headroom" audit "$src/suites/adversarial/problems/gemm_max_sub_gelu.py" --device cpu --python "$python" \
  --cache "$work/cache" --trials 2 --strict >"$work/audit-degenerate.txt" &&
  fail "audit --strict passed a degenerate problem: $(cat "$work/audit-degenerate.txt")"
grep -q "^degenerate (.*): 1: " "$work/audit-degenerate.txt" ||
  fail "audit does not name the degenerate problem: $(cat "$work/audit-degenerate.txt")"

# The audit proves zeros fail our check while the legacy allclose accepts them (softmax over 32768).
"$headroom" audit "$src/suites/adversarial/problems/softmax_wide.py" --device cpu --python "$python" --cache "$work/cache" \
  --trials 2 --json >"$work/audit.json" || fail "audit failed"
python3 - "$work/audit.json" <<'PY' || fail "audit: $(cat "$work/audit.json")"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["problems"][0]
fakes = {f["name"]: f for f in p["fakes"]}
assert p["discriminating"], p
assert fakes["zeros"]["passes_legacy_1e-2"] and not fakes["zeros"]["passes_ours"], fakes["zeros"]
PY

# reverify reruns stored candidates under the current checker: nothing changes.
"$headroom" reverify --db "$work/r.sqlite" --problem problems/matmul "${common[@]}" >"$work/reverify.txt" 2>/dev/null ||
  fail "reverify failed"
grep -q "0 verdict(s) changed" "$work/reverify.txt" || fail "reverify: $(cat "$work/reverify.txt")"
# Two lanes on one device: every problem's own Model evaluated once, all correct, nothing twice.
mkdir -p "$work/lanes"
cp "$src"/suites/adversarial/problems/{relu,matmul,embedding_bag_sum}.py "$work/lanes/"
"$headroom" eval "$work/lanes" --reference-as-candidate --device cpu --python "$python" --cache "$work/cache" \
  --no-timing --trials 2 --lanes 2 --db "$work/lanes.sqlite" --audit-to "$work/lanes-audit.jsonl" \
  >"$work/lanes.txt" 2>"$work/lanes.err" || fail "eval --lanes 2: $(tail -5 "$work/lanes.err")"
# Without timing the audit runs beside the candidate's evaluation: one row per problem, each rejecting every fake.
python3 - "$work/lanes-audit.jsonl" <<'PY' || fail "--lanes 2 --audit-to: $(cat "$work/lanes-audit.jsonl")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert sorted(r["problem"].split("/")[-1] for r in rows) == ["embedding_bag_sum", "matmul", "relu"], rows
assert all(r["discriminating"] for r in rows), rows
PY
[[ $(sqlite3 "$work/lanes.sqlite" "select count(*) from evaluations") == 3 ]] || fail "--lanes 2: not 3 evaluations"
[[ $(sqlite3 "$work/lanes.sqlite" "select count(*) from evaluations where verdict = 'correct'") == 3 ]] ||
  fail "--lanes 2: a reference was not correct as its own candidate: $(cat "$work/lanes.txt")"
# One timing set: the reference is timed on the set its worker made and kept (not sent back).
"$headroom" eval "$work/lanes/relu.py" --reference-as-candidate --device cpu --python "$python" --cache "$work/cache" \
  --trials 2 --timing-sets 1 --max-time 0.3 --no-compile-baseline --db "$work/one-set.sqlite" >/dev/null 2>"$work/one-set.err" ||
  fail "eval --timing-sets 1: $(tail -5 "$work/one-set.err")"
[[ $(sqlite3 "$work/one-set.sqlite" "select verdict || ' ' || (eager_median_ms > 0) || ' ' || (speedup > 0) from evaluations") == "correct 1 1" ]] ||
  fail "--timing-sets 1: $(sqlite3 "$work/one-set.sqlite" "select verdict, eager_median_ms, speedup, reasons from evaluations")"
# On the CPU every call is timed with its dispatch (host-sensitive): the speedup comes from the
# candidate's and the reference's worker timed at once, their calls alternating, each compared with
# its neighbours (6 x 10 kept calls a side asked for, at least half of them kept by a timing past
# three times its time, fewer pairs where the two sides' warm-ups differ), and --paired-rounds 0
# leaves the single timings' ratio.
[[ $(sqlite3 "$work/one-set.sqlite" "select (paired_rounds >= 30) || ' ' || (paired_spread >= 0) || ' ' || (clocks like '%neighbouring calls of the two sides, alternating%standard error%') from evaluations") == "1 1 1" ]] ||
  fail "paired rounds: $(sqlite3 "$work/one-set.sqlite" "select speedup, paired_rounds, paired_spread, clocks from evaluations")"
# reverify --no-timing would replace the timed row (same checker, same device) with an untimed one:
# refused, the row and its speedup kept; --drop-timing says to replace it.
timed_row() { sqlite3 "$work/one-set.sqlite" "select verdict || ' ' || (speedup > 0) from evaluations"; }
"$headroom" reverify --db "$work/one-set.sqlite" "${common[@]}" --no-timing >/dev/null 2>"$work/reverify-untimed.err" &&
  fail "reverify --no-timing replaced a timed row"
grep -q "would replace 1 timed evaluation(s).*--drop-timing" "$work/reverify-untimed.err" ||
  fail "reverify --no-timing: $(cat "$work/reverify-untimed.err")"
[[ $(timed_row) == "correct 1" ]] || fail "the refused reverify changed the row: $(timed_row)"
"$headroom" reverify --db "$work/one-set.sqlite" "${common[@]}" --no-timing --drop-timing --trials 2 >"$work/reverify-dropped.txt" 2>&1 ||
  fail "reverify --drop-timing: $(tail -5 "$work/reverify-dropped.txt")"
[[ $(sqlite3 "$work/one-set.sqlite" "select verdict || ' ' || (speedup is null) from evaluations") == "correct 1" ]] ||
  fail "reverify --drop-timing: $(sqlite3 "$work/one-set.sqlite" "select verdict, speedup from evaluations")"
"$headroom" eval "$work/lanes/relu.py" --reference-as-candidate --device cpu --python "$python" --cache "$work/cache" \
  --trials 2 --timing-sets 1 --max-time 0.3 --no-compile-baseline --paired-rounds 0 --db "$work/unpaired.sqlite" >/dev/null 2>&1 ||
  fail "eval --paired-rounds 0 failed"
[[ $(sqlite3 "$work/unpaired.sqlite" "select (paired_rounds is null) || ' ' || (abs(speedup - eager_score_ms / candidate_score_ms) < 1e-9) from evaluations") == "1 1" ]] ||
  fail "--paired-rounds 0: $(sqlite3 "$work/unpaired.sqlite" "select speedup, eager_score_ms, candidate_score_ms, paired_rounds from evaluations")"
# With timing, lanes on the CPU would measure each other: refused, with the reason.
"$headroom" eval "$work/lanes" --reference-as-candidate --device cpu --python "$python" --cache "$work/cache" \
  --lanes 2 --db "$work/lanes-timed.sqlite" >/dev/null 2>"$work/lanes-timed.err" && fail "--lanes 2 with timing on the CPU ran"
grep -q "needs a GPU when timing" "$work/lanes-timed.err" || fail "--lanes refusal: $(cat "$work/lanes-timed.err")"
echo "eval suite: $total evaluations, all as expected"
