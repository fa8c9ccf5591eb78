#pragma once
// The adaptive sample loop's statistics (docs/eval.md, "Timing"): when to stop, and the summary
// that is stored. Pure arithmetic, shared by the worker and tested without a GPU.
#include <optional>
#include <vector>

#include "headroom/record/timing_summary.hpp"

namespace headroom::worker {

struct stopping_rule {
  int min_samples = 10;
  int max_samples = 2000;
  double max_seconds = 10.0;  // wall time spent sampling
  double target_spread = 0.002;  // standard error of the median / median
};

// Work on another stream shows as a tail: the device still busy after the timed stream's end. A
// tail longer than this share of the call plus this many milliseconds flags `other_stream_work`.
inline constexpr double hidden_work_share = 0.10;
inline constexpr double hidden_work_ms = 0.02;

// One timed call. event_ms: the events on the timed stream (the host clock on the CPU); with held
// launches the device time alone, otherwise the dispatch included. host_ms: the host's own time in
// the call. wall_ms: the device-synchronised host wall clock of the same call (reported). tail_ms:
// from the timed stream's end to the whole device's, both waited for on the host: work left on
// other streams (0 on the CPU).
struct timing_sample {
  double event_ms = 0;
  double wall_ms = 0;
  double tail_ms = 0;
  double host_ms = 0;
  bool held = false;
};

// A timing sample from what the worker's timer returned.
timing_sample make_sample(double event_ms, double wall_ms, double host_ms, double tail_ms, bool held);

// What an empty call costs through the same path: subtracted from the wall clock and the tail.
struct empty_call {
  double wall_ms = 0;
  double tail_ms = 0;
};

// What a call costs. Calls follow one another with their launches queued, so the host's dispatch of
// one call overlaps the device's work on the one before: a sequence of calls runs at the pace of
// the slower side. With held launches a call therefore costs the longer of its median device time
// and its median host time (a launch-bound call costs its dispatch; host work or a host wait inside
// the call is paid); without, the events already include the dispatch. (Costing each sample as the
// longer of its own two does not work: on a 0.056 ms problem whose dispatch took 0.02-0.08 ms from
// one sample to the next, the median then follows the share of slow dispatches.)
class sample_set {
 public:
  void add(const timing_sample& s);
  // Events that include the host's dispatch, with no tail.
  void add(double event_ms, double wall_ms) { add({event_ms, wall_ms, 0, 0, false}); }
  int size() const { return static_cast<int>(events_.size()); }
  // Standard error of the median relative to the median, from the median absolute deviation
  // (robust to the occasional preempted sample), of the side that sets the cost. Infinite below 3
  // samples.
  double rel_spread() const;
  // Whether the host's time in the call, not the device's, sets the cost (held launches only).
  bool host_bound() const;
  bool done(const stopping_rule& rule, double elapsed_seconds) const;
  record::timing_summary summarize(const empty_call& empty) const;
  // True when the summary's tail exposes work the timed stream did not see.
  static bool hidden_work(const record::timing_summary& s);

 private:
  const std::vector<double>& costs() const { return host_bound() ? hosts_ : events_; }
  std::vector<double> events_;
  std::vector<double> walls_;
  std::vector<double> tails_;
  std::vector<double> hosts_;
  bool held_ = false;  // every sample held (a set is timed one way: a hold that timed out starts a new set)
};

double median_of(std::vector<double> v);
// The standard error of the median of `v` relative to the median, from the median absolute
// deviation: rel_spread() of one side, and of the ratios of alternating calls (src/eval/paired.cpp).
// Infinite below 3 values or at a median that is not positive.
double median_rel_error(const std::vector<double>& v);

}  // namespace headroom::worker
