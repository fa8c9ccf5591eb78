#pragma once
// A kernel swap checked against its projection: the program traced before the swap and after it,
// and the speedups of the kernels swapped in. What the steps measured, what Amdahl and the replay
// predicted from the before-trace alone, the error of each in points of step time, and a route audit
// of which kernels left, which came, and which of the targeted ones still run (a silent fallback).
// docs/method.md, "Checking a swap".
#include <cstdint>
#include <string>
#include <vector>

#include "headroom/analyze/analysis.hpp"
#include "headroom/classify/classifier.hpp"
#include "headroom/project/what_if.hpp"
#include "headroom/trace/model.hpp"

namespace headroom::project {

// One side's steps (every timeline's window, pooled), in nanoseconds.
struct step_sample {
  std::vector<trace::time_ns> steps;
  double median = 0;
  double p25 = 0;  // the interquartile range, the spread printed beside the median
  double p75 = 0;
  std::vector<std::string> windows;  // each timeline's window, as analyze describes it
};

// One kernel name as both traces launched it, per step of each.
struct route_kernel {
  std::string name;
  double before_per_step = 0;  // launches per step
  double after_per_step = 0;
  double before_ms_per_step = 0;  // summed durations per step
  double after_ms_per_step = 0;
  bool targeted = false;  // a rule took it in the before-trace
  double fallback_per_step = 0;  // launches per step the rules still take in the after-trace (a targeted name)
};

struct route_audit {
  std::vector<route_kernel> kernels;  // every name whose launches per step changed, every targeted one
  std::size_t targeted = 0;  // targeted names
  std::size_t gone = 0;  // names launched before and not after
  std::size_t appeared = 0;  // names launched after and not before
  std::size_t fallbacks = 0;  // targeted names still taken by the rules after the swap
  bool every_target_replaced() const { return targeted > 0 && fallbacks == 0; }
};

// What a rule took in the after-trace as well: a range rule takes the new kernels launched inside the
// operator's range, a name rule any new kernel its pattern also finds. Their busy time per step
// against the before-trace's is the speedup the swapped kernels showed inside the program, beside
// the one the projection was given.
struct in_situ_part {
  std::string label;
  double before_ms_per_step = 0;  // the part's busy time (union) per step
  double after_ms_per_step = 0;
  double speedup() const { return after_ms_per_step > 0 ? before_ms_per_step / after_ms_per_step : 0; }
  // A range rule: the host time per step inside its ranges (their union on each thread, the waits for
  // the device included). A swap that fuses many operations into one removes host work (dispatch,
  // synchronisation round trips) that no kernel speedup describes; this shows it.
  bool host_range = false;
  double before_host_ms_per_step = 0;
  double after_host_ms_per_step = 0;
  // Of that, the host's own work: the range time less the time its calls spent waiting for the
  // device (synchronisations, blocking copies, as the replay sees them). Before against after, the
  // host speedup a --host-range rule would give the replay.
  double before_host_work_ms_per_step = 0;
  double after_host_work_ms_per_step = 0;
  double host_speedup() const {
    return after_host_work_ms_per_step > 0 ? before_host_work_ms_per_step / after_host_work_ms_per_step : 0;
  }
};

struct swap_check {
  std::vector<projected_part> parts;  // each rule: its fraction of the before-trace's wall clock, its speedup
  std::vector<host_rule> host;  // the host's side given to the replay (--host-range), if any
  std::vector<in_situ_part> in_situ;  // one per part
  step_sample before;
  step_sample after;
  // Gains in points of the before step time: 100 * (before - after) / before; negative: slower.
  double measured_gain = 0;  // the medians' change
  double amdahl_gain = 0;  // median over the before-trace's steps
  double replay_gain = 0;  // median over the replayed steps (replayed unshrunk against shrunk)
  bool replayed = false;  // false: the before-trace has no host activity; the replay gain is Amdahl's
  double replay_reproduction = 0;  // mean |replayed - measured| / measured with nothing shrunk
  double amdahl_error() const { return amdahl_gain - measured_gain; }
  double replay_error() const { return replay_gain - measured_gain; }
  route_audit route;
  std::vector<std::string> notes;
};

// Both traces read with their runtime calls whole (as the replay reads them). Throws input_error
// when either trace has no step in its window, or when the rules take no kernel of the before-trace.
swap_check check_swap(const trace::trace& before, const trace::trace& after, const classify::classifier& c,
                      const analyze::analyze_options& o, const std::vector<speedup_rule>& rules,
                      const std::vector<host_rule>& host = {});

}  // namespace headroom::project
