#!/usr/bin/env bash
# headroom eval within a memory budget (docs/eval.md, "Memory"): a problem too large for the budget
# the run is given becomes a reference_error that says what it would need, and the run goes on to
# judge the problems around it. Skips (77) without Debian's CPU PyTorch.
set -uo pipefail
headroom=$1
source "$(dirname "$0")/lib/eval_prelude.sh"

# Three problems in name order: a small one, one whose input and output are 128 MiB each (within a
# budget of 3 GiB its evaluation needs about 3.5: the parent, the reference's worker, the
# candidate's and their payload regions together), and another small one.
mkdir -p "$work/problems"
problem() {  # NAME ELEMENTS
  cat >"$work/problems/$1.py" <<PY
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn($2)]


def get_init_inputs():
    return []
PY
}
problem a_small 4096
problem b_large $((32 * 1024 * 1024))
problem c_small 8192

"$headroom" eval "$work/problems" --reference-as-candidate --memory-budget 3 --no-timing --trials 2 --device cpu \
  --python "$python" --cache "$work/cache" --db "$work/r.sqlite" >"$work/out.txt" 2>"$work/err.txt" ||
  fail "the run ended with $?: $(tail -5 "$work/err.txt")"
verdicts=$(sqlite3 "$work/r.sqlite" "select problem || ' ' || verdict from evaluations order by problem")
expected="problems/a_small correct
problems/b_large reference_error
problems/c_small correct"
[[ $verdicts == "$expected" ]] || fail "verdicts: $verdicts"
reason=$(sqlite3 "$work/r.sqlite" "select reasons from evaluations where problem = 'problems/b_large'")
[[ $reason == *"one set of inputs and outputs is 0.2 GiB (0.1 GiB in, 0.1 GiB out)"* && $reason == *"needs "*" GiB"* && $reason == *"memory budget of 3.0 GiB"* ]] ||
  fail "the reference_error does not say what the problem needs: $reason"
needed=$(grep -o 'needs [a-z ]*[0-9.]* GiB' <<<"$reason" | grep -o '[0-9.]*')
awk -v n="$needed" 'BEGIN { exit !(n > 3.0) }' || fail "it needs $needed GiB, within the budget: $reason"
grep -q "reference_error" "$work/out.txt" || fail "the table does not show the reference_error"
echo "ok: the problem of 256 MiB a set is a reference_error ($needed GiB needed, 3 GiB given); both others correct"
