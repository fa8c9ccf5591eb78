#pragma once
// The timing sets' transfer: the reference's worker keeps the sets (reference.hpp) and passes them
// on to every worker that times, one at a time (memory_plan.hpp). Internal to src/eval.
#include <string>

#include "headroom/eval/run_state.hpp"
#include "reference_data.hpp"
#include "session.hpp"

namespace headroom::eval {

// Empty error, or what went wrong (on which side: "the reference's worker" or the receiving
// worker's answer).
struct set_transfer {
  std::string error;
  answer failed;  // the receiving worker's failed answer (error empty when the failure was the reference's)
  bool receiver = false;
};
set_transfer send_timing_sets(const reference_data& ref, session& to, const run_state& run);

}  // namespace headroom::eval
