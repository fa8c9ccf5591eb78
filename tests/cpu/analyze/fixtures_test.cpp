// The analysis on real Kineto traces (HolisticTraceAnalysis test data); skipped without fixtures.
#include <gtest/gtest.h>

#include <filesystem>

#include "analyze/trace_builder.hpp"
#include "headroom/analyze/analysis.hpp"
#include "headroom/trace/reader.hpp"

using namespace headroom;
using classify::category;

namespace {

// As `analyze` reads them: Kineto JSON keeps launch pairs only.
trace::trace read_for_analysis(const std::vector<std::filesystem::path>& files) {
  trace::inputs_options o;
  o.read.launch_pairs_for_json = true;
  return trace::read_traces(files, o);
}

std::filesystem::path fixture(const char* name) {
  return std::filesystem::path(HEADROOM_FIXTURES_DIR) / "kineto-hta" / name;
}

#define REQUIRE_FIXTURE(p) \
  if (!std::filesystem::exists(p)) GTEST_SKIP() << "fixture absent: " << (p)

}  // namespace

TEST(AnalyzeFixtures, NcclTrainingStepHasCommunicationShareAndStepWindow) {
  const auto path = fixture("nccl_parser_config_nccl_data.json.gz");
  REQUIRE_FIXTURE(path);
  const auto rep = analyze::analyze(read_for_analysis({path}), test::test_classifier(), {});
  ASSERT_EQ(rep.timelines.size(), 1u);
  const auto& t = rep.timelines[0];
  EXPECT_EQ(t.rank, 0);
  EXPECT_EQ(t.win.source, analyze::window_source::step_markers);
  EXPECT_GE(t.win.steps, 2);
  EXPECT_GT(t.by_category[static_cast<int>(category::communication)].busy, 0);
  EXPECT_GT(t.busy_all, 0);
  EXPECT_LE(t.busy_all, t.wall);
  EXPECT_LE(t.busy_addressable_exclusive, t.busy_addressable);
  EXPECT_LE(t.busy_addressable, t.busy_kernels);
}

TEST(AnalyzeFixtures, TwoRankFilesGiveOneRowPerRankAndAWeightedTotal) {
  const auto r0 = fixture("trace_filter_sampled_rank-0.json.gz");
  const auto r1 = fixture("trace_filter_sampled_rank-1.json.gz");
  REQUIRE_FIXTURE(r0);
  REQUIRE_FIXTURE(r1);
  const auto rep = analyze::analyze(read_for_analysis({r0, r1}), test::test_classifier(), {});
  ASSERT_EQ(rep.timelines.size(), 2u);
  EXPECT_EQ(rep.timelines[0].rank, 0);
  EXPECT_EQ(rep.timelines[1].rank, 1);
  EXPECT_EQ(rep.total.wall, rep.timelines[0].wall + rep.timelines[1].wall);
  EXPECT_EQ(rep.total.busy_addressable, rep.timelines[0].busy_addressable + rep.timelines[1].busy_addressable);
  EXPECT_GT(rep.total.by_category[static_cast<int>(category::communication)].busy, 0);
}

TEST(AnalyzeFixtures, SteadyWindowExcludesTheWarmupStep) {
  const auto path = fixture("ns_resolution_trace_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
  REQUIRE_FIXTURE(path);
  const auto trace = read_for_analysis({path});
  const auto c = test::test_classifier();
  const auto steady = analyze::analyze(trace, c, {});
  analyze::analyze_options whole;
  whole.mode = analyze::window_mode::whole;
  const auto all = analyze::analyze(trace, c, whole);
  ASSERT_EQ(steady.timelines.size(), 1u);
  EXPECT_EQ(steady.timelines[0].win.source, analyze::window_source::step_markers);
  EXPECT_GT(steady.timelines[0].win.start, all.timelines[0].win.start);
  EXPECT_LT(steady.timelines[0].wall, all.timelines[0].wall);
}

TEST(AnalyzeFixtures, CpuOnlyTraceSaysThereIsNoGpuActivity) {
  const auto path = fixture("cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz");
  REQUIRE_FIXTURE(path);
  const auto rep = analyze::analyze(read_for_analysis({path}), test::test_classifier(), {});
  EXPECT_TRUE(rep.timelines.empty());
  ASSERT_FALSE(rep.notes.empty());
  EXPECT_NE(rep.notes[0].find("no GPU activity"), std::string::npos);
}

TEST(AnalyzeFixtures, RocmTraceIsAnalysedWithAPlatformNote) {
  const auto path = fixture("amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz");
  REQUIRE_FIXTURE(path);
  const auto rep = analyze::analyze(read_for_analysis({path}), test::test_classifier(), {});
  ASSERT_FALSE(rep.timelines.empty());
  bool noted = false;
  for (const auto& n : rep.notes) noted |= n.find("platform rocm") != std::string::npos;
  EXPECT_TRUE(noted);
}
