#include "headroom/project/shrink.hpp"

#include "headroom/analyze/analysis.hpp"

namespace headroom::project {

std::vector<double> shrink_set::speedups() const {
  std::vector<double> out(part_of.size(), 1.0);
  for (std::size_t i = 0; i < part_of.size(); ++i) {
    if (part_of[i] >= 0) out[i] = parts[static_cast<std::size_t>(part_of[i])].speedup;
  }
  return out;
}

shrink_set shrink_by_rules(const trace::trace& t, const classify::classifier& c,
                           const std::vector<speedup_rule>& rules) {
  const auto ordered = rules_in_order(rules);
  shrink_set s;
  for (const auto* r : ordered) s.parts.push_back({r->label(), r->speedup});
  s.part_of = analyze::assign_groups(t, c, rule_groups(ordered));
  return s;
}

}  // namespace headroom::project
