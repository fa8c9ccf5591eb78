#include "headroom/analyze/timeline.hpp"

#include <algorithm>
#include <map>

namespace headroom::analyze {

std::vector<timeline> split_timelines(const trace::trace& t) {
  using key = std::pair<std::uint16_t, std::int16_t>;
  // Counted first so that each index vector is allocated once, at its size.
  std::map<key, std::size_t> counts;
  for (const auto& a : t.activities) ++counts[{a.process, a.device}];
  std::map<key, std::vector<std::uint32_t>> by_key;
  for (const auto& [k, n] : counts) by_key[k].reserve(n);
  for (std::uint32_t i = 0; i < t.activities.size(); ++i) {
    const auto& a = t.activities[i];
    by_key[{a.process, a.device}].push_back(i);
  }
  std::vector<timeline> out;
  out.reserve(by_key.size());
  const auto by_start = [&](std::uint32_t a, std::uint32_t b) { return t.activities[a].start < t.activities[b].start; };
  for (auto& [key, idx] : by_key) {
    // Readers mostly keep a device's activities in time order already.
    if (!std::is_sorted(idx.begin(), idx.end(), by_start)) std::stable_sort(idx.begin(), idx.end(), by_start);
    out.push_back({key.first, key.second, std::move(idx)});
  }
  return out;
}

std::uint32_t first_starting_at(const trace::trace& t, const timeline& tl, time_ns at) {
  const auto it = std::lower_bound(tl.activities.begin(), tl.activities.end(), at,
                                   [&](std::uint32_t i, time_ns v) { return t.activities[i].start < v; });
  return it != tl.activities.end() ? *it : tl.activities.back();
}

std::uint32_t last_ending_by(const trace::trace& t, const timeline& tl, time_ns at) {
  std::uint32_t best = tl.activities.front();
  bool found = false;
  std::uint32_t latest = best;
  for (auto i : tl.activities) {
    const auto& a = t.activities[i];
    if (a.end > t.activities[latest].end) latest = i;
    if (a.end <= at && (!found || a.end > t.activities[best].end)) best = i, found = true;
  }
  return found ? best : latest;
}

}  // namespace headroom::analyze
