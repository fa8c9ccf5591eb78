#!/usr/bin/env bash
# One device call for the profiler (issue 3): build with CUDA, run the cpu and gpu tests, check the
# injection library by hand on a plain CUDA program, then the overhead and agreement benchmarks.
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1
( time scripts/device-build build/device ) > $OUT/build.log 2>&1; echo "build rc $?"; grep -E "error" $OUT/build.log | head -5
(cd build/device && ctest -L gpu --output-on-failure > $OUT/ctest-gpu.log 2>&1; echo "ctest gpu rc $?"; grep -E "tests passed|Passed|Failed|Skipped|FAIL" $OUT/ctest-gpu.log | head -12)
(cd build/device && ctest -L cpu -j 16 > $OUT/ctest-cpu.log 2>&1; echo "ctest cpu rc $?"; grep -E "tests passed|\*\*\*" $OUT/ctest-cpu.log | head -8)
REPS=${REPS:-2} timeout 420 bash bench/profile_overhead.sh build/device > $OUT/overhead.md 2> $OUT/overhead.err; echo "overhead rc $?"; tail -12 $OUT/overhead.md
timeout 60 bash bench/profile_agreement.sh build/device > $OUT/agreement.md 2> $OUT/agreement.err; echo "agreement rc $?"; tail -8 $OUT/agreement.md
ls $OUT
