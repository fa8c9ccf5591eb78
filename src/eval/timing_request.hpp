#pragma once
// A timing request (the worker's "time" op, docs/eval.md, "Timing") and its answer's summary: how
// long to time and when to stop (timing_limits), on which sets, with what checks. Internal to
// src/eval (reference.cpp, candidate_timing.cpp, paired.cpp).
#include <cstdint>
#include <string>

#include <simdjson.h>

#include "headroom/eval/options.hpp"
#include "headroom/record/evaluation.hpp"
#include "reference_data.hpp"

namespace headroom::eval {

// When a timing stops: what the user asked for (options.hpp); paired timing asks for shorter turns.
struct timing_limits {
  int warmup = 0;
  int min_samples = 0;
  int max_samples = 0;
  double max_seconds = 0;
  double target_spread = 0;
  std::uint64_t check_bytes = 0;
};
timing_limits limits_of(const eval_options& options);

// A timing request on the timing sets the worker keeps (ref.timing_sets of them; ref.symmetric: per
// input, n when it is symmetric n x n, kept so in the fresh inputs).
// check_outputs: send timed outputs back to be compared (the candidate's); the reference's own are not.
// hold: launches held behind a gate (options.hold_launches unless a dispatch-included timing is wanted).
// sketch_seed: nonzero, every kept call's outputs are sketched under it (a candidate's timing).
// The worker keeps its heap mapped after the request when the problem's plan keeps its trials
// (memory to spare: keep_heap below); a lean problem's workers give it back.
std::string timing_request(const timing_limits& limits, const reference_data& ref, bool check_outputs, bool hold,
                           std::uint64_t sketch_seed = 0);
// The request field that asks a worker to keep its heap mapped after a timed request (its calls'
// outputs land on pages already mapped in the next one: docs/eval.md, "Timing").
std::string keep_heap(const reference_data& ref);
// The summary of a timing answer's "timing" object.
record::timing_summary parse_timing(simdjson::dom::element t);

}  // namespace headroom::eval
