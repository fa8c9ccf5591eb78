#pragma once
// A problem's reference data: what the reference's preparation (reference.hpp) leaves for every
// candidate of the problem (its trials, its baselines' timings, its worker). Internal to src/eval.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "headroom/eval/audit.hpp"
#include "headroom/eval/tensor.hpp"
#include "headroom/record/evaluation.hpp"
#include "session.hpp"
#include "trial_plan.hpp"

namespace headroom::eval {

struct reference_data {
  std::string error;  // non-empty: the problem failed (reference_error)
  std::string init_inputs;
  // get_inputs()'s arguments that are not tensors, JSON [[position, value], ...] ("[]": none); the
  // same for every trial and timing set (run_trial checks).
  std::string constants = "[]";
  std::uint64_t init_seed = 0;
  // Every trial's seed and distribution, with its inputs and the reference's outputs when the
  // parent keeps them (keep_trials); else the reference's worker makes each again when a candidate
  // needs it (remake_trial).
  std::vector<trial_data> trials;
  bool keep_trials = true;
  int skipped_trials = 0;  // distributions outside the problem's domain
  std::string reduced;  // how the memory budget cut the timing sets
  // The timing sets live in the reference's worker (its inputs requests with keep_set), which
  // passes them on to every worker that times (timing_sets.hpp); the parent keeps their count.
  int timing_sets = 0;
  std::vector<tensor> output_shapes;  // the dtypes and shapes of the outputs (no bytes)
  std::uint64_t set_input_bytes = 0, set_output_bytes = 0;
  // The audit, when it was taken as the trials passed through (trials not kept).
  std::optional<audit_result> audit;
  // The operators of one reference forward, outermost kernels only (what a Python dispatch mode
  // sees), each with its operands' sizes: the reference's side of torch_fallback.
  std::vector<std::string> ops;
  std::optional<record::timing_summary> eager, compiled;
  // The same timed with the dispatch included (CUDA, when eager and compiled were held): a candidate
  // whose call waits for its own stream cannot be held, and is compared with these.
  std::optional<record::timing_summary> eager_dispatch, compiled_dispatch;
  // The speed-of-light floor (reference_floor.hpp): how its bytes were counted and timed, or why
  // there is none; and the informative roofline (the reference's FLOPs counted in).
  std::optional<double> speed_of_light_ms;
  // On the CPU, what the floor's transfers moved, to measure it again (reference_floor.hpp).
  std::uint64_t floor_read = 0, floor_write = 0;
  bool floor_read_evicted = true;
  std::string floor_basis;
  std::string no_floor;
  std::optional<double> roofline_ms;
  record::environment env;
  // Per input of the timing sets: n when it is symmetric n x n (its fresh inputs stay so), else 0.
  std::vector<std::uint64_t> symmetric;
  // The reference's worker, kept for the problem's candidates: it holds the timing sets and the
  // eager model, runs calls of a candidate's timing again to check them (timed_calls.hpp), and makes
  // the trials again when the parent does not keep them.
  std::shared_ptr<session> worker;
  // What the harness itself costs around a timed call, from the reference's eager timing by the
  // parent's clock (timed_calls.hpp): the median of each call's interval less its wall clock, and
  // of its wall clock less the longer of its device and host time.
  double call_overhead_ms = 0;
  double wall_gap_ms = 0;
};

}  // namespace headroom::eval
