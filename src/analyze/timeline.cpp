#include "headroom/analyze/timeline.hpp"

#include <algorithm>
#include <map>

namespace headroom::analyze {

std::vector<timeline> split_timelines(const trace::trace& t) {
  std::map<std::pair<std::uint16_t, std::int16_t>, std::vector<std::uint32_t>> by_key;
  for (std::uint32_t i = 0; i < t.activities.size(); ++i) {
    const auto& a = t.activities[i];
    by_key[{a.process, a.device}].push_back(i);
  }
  std::vector<timeline> out;
  out.reserve(by_key.size());
  for (auto& [key, idx] : by_key) {
    std::stable_sort(idx.begin(), idx.end(), [&](std::uint32_t a, std::uint32_t b) {
      return t.activities[a].start < t.activities[b].start;
    });
    out.push_back({key.first, key.second, std::move(idx)});
  }
  return out;
}

}  // namespace headroom::analyze
