#!/usr/bin/env bash
# Eight `headroom eval` processes (four with two lanes) share one PostgreSQL store over 1,000 jobs (tests/cli/lib/
# scale_jobs.py: six real evaluations of tiny CPU problems, the rest cheap), and two of them are
# killed with SIGKILL midway: the others take over the dead ones' claims once their lease lapses,
# every job is stored exactly once, none is lost, each problem's reference is prepared a few times
# (not once per candidate), and `headroom stats` reads the store. Then --shard i/N splits a job set
# statically: three shares cover it once. The server is the tests' own (tests/services/postgres.sh).
set -uo pipefail
headroom=$1
src=$2
source "$src/tests/cli/lib/eval_on_postgres.sh"
work=$(mktemp -d)
admin=$(cat "$HEADROOM_TEST_POSTGRES_DIR/url-tcp")
db=scale_$$
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  psql -q "$admin" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
q() { psql -qtAX "$url" -c "$1"; }

psql -q "$admin" -c "CREATE DATABASE $db" || fail "cannot create a database on the test server"
url=${admin%/postgres}/$db
python3 "$src/tests/cli/lib/scale_jobs.py" "$work/jobs"
common=(--device cpu --python "$python" --cache "$work/cache" --no-timing --trials 1)

processes=8
start=$(date +%s.%N)
for i in $(seq 0 $((processes - 1))); do
  # Half of them with two lanes (on the CPU only without timing): lanes of one process claim too.
  lanes=$((1 + i % 2))
  HEADROOM_EVAL_TRACE=1 "$headroom" eval "$work/jobs/problems" --candidates "$work/jobs/candidates" "${common[@]}" --lease 4 \
    --lanes $lanes --db "$url" >"$work/out.$i" 2>"$work/err.$i" &
  pids+=($!)
done
# Midway (a third of the jobs stored), two of them die without a word.
for _ in $(seq 1 1200); do
  n=$(q "select count(*) from evaluations" 2>/dev/null || echo 0)
  [[ ${n:-0} -ge 330 ]] && break
  sleep 0.1
done
killed=(${pids[2]} ${pids[5]})
held=$(q "select count(*) from jobs where state = 'claimed' and (claimed_by like '%:${killed[0]}:%' or claimed_by like '%:${killed[1]}:%')")
kill -KILL "${killed[@]}"
echo "killed ${killed[*]} with $n of 1000 stored; they held $held claim(s)"
status=0
for i in $(seq 0 $((processes - 1))); do
  [[ $i -eq 2 || $i -eq 5 ]] && continue
  wait "${pids[$i]}" || { status=1; echo "process $i failed: $(tail -5 "$work/err.$i")"; }
done
elapsed=$(python3 -c "import time; print(f'{time.time() - $start:.1f}')")
[[ $status -eq 0 ]] || fail "a surviving process failed"

# Every job exactly once, none lost.
total=$(q "select count(*) from evaluations")
distinct=$(q "select count(distinct candidate_hash || problem_hash) from evaluations")
[[ $total -eq 1000 && $distinct -eq 1000 ]] || fail "$total rows for $distinct distinct jobs (want 1000 and 1000)"
[[ $(q "select count(*) from jobs where state <> 'done'") -eq 0 ]] || fail "jobs left undone: $(q "select state, count(*) from jobs group by 1")"
reclaimed=$(q "select count(*) from jobs where attempts > 1")
[[ $held -eq 0 || $reclaimed -ge 1 ]] || fail "the killed processes held $held claim(s) and none was claimed again"
# The real evaluations were judged as a single process judges them.
verdicts=$(q "select candidate_path, verdict from evaluations where problem not like '%placeholder%' order by 1" | sed 's|.*/||')
expected=$'add_small_identity.py|incorrect\nadd_small_ok.py|correct\nadd_small_zeros.py|incorrect\nrelu_small_identity.py|incorrect\nrelu_small_ok.py|correct\nrelu_small_zeros.py|incorrect'
[[ $verdicts == "$expected" ]] || fail "real verdicts: $verdicts"
[[ $(q "select count(*) from evaluations where verdict = 'reference_error'") -eq 994 ]] || fail "placeholder verdicts"
# Each survivor ends with the whole run's results, wherever they were evaluated.
for i in 0 7; do
  [[ $(grep -c "reference_error\|correct" "$work/out.$i") -ge 1000 ]] || fail "process $i did not list the run's 1000 results"
done
# A problem's reference is prepared once per process that works on it, never per candidate.
preparations=$(cat "$work"/err.* | grep -c "prepare_reference took")
(( preparations <= processes * 3 / 2 * 9 )) || fail "$preparations reference preparations for 9 problems and $((processes * 3 / 2)) lanes"
# No worker of a killed process outlived it.
sleep 1
pgrep -f "headroom-worker.*$work" >/dev/null && fail "a worker outlived its run"

# stats reads the PostgreSQL store as it reads a file.
"$headroom" stats "$url" --csv >"$work/stats.csv" || fail "stats on PostgreSQL failed"
# (source "candidates", the folder's name: 6 evaluations, 994 skipped as reference_error, none degenerate, 2 correct)
grep -q "^candidates,6,994,0,2," "$work/stats.csv" || fail "stats: $(cat "$work/stats.csv")"
echo "scale: 1000 jobs by $processes processes (2 killed holding $held claim(s); $reclaimed job(s) claimed again) in $elapsed s; $preparations reference preparations"

# --shard i/N: three shares of a job set, each run once, cover it exactly once and do not overlap.
python3 "$src/tests/cli/lib/scale_jobs.py" "$work/shard" --placeholders 3 --per-placeholder 10 --no-real
for i in 0 1 2; do
  "$headroom" eval "$work/shard/problems" --candidates "$work/shard/candidates" "${common[@]}" --shard "$i/3" \
    --db "$work/shard-$i.sqlite" >"$work/shard-out.$i" 2>"$work/shard-err.$i" || fail "--shard $i/3: $(tail -3 "$work/shard-err.$i")"
done
cat "$work"/shard-out.* | grep -o 'placeholder_0[0-9]_c[0-9]*\.py' | sort >"$work/shard-all.txt"
[[ $(wc -l <"$work/shard-all.txt") -eq 30 && $(sort -u "$work/shard-all.txt" | wc -l) -eq 30 ]] ||
  fail "the shares evaluated $(wc -l <"$work/shard-all.txt") jobs, $(sort -u "$work/shard-all.txt" | wc -l) distinct (want 30, 30)"
for i in 0 1 2; do
  [[ $(sqlite3 "$work/shard-$i.sqlite" "select count(*) from evaluations") -eq 10 ]] || fail "share $i is not a third"
done
"$headroom" eval "$work/shard/problems" --candidates "$work/shard/candidates" --shard 3/3 --db "$work/x.sqlite" \
  --device cpu 2>"$work/bad-shard.err" && fail "--shard 3/3 ran"
grep -q "share must be" "$work/bad-shard.err" || fail "--shard 3/3: $(cat "$work/bad-shard.err")"
