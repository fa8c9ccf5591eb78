#!/usr/bin/env bash
# Reading .json.gz against plain JSON, and against the reader before ISA-L and the read-ahead
# thread (zlib inflating on the parsing thread), all in one run on the same trace: a synthetic
# Kineto trace from bench/synthetic_kineto, gzip'd with `gzip -6`. Builds nothing.
#
#   bench/gzip_throughput.sh BUILD_DIR [--bytes N] [--rounds R]     (default 1 GB, 3 rounds)
#
# Every configuration runs once per round, rounds interleaved. Per configuration, the median over
# rounds of: wall seconds, JSON MB/s of wall clock, CPU seconds (perf's task-clock: every thread of
# the process), and JSON MB/s per core (JSON bytes over CPU seconds), with the ratio of the last to
# the zlib baseline's. Wall clock follows what else the machine runs; MB/s per core does less.
set -euo pipefail
build=${1:?usage: gzip_throughput.sh BUILD_DIR [--bytes N] [--rounds R]}
shift
bytes=1000000000 rounds=3
while (($#)); do
  case $1 in
    --bytes) bytes=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
command -v perf >/dev/null || { echo "needs perf (apt-get install linux-perf)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/headroom-gzip-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$build/bench/synthetic_kineto" "$tmp/t.json" --bytes "$bytes" >&2
gzip -6 -c "$tmp/t.json" >"$tmp/t.json.gz"

names=("plain JSON" "gz, zlib on the parsing thread (before)" "gz, ISA-L on the parsing thread (now, under 4 CPUs)"
       "gz, ISA-L on a read-ahead thread (now, 4 CPUs or more)")
args=("$tmp/t.json" "$tmp/t.json.gz --zlib --no-read-ahead" "$tmp/t.json.gz --no-read-ahead" "$tmp/t.json.gz --read-ahead")
for ((r = 1; r <= rounds; r++)); do
  for i in "${!args[@]}"; do
    # shellcheck disable=SC2086
    perf stat -x, -e task-clock -o "$tmp/perf.$i.$r" "$build/bench/read_kineto_bench" ${args[$i]} >"$tmp/out.$i.$r"
  done
done
python3 - "$tmp" "$rounds" "${names[@]}" <<'PY'
import os, re, statistics, sys
tmp, rounds, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rows = []
for i, name in enumerate(names):
    wall, cpu, json_mb = [], [], 0.0
    for r in range(1, rounds + 1):
        out = open(os.path.join(tmp, f"out.{i}.{r}")).read()
        wall.append(float(re.search(r"^seconds\s+([\d.]+)", out, re.M).group(1)))
        json_mb = float(re.search(r"^json MB\s+([\d.]+)", out, re.M).group(1))
        line = next(l for l in open(os.path.join(tmp, f"perf.{i}.{r}")) if "task-clock" in l)
        cpu.append(float(line.split(",")[0]) / 1000)
    rows.append((name, statistics.median(wall), statistics.median(cpu), json_mb))
base = rows[1]
print(f"JSON: {rows[0][3]:.0f} MB; gzip'd: {os.path.getsize(os.path.join(tmp, 't.json.gz')) / 1e6:.0f} MB; "
      f"medians of {rounds} rounds")
print("| reading | wall s | MB/s (wall) | CPU s | MB/s per core | per core vs before |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for name, wall, cpu, mb in rows:
    print(f"| {name} | {wall:.2f} | {mb / wall:.0f} | {cpu:.2f} | {mb / cpu:.0f} | {(mb / cpu) / (base[3] / base[2]):.2f}x |")
PY
