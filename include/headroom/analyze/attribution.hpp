#pragma once
// Wall-clock attribution: every instant of a window in which something runs is given to the classes
// of activity running then, split evenly among them, so the classes' shares add up to the busy
// time exactly (a stacked bar of the window never exceeds it). Busy times by union (intervals.hpp)
// count an instant once per class instead, and two classes that overlap both get it.
#include <cstddef>
#include <queue>
#include <utility>
#include <vector>

#include "headroom/analyze/intervals.hpp"

namespace headroom::analyze {

// Fed intervals in order of start, as running_union is; O(log k) per interval for k running at once.
class running_attribution {
 public:
  explicit running_attribution(std::size_t classes);
  // s.start must not be below an earlier start; empty and inverted intervals are ignored.
  void add(const interval& s, std::size_t cls);
  // Time given to each class so far, in ns, once everything added has ended. Call once.
  std::vector<double> finish();

 private:
  void advance(time_ns to);
  void spread(time_ns from, time_ns to);

  using ending = std::pair<time_ns, std::size_t>;
  std::priority_queue<ending, std::vector<ending>, std::greater<>> ends_;
  std::vector<int> running_;  // activities of each class running now
  std::vector<std::size_t> active_;  // classes with running_ > 0
  std::vector<double> given_;
  time_ns now_ = 0;
};

}  // namespace headroom::analyze
