#include "headroom/project/replay_export.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "headroom/trace/chrome_writer.hpp"
#include "headroom/util/output_file.hpp"

namespace headroom::project {
namespace {

// A trace's string table cannot be copied (views point into it); interning in id order gives the
// same ids, so everything else copies as it is.
trace::trace copy_of(const trace::trace& t) {
  trace::trace c;
  for (std::size_t id = 1; id < t.strings.size(); ++id) c.strings.intern(t.strings[static_cast<trace::string_id>(id)]);
  c.activities = t.activities;
  c.geometry = t.geometry;
  c.api_calls = t.api_calls;
  c.launches = t.launches;
  c.ranges = t.ranges;
  c.synchronizations = t.synchronizations;
  c.devices = t.devices;
  c.processes = t.processes;
  c.warnings = t.warnings;
  c.format = t.format;
  c.platform = t.platform;
  c.dropped_records = t.dropped_records;
  return c;
}

// How far each host thread's time moved, at each of its graph nodes.
class thread_shift {
 public:
  thread_shift(const trace::trace& t, const replay_graph& g, const replayed_timeline& r) {
    for (std::uint32_t v = 0; v < g.nodes.size(); ++v) {
      const auto& n = g.nodes[v];
      if (n.kind == node_kind::device) continue;
      const auto& c = t.api_calls[n.source];
      points_[{c.process, c.thread}].push_back({n.start, n.end, r.start[v] - n.start, r.end[v] - n.end});
    }
    for (auto& [k, v] : points_) {
      std::sort(v.begin(), v.end(), [](const point& a, const point& b) { return a.start < b.start; });
    }
  }

  // The shift of a host time on a thread: that of the last node that started by then (its end's,
  // once it has ended); 0 before the thread's first node.
  time_ns at(std::uint16_t process, std::uint32_t thread, time_ns when) const {
    const auto it = points_.find({process, thread});
    if (it == points_.end()) return 0;
    const auto& v = it->second;
    auto p = std::upper_bound(v.begin(), v.end(), when, [](time_ns x, const point& q) { return x < q.start; });
    if (p == v.begin()) return 0;
    --p;
    return when >= p->end ? p->end_shift : p->start_shift;
  }

 private:
  struct point {
    time_ns start, end, start_shift, end_shift;
  };
  std::map<std::pair<std::uint16_t, std::uint32_t>, std::vector<point>> points_;
};

}  // namespace

trace::trace replayed_trace(const trace::trace& measured, const replay_graph& g, const replayed_timeline& r) {
  auto out = copy_of(measured);
  for (std::size_t i = 0; i < out.activities.size(); ++i) {
    const auto v = g.activity_node[i];
    out.activities[i].start = r.start[v];
    out.activities[i].end = r.end[v];
  }
  const thread_shift shift(measured, g, r);
  for (std::size_t i = 0; i < out.api_calls.size(); ++i) {
    auto& c = out.api_calls[i];
    const auto v = i < g.api_node.size() ? g.api_node[i] : replay_graph::no_node;
    if (v != replay_graph::no_node) {
      // A call split in two (a blocking copy) starts with its first node.
      const time_ns s = shift.at(c.process, c.thread, c.start);
      c.start += s;
      c.end = r.end[v];
      continue;
    }
    const time_ns s = shift.at(c.process, c.thread, c.start);
    c.start += s;
    c.end += s;
  }
  // GPU annotations follow the first activity starting in them, on their device.
  std::map<std::pair<std::uint16_t, std::int16_t>, std::vector<std::uint32_t>> by_device;
  for (std::uint32_t i = 0; i < measured.activities.size(); ++i) {
    by_device[{measured.activities[i].process, measured.activities[i].device}].push_back(i);
  }
  for (auto& [k, v] : by_device) {
    std::sort(v.begin(), v.end(), [&](std::uint32_t a, std::uint32_t b) {
      return measured.activities[a].start < measured.activities[b].start;
    });
  }
  for (auto& rg : out.ranges) {
    if (rg.kind != trace::range_kind::gpu_annotation) {
      const time_ns s0 = shift.at(rg.process, rg.thread, rg.start);
      const time_ns s1 = shift.at(rg.process, rg.thread, rg.end);
      rg.start += s0;
      rg.end = std::max(rg.start, rg.end + s1);
      continue;
    }
    const auto it = by_device.find({rg.process, rg.device});
    if (it == by_device.end()) continue;
    const auto& v = it->second;
    const auto a = std::lower_bound(v.begin(), v.end(), rg.start,
                                    [&](std::uint32_t i, time_ns x) { return measured.activities[i].start < x; });
    if (a == v.end()) continue;
    const time_ns s = r.start[g.activity_node[*a]] - measured.activities[*a].start;
    rg.start += s;
    rg.end += s;
  }
  for (auto& y : out.synchronizations) {
    const time_ns s0 = shift.at(y.process, y.thread, y.start);
    const time_ns s1 = shift.at(y.process, y.thread, y.end);
    y.start += s0;
    y.end = std::max(y.start, y.end + s1);
  }
  return out;
}

void write_replay_chrome_trace(const trace::trace& measured, const replay_graph& g, const replayed_timeline& r,
                               const shrink_set& shrink, const std::filesystem::path& path,
                               std::span<const std::filesystem::path> inputs) {
  util::output_file file(path, inputs);
  auto both = copy_of(measured);
  auto replayed = replayed_trace(measured, g, r);
  for (auto& p : both.processes) p.name = "measured: " + p.name;
  for (auto& p : replayed.processes) p.name = "replayed: " + p.name;
  const std::size_t n = measured.activities.size();
  trace::append(both, std::move(replayed));
  trace::chrome_options options;
  options.label = [&](std::size_t i) -> std::string_view {
    const auto a = i % n;
    const auto part = a < shrink.part_of.size() ? shrink.part_of[a] : -1;
    return part >= 0 ? std::string_view(shrink.parts[static_cast<std::size_t>(part)].label)
                     : std::string_view("unchanged");
  };
  trace::write_chrome_trace(both, file.stream(), options);
  file.commit();
}

}  // namespace headroom::project
