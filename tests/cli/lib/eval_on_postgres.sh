# Sourced by the CLI tests that run `headroom eval` against the tests' PostgreSQL server, after
# `headroom` is set: skips (77) without headroom-worker or a Python that imports torch (Debian's
# CPU PyTorch), fails when run outside ctest (which starts the server, tests/services/postgres.sh).
# Sets `python`.
worker="$(dirname "$headroom")/headroom-worker"
if [[ ! -x $worker ]]; then echo "no headroom-worker (libpython3-dev missing at build time): skipped"; exit 77; fi
python=${HEADROOM_PYTHON:-/usr/bin/python3}
if ! "$python" -c "import torch" 2>/dev/null; then echo "$python cannot import torch: skipped"; exit 77; fi
[[ -n ${HEADROOM_TEST_POSTGRES_DIR:-} ]] || { echo "FAIL: no test PostgreSQL server (run through ctest)"; exit 1; }
