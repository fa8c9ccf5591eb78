#pragma once
// The reference's preparation, once per problem (docs/eval.md, "Processes"): its worker loads the
// problem's Model, makes every trial's inputs and outputs within the memory budget, keeps the timing
// sets, and times the baselines (eager, compiled) after the device's ceilings. Internal to src/eval.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "headroom/eval/job.hpp"
#include "headroom/eval/run_state.hpp"
#include "reference_data.hpp"
#include "reference_floor.hpp"
#include "session.hpp"
#include "session_start.hpp"
#include "trial_plan.hpp"

namespace headroom::eval {

// started: the problem's reference worker, already greeted (session_start::take), or null to start one here.
// audit: take the discrimination audit as the trials pass through when they are not kept (ref.audit).
reference_data prepare_reference(const problem_spec& problem, const run_state& run, const std::string& device,
                                 std::optional<ceilings>& device_ceilings, const before_timing& before = {},
                                 std::unique_ptr<session> started = nullptr, bool audit = false);
// Trial `plan` (its seed and distribution) made again by the reference's worker into `out`: its
// inputs and the reference's outputs. Empty, or what went wrong.
std::string remake_trial(const reference_data& ref, const trial_data& plan, const run_state& run, trial_data& out);
// Loads the problem's Model into a reference worker, its weights from `init_seed`.
answer load_reference_model(session& s, const problem_spec& problem, const run_state& run, std::uint64_t init_seed);
// The label of a problem's reference worker (its log file's name).
std::string reference_label(const problem_spec& problem);

}  // namespace headroom::eval
