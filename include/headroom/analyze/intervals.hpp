#pragma once
// Interval arithmetic on half-open [start, end) spans of one timeline: the busy time of a set of
// activities is the length of their union, never the sum of their durations (kernels on different
// streams overlap).
#include <span>
#include <vector>

#include "headroom/trace/model.hpp"

namespace headroom::analyze {

using trace::time_ns;

struct interval {
  time_ns start = 0;
  time_ns end = 0;
  time_ns length() const { return end - start; }
  friend bool operator==(const interval&, const interval&) = default;
};

// A union of intervals, kept sorted, disjoint and without empty or touching members.
using interval_union = std::vector<interval>;

// Sorts and merges in O(n log n); empty and inverted intervals are dropped.
interval_union make_union(std::vector<interval> spans);
// The union restricted to [lo, hi).
interval_union clip(const interval_union& u, time_ns lo, time_ns hi);
time_ns length(const interval_union& u);
// Length of the union of `spans` inside [lo, hi).
time_ns union_length(std::span<const interval> spans, time_ns lo, time_ns hi);

// The length of the union of intervals fed in order of start, kept in O(1) state: one pass over a
// timeline measures every class of activity at once, without copying a class's intervals.
class running_union {
 public:
  // s.start must not be below an earlier start; empty and inverted intervals are ignored.
  void add(const interval& s) {
    if (s.end <= s.start) return;
    if (open_ && s.start <= end_) {
      if (s.end > end_) end_ = s.end;
      return;
    }
    if (open_) closed_ += end_ - start_;
    start_ = s.start;
    end_ = s.end;
    open_ = true;
  }
  time_ns length() const { return closed_ + (open_ ? end_ - start_ : 0); }

 private:
  time_ns start_ = 0;
  time_ns end_ = 0;
  time_ns closed_ = 0;  // length of the members already finished
  bool open_ = false;
};

// Linear merges of two unions.
interval_union unite(const interval_union& a, const interval_union& b);
interval_union intersect(const interval_union& a, const interval_union& b);
interval_union subtract(const interval_union& a, const interval_union& b);  // a minus b

}  // namespace headroom::analyze
