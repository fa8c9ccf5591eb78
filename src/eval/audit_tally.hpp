#pragma once
// The discrimination audit (docs/eval.md, "Discrimination audit"), trial by trial: each trial's
// reference outputs are checked against the four fakes as they come, so that trials the parent does
// not keep (memory_plan.hpp) are audited while they pass through. Internal to src/eval.
#include <string>
#include <vector>

#include "headroom/eval/audit.hpp"
#include "headroom/eval/tensor.hpp"
#include "reference_data.hpp"
#include "trial_plan.hpp"

namespace headroom::eval {

class audit_tally {
 public:
  audit_tally();
  // The next trial, in order (the first is the problem's own inputs, which the legacy checks judge).
  void add(const trial_data& t);
  audit_result result(const std::string& problem_id) const;

 private:
  struct fake_state {
    audit_fake fake;
    bool any_fp32 = false, always_equal = true;
  };
  std::vector<fake_state> fakes_;
  int trials_ = 0;
  // The first trial's outputs as a hash of their types, shapes and bytes, and whether every later
  // trial's were the same: an output that does not depend on the inputs.
  std::size_t first_outputs_ = 0;
  bool outputs_constant_ = true;
  tensor scratch_;  // every fake in turn, in one buffer
};

// The audit of a problem from reference data already prepared (no further worker runs).
audit_result audit_reference(const std::string& problem_id, const reference_data& ref);

}  // namespace headroom::eval
