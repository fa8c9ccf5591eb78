#!/usr/bin/env bash
# One device call for the profiler (issue 3): build with CUDA, run the gpu and cpu tests, then the
# overhead and agreement benchmarks (REPS, STEPS, WORKLOADS as bench/profile_overhead.sh takes them).
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1
( time scripts/device-build build/device ) > $OUT/build.log 2>&1; echo "build rc $?"; grep -E "error" $OUT/build.log | head -5
(cd build/device && ctest -L gpu --output-on-failure > $OUT/ctest-gpu.log 2>&1; echo "ctest gpu rc $?"; grep -E "tests passed|Passed|Failed|Skipped|FAIL" $OUT/ctest-gpu.log | head -20)
(cd build/device && ctest -L cpu -j 16 > $OUT/ctest-cpu.log 2>&1; echo "ctest cpu rc $?"; grep -E "tests passed|\*\*\*" $OUT/ctest-cpu.log | head -8)
work=/tmp/prof; mkdir -p $work
OUT=$work timeout ${BENCH_TIMEOUT:-400} bash bench/profile_overhead.sh build/device/bin/headroom > $OUT/overhead.md 2> $OUT/overhead.err; echo "overhead rc $?"; tail -12 $OUT/overhead.md
OUT=$work timeout 90 bash bench/profile_agreement.sh build/device/bin/headroom > $OUT/agreement.md 2> $OUT/agreement.err; echo "agreement rc $?"; tail -12 $OUT/agreement.md
cp $work/profile_overhead.csv $OUT/ 2>/dev/null
(cd $work/profile_overhead && tar czf $OUT/gpt_train_pair.tgz gpt_train.headroom.1.sqlite gpt_train.torch.1.json.gz *.log 2>/dev/null)
ls -la $OUT
