#!/usr/bin/env bash
# Throughput of `headroom eval` through a shared PostgreSQL store against a SQLite file, on jobs so
# cheap that the store and the queue are most of the cost: N candidates of one problem whose
# reference fails by design (tests/cli/lib/scale_jobs.py: each candidate is judged reference_error
# without a worker of its own; the reference worker starts once per process). Every process also
# starts, checks the sandbox, and imports torch once for its reference worker: included, as a user
# would pay it.
#   bench/scale_store.sh [BUILD_DIR] [JOBS] [PROCESSES]     (default build/release, 1000, 8)
# Prints one row per configuration: wall seconds, evaluations per second, and the ratio to SQLite
# with one process (measured in the same run). Starts its own PostgreSQL server on loopback
# (tests/services/postgres.sh); needs Debian's postgresql and CPU PyTorch.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build/release}
jobs=${2:-1000}
processes=${3:-8}
headroom=$build/bin/headroom
python=${HEADROOM_PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
pg=/tmp/headroom-bench-postgres-$$
trap 'bash "$src/tests/services/postgres.sh" stop "$pg" >/dev/null 2>&1; rm -rf "$work"' EXIT
bash "$src/tests/services/postgres.sh" start "$pg" >/dev/null
admin=$(cat "$pg/url-tcp")
python3 "$src/tests/cli/lib/scale_jobs.py" "$work/jobs" --placeholders 1 --per-placeholder "$jobs" --no-real
common=(--device cpu --python "$python" --cache "$work/cache" --no-timing --trials 1)

now() { python3 -c 'import time; print(time.time())'; }
run() {  # NAME PROCESSES DB
  local name=$1 n=$2 db=$3 start end pids=()
  start=$(now)
  for i in $(seq 1 "$n"); do
    "$headroom" eval "$work/jobs/problems" --candidates "$work/jobs/candidates" "${common[@]}" --db "$db" \
      >/dev/null 2>"$work/$name.$i.err" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  end=$(now)
  python3 -c "print(f'{$end - $start:.2f}')"
}
count_sqlite() { sqlite3 "$1" "select count(*) from evaluations"; }
count_pg() { psql -qtAX "$1" -c "select count(*) from evaluations"; }
fresh_pg() { psql -q "$admin" -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1"; echo "${admin%/postgres}/$1"; }

# Warm the page cache (torch's files) so the first configuration is not charged for it.
run warmup 1 "$work/warmup.sqlite" >/dev/null

sqlite_s=$(run sqlite 1 "$work/one.sqlite")
[[ $(count_sqlite "$work/one.sqlite") -eq $jobs ]] || { echo "SQLite run stored $(count_sqlite "$work/one.sqlite")"; exit 1; }
url=$(fresh_pg bench_one)
pg1_s=$(run pg1 1 "$url")
[[ $(count_pg "$url") -eq $jobs ]] || { echo "PostgreSQL run stored $(count_pg "$url")"; exit 1; }
url=$(fresh_pg bench_many)
pgn_s=$(run pgn "$processes" "$url")
[[ $(count_pg "$url") -eq $jobs ]] || { echo "PostgreSQL x$processes stored $(count_pg "$url")"; exit 1; }

python3 - "$jobs" "$processes" "$sqlite_s" "$pg1_s" "$pgn_s" <<'PY'
import sys
jobs, n = int(sys.argv[1]), int(sys.argv[2])
rows = [("SQLite file, 1 process (baseline)", float(sys.argv[3])),
        ("PostgreSQL, 1 process", float(sys.argv[4])),
        (f"PostgreSQL, {n} processes sharing its queue", float(sys.argv[5]))]
base = jobs / rows[0][1]
print(f"{jobs} evaluations (cheap: reference_error, no worker each)")
print(f"{'configuration':<44} {'wall s':>8} {'evals/s':>9} {'vs SQLite':>10}")
for name, s in rows:
    print(f"{name:<44} {s:>8.2f} {jobs / s:>9.1f} {jobs / s / base:>9.2f}x")
PY
