// shrink_host (include/headroom/project/host_shrink.hpp).
#include "headroom/project/host_shrink.hpp"

#include <algorithm>
#include <cmath>

#include "headroom/analyze/intervals.hpp"
#include "headroom/analyze/launch_ranges.hpp"
#include "headroom/util/regex.hpp"

namespace headroom::project {

host_shrink shrink_host(const trace::trace& t, const replay_graph& g, const std::vector<host_rule>& rules) {
  host_shrink s;
  if (rules.empty()) return s;
  const auto n = g.nodes.size();
  s.gap_saving.assign(n, 0);
  s.call_speedup.assign(n, 1.0);
  // Per node: the previous node on its thread (its host_order input), if any.
  std::vector<std::uint32_t> previous(n, replay_graph::no_node);
  for (std::uint32_t v = 0; v < n; ++v) {
    for (auto k = g.edge_begin[v]; k < g.edge_begin[v + 1]; ++k) {
      if (g.edges[k].kind == dependency::host_order && !g.edges[k].to_end) previous[v] = g.edges[k].from;
    }
  }
  // What earlier rules took: a gap's time inside their ranges, a call's start.
  std::vector<analyze::thread_spans> earlier;
  std::vector<bool> taken(n, false);
  for (const auto& rule : rules) {
    const auto spans = analyze::host_ranges_named(t, util::regex(rule.pattern, "--host-range pattern"));
    const double keep = std::isinf(rule.speedup) ? 0.0 : 1.0 / rule.speedup;
    for (std::uint32_t v = 0; v < n; ++v) {
      const auto& node = g.nodes[v];
      if (node.kind == node_kind::device) continue;
      const auto& call = t.api_calls[node.source];
      const auto it = spans.find({call.process, call.thread});
      if (it == spans.end()) continue;
      // Its own duration, when it started inside a range.
      const auto inside = analyze::clip(it->second, call.start, call.start + 1);
      if (!taken[v] && analyze::length(inside) > 0) {
        taken[v] = true;
        s.call_speedup[v] = rule.speedup;
      }
      // The gap before it: the part inside this rule's ranges that no earlier rule took.
      if (previous[v] == replay_graph::no_node) continue;
      const auto from = g.nodes[previous[v]].end;
      if (from >= node.start) continue;
      auto part = analyze::clip(it->second, from, node.start);
      for (const auto& e : earlier) {
        const auto o = e.find({call.process, call.thread});
        if (o != e.end()) part = analyze::subtract(part, o->second);
      }
      const auto in_range = analyze::length(part);
      s.gap_saving[v] += static_cast<time_ns>(std::llround(static_cast<double>(in_range) * (1.0 - keep)));
    }
    earlier.push_back(spans);
  }
  return s;
}

}  // namespace headroom::project
