// launched_in_ranges (include/headroom/analyze/launch_ranges.hpp).
#include "headroom/analyze/launch_ranges.hpp"

#include <algorithm>
#include <unordered_set>

namespace headroom::analyze {
namespace {

bool covers(const interval_union& u, time_ns at) {
  const auto it = std::upper_bound(u.begin(), u.end(), at, [](time_ns v, const interval& s) { return v < s.end; });
  return it != u.end() && it->start <= at;
}

}  // namespace

thread_spans host_ranges_named(const trace::trace& t, const util::regex& names) {
  std::vector<signed char> hit(t.strings.size(), -1);
  std::map<std::pair<std::uint16_t, std::uint32_t>, std::vector<interval>> spans;
  for (const auto& r : t.ranges) {
    if (r.kind != trace::range_kind::cpu_annotation && r.kind != trace::range_kind::nvtx) continue;
    if (r.end <= r.start) continue;
    auto& h = hit[r.name];
    if (h < 0) h = names.search(t.strings[r.name]) ? 1 : 0;
    if (h == 1) spans[{r.process, r.thread}].push_back({r.start, r.end});
  }
  thread_spans out;
  for (auto& [key, v] : spans) out.emplace(key, make_union(std::move(v)));
  return out;
}

std::vector<bool> calls_in_ranges(const trace::trace& t, const util::regex& names) {
  std::vector<bool> out(t.api_calls.size(), false);
  const auto inside = host_ranges_named(t, names);
  for (std::size_t i = 0; i < t.api_calls.size() && !inside.empty(); ++i) {
    const auto& c = t.api_calls[i];
    const auto it = inside.find({c.process, c.thread});
    out[i] = it != inside.end() && covers(it->second, c.start);
  }
  return out;
}

std::vector<bool> launched_in_ranges(const trace::trace& t, const util::regex& names) {
  std::vector<bool> out(t.activities.size(), false);
  const auto in_range = calls_in_ranges(t, names);

  // Correlation ids are unique within a process, not across processes.
  std::unordered_set<std::uint64_t> launched;
  const auto key_of = [](std::uint16_t process, std::uint64_t correlation) {
    return (static_cast<std::uint64_t>(process) << 48) ^ correlation;
  };
  for (std::size_t i = 0; i < t.api_calls.size(); ++i) {
    const auto& c = t.api_calls[i];
    if (c.correlation != 0 && in_range[i]) launched.insert(key_of(c.process, c.correlation));
  }
  if (launched.empty()) return out;
  for (std::size_t i = 0; i < t.activities.size(); ++i) {
    const auto& a = t.activities[i];
    out[i] = a.correlation != 0 && launched.count(key_of(a.process, a.correlation)) > 0;
  }
  return out;
}

}  // namespace headroom::analyze
