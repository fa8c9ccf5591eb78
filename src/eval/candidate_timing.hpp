#pragma once
// The timing half of a candidate's evaluation. Internal to src/eval (candidate.cpp).
#include <string>

#include "judged.hpp"
#include "headroom/eval/run_state.hpp"
#include "reference_data.hpp"
#include "session.hpp"

namespace headroom::eval {

// Times the candidate in its worker `s` (correct so far, its trials done) and sets the evaluation's
// timings, speedups and flags through `j`; the caller has waited for every other worker's start-up.
// A measurement that finds the GPU busy ends the candidate's worker, and either fails the candidate
// (gpu_left_busy) or throws input_error: something else keeps the GPU busy (gpu_busy.hpp).
void time_candidate(judged& j, session& s, const reference_data& ref, const run_state& run, const std::string& device);

}  // namespace headroom::eval
