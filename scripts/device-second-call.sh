#!/usr/bin/env bash
# One device call: build and test the project on the GPU machine, record the workloads' traces
# (torch.profiler, CUDA-only and CPU+CUDA), and analyse each with the freshly built headroom.
set -uo pipefail
cd "$(dirname "$0")/.."
t=/tmp/traces; mkdir -p $t
( time scripts/device-build build/device ) > $OUT/build.log 2>&1; echo "build rc $?"; tail -3 $OUT/build.log
(cd build/device && ctest -L cpu -j 16 --output-on-failure > $OUT/ctest.log 2>&1; echo "ctest cpu rc $?"; tail -4 $OUT/ctest.log)
(cd build/device && ctest -L gpu --output-on-failure >> $OUT/ctest.log 2>&1; echo "ctest gpu rc $?"; tail -3 $OUT/ctest.log)
scripts/device-record-traces.sh $t 2>&1 | tee $OUT/record.log | grep -E "==|median|!!|Error"
export PYTHONUNBUFFERED=1
for v in "gpt_train_bf16 --precision bf16" "gpt_train_big --layers 8 --d-model 4096 --heads 32 --batch 4" \
         "gpt_train_big_bf16 --layers 8 --d-model 4096 --heads 32 --batch 4 --precision bf16" \
         "gpt_train_compiled --compile --warmup 8"; do
  set -- $v; n=$1; shift
  echo "== $n"; timeout 300 python3 workloads/gpt.py --mode train --steps 9 --active 5 --profile torch "$@" \
    --trace $t/$n.json.gz --summary $t/$n.summary.json 2>&1 | grep -E "median|Error"
done
for f in $t/*.json.gz; do echo "### $f"; build/device/bin/headroom analyze "$f" 2>&1 | head -40; done > $OUT/analyze.txt
(cd $t && tar cf $OUT/traces.tar *.json.gz *.summary.json); ls -la $OUT
