#include "headroom/project/replay.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace headroom::project {

replayed_timeline replay(const replay_graph& g, std::span<const double> speedup, replay_latency latency,
                         const host_shrink& host_shrunk) {
  const auto n = g.nodes.size();
  replayed_timeline r;
  // Measured times to start from: an input left unfinished by a broken cycle reads as measured.
  r.start.resize(n);
  r.end.resize(n);
  for (std::size_t i = 0; i < n; ++i) r.start[i] = g.nodes[i].start, r.end[i] = g.nodes[i].end;
  r.bound_by.assign(n, dependency::count_);

  const bool typical = latency == replay_latency::typical;
  const auto edge_latency = [&](const replay_edge& e) {
    const time_ns usual = g.typical_delay[static_cast<std::size_t>(e.kind)];
    // Host time between calls is the program's, not a latency: kept in both modes where it decided
    // the call; where another thread's call decided it, the thread's own gap was waiting.
    const bool host_time = e.kind == dependency::host_order || e.kind == dependency::thread_handoff;
    if (typical && !host_time) return usual;
    return e.binding ? e.delay : std::min(usual, e.delay);
  };
  constexpr time_ns unset = std::numeric_limits<time_ns>::min();
  const auto shrunk = [](time_ns t, double s) {
    return s == 1.0 ? t : std::isinf(s) ? 0 : static_cast<time_ns>(std::llround(static_cast<double>(t) / s));
  };

  for (const auto v : g.order) {
    const auto& node = g.nodes[v];
    const auto first = g.edge_begin[v];
    const auto last = g.edge_begin[v + 1];
    // The host's own time a host rule takes: from the gap since its thread's previous call, from its
    // duration; never a wait for another thread or for the device.
    const double host = host_shrunk.empty() ? 1.0 : host_shrunk.call_speedup[v];
    const time_ns gap_saving = host_shrunk.empty() ? 0 : host_shrunk.gap_saving[v];
    time_ns start = node.pinned ? node.start : unset;
    dependency bound = dependency::count_;
    for (auto k = first; k < last; ++k) {
      const auto& e = g.edges[k];
      if (e.to_end) continue;
      const time_ns gap =
          e.kind == dependency::host_order ? std::max<time_ns>(0, edge_latency(e) - gap_saving) : edge_latency(e);
      const time_ns t = (e.from_end ? r.end[e.from] : r.start[e.from]) + gap;
      // On a tie the launch is the cause: the GPU could not have started the work any sooner.
      if (t > start || (t == start && e.kind == dependency::launch)) start = t, bound = e.kind;
    }
    if (start == unset) start = node.start;  // no input at all
    time_ns duration = node.end - node.start;
    if (node.kind == node_kind::device && !speedup.empty()) duration = shrunk(duration, speedup[node.source]);
    if (node.kind == node_kind::host_call) duration = shrunk(duration, host);
    time_ns end = start + duration;
    if (node.kind == node_kind::host_wait) {
      // Its own duration is an input like the work it waits for (the `call` edge from itself).
      end = unset;
      for (auto k = first; k < last; ++k) {
        const auto& e = g.edges[k];
        if (!e.to_end) continue;
        const time_ns from = e.from == v ? start : (e.from_end ? r.end[e.from] : r.start[e.from]);
        end = std::max(end, from + (e.kind == dependency::call ? shrunk(edge_latency(e), host) : edge_latency(e)));
      }
      if (end == unset) end = start + duration;
    }
    r.start[v] = start;
    r.end[v] = end;
    r.bound_by[v] = bound;
  }
  return r;
}

}  // namespace headroom::project
