# Sourced (not a test itself: those are tests/cli/*.sh) by the CLI tests of headroom eval on the
# CPU, with $headroom set: skips (77) without the worker (built with libpython3-dev) or without a
# Python that imports torch (Debian's CPU PyTorch); else sets $python, a $work folder removed on
# exit, and fail.
worker="$(dirname "$headroom")/headroom-worker"
if [[ ! -x $worker ]]; then echo "no headroom-worker (libpython3-dev missing at build time): skipped"; exit 77; fi
python=${HEADROOM_PYTHON:-/usr/bin/python3}
if ! "$python" -c "import torch" 2>/dev/null; then echo "$python cannot import torch: skipped"; exit 77; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
