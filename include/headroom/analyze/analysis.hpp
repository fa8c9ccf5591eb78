#pragma once
// The addressable fraction of a trace (docs/method.md has the definitions these implement).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "headroom/classify/classifier.hpp"
#include "headroom/trace/model.hpp"

namespace headroom::analyze {

using trace::time_ns;

enum class window_mode { steady_state, whole, explicit_bounds };

struct analyze_options {
  window_mode mode = window_mode::steady_state;
  // explicit_bounds: absolute trace-clock nanoseconds
  time_ns window_start = 0;
  time_ns window_end = 0;
  // ECMAScript regex over range names that mark one step (ProfilerStep#N, NVTX "step 12", ...)
  std::string step_marker = R"(^(ProfilerStep#\d+|[Ss]tep[ _#:]?\d+|[Ii]teration[ _#:]?\d+)$)";
  int warmup_steps = 1;  // whole steps (or repeating units) skipped at the start when more remain
  std::size_t top_kernels = 15;
};

// How the window was chosen, in words a reader can check.
enum class window_source { step_markers, repeating_unit, whole_span, explicit_bounds };

struct window {
  time_ns start = 0;
  time_ns end = 0;
  window_source source = window_source::whole_span;
  int steps = 0;            // steps or repeating units inside the window (0 for whole/explicit)
  int skipped_warmup = 0;   // steps or units skipped before it
  std::string description;  // "steps ProfilerStep#3..#7 (5 steps; 1 skipped as warm-up)"
  time_ns length() const { return end - start; }
};

struct busy_share {
  time_ns busy = 0;     // union of intervals inside the window
  time_ns sum = 0;      // plain sum of clipped durations (exceeds busy when they overlap)
  std::uint64_t count = 0;
};

struct kernel_row {
  std::string name;
  classify::category cat = classify::category::other;
  classify::provenance prov = classify::provenance::custom;
  std::string rule;
  time_ns total = 0;  // sum of clipped durations
  std::uint64_t count = 0;
  double share_of_wall = 0.0;
};

// One device of one process (a rank's GPU).
struct timeline_report {
  std::uint16_t process = 0;
  std::int16_t device = -1;
  std::string label;  // "rank 0 / GPU 0 (NVIDIA H200)"
  window win;
  time_ns busy_all = 0;                  // union of every activity (kernels, copies, memsets)
  time_ns busy_addressable = 0;          // union of addressable kernels
  time_ns busy_addressable_exclusive = 0;// addressable time not overlapped by non-addressable work
  time_ns busy_kernels = 0;              // union of kernels
  std::array<busy_share, classify::category_count> by_category{};
  std::array<busy_share, classify::provenance_count> by_provenance{};
  std::vector<kernel_row> top_kernels;
  // Shares of the window's wall clock.
  double addressable_fraction() const;
  double addressable_exclusive_fraction() const;
  double idle_fraction() const;
};

struct analysis_report {
  std::vector<timeline_report> timelines;
  // Device-time weighted over every timeline: sums of busy times over sums of window lengths.
  timeline_report total;
  std::vector<std::string> notes;  // what the analysis decided or could not do, for the reader
};

analysis_report analyze(const trace::trace& t, const classify::classifier& c, const analyze_options& o);

}  // namespace headroom::analyze
