#include <gtest/gtest.h>

#include "headroom/trace/model.hpp"

using namespace headroom::trace;

namespace {

// One rank's trace: a kernel, its launch (whole and as a pair), a step range, a warning.
trace rank_trace(int rank, std::string_view kernel_name) {
  trace t;
  t.processes.push_back({static_cast<std::uint32_t>(100 + rank), "rank" + std::to_string(rank), rank, ""});
  t.devices.push_back({0, 0, "NVIDIA H200", 9, 0, 132, 0});
  const auto k = t.strings.intern(kernel_name);
  const auto launch = t.strings.intern("cudaLaunchKernel");
  t.activities.push_back({10, 20, 5, 0, k, 7, 0, 0, activity_kind::kernel, copy_kind::none, 0});
  t.api_calls.push_back({8, 9, 5, launch, 1, 0, api_kind::runtime});
  t.launches.push_back({8, 5, launch, 0});
  t.ranges.push_back({0, 30, t.strings.intern("ProfilerStep#1"), 1, 0, -1, range_kind::cpu_annotation});
  t.warn("dropped 1 zero-time kernel");
  t.platform = "cuda";
  return t;
}

}  // namespace

TEST(TraceModel, StringTableInternsOnceAndKeepsTheEmptyStringAtZero) {
  string_table s;
  EXPECT_EQ(s[0], "");
  const auto a = s.intern("nvjet_sm90_tst_128x256");
  EXPECT_EQ(s.intern("nvjet_sm90_tst_128x256"), a);
  EXPECT_EQ(s[a], "nvjet_sm90_tst_128x256");
  EXPECT_FALSE(s.find("missing").has_value());
}

TEST(TraceModel, AppendingRanksRemapsNamesAndProcessesOfEveryRecordKind) {
  trace merged;
  append(merged, rank_trace(0, "gemm"));
  append(merged, rank_trace(1, "softmax"));
  ASSERT_EQ(merged.processes.size(), 2u);
  EXPECT_EQ(merged.processes[1].rank, 1);
  ASSERT_EQ(merged.activities.size(), 2u);
  EXPECT_EQ(merged.strings[merged.activities[0].name], "gemm");
  EXPECT_EQ(merged.strings[merged.activities[1].name], "softmax");
  EXPECT_EQ(merged.activities[1].process, 1);
  ASSERT_EQ(merged.api_calls.size(), 2u);
  EXPECT_EQ(merged.api_calls[1].process, 1);
  EXPECT_EQ(merged.strings[merged.api_calls[1].name], "cudaLaunchKernel");
  ASSERT_EQ(merged.launches.size(), 2u);
  EXPECT_EQ(merged.launches[1].process, 1);
  EXPECT_EQ(merged.strings[merged.launches[1].name], "cudaLaunchKernel");
  ASSERT_EQ(merged.ranges.size(), 2u);
  EXPECT_EQ(merged.ranges[1].process, 1);
  EXPECT_EQ(merged.strings[merged.ranges[1].name], "ProfilerStep#1");
  ASSERT_EQ(merged.devices.size(), 2u);
  EXPECT_EQ(merged.devices[1].process, 1);
  // The same warning from two ranks is one line with a count.
  ASSERT_EQ(merged.warnings.size(), 1u);
  EXPECT_EQ(merged.warnings[0].count, 2u);
  EXPECT_EQ(merged.platform, "cuda");
}

TEST(TraceModel, LaunchGeometrySurvivesOnlyWhenEveryRankHasIt) {
  trace merged;
  auto a = rank_trace(0, "k");
  a.geometry.resize(a.activities.size());
  auto b = rank_trace(1, "k");
  b.geometry.resize(b.activities.size());
  append(merged, std::move(a));
  append(merged, std::move(b));
  EXPECT_EQ(merged.geometry.size(), merged.activities.size());
  append(merged, rank_trace(2, "k"));  // no geometry: parallel arrays would no longer line up
  EXPECT_TRUE(merged.geometry.empty());
}
