#pragma once
// The addressable fraction of a trace (docs/method.md has the definitions these implement).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "headroom/analyze/window.hpp"
#include "headroom/classify/classifier.hpp"
#include "headroom/trace/model.hpp"

namespace headroom::analyze {

// A set of activities measured apart (what `headroom project` speeds up). Groups are tried in
// order and an activity belongs to the first that takes it, so groups never share an activity.
struct activity_group {
  std::string label;
  std::string name_regex;  // ECMAScript, searched in the kernel name; "" = any
  std::optional<classify::category> category;  // only this category
  bool addressable_only = false;
  // Searched in host range names: only activities launched inside such a range (launch_ranges.hpp);
  // "" = anywhere.
  std::string range_regex;
};

struct analyze_options {
  window_mode mode = window_mode::steady_state;
  // explicit_bounds: nanoseconds relative to the start of the trace's first activity
  time_ns window_start = 0;
  time_ns window_end = 0;
  // ECMAScript regex over range names that mark one step (ProfilerStep#N, NVTX "step 12", ...)
  std::string step_marker = R"(^(ProfilerStep#\d+|[Ss]tep[ _#:]?\d+|[Ii]teration[ _#:]?\d+)$)";
  int warmup_steps = 1;  // whole steps (or repeating units) skipped at the start when >= 2 remain
  std::size_t top_kernels = 15;
  std::vector<activity_group> groups;
  // Fill timeline_report::attributed (a stacked bar of the window; attribution.hpp). Off by default:
  // it keeps a heap of running activities per timeline.
  bool attribute_wall_clock = false;
};

// Parses --window: "steady", "whole", or "START:END" with each bound in ns or with a unit
// (ns, us, ms, s): "12.5ms:40ms". Throws input_error on anything else.
void parse_window_spec(std::string_view spec, analyze_options& o);

struct busy_share {
  time_ns busy = 0;  // union of intervals inside the window
  time_ns sum = 0;  // plain sum of clipped durations (exceeds busy when they overlap)
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

// One device of one process (a rank's GPU), or the device-time weighted total of all of them.
struct timeline_report {
  std::uint16_t process = 0;
  std::int16_t device = -1;
  std::int32_t rank = -1;
  std::string label;  // "rank 0 / GPU 0 (NVIDIA H200)"
  window win;
  time_ns wall = 0;  // the denominator: the window's length (total: their sum)
  time_ns busy_all = 0;  // union of every activity (kernels, copies, memsets)
  time_ns busy_kernels = 0;  // union of kernels
  time_ns busy_addressable = 0;  // union of addressable kernels
  time_ns busy_addressable_exclusive = 0;  // addressable time not overlapped by non-addressable work
  std::array<busy_share, classify::category_count> by_category{};
  std::array<busy_share, classify::provenance_count> by_provenance{};
  std::vector<busy_share> groups;  // one per analyze_options::groups
  std::vector<kernel_row> top_kernels;
  // The busy time given to each [provenance][category], overlaps split evenly (attribution.hpp), in
  // ns; adds up to busy_all. Zero unless analyze_options::attribute_wall_clock.
  std::array<std::array<double, classify::category_count>, classify::provenance_count> attributed{};
  // Shares of the wall clock.
  double addressable_fraction() const;
  double addressable_exclusive_fraction() const;
  double busy_fraction() const;
  double idle_fraction() const;
  double share(time_ns t) const;
};

struct analysis_report {
  std::vector<timeline_report> timelines;
  // Device-time weighted over every timeline: sums of busy times over sums of window lengths.
  timeline_report total;
  std::string platform;
  time_ns origin = 0;  // start of the trace's first activity: windows are printed relative to it
  std::vector<std::string> notes;  // what the analysis decided or could not do, for the reader
};

analysis_report analyze(const trace::trace& t, const classify::classifier& c, const analyze_options& o);

// The group (index into `groups`) each activity belongs to, -1 for none: the first group that takes
// it, as analyze() measures them. Throws input_error on a bad name pattern.
std::vector<std::int16_t> assign_groups(const trace::trace& t, const classify::classifier& c,
                                        const std::vector<activity_group>& groups);

}  // namespace headroom::analyze
