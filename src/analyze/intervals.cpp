#include "headroom/analyze/intervals.hpp"

#include <algorithm>

namespace headroom::analyze {

interval_union make_union(std::vector<interval> spans) {
  std::erase_if(spans, [](const interval& s) { return s.end <= s.start; });
  std::sort(spans.begin(), spans.end(), [](const interval& a, const interval& b) { return a.start < b.start; });
  interval_union out;
  out.reserve(spans.size());
  for (const auto& s : spans) {
    if (!out.empty() && s.start <= out.back().end) {
      out.back().end = std::max(out.back().end, s.end);
    } else {
      out.push_back(s);
    }
  }
  return out;
}

interval_union clip(const interval_union& u, time_ns lo, time_ns hi) {
  interval_union out;
  auto it = std::upper_bound(u.begin(), u.end(), lo, [](time_ns t, const interval& s) { return t < s.end; });
  for (; it != u.end() && it->start < hi; ++it) {
    const interval c{std::max(it->start, lo), std::min(it->end, hi)};
    if (c.end > c.start) out.push_back(c);
  }
  return out;
}

time_ns length(const interval_union& u) {
  time_ns total = 0;
  for (const auto& s : u) total += s.length();
  return total;
}

time_ns union_length(std::span<const interval> spans, time_ns lo, time_ns hi) {
  std::vector<interval> clipped;
  clipped.reserve(spans.size());
  for (const auto& s : spans) clipped.push_back({std::max(s.start, lo), std::min(s.end, hi)});
  return length(make_union(std::move(clipped)));
}

interval_union unite(const interval_union& a, const interval_union& b) {
  std::vector<interval> all;
  all.reserve(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(all),
             [](const interval& x, const interval& y) { return x.start < y.start; });
  // Already sorted: make_union's sort is then linear in practice.
  return make_union(std::move(all));
}

interval_union intersect(const interval_union& a, const interval_union& b) {
  interval_union out;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const interval c{std::max(a[i].start, b[j].start), std::min(a[i].end, b[j].end)};
    if (c.end > c.start) out.push_back(c);
    if (a[i].end < b[j].end) ++i;
    else ++j;
  }
  return out;
}

interval_union subtract(const interval_union& a, const interval_union& b) {
  interval_union out;
  std::size_t j = 0;
  for (const auto& s : a) {
    time_ns cur = s.start;
    while (j < b.size() && b[j].end <= cur) ++j;
    std::size_t k = j;
    while (k < b.size() && b[k].start < s.end) {
      if (b[k].start > cur) out.push_back({cur, b[k].start});
      cur = std::max(cur, b[k].end);
      if (b[k].end >= s.end) break;
      ++k;
    }
    if (cur < s.end) out.push_back({cur, s.end});
  }
  return out;
}

}  // namespace headroom::analyze
