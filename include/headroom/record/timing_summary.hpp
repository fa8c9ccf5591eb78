#pragma once
// The answer of a worker's timing request: what the timing loop measured (docs/eval.md, "Timing").
// The worker computes it (worker/timing_stats.hpp) and every evaluation record keeps three of them.
#include <string>
#include <string_view>
#include <variant>

namespace headroom::record {

// What the timing loop measured (docs/eval.md, "Timing"). Times in milliseconds.
struct timing_summary {
  int samples = 0;
  double median_ms = 0;
  double mean_ms = 0;
  double stddev_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  double rel_spread = 0;  // standard error of the median / median: what the adaptive loop drives down
  double wall_median_ms = 0;  // device-synchronised host wall clock per call, minus an empty call's
  double score_ms = 0;  // what speedups use: median_ms, or each call until the device was done
      // with it when other streams ran past the timed one (hidden work)
  // Not among kept_timing_statistics (the evaluation's `clocks` and reasons say how it was timed):
  double host_median_ms = 0;  // the call itself on the host (its dispatch and launches)
  double tail_median_ms = 0;  // the device busy past the timed stream's end, minus an empty call's
  bool held = false;  // launches held behind a gate: device time, not host dispatch, was timed
  bool host_bound = false;  // held, and the host's time in the call (its median) set the cost
  double device_median_ms = 0;  // the events' own median (the device time when held)
  double device_cost_ms = 0;  // held: the device's side of the cost, score_ms but for the host's time
      // (the events' median, or until the device was done: hidden work)
  std::string hold_mechanism;  // how they were held: "stream wait", or "host function" (the fallback)
  // The events' median: device_median_ms, or median_ms from a worker that did not report it.
  double events_median_ms() const { return device_median_ms > 0 ? device_median_ms : median_ms; }
};

// One statistic that every evaluation keeps of each of its three timings: a results-store column
// per timing (candidate_median_ms, eager_median_ms, compiled_median_ms) and a key of a release's
// timing objects, both named `name`.
struct timing_statistic {
  std::string_view name;
  std::variant<int timing_summary::*, double timing_summary::*> member;
};

// The statistics kept, in the order of their columns and keys. A new one is a field above and an
// entry here: the store and releases take their columns and keys from this list (what else a kept
// one needs: docs/architecture.md, "A reader's tour", change 3).
inline constexpr timing_statistic kept_timing_statistics[] = {
    {"samples", &timing_summary::samples},       {"median_ms", &timing_summary::median_ms},
    {"mean_ms", &timing_summary::mean_ms},       {"stddev_ms", &timing_summary::stddev_ms},
    {"min_ms", &timing_summary::min_ms},         {"max_ms", &timing_summary::max_ms},
    {"rel_spread", &timing_summary::rel_spread}, {"wall_median_ms", &timing_summary::wall_median_ms},
    {"score_ms", &timing_summary::score_ms},
};

// The kept statistics of s as the members of a JSON object, in the list's order
// ("samples":10,"median_ms":1.5,...): what a worker's timing answer begins with and the parent
// reads back by the same list (src/eval/timing_request.cpp).
std::string kept_statistics_json(const timing_summary& s);

}  // namespace headroom::record
