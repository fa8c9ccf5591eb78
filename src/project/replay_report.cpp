// replay_steps: the per-step figures of `project --replay` (include/headroom/project/replay_report.hpp).
#include "headroom/project/replay_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "headroom/analyze/intervals.hpp"
#include "headroom/analyze/timeline.hpp"

namespace headroom::project {
namespace {

using analyze::interval;
using analyze::interval_union;

// Length of u inside [lo, hi); u sorted and disjoint.
time_ns covered(const interval_union& u, time_ns lo, time_ns hi) {
  auto it = std::lower_bound(u.begin(), u.end(), lo, [](const interval& s, time_ns v) { return s.end <= v; });
  time_ns sum = 0;
  for (; it != u.end() && it->start < hi; ++it) sum += std::min(it->end, hi) - std::max(it->start, lo);
  return sum;
}

// A timeline's device work at replayed times: when the GPU was busy, and which idle time ended
// with work that had waited for its launch (the GPU waiting for the host).
struct usage {
  interval_union busy;
  interval_union launch_idle;
};

usage usage_of(const analyze::timeline& tl, const replay_graph& g, const replayed_timeline& r) {
  std::vector<std::uint32_t> nodes;
  nodes.reserve(tl.activities.size());
  for (auto a : tl.activities) nodes.push_back(g.activity_node[a]);
  std::sort(nodes.begin(), nodes.end(), [&](std::uint32_t a, std::uint32_t b) {
    return std::tie(r.start[a], r.end[a], a) < std::tie(r.start[b], r.end[b], b);
  });
  usage u;
  bool open = false;
  interval cur;
  for (auto v : nodes) {
    const interval s{r.start[v], std::max(r.start[v], r.end[v])};
    if (open && s.start <= cur.end) {
      cur.end = std::max(cur.end, s.end);
      continue;
    }
    if (open) {
      u.busy.push_back(cur);
      if (r.bound_by[v] == dependency::launch) u.launch_idle.push_back({cur.end, s.start});
    }
    cur = s;
    open = true;
  }
  if (open) u.busy.push_back(cur);
  return u;
}

struct step_bounds {
  time_ns start;
  time_ns end;
};

time_ns boundary_time(const trace::trace& t, const replay_graph& g, const replayed_timeline* r,
                      const analyze::step_boundary& b) {
  if (r == nullptr) return b.at_end ? t.activities[b.activity].end : t.activities[b.activity].start;
  const auto v = g.activity_node[b.activity];
  return b.at_end ? r->end[v] : r->start[v];
}

std::vector<step_bounds> steps_of(const trace::trace& t, const replay_graph& g, const replayed_timeline* r,
                                  const std::vector<analyze::step_boundary>& bounds) {
  std::vector<step_bounds> out;
  for (std::size_t i = 0; i + 1 < bounds.size(); ++i) {
    out.push_back({boundary_time(t, g, r, bounds[i]), boundary_time(t, g, r, bounds[i + 1])});
  }
  return out;
}

replay_error error_of(const std::vector<replay_step>& steps, time_ns replay_step::*field) {
  replay_error e;
  std::size_t n = 0;
  for (const auto& s : steps) {
    if (s.measured <= 0) continue;
    const double err = std::abs(static_cast<double>(s.*field - s.measured)) / static_cast<double>(s.measured);
    e.mean += err;
    e.max = std::max(e.max, err);
    ++n;
  }
  if (n > 0) e.mean /= static_cast<double>(n);
  return e;
}

}  // namespace

std::vector<replay_timeline_report> replay_steps(const trace::trace& t, const analyze::analysis_report& analysis,
                                                 const replay_graph& g, const shrink_set& shrink,
                                                 const replayed_timeline& unshrunk, const replayed_timeline& typical,
                                                 const replayed_timeline& shrunk) {
  const auto timelines = analyze::split_timelines(t);
  std::vector<replay_timeline_report> out;
  for (const auto& tr : analysis.timelines) {
    replay_timeline_report rep;
    rep.process = tr.process;
    rep.device = tr.device;
    rep.label = tr.label;
    rep.window = tr.win.description;
    const auto tl = std::find_if(timelines.begin(), timelines.end(), [&](const analyze::timeline& x) {
      return x.process == tr.process && x.device == tr.device;
    });
    const auto& bounds = tr.win.boundaries;
    if (tl == timelines.end() || bounds.size() < 2) {
      rep.not_replayed = "no step boundaries on this timeline";
      out.push_back(std::move(rep));
      continue;
    }
    const auto measured = steps_of(t, g, nullptr, bounds);
    std::size_t launched = 0, in_window = 0;
    for (auto a : tl->activities) {
      const auto& x = t.activities[a];
      if (x.end <= measured.front().start || x.start >= measured.back().end) continue;
      ++in_window;
      launched += !g.nodes[g.activity_node[a]].pinned;
    }
    rep.activities_without_launch = in_window - launched;
    if (launched == 0) {
      rep.not_replayed = "no activity in the window has a recorded launch call: the replay needs host activity";
      out.push_back(std::move(rep));
      continue;
    }
    // Work without a recorded launch stays where it was measured; when that is most of the step,
    // the replay could not move enough of it to say anything.
    if (2 * rep.activities_without_launch > in_window) {
      rep.not_replayed = fmt::format(
          "{} of the window's {} activities have no recorded launch call and would stay "
          "where they were measured",
          rep.activities_without_launch, in_window);
      out.push_back(std::move(rep));
      continue;
    }
    rep.replayed = true;

    // Amdahl per step: each part's union of kernels in the measured step, times (1 - 1/s).
    std::vector<interval_union> parts(shrink.parts.size());
    {
      std::vector<std::vector<interval>> spans(shrink.parts.size());
      for (auto a : tl->activities) {
        const auto p = a < shrink.part_of.size() ? shrink.part_of[a] : -1;
        if (p >= 0) spans[static_cast<std::size_t>(p)].push_back({t.activities[a].start, t.activities[a].end});
      }
      for (std::size_t p = 0; p < parts.size(); ++p) parts[p] = analyze::make_union(std::move(spans[p]));
    }
    const auto before = usage_of(*tl, g, unshrunk);
    const auto after = usage_of(*tl, g, shrunk);
    const auto replayed = steps_of(t, g, &unshrunk, bounds);
    const auto typical_steps = steps_of(t, g, &typical, bounds);
    const auto shrunk_steps = steps_of(t, g, &shrunk, bounds);
    for (std::size_t i = 0; i < measured.size(); ++i) {
      replay_step s;
      s.measured = measured[i].end - measured[i].start;
      s.replayed = replayed[i].end - replayed[i].start;
      s.typical = typical_steps[i].end - typical_steps[i].start;
      s.shrunk = shrunk_steps[i].end - shrunk_steps[i].start;
      double saving = 0.0;
      for (std::size_t p = 0; p < parts.size(); ++p) {
        const double sp = shrink.parts[p].speedup;
        const double kept = std::isinf(sp) ? 0.0 : 1.0 / sp;
        saving += static_cast<double>(covered(parts[p], measured[i].start, measured[i].end)) * (1.0 - kept);
      }
      s.amdahl_saving = static_cast<time_ns>(std::llround(saving));
      s.amdahl = s.measured - s.amdahl_saving;
      const time_ns busy_before = covered(before.busy, replayed[i].start, replayed[i].end);
      const time_ns busy_after = covered(after.busy, shrunk_steps[i].start, shrunk_steps[i].end);
      const time_ns idle_before = s.replayed - busy_before;
      const time_ns idle_after = s.shrunk - busy_after;
      s.launch_idle = covered(after.launch_idle, shrunk_steps[i].start, shrunk_steps[i].end);
      const time_ns launch_before = covered(before.launch_idle, replayed[i].start, replayed[i].end);
      s.hidden_by_overlap = s.amdahl_saving - (busy_before - busy_after);
      s.launch_bound = s.launch_idle - launch_before;
      s.other_idle = (idle_after - idle_before) - s.launch_bound;
      rep.steps.push_back(s);
    }
    rep.error = error_of(rep.steps, &replay_step::replayed);
    rep.error_typical = error_of(rep.steps, &replay_step::typical);
    out.push_back(std::move(rep));
  }
  return out;
}

}  // namespace headroom::project
