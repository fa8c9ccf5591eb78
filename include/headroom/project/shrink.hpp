#pragma once
// The shrink: which activities a projection makes faster, and by how much, one factor per activity
// for replay(). Parts are formed as project_amdahl forms them, so the replay and Amdahl's bound
// speak of the same kernels.
//
// A join of measured speedups (`project --results`) plugs in here: it turns each category's
// measured speedup into a speedup_rule of target::category and calls shrink_by_rules, or, for a
// speedup per kernel, fills `parts` and `part_of` itself; replay and the step report take the
// shrink_set either way.
#include <cstdint>
#include <string>
#include <vector>

#include "headroom/classify/classifier.hpp"
#include "headroom/project/what_if.hpp"
#include "headroom/trace/model.hpp"

namespace headroom::project {

struct shrink_part {
  std::string label;
  double speedup = 1.0;  // infinite_speedup: the part takes no time
};

struct shrink_set {
  std::vector<shrink_part> parts;
  std::vector<std::int16_t> part_of;  // per trace activity: index into parts, or -1 (unchanged)

  // One factor per trace activity: its part's speedup, 1 for the rest.
  std::vector<double> speedups() const;
};

// Each activity goes to the first rule that takes it (rules_in_order); throws input_error on a bad
// kernel pattern.
shrink_set shrink_by_rules(const trace::trace& t, const classify::classifier& c,
                           const std::vector<speedup_rule>& rules);

}  // namespace headroom::project
