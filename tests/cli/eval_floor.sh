#!/usr/bin/env bash
# headroom eval's speed-of-light floor and torch_fallback rule on the CPU, end to end (docs/eval.md,
# "The speed-of-light floor" and "Verdicts"): a row scaling for torch.diag(A) @ B, far over 10x, is
# verified against a floor from the bytes it must move (no excessive_speedup), with the share of the
# gap closed stored and averaged by `headroom stats`; a problem's declared floor (`<stem>.toml`)
# replaces the count, and one that claims too much flags the kernel under it; an input the outputs do not depend on is not counted; a floor the reference
# itself runs below (a slice of a large input) is dropped and says why; an algorithmic rewrite built
# of the reference's operators on other operands is not a fallback, F.normalize for x / x.norm() is.
# Skips (77) without Debian's CPU PyTorch.
set -uo pipefail
headroom=$1
src=$2
source "$(dirname "$0")/lib/eval_prelude.sh"
honest="$src/suites/honest"
mkdir -p "$work/p" "$work/c"
cp "$honest/problems/diag_matmul.py" "$work/p/diag_matmul.py"
# Another file (the store keys an evaluation by the problem's hash), with its floor declared.
{ cat "$honest/problems/diag_matmul.py"; echo "# Its floor is declared beside it."; } >"$work/p/diag_declared.py"
cat >"$work/p/diag_declared.toml" <<'EOF'
# Every correct kernel reads A and B and writes the product (B's shape): the bytes, declared.
[variables]
n = "numel(B)"
[formulas]
compulsory_bytes = "numel(A)*4 + 2*n*4"
EOF
# A declaration that claims 50 times the bytes: a floor between the row scaling and the matmul, which
# flags the row scaling (and the floor measured again after its timing agrees).
{ cat "$honest/problems/diag_matmul.py"; echo "# Its floor is overdeclared beside it."; } >"$work/p/diag_overdeclared.py"
cat >"$work/p/diag_overdeclared.toml" <<'EOF'
[formulas]
compulsory_bytes = "50*numel(B)*4"
EOF
cat >"$work/p/first_columns.py" <<'EOF'
# The first 8 columns of a 2048 x 4096 float32 input: the outputs depend on the input, of which a
# kernel reads a 64th.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x[:, :8].clone()


def get_inputs():
    return [torch.randn(2048, 4096)]


def get_init_inputs():
    return []
EOF
cat >"$work/c/first_columns.py" <<'EOF'
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        return x.narrow(1, 0, 8).contiguous()
EOF
cat >"$work/p/unused_input.py" <<'EOF'
# Doubles x; the second input is never read.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, unused):
        return x * 2


def get_inputs():
    return [torch.randn(256, 1024), torch.randn(1024, 1024)]


def get_init_inputs():
    return []
EOF
cat >"$work/c/unused_input.py" <<'EOF'
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x, unused):
        return x + x
EOF
cat >"$work/manifest.toml" <<EOF
[[case]]
name = "diag_row_scale"
problem = "p/diag_matmul.py"
candidate = "$honest/candidates/diag_row_scale.py"
expect = "correct"
reasons = []

[[case]]
name = "diag_declared"
problem = "p/diag_declared.py"
candidate = "$honest/candidates/diag_row_scale.py"
expect = "correct"
reasons = []

[[case]]
name = "diag_overdeclared"
problem = "p/diag_overdeclared.py"
candidate = "$honest/candidates/diag_row_scale.py"
expect = "correct"
reasons = ["below_speed_of_light"]

[[case]]
name = "first_columns"
problem = "p/first_columns.py"
candidate = "c/first_columns.py"
expect = "correct"
reasons = []

[[case]]
name = "unused_input"
problem = "p/unused_input.py"
candidate = "c/unused_input.py"
expect = "correct"
reasons = []

[[case]]
name = "outer_sum_factor"
problem = "$honest/problems/outer_product_sum.py"
candidate = "$honest/candidates/outer_sum_factor.py"
expect = "correct"
reasons = []

[[case]]
name = "l2norm_functional"
problem = "$honest/problems/l2_normalize.py"
candidate = "$honest/candidates/l2norm_functional.py"
expect = "correct"
reasons = ["torch_fallback"]
EOF

"$headroom" eval --suite "$work/manifest.toml" --device cpu --python "$python" --cache "$work/cache" \
  --db "$work/r.sqlite" --max-time 0.5 --min-samples 5 --run-timeout 60 --no-compile-baseline \
  >"$work/out.txt" 2>"$work/err.txt"
rc=$?
cat "$work/out.txt"
[[ $rc -eq 0 ]] || { tail -20 "$work/err.txt"; fail "a case did not get its expected verdict (exit $rc)"; }

q() { sqlite3 "$work/r.sqlite" "$1"; }
clocks() { q "select clocks from evaluations where candidate_path like '%$1' and problem like '%$2'"; }

# The row scaling: over 10x, verified, with a floor from both inputs and the gap share stored.
row=$(q "select speedup > 10, verified, speed_of_light_ms > 0, sol_gap_closed > 0 and sol_gap_closed <= 1
         from evaluations where problem like '%/diag_matmul'")
[[ $row == "1|1|1|1" ]] || fail "diag_row_scale: speedup > 10, verified, floor, gap share: $row; $(clocks diag_row_scale.py diag_matmul)"
clocks diag_row_scale.py diag_matmul | grep -q "speed-of-light floor .* ms (2 of 2 input(s) read" ||
  fail "diag_row_scale's floor basis: $(clocks diag_row_scale.py diag_matmul)"

# The declaration replaces the count.
clocks diag_row_scale.py diag_declared | grep -q "speed-of-light floor .* ms (declared by the problem: 2.1 MB" ||
  fail "the declared floor: $(clocks diag_row_scale.py diag_declared)"

# A floor over the candidate's time flags it, and the floor measured again after its timing is kept
# where it is lower.
q "select reasons from evaluations where problem like '%diag_overdeclared'" |
  grep -q "below the speed-of-light floor of .* ms (declared by the problem: 52.4 MB.*measured again after this timing" ||
  fail "overdeclared: $(q "select reasons from evaluations where problem like '%diag_overdeclared'")"

# The unused input is not counted.
clocks unused_input.py unused_input | grep -q "speed-of-light floor .* ms (1 of 2 input(s) read (1.05 MB)" ||
  fail "unused input: $(clocks unused_input.py unused_input)"

# The reference reads a 64th of the input its outputs depend on: it runs below the floor, which goes.
clocks first_columns.py first_columns | grep -q "no speed-of-light floor: the reference (eager) ran in .* below the floor" ||
  fail "first_columns: $(clocks first_columns.py first_columns)"
[[ $(q "select speed_of_light_ms is null and sol_gap_closed is null from evaluations where problem like '%first_columns'") == 1 ]] ||
  fail "first_columns keeps a floor"

# outer_sum_factor: mul and sum on other operands than the reference's, not a fallback.
[[ $(q "select reasons from evaluations where problem like '%outer_product_sum'") == "[]" ]] ||
  fail "outer_sum_factor: $(q "select reasons from evaluations where problem like '%outer_product_sum'")"
q "select reasons from evaluations where problem like '%l2_normalize'" |
  grep -q "div(2097152,512), norm(2097152)" || fail "l2norm_functional: $(q "select reasons from evaluations where problem like '%l2_normalize'")"

# headroom stats averages the share over the verified evaluations with a floor.
"$headroom" stats "$work/r.sqlite" --csv >"$work/stats.csv" || fail "stats"
head -1 "$work/stats.csv" | grep -q ",sol_scored,sol_gap_closed," || fail "stats header: $(head -1 "$work/stats.csv")"
"$headroom" stats "$work/r.sqlite" >"$work/stats.txt" || fail "stats"
grep -q "sol gap" "$work/stats.txt" || fail "stats console: $(cat "$work/stats.txt")"
echo "eval floor: $(q "select count(*) from evaluations") evaluations as expected"
