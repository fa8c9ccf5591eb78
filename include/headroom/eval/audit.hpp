#pragma once
// The discrimination audit of one problem (docs/eval.md, "Discrimination audit"): the fakes its
// reference data must reject, and how each fared.
#include <string>
#include <vector>

#include "headroom/eval/job.hpp"
#include "headroom/eval/options.hpp"

namespace headroom::eval {

struct audit_fake {
  std::string name;  // zeros, constant, mean, passthrough
  bool applicable = true;  // false: it cannot be formed for some output, or equals it
  bool equals_reference = false;  // on some output the fake is exactly the reference (a 1-element mean)
  bool passes_ours = false;  // on every trial, as a candidate must: a failure of the audit
  bool passes_legacy_1e2 = false;  // allclose atol = rtol = 1e-2 on the problem's own inputs (trial 0)
  bool passes_legacy_1e4 = false;  // allclose 1e-4 there (float32 outputs only)
};
struct audit_result {
  std::string problem;
  std::string error;  // the reference failed
  int trials = 0;
  std::vector<audit_fake> fakes;
  // Why the problem cannot tell a kernel from a trivial output (docs/eval.md, "Degenerate
  // problems"); empty when it can. A speedup on such a problem measures nothing.
  std::string degenerate;
  // No fake passes our check and the problem is not degenerate.
  bool discriminating() const;
};
// The audit of `problem` alone: its reference prepared untimed (`headroom audit`).
audit_result audit_problem(const problem_spec& problem, const eval_options& options);
// One audit result as a JSON object (the `headroom audit --json` element; `eval --audit-to` lines).
std::string audit_json(const audit_result& r);

}  // namespace headroom::eval
