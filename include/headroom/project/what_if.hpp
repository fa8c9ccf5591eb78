#pragma once
// "What if these kernels were s times faster?": Amdahl projections over the parts of a trace that
// a user names (every addressable kernel, a category, a kernel-name pattern).
#include <string>
#include <string_view>
#include <vector>

#include "headroom/analyze/analysis.hpp"
#include "headroom/classify/classifier.hpp"
#include "headroom/trace/model.hpp"

namespace headroom::project {

struct speedup_rule {
  enum class target { addressable, category, kernel_pattern, host_range };
  target what = target::addressable;
  classify::category cat = classify::category::other;  // target::category
  // target::kernel_pattern: searched in kernel names; target::host_range: in the names of the host
  // ranges the kernels were launched inside (analyze/launch_ranges.hpp)
  std::string pattern;
  double speedup = 1.0;
  std::string label() const;
};

// "gemm=1.5" and "REGEX=2" (split at the last '='); throw input_error naming the flag and the problem.
speedup_rule parse_category_speedup(std::string_view text);
speedup_rule parse_kernel_speedup(std::string_view text);
speedup_rule parse_range_speedup(std::string_view text);  // "--range REGEX=SPEEDUP"
speedup_rule parse_addressable_speedup(std::string_view text);  // "1.5" or "inf"

// The host's side of an operator: the host calls made inside ranges of a name (the operator's
// launches and synchronisations), whose host time a replay divides by `speedup` — the time between
// them on their thread and each call's own time, never a wait for the device, which follows from the
// device work as ever. A kernel speedup cannot say this part: a swap that fuses an operator's many
// eager operations into one kernel takes most of their dispatch from the host too.
struct host_rule {
  std::string pattern;  // searched in host range names, as speedup_rule::target::host_range
  double speedup = 1.0;
  std::string label() const;
};
host_rule parse_host_range_speedup(std::string_view text);  // "--host-range REGEX=SPEEDUP"

struct projected_part {
  std::string label;
  trace::time_ns busy = 0;  // union inside the windows, summed over timelines
  double fraction = 0.0;  // of the device-time weighted wall clock
  double speedup = 1.0;
};

struct projection {
  analyze::analysis_report analysis;
  std::vector<projected_part> parts;
  double speedup = 1.0;  // end to end, parts combined term by term
  double ceiling = 1.0;  // every part infinitely fast
  // End to end when every part gets the same reference speedup (project::reference_speedups()).
  std::vector<double> at_reference;
};

// The order in which rules take kernels: kernel patterns first, then host ranges, then categories, then the
// addressable rest (a kernel belongs to the first that takes it), and those rules as analysis groups.
std::vector<const speedup_rule*> rules_in_order(const std::vector<speedup_rule>& rules);
std::vector<analyze::activity_group> rule_groups(const std::vector<const speedup_rule*>& ordered);

// A kernel belongs to the first rule that takes it (rules_in_order), so parts never share a kernel
// (they may still overlap in time on other streams, which docs/method.md names as this bound's
// optimism).
projection project_amdahl(const trace::trace& t, const classify::classifier& c, analyze::analyze_options o,
                          const std::vector<speedup_rule>& rules);

}  // namespace headroom::project
