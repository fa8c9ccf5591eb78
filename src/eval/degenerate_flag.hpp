#pragma once
// A problem the audit finds degenerate (docs/eval.md, "Degenerate problems") makes every speedup on
// it meaningless: each of its evaluations carries the reason degenerate_problem (a flag on a correct
// one, which keeps it out of the verified set; after the failure's own reasons on a failure), and
// `headroom stats` leaves them all out of every figure. Internal to src/eval.
#include "headroom/eval/audit.hpp"
#include "headroom/record/evaluation.hpp"

namespace headroom::eval {

// Adds the reason to `e` (not to a reference_error) when `audit` found its problem degenerate.
void flag_degenerate(record::evaluation& e, const audit_result& audit);

}  // namespace headroom::eval
