#include "headroom/analyze/attribution.hpp"

#include <algorithm>
#include <limits>

namespace headroom::analyze {

running_attribution::running_attribution(std::size_t classes) : running_(classes, 0), given_(classes, 0.0) {}

void running_attribution::spread(time_ns from, time_ns to) {
  if (to <= from || active_.empty()) return;
  const double share = static_cast<double>(to - from) / static_cast<double>(active_.size());
  for (auto c : active_) given_[c] += share;
}

void running_attribution::advance(time_ns to) {
  while (!ends_.empty() && ends_.top().first <= to) {
    const auto [end, cls] = ends_.top();
    ends_.pop();
    spread(now_, end);
    now_ = std::max(now_, end);
    if (--running_[cls] == 0) active_.erase(std::find(active_.begin(), active_.end(), cls));
  }
  spread(now_, to);
  now_ = std::max(now_, to);
}

void running_attribution::add(const interval& s, std::size_t cls) {
  if (s.end <= s.start) return;
  if (ends_.empty()) now_ = s.start;  // nothing runs before: no time to give
  advance(s.start);
  if (running_[cls]++ == 0) active_.push_back(cls);
  ends_.emplace(s.end, cls);
}

std::vector<double> running_attribution::finish() {
  advance(std::numeric_limits<time_ns>::max());
  return given_;
}

}  // namespace headroom::analyze
