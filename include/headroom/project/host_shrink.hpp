#pragma once
// The host's side of a projection (host_rule, --host-range): per replay graph node, how much of the
// host time before it and of its own duration a replay takes away. A node's host time before it is
// the gap since its thread's previous node; only the part of that gap that lies inside one of the
// rule's ranges shrinks, so the replay removes exactly the share of the ranges' time that
// swap_check's in-situ figures measure (a range's time less its calls' waits for the device).
#include <vector>

#include "headroom/project/replay_graph.hpp"
#include "headroom/project/what_if.hpp"
#include "headroom/trace/model.hpp"

namespace headroom::project {

struct host_shrink {
  std::vector<time_ns> gap_saving;  // per node: host time taken from its host_order gap
  std::vector<double> call_speedup;  // per node: divides a host call's own duration (1: unchanged)
  bool empty() const { return gap_saving.empty(); }
};

// Each host node goes to the first rule whose ranges hold its start; each part of a gap to the first
// rule whose ranges hold it. Throws input_error on a bad pattern. Empty for no rules.
host_shrink shrink_host(const trace::trace& t, const replay_graph& g, const std::vector<host_rule>& rules);

}  // namespace headroom::project
