#!/usr/bin/env bash
# headroom generate's whole loop against a local OpenAI-compatible server that the test starts
# (tests/cli/lib/fake_openai_server.py, answers from tests/data/generate): retries on 429 with
# Retry-After, 500, a timeout, a malformed body and a stream cut short; an answer with no code; the
# runs folder and the log; headroom eval --device cpu judging the candidates; the second turn's
# prompt carrying the first turn's verdict; a rerun asking only for what is missing; and the
# errors for a missing key, a refused key and an unreachable endpoint. Skips (77) without the
# worker or Debian's CPU PyTorch, which the evaluation between turns needs.
set -uo pipefail
headroom=$1
source "$(dirname "$0")/lib/eval_prelude.sh"
"$python" "$2/tests/cli/lib/generate_loop.py" "$headroom" "$2" "$work" "$python" || fail "see above"
