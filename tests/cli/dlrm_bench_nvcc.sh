#!/usr/bin/env bash
# Every DLRM-Bench CUDA solution compiles: its CUDA half with nvcc for sm_90a (as load_inline would,
# with PyTorch's nvcc flags), its PyTorch glue against Debian's libtorch-dev headers, and every
# launcher it declares is defined and used (suites/dlrm-bench/compile_check.py). No GPU needed;
# skips (77) without nvcc.
set -uo pipefail
src=$2
python=/usr/bin/python3
[[ -x $python ]] || python=python3
exec "$python" "$src/suites/dlrm-bench/compile_check.py" --jobs "$(nproc)"
