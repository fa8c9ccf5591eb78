#!/usr/bin/env bash
# `headroom eval` as a Slurm job array: a one-node cluster (tests/services/slurm.sh, started here)
# runs 8 array tasks that share the tests' PostgreSQL store over 1,000 jobs (tests/cli/lib/
# scale_jobs.py); two tasks' processes are killed with SIGKILL midway, as a node that fails would
# leave them (scancel --signal=KILL would cancel them, SIGTERM first: a gentler death). Every job
# is stored exactly once, none is lost, the other tasks end well, and candidates ran sandboxed
# inside the jobs (headroom-sandbox --check passes there). Needs root (slurmd starts jobs as their
# submitter) and Debian's slurm-wlm and munge (scripts/install-deps).
set -uo pipefail
headroom=$1
src=$2
bin=$(cd "$(dirname "$headroom")" && pwd)
source "$src/tests/cli/lib/eval_on_postgres.sh"
[[ $(id -u) -eq 0 ]] || { echo "the test cluster needs root: skipped"; exit 77; }
work=$(mktemp -d)
chmod 755 "$work"
cluster="$work/cluster"
admin=$(cat "$HEADROOM_TEST_POSTGRES_DIR/url-tcp")
db=slurm_$$
cleanup() {
  [[ -n ${job:-} ]] && SLURM_CONF="$cluster/slurm.conf" scancel --full --signal=KILL "$job" 2>/dev/null
  bash "$src/tests/services/slurm.sh" stop "$cluster" 2>/dev/null
  psql -q "$admin" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  for f in "$work"/task-*.err; do [[ -s $f ]] && { echo "== $f"; tail -5 "$f"; }; done
  exit 1
}
q() { psql -qtAX "$url" -c "$1"; }

bash "$src/tests/services/slurm.sh" start "$cluster" || fail "the test cluster did not start"
export SLURM_CONF="$cluster/slurm.conf"
psql -q "$admin" -c "CREATE DATABASE $db" || fail "cannot create a database on the test server"
url=${admin%/postgres}/$db
python3 "$src/tests/cli/lib/scale_jobs.py" "$work/jobs"

# The array script, as docs/scale.md gives it (without the GPU request: these problems run on the CPU).
cat >"$work/eval.sbatch" <<SBATCH
#!/bin/bash
#SBATCH --job-name=headroom-eval
#SBATCH --array=0-7
#SBATCH --output=$work/task-%a.out
#SBATCH --error=$work/task-%a.err
if [[ \$SLURM_ARRAY_TASK_ID == 0 ]]; then "$bin/headroom-sandbox" --check >"$work/sandbox-check.txt" 2>&1; fi
echo \$\$ >"$work/task-\$SLURM_ARRAY_TASK_ID.pid"  # exec keeps the pid: the test kills it
exec "$headroom" eval "$work/jobs/problems" --candidates "$work/jobs/candidates" --db "$url" --lease 4 \\
  --device cpu --python "$python" --cache "$work/cache-\$SLURM_ARRAY_TASK_ID" --no-timing --trials 1
SBATCH
start=$(date +%s.%N)
job=$(sbatch --parsable "$work/eval.sbatch") || fail "sbatch refused the array"
for _ in $(seq 1 1800); do
  n=$(q "select count(*) from evaluations" 2>/dev/null || echo 0)
  [[ ${n:-0} -ge 330 ]] && break
  [[ -z $(squeue -h -j "$job" 2>/dev/null) ]] && break
  sleep 0.1
done
[[ ${n:-0} -ge 330 ]] || fail "the array stored only ${n:-0} evaluations before it ended"
held=$(q "select count(*) from jobs where state = 'claimed'")
kill -KILL "$(cat "$work/task-2.pid")" "$(cat "$work/task-5.pid")" || fail "the tasks to kill were not running"
echo "killed tasks 2 and 5 of array $job with $n of 1000 stored ($held claims held by all tasks)"
for _ in $(seq 1 3000); do
  [[ -z $(squeue -h -j "$job" 2>/dev/null) ]] && break
  sleep 0.2
done
[[ -z $(squeue -h -j "$job") ]] || fail "the array did not finish"
elapsed=$(python3 -c "import time; print(f'{time.time() - $start:.1f}')")
# Tasks 2 and 5 died by the signal; the six others ended well.
for i in 0 1 2 3 4 5 6 7; do
  code=$(scontrol show job "${job}_$i" | grep -o ' ExitCode=[0-9]*:[0-9]*' | head -1)
  if [[ $i -eq 2 || $i -eq 5 ]]; then
    [[ $code == " ExitCode=0:9" ]] || fail "task $i was not killed by SIGKILL:$code"
  else
    [[ $code == " ExitCode=0:0" ]] || fail "task $i:$code"
  fi
done
grep -q "this machine can sandbox candidates" "$work/sandbox-check.txt" || fail "no sandbox inside a job: $(cat "$work/sandbox-check.txt")"

total=$(q "select count(*) from evaluations")
distinct=$(q "select count(distinct candidate_hash || problem_hash) from evaluations")
[[ $total -eq 1000 && $distinct -eq 1000 ]] || fail "$total rows for $distinct distinct jobs (want 1000 and 1000)"
[[ $(q "select count(*) from jobs where state <> 'done'") -eq 0 ]] || fail "jobs left undone"
reclaimed=$(q "select count(*) from jobs where attempts > 1")
[[ $(q "select count(*) from evaluations where verdict = 'correct'") -eq 2 ]] || fail "real verdicts: $(q "select candidate_path, verdict from evaluations where problem not like '%placeholder%'")"
echo "slurm: 1000 jobs by an array of 8 tasks (2 killed; $reclaimed job(s) claimed again) in $elapsed s"
