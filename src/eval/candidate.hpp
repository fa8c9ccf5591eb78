#pragma once
// A candidate's evaluation on one problem, in a fresh worker (docs/eval.md): load, every trial twice
// under two poison bytes and compared here in the parent, then timing (candidate_timing.hpp). Every
// way it can end is a verdict. Internal to src/eval (problem_lanes.cpp).
#include <memory>
#include <string>

#include "headroom/eval/job.hpp"
#include "headroom/eval/run_state.hpp"
#include "headroom/record/evaluation.hpp"
#include "reference_data.hpp"
#include "session.hpp"
#include "session_start.hpp"

namespace headroom::eval {

// started: the candidate's worker, already greeted (session_start::take), or null to start one here.
record::evaluation evaluate_candidate(const candidate_spec& candidate, const problem_spec& problem,
                                      const reference_data& ref, const run_state& run, const std::string& device,
                                      std::unique_ptr<session> started = nullptr, const before_timing& before = {});
// The label of a candidate's worker (its log file's name).
std::string candidate_label(const candidate_spec& candidate, const problem_spec& problem);

}  // namespace headroom::eval
