#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "headroom/analyze/intervals.hpp"

using namespace headroom::analyze;

TEST(Intervals, OverlapsAcrossStreamsCountOnce) {
  // Two streams: [0,10) and [5,20) overlap for 5 ns; busy time is 20, the plain sum 25.
  const std::vector<interval> spans{{0, 10}, {5, 20}};
  EXPECT_EQ(union_length(spans, 0, 100), 20);
}

TEST(Intervals, NestedIntervalsAddNothing) {
  const auto u = make_union({{0, 100}, {10, 20}, {30, 40}, {99, 100}});
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(length(u), 100);
}

TEST(Intervals, TouchingIntervalsMergeAndGapsStay) {
  const auto u = make_union({{20, 30}, {0, 10}, {10, 15}});
  const interval_union expected{{0, 15}, {20, 30}};
  EXPECT_EQ(u, expected);
}

TEST(Intervals, ClippingToTheWindowCutsSpansAtItsEdges) {
  const std::vector<interval> spans{{0, 10}, {15, 30}, {40, 50}};
  EXPECT_EQ(union_length(spans, 5, 45), 5 + 15 + 5);
  const interval_union expected{{5, 10}, {15, 30}, {40, 45}};
  EXPECT_EQ(clip(make_union(spans), 5, 45), expected);
  EXPECT_TRUE(clip(make_union(spans), 31, 39).empty());
}

TEST(Intervals, EmptyAndInvertedSpansHaveNoLength) {
  EXPECT_EQ(union_length({}, 0, 10), 0);
  EXPECT_TRUE(make_union({{5, 5}, {9, 3}}).empty());
  const std::vector<interval> spans{{0, 10}};
  EXPECT_EQ(union_length(spans, 20, 30), 0);
}

TEST(Intervals, IntersectionAndDifferencePartitionTheFirstSet) {
  const auto a = make_union({{0, 10}, {20, 30}, {40, 50}});
  const auto b = make_union({{5, 25}, {45, 60}});
  const interval_union both{{5, 10}, {20, 25}, {45, 50}};
  const interval_union only_a{{0, 5}, {25, 30}, {40, 45}};
  EXPECT_EQ(intersect(a, b), both);
  EXPECT_EQ(subtract(a, b), only_a);
  EXPECT_EQ(length(intersect(a, b)) + length(subtract(a, b)), length(a));
  EXPECT_EQ(length(unite(a, b)), length(a) + length(b) - length(intersect(a, b)));
}

TEST(Intervals, SubtractingAWiderSpanRemovesEverythingUnderIt) {
  const auto a = make_union({{10, 20}, {22, 24}, {30, 40}});
  const auto b = make_union({{0, 35}});
  const interval_union rest{{35, 40}};
  EXPECT_EQ(subtract(a, b), rest);
  EXPECT_EQ(subtract(b, make_union({})), b);
}

TEST(Intervals, UnionOfManyRandomSpansMatchesACoverageSweep) {
  std::vector<interval> spans;
  std::uint64_t x = 88172645463325252ull;
  std::vector<char> covered(2'000'000, 0);
  for (int i = 0; i < 200'000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const auto s = static_cast<time_ns>(x % 1'990'000);
    const auto len = static_cast<time_ns>((x >> 32) % 100);
    spans.push_back({s, s + len});
    for (time_ns t = s; t < s + len; ++t) covered[static_cast<std::size_t>(t)] = 1;
  }
  time_ns expected = 0;
  for (std::size_t t = 100'000; t < 1'500'000; ++t) expected += covered[t];
  EXPECT_EQ(union_length(spans, 100'000, 1'500'000), expected);
}

TEST(Intervals, RunningUnionOverSortedSpansEqualsTheMaterialisedUnion) {
  // The one-pass union analyze uses per class must agree with make_union on random spans.
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::int64_t> start(0, 100000), len(0, 500);
  std::vector<interval> spans;
  for (int i = 0; i < 5000; ++i) {
    const auto s = start(rng);
    spans.push_back({s, s + len(rng)});
  }
  std::sort(spans.begin(), spans.end(), [](const interval& a, const interval& b) { return a.start < b.start; });
  running_union running;
  for (const auto& s : spans) running.add(s);
  EXPECT_EQ(running.length(), length(make_union(spans)));
}
