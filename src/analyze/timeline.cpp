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

}  // namespace headroom::analyze
