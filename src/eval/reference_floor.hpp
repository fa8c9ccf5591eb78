#pragma once
// The reference's speed-of-light floor, a step of its preparation (reference.hpp; docs/eval.md, "The
// speed-of-light floor"): which bytes every correct kernel of the problem moves (the inputs its
// outputs depend on, found by the reference's worker, or what the problem declares), and the time
// the device takes for them: on a GPU over the copy bandwidth measured once per lane, on the CPU
// measured for these sizes in a timed call's conditions. Internal to src/eval.
#include <optional>
#include <string>

#include "headroom/eval/job.hpp"
#include "headroom/eval/run_state.hpp"
#include "reference_data.hpp"
#include "session.hpp"

namespace headroom::eval {

// What a device can do at most, measured once per lane by its first reference worker: the
// denominators of a GPU's floor and of the informative roofline (speed_of_light.hpp).
struct ceilings {
  double bandwidth = 0;  // bytes/s, read + written
  double matmul = 0;  // FLOP/s, dense bf16
};

// Sets ref.speed_of_light_ms, ref.roofline_ms and ref.floor_basis, or ref.no_floor with why there is
// none. `flops`: the reference's, counted by PyTorch (< 0: unknown). After the eager baseline, on the
// worker `s` that keeps the timing sets.
void prepare_floor(session& s, const problem_spec& problem, const run_state& run, const std::string& device,
                   const std::optional<ceilings>& device_ceilings, double flops, reference_data& ref);

// The CPU's floor measured again by the reference's worker (its transfers of the same bytes), when
// a candidate's score fell below it; the floor as it was when that cannot be done.
double floor_measured_again(const reference_data& ref, const run_state& run);

// Once the baselines are timed: a floor the reference itself ran below is not a bound for this
// problem (speed_of_light.hpp, floor_contradiction) and is dropped, ref.no_floor saying why.
void check_floor_against_reference(reference_data& ref);

}  // namespace headroom::eval
