#pragma once
// Step markers (ProfilerStep#N, NVTX "step N") turned into a window on one device's timeline.
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "headroom/analyze/timeline.hpp"
#include "headroom/analyze/window.hpp"
#include "headroom/trace/model.hpp"
#include "headroom/util/regex.hpp"

namespace headroom::analyze {

// How a host-side step range was carried onto the device.
enum class step_mapping {
  correlation,  // from the first activity launched inside the range to the last one's end
  gpu_annotation,  // the profiler's own projection of the range on the device
  cpu_range,  // the host range itself (no launch correlation and no projection)
};
std::string_view to_string(step_mapping m);

class step_finder {
 public:
  // Throws input_error when marker_regex is not a valid ECMAScript regex.
  step_finder(const trace::trace& t, const std::string& marker_regex);

  // The steady-state window over the step markers of tl's process, skipping `warmup` steps when at
  // least two remain, or nothing when the process has no step marker with work on this device.
  std::optional<window> steady_window(const timeline& tl, int warmup) const;

 private:
  struct step {
    trace::string_id name;
    time_ns start;
    time_ns end;
    // The activities that start first and end last (launch correlation only; else no_activity).
    std::uint32_t first = no_activity;
    std::uint32_t last = no_activity;
  };
  static constexpr std::uint32_t no_activity = std::numeric_limits<std::uint32_t>::max();
  // An api call or a launch pair, by index into api_calls then launches.
  struct call {
    time_ns start;
    std::uint64_t correlation;
    trace::string_id name;
    std::uint16_t process;
  };
  call call_at(std::uint32_t i) const;
  std::vector<step> mapped_steps(const timeline& tl, step_mapping& how, int& dropped) const;
  bool is_marker(trace::string_id name);

  const trace::trace& t_;
  util::regex marker_;
  std::vector<signed char> marker_cache_;  // per string id: -1 not asked, 0 no, 1 yes
  std::vector<std::vector<std::uint32_t>> cpu_steps_;  // per process, range indices by start
  std::vector<std::uint32_t> gpu_steps_;  // gpu_annotation marker ranges by start
  std::vector<std::vector<std::uint32_t>> api_by_process_;  // call indices (see call_at) by start
  std::vector<std::uint32_t> by_correlation_;  // activity indices by (process, correlation)
};

}  // namespace headroom::analyze
