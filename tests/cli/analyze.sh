#!/usr/bin/env bash
# End to end: headroom analyze and project on real Kineto traces. $1 binary, $2 source dir, $3 fixtures.
set -euo pipefail
bin=$1
fixtures=$3/kineto-hta
[[ -d $fixtures ]] || exit 77
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Console: the window and the Amdahl table are always printed.
"$bin" analyze "$fixtures/nccl_parser_config_nccl_data.json.gz" >"$tmp/out.txt"
grep -q '^Window' "$tmp/out.txt" || fail "no window line"
grep -q 'ProfilerStep#' "$tmp/out.txt" || fail "window does not name the steps"
grep -q 'ceiling 1/(1-f)' "$tmp/out.txt" || fail "no Amdahl ceiling"
grep -q '^  communication' "$tmp/out.txt" || fail "no communication row"

# Two ranks merged: one row per rank and a device-time weighted total; JSON to a file.
"$bin" analyze "$fixtures/trace_filter_sampled_rank-0.json.gz" "$fixtures/trace_filter_sampled_rank-1.json.gz" \
  --json -o "$tmp/out.json"
grep -q '"schema_version": 1' "$tmp/out.json" || fail "no schema version"
[[ $(grep -c '"label": "rank [01] / GPU' "$tmp/out.json") -eq 2 ]] || fail "expected two rank rows"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["timelines"])==2; assert 0<=d["total"]["addressable_fraction"]<=1' \
  "$tmp/out.json" || fail "JSON does not parse or lacks figures"

# CSV: header and rows for every timeline plus the total.
"$bin" analyze "$fixtures/nccl_parser_config_nccl_data.json.gz" --csv --window whole >"$tmp/out.csv"
head -1 "$tmp/out.csv" | grep -q '^timeline,rank,device,wall_ns,group,class' || fail "CSV header"
grep -q 'all timelines' "$tmp/out.csv" || fail "CSV total rows"

# Explicit window.
"$bin" analyze "$fixtures/nccl_parser_config_nccl_data.json.gz" --window 0:100ms >"$tmp/explicit.txt"
grep -q 'explicit window +0 to +100ms' "$tmp/explicit.txt" || fail "explicit window not described"

# Projection with per-category and per-kernel speedups.
"$bin" project "$fixtures/nccl_parser_config_nccl_data.json.gz" --category gemm=1.5 --kernel 'ncclKernel.*=2' --speedup 1.235 \
  >"$tmp/proj.txt"
grep -q 'Projected end-to-end speedup' "$tmp/proj.txt" || fail "no projection"
grep -q 'category gemm' "$tmp/proj.txt" || fail "no gemm part"

# Bad input is an error with a reason, not a crash.
set +e
"$bin" analyze "$fixtures/nccl_parser_config_nccl_data.json.gz" --window 5ms:1ms 2>"$tmp/err.txt"
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "bad --window exit status $rc"
grep -q 'end must come after the start' "$tmp/err.txt" || fail "bad --window message"
echo OK
