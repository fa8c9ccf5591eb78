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

// Linear merges of two unions.
interval_union unite(const interval_union& a, const interval_union& b);
interval_union intersect(const interval_union& a, const interval_union& b);
interval_union subtract(const interval_union& a, const interval_union& b);  // a minus b

}  // namespace headroom::analyze
