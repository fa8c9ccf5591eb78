#!/usr/bin/env bash
# Throughput of `headroom eval` through a shared PostgreSQL store against a SQLite file, on jobs so
# cheap that the store and the queue are most of their cost: candidates of one problem whose
# reference fails by design (tests/cli/lib/scale_jobs.py: each is judged reference_error without a
# worker of its own). Each configuration runs twice, over SMALL and over LARGE jobs: the wall clock
# of the LARGE run is what a user waits; the difference between the two is the cost of the extra
# evaluations alone, without what every process pays once (start, sandbox check, a reference worker
# importing torch), so (LARGE - SMALL) / that time is the store's own rate.
#   bench/scale_store.sh [BUILD_DIR] [SMALL] [LARGE] [PROCESSES]   (default build/release 500 2000 8)
# Prints one row per configuration, with the ratio of each rate to SQLite with one process measured
# in the same run, and the disk's latency for a synchronous write before and after (both stores'
# commits wait for the disk, so a busy disk slows both). Starts its own PostgreSQL server on loopback (tests/services/postgres.sh); needs
# Debian's postgresql and CPU PyTorch.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build/release}
small=${2:-500}
large=${3:-2000}
processes=${4:-8}
headroom=$build/bin/headroom
python=${HEADROOM_PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
pg=/tmp/headroom-bench-postgres-$$
trap 'bash "$src/tests/services/postgres.sh" stop "$pg" >/dev/null 2>&1; rm -rf "$work"' EXIT
bash "$src/tests/services/postgres.sh" start "$pg" >/dev/null
admin=$(cat "$pg/url-tcp")
for n in "$small" "$large"; do
  python3 "$src/tests/cli/lib/scale_jobs.py" "$work/jobs-$n" --placeholders 1 --per-placeholder "$n" --no-real
done
common=(--device cpu --python "$python" --cache "$work/cache" --no-timing --trials 1)

now() { python3 -c 'import time; print(time.time())'; }
run() {  # JOBS PROCESSES DB: prints the wall seconds
  local n=$1 p=$2 db=$3 start end pids=()
  start=$(now)
  for i in $(seq 1 "$p"); do
    "$headroom" eval "$work/jobs-$n/problems" --candidates "$work/jobs-$n/candidates" "${common[@]}" --db "$db" \
      >/dev/null 2>"$work/err.$i" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
  end=$(now)
  python3 -c "print(f'{$end - $start:.2f}')"
}
stored() {  # DB
  if [[ $1 == postgresql://* ]]; then psql -qtAX "$1" -c "select count(*) from evaluations"
  else sqlite3 "$1" "select count(*) from evaluations"; fi
}
fresh() {  # NAME: a new SQLite file or PostgreSQL database
  if [[ $1 == sqlite_* ]]; then echo "$work/$1.sqlite"; return; fi
  psql -q "$admin" -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1" 2>/dev/null
  echo "${admin%/postgres}/$1"
}
measure() {  # KIND PROCESSES: "small_s large_s"
  local out=() n db
  for n in "$small" "$large"; do
    db=$(fresh "$1_$2_$n")
    out+=("$(run "$n" "$2" "$db")")
    [[ $(stored "$db") -eq $n ]] || { echo "$1 x$2 stored $(stored "$db") of $n" >&2; exit 1; }
  done
  echo "${out[*]}"
}

sync_write_ms() {  # the disk's latency for one synchronous 4 KiB write (what every durable commit waits for)
  local t0 t1
  t0=$(now)
  dd if=/dev/zero of="$work/sync-probe" bs=4k count=100 oflag=dsync status=none
  t1=$(now)
  rm -f "$work/sync-probe"
  python3 -c "print(f'{($t1 - $t0) * 10:.1f}')"
}

run "$small" 1 "$work/warmup.sqlite" >/dev/null  # torch's files into the page cache first
sync_before=$(sync_write_ms)
sqlite1=$(measure sqlite 1)
pg1=$(measure pg 1)
pgn=$(measure pg "$processes")
sync_after=$(sync_write_ms)
python3 - "$small" "$large" "$processes" "$sqlite1" "$pg1" "$pgn" "$sync_before" "$sync_after" <<'PY'
import sys
small, large, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rows = [("SQLite file, 1 process (baseline)", sys.argv[4]), ("PostgreSQL, 1 process", sys.argv[5]),
        (f"PostgreSQL, {n} processes sharing its queue", sys.argv[6])]
rate = lambda s, l: (large - small) / (l - s)
print(f"cheap evaluations (reference_error, no worker each): {small} and {large}")
print(f"{'configuration':<44} {f'wall s ({small})':>12} {f'wall s ({large})':>13} {'evals/s':>9} {'vs SQLite':>10}")
base = None
for name, times in rows:
    s, l = map(float, times.split())
    r = rate(s, l)
    base = base or r
    print(f"{name:<44} {s:>12.2f} {l:>13.2f} {r:>9.1f} {r / base:>9.2f}x")
print("evals/s: the extra evaluations of the larger run over its extra wall clock (the store's own rate)")
print(f"a synchronous 4 KiB write on this disk: {sys.argv[7]} ms before, {sys.argv[8]} ms after (every durable commit waits for one or more)")
PY
