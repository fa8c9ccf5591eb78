#!/usr/bin/env bash
# One device call: look at the machine, record the workloads' traces, try nsys, try the build.
set -uo pipefail
cd "$(dirname "$0")/.."
t=/tmp/traces; mkdir -p $t
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; python3 -c 'import torch;print(torch.__version__, torch.version.cuda, torch.backends.cudnn.version())';
  which nsys ncu cmake g++ pkg-config; cmake --version | head -1; ls /usr/local/cuda/targets/x86_64-linux/lib | grep -i cupti | head -3; } 2>&1 | tee $OUT/machine.txt
scripts/device-record-traces.sh $t 2>&1 | tee $OUT/record.log | grep -E "==|median|!!|Error|error" 
if which nsys >/dev/null 2>&1; then
  timeout 240 nsys profile -t cuda,nvtx -o /tmp/nsys_gpt --force-overwrite true python3 workloads/gpt.py --layers 2 --steps 3 --warmup 2 >/tmp/nsys.log 2>&1 && \
  nsys export --type sqlite -o $t/nsys_gpt_small.sqlite /tmp/nsys_gpt.nsys-rep >>/tmp/nsys.log 2>&1; tail -3 /tmp/nsys.log
  gzip -9 $t/nsys_gpt_small.sqlite 2>/dev/null
fi
ls -la $t; (cd $t && tar cf $OUT/traces.tar *.json.gz *.summary.json *.sqlite.gz 2>/dev/null); ls -la $OUT
( time scripts/device-build build/device ) > $OUT/build.log 2>&1; echo "build rc $?"; tail -5 $OUT/build.log
