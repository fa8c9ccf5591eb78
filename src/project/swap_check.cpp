// check_swap (include/headroom/project/swap_check.hpp).
#include "headroom/project/swap_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <unordered_map>

#include "headroom/project/amdahl.hpp"
#include "headroom/project/replay_graph.hpp"
#include "headroom/project/replay_report.hpp"
#include "headroom/project/shrink.hpp"
#include "headroom/analyze/intervals.hpp"
#include "headroom/analyze/launch_ranges.hpp"
#include "headroom/classify/classifier.hpp"
#include "headroom/util/error.hpp"
#include "headroom/util/regex.hpp"

namespace headroom::project {
namespace {

using trace::time_ns;

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

time_ns boundary_time(const trace::trace& t, const analyze::step_boundary& b) {
  return b.at_end ? t.activities[b.activity].end : t.activities[b.activity].start;
}

step_sample sample_steps(const trace::trace& t, const analyze::analysis_report& a) {
  step_sample s;
  for (const auto& tl : a.timelines) {
    s.windows.push_back(fmt::format("{}: {}", tl.label, tl.win.description));
    const auto& b = tl.win.boundaries;
    for (std::size_t i = 0; i + 1 < b.size(); ++i)
      s.steps.push_back(boundary_time(t, b[i + 1]) - boundary_time(t, b[i]));
  }
  std::vector<double> v(s.steps.begin(), s.steps.end());
  s.median = quantile(v, 0.5);
  s.p25 = quantile(v, 0.25);
  s.p75 = quantile(v, 0.75);
  return s;
}

// A kernel name's launches inside the windows of one trace.
struct tally {
  std::uint64_t count = 0;
  time_ns total = 0;
  std::uint64_t taken = 0;  // launches a rule takes
};

std::map<std::string, tally> kernels_in_windows(const trace::trace& t, const analyze::analysis_report& a,
                                                const std::vector<std::int16_t>& part_of) {
  std::map<std::pair<std::uint16_t, std::int16_t>, const analyze::window*> windows;
  for (const auto& tl : a.timelines) windows[{tl.process, tl.device}] = &tl.win;
  std::unordered_map<trace::string_id, tally> by_id;
  for (std::size_t i = 0; i < t.activities.size(); ++i) {
    const auto& x = t.activities[i];
    if (x.kind != trace::activity_kind::kernel) continue;
    const auto w = windows.find({x.process, x.device});
    if (w == windows.end() || x.start < w->second->start || x.start >= w->second->end) continue;
    auto& k = by_id[x.name];
    ++k.count;
    k.total += x.duration();
    k.taken += i < part_of.size() && part_of[i] >= 0;
  }
  std::map<std::string, tally> out;
  for (const auto& [id, k] : by_id) {
    auto& o = out[classify::demangle(t.strings[id])];
    o.count += k.count;
    o.total += k.total;
    o.taken += k.taken;
  }
  return out;
}

route_audit audit_route(const std::map<std::string, tally>& before, std::size_t before_steps,
                        const std::map<std::string, tally>& after, std::size_t after_steps) {
  route_audit r;
  const double nb = static_cast<double>(std::max<std::size_t>(before_steps, 1));
  const double na = static_cast<double>(std::max<std::size_t>(after_steps, 1));
  std::map<std::string, route_kernel> rows;
  for (const auto& [name, k] : before) {
    auto& row = rows[name];
    row.name = name;
    row.before_per_step = static_cast<double>(k.count) / nb;
    row.before_ms_per_step = static_cast<double>(k.total) / 1e6 / nb;
    row.targeted = k.taken > 0;
  }
  for (const auto& [name, k] : after) {
    auto& row = rows[name];
    row.name = name;
    row.after_per_step = static_cast<double>(k.count) / na;
    row.after_ms_per_step = static_cast<double>(k.total) / 1e6 / na;
    // Only a name the rules took before counts as the old path still running: a rule's pattern may
    // also find the kernel that replaced it (its own name, or launched inside the same range).
    if (row.targeted) row.fallback_per_step = static_cast<double>(k.taken) / na;
  }
  for (auto& [name, row] : rows) {
    const bool gone = row.before_per_step > 0 && row.after_per_step == 0;
    const bool appeared = row.before_per_step == 0 && row.after_per_step > 0;
    // Windows cut a step's launches at slightly different places: half a launch per step is noise.
    const bool changed = std::abs(row.before_per_step - row.after_per_step) >= 0.5;
    r.targeted += row.targeted;
    r.gone += gone;
    r.appeared += appeared;
    r.fallbacks += row.fallback_per_step > 0;
    if (row.targeted || gone || appeared || changed) r.kernels.push_back(std::move(row));
  }
  // Targeted names first, then by how much of a step moved.
  std::stable_sort(r.kernels.begin(), r.kernels.end(), [](const route_kernel& a, const route_kernel& b) {
    if (a.targeted != b.targeted) return a.targeted;
    return std::abs(a.before_ms_per_step - a.after_ms_per_step) > std::abs(b.before_ms_per_step - b.after_ms_per_step);
  });
  return r;
}

double median_of(std::vector<double> v) { return quantile(std::move(v), 0.5); }

// Host time inside the ranges `pattern` names (their union on each thread), counting only what lies
// inside a window of the range's process.
double host_time_in_ranges(const trace::trace& t, const analyze::analysis_report& a, const std::string& pattern) {
  const auto spans = analyze::host_ranges_named(t, util::regex(pattern, "range pattern"));
  double total = 0;
  for (const auto& [key, u] : spans) {
    // A process with several devices has a window on each: what lies in any of them, once.
    analyze::interval_union inside;
    for (const auto& tl : a.timelines) {
      if (tl.process == key.first) inside = analyze::unite(inside, analyze::clip(u, tl.win.start, tl.win.end));
    }
    total += static_cast<double>(analyze::length(inside));
  }
  return total;
}

// The time the host calls inside the ranges `pattern` names spent waiting for the device (the
// replay graph's waiting calls), counting the calls that start inside a window of their process.
double waits_in_ranges(const trace::trace& t, const analyze::analysis_report& a, const replay_graph& g,
                       const std::string& pattern) {
  const auto in_range = analyze::calls_in_ranges(t, util::regex(pattern, "range pattern"));
  double total = 0;
  for (const auto& node : g.nodes) {
    if (node.kind != node_kind::host_wait || !in_range[node.source]) continue;
    const auto& call = t.api_calls[node.source];
    for (const auto& tl : a.timelines) {
      if (tl.process != call.process || call.start < tl.win.start || call.start >= tl.win.end) continue;
      total += static_cast<double>(call.end - call.start);
      break;
    }
  }
  return total;
}

}  // namespace

swap_check check_swap(const trace::trace& before, const trace::trace& after, const classify::classifier& c,
                      const analyze::analyze_options& o, const std::vector<speedup_rule>& rules,
                      const std::vector<host_rule>& host) {
  if (rules.empty()) {
    throw input_error("say which kernels the swap replaced and their speedups: --kernel, --range or --category");
  }
  swap_check r;
  r.host = host;
  const auto p = project_replay(before, c, o, rules, host);
  r.parts = p.amdahl.parts;
  time_ns taken = 0;
  for (const auto& part : r.parts) taken += part.busy;
  if (taken == 0) {
    throw input_error(
        "the rules take no kernel in the before-trace's window: nothing was swapped out as far as they say "
        "(check the patterns against `headroom analyze` of the before-trace)");
  }
  r.before = sample_steps(before, p.amdahl.analysis);
  // The after-trace's analysis with the rules' parts: its windows for the steps, its parts for the
  // in-situ figures.
  const auto after_amdahl = project_amdahl(after, c, o, rules);
  const auto& after_analysis = after_amdahl.analysis;
  r.after = sample_steps(after, after_analysis);
  if (r.before.steps.empty() || r.after.steps.empty()) {
    throw input_error(fmt::format("the {} trace has no step in its window: a swap is checked step against step",
                                  r.before.steps.empty() ? "before" : "after"));
  }
  if (r.before.median > 0) r.measured_gain = 100.0 * (r.before.median - r.after.median) / r.before.median;

  std::vector<double> amdahl, replay, reproduction;
  for (const auto& tl : p.timelines) {
    if (!tl.replayed) continue;
    for (const auto& s : tl.steps) {
      if (s.measured <= 0 || s.replayed <= 0) continue;
      amdahl.push_back(100.0 * static_cast<double>(s.amdahl_saving) / static_cast<double>(s.measured));
      replay.push_back(100.0 * static_cast<double>(s.replayed - s.shrunk) / static_cast<double>(s.replayed));
      reproduction.push_back(std::abs(static_cast<double>(s.replayed - s.measured)) / static_cast<double>(s.measured));
    }
  }
  r.notes = p.notes;
  if (replay.empty()) {
    r.amdahl_gain = std::isinf(p.amdahl.speedup) ? 100.0 : 100.0 * (1.0 - 1.0 / p.amdahl.speedup);
    r.replay_gain = r.amdahl_gain;
    r.notes.push_back("the before-trace could not be replayed: the replay's figure is Amdahl's");
  } else {
    r.replayed = true;
    r.amdahl_gain = median_of(std::move(amdahl));
    r.replay_gain = median_of(std::move(replay));
    double sum = 0;
    for (double e : reproduction) sum += e;
    r.replay_reproduction = sum / static_cast<double>(reproduction.size());
  }

  const auto ordered = rules_in_order(rules);
  const double nb = static_cast<double>(r.before.steps.size()), na = static_cast<double>(r.after.steps.size());
  double kernel_saving = 0, host_saving = 0;
  std::optional<replay_graph> after_graph;  // built once, for the first range rule
  for (std::size_t i = 0; i < r.parts.size() && i < after_amdahl.parts.size(); ++i) {
    in_situ_part part;
    part.label = r.parts[i].label;
    part.before_ms_per_step = static_cast<double>(r.parts[i].busy) / 1e6 / nb;
    part.after_ms_per_step = static_cast<double>(after_amdahl.parts[i].busy) / 1e6 / na;
    if (i < ordered.size() && ordered[i]->what == speedup_rule::target::host_range) {
      part.host_range = true;
      part.before_host_ms_per_step = host_time_in_ranges(before, p.amdahl.analysis, ordered[i]->pattern) / 1e6 / nb;
      part.after_host_ms_per_step = host_time_in_ranges(after, after_analysis, ordered[i]->pattern) / 1e6 / na;
      if (!after_graph) after_graph = build_replay_graph(after);
      part.before_host_work_ms_per_step =
          part.before_host_ms_per_step -
          waits_in_ranges(before, p.amdahl.analysis, p.graph, ordered[i]->pattern) / 1e6 / nb;
      part.after_host_work_ms_per_step =
          part.after_host_ms_per_step -
          waits_in_ranges(after, after_analysis, *after_graph, ordered[i]->pattern) / 1e6 / na;
      kernel_saving += part.before_ms_per_step - part.after_ms_per_step;
      host_saving += part.before_host_ms_per_step - part.after_host_ms_per_step;
    }
    r.in_situ.push_back(std::move(part));
  }
  // The operators' ranges shrank by more than their kernels did, by at least a point of the step:
  // the swap took host work away too, which projections from kernel speedups cannot know.
  if (host_saving - kernel_saving > 0.01 * r.before.median / 1e6) {
    r.notes.push_back(fmt::format(
        "the swapped operators' host ranges shrank by {:.3f} ms per step, their kernels by {:.3f} ms: the swap "
        "also removed host work (dispatch, synchronisation round trips) that no kernel speedup describes, so "
        "Amdahl's and the replay's figures leave it out",
        host_saving, kernel_saving));
  }
  const auto after_shrink = shrink_by_rules(after, c, rules);
  r.route = audit_route(kernels_in_windows(before, p.amdahl.analysis, p.shrink.part_of), r.before.steps.size(),
                        kernels_in_windows(after, after_analysis, after_shrink.part_of), r.after.steps.size());
  if (r.route.fallbacks > 0) {
    r.notes.push_back(fmt::format(
        "{} of the {} targeted kernels still run after the swap (a fallback to the old path): the measured gain is "
        "not the swap's",
        r.route.fallbacks, r.route.targeted));
  }
  return r;
}

}  // namespace headroom::project
