// `headroom stats` figures and their renderings. The set below is small enough to check by hand:
// each expected figure is written as the arithmetic it comes from.
#include <gtest/gtest.h>

#include "golden.hpp"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "eval/results_rows.hpp"
#include "headroom/eval/stats.hpp"
#include "headroom/report/stats_output.hpp"

using namespace headroom;
using record::verdict;
using headroom::test::row;

namespace {

// Source "gpt-5/level1": 8 rows, one of them a reference_error (the problem failed).
//   verified speedups 2.0, 1.2, 0.5 and a 1.2 with an informative flag; a correct 3.0 flagged
//   other_stream_work (not verified);
//   a correct row without a speedup (timing failed); incorrect; compile_error.
//   Shares of the speed-of-light gap closed: 0.6 on the 2.0, -0.1 on the 1.2 (slower than eager by
//   the paired timing), 0.9 on the flagged 3.0 (not verified: not counted).
// Source "claude/level1": verified 1.0 and 4.0 (an even count: the median is their mean), runtime_error;
//   a share of 1.2 on the 4.0 (the score just under the floor the flag compared it with).
// Source "zz-broken": only reference_error rows.
// They are given out of order: summaries come back sorted by source.
std::vector<record::evaluation> hand_built() {
  std::vector<record::evaluation> rows;
  rows.push_back(row("zz-broken", "z1", verdict::reference_error));
  rows.push_back(row("gpt-5/level1", "g1", verdict::correct, 2.0));
  rows.back().sol_gap_closed = 0.6;
  rows.push_back(row("claude/level1", "c1", verdict::correct, 1.0));
  rows.push_back(row("gpt-5/level1", "g2", verdict::correct, 1.2));
  rows.back().sol_gap_closed = -0.1;
  rows.push_back(row("gpt-5/level1", "g3", verdict::correct, 0.5));
  auto flagged = row("gpt-5/level1", "g4", verdict::correct, 3.0);
  flagged.reasons = {{"other_stream_work", "wall clock 40% over events"}};
  flagged.sol_gap_closed = 0.9;
  rows.push_back(flagged);
  auto advisory = row("gpt-5/level1", "g4b", verdict::correct, 1.2);  // an informative flag: still verified
  advisory.reasons = {{"timed_outputs_unchecked", "the reference could not run the timed calls again"}};
  rows.push_back(advisory);
  rows.push_back(row("gpt-5/level1", "g5", verdict::correct));
  auto wrong = row("gpt-5/level1", "g6", verdict::incorrect, 5.0);  // a speedup on a wrong result counts for nothing
  wrong.reasons = {{"mismatch", "output 0: normwise 3e-2"}};
  rows.push_back(wrong);
  rows.push_back(row("gpt-5/level1", "g7", verdict::compile_error));
  rows.push_back(row("gpt-5/level1", "g8", verdict::reference_error, 9.0));
  rows.push_back(row("claude/level1", "c2", verdict::correct, 4.0));
  rows.back().sol_gap_closed = 1.2;
  rows.push_back(row("claude/level1", "c3", verdict::runtime_error));
  rows.push_back(row("zz-broken", "z2", verdict::reference_error));
  return rows;
}

std::vector<eval::source_stats> summarized() { return eval::summarize(hand_built(), eval::default_fast_p()); }

void expect_golden(const std::string& text, const std::string& file) {
  test::expect_golden(text, std::string(HEADROOM_SOURCE_DIR) + "/tests/cpu/eval/golden/" + file);
}

}  // namespace

TEST(Stats, SourcesComeBackSortedByName) {
  const auto s = summarized();
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].source, "claude/level1");
  EXPECT_EQ(s[1].source, "gpt-5/level1");
  EXPECT_EQ(s[2].source, "zz-broken");
}

TEST(Stats, ReferenceErrorsAreLeftOutOfEveryFigureAndCountedAsSkipped) {
  const auto s = summarized();
  const auto& gpt = s[1];
  EXPECT_EQ(gpt.evaluations, 8);  // 9 rows, one reference_error
  EXPECT_EQ(gpt.skipped, 1);
  EXPECT_EQ(gpt.verdicts.count("reference_error"), 0u);
  const auto& broken = s[2];
  EXPECT_EQ(broken.evaluations, 0);
  EXPECT_EQ(broken.skipped, 2);
  EXPECT_EQ(broken.correctness_rate, 0);
  EXPECT_EQ(broken.fast_p.at(0.0), 0);
  EXPECT_FALSE(broken.median_speedup.has_value());
  EXPECT_FALSE(broken.geomean_speedup.has_value());
}

TEST(Stats, RowsOfADegenerateProblemAreLeftOutOfEveryFigureAndCounted) {
  auto rows = hand_built();
  // A problem whose output does not depend on its inputs: a correct 50x and a failure on it say
  // nothing about the source.
  auto fast = row("claude/level1", "c4", verdict::correct, 50.0);
  fast.reasons = {{"degenerate_problem", "the reference's output is the same on all 4 trials"}};
  rows.push_back(fast);
  auto failed = row("claude/level1", "c5", verdict::incorrect);
  failed.reasons = {{"mismatch", "output 0"}, {"degenerate_problem", "the reference's output is the same"}};
  rows.push_back(failed);
  const auto with = eval::summarize(rows, eval::default_fast_p());
  const auto& without = summarized();
  EXPECT_EQ(with[0].degenerate, 2);
  EXPECT_EQ(without[0].degenerate, 0);
  EXPECT_EQ(with[0].evaluations, without[0].evaluations);
  EXPECT_EQ(with[0].verified, without[0].verified);
  EXPECT_EQ(with[0].fast_p, without[0].fast_p);
  EXPECT_EQ(with[0].median_speedup, without[0].median_speedup);
  EXPECT_EQ(with[0].verdicts, without[0].verdicts);
}

TEST(Stats, CorrectnessRateIsOverAllCountedEvaluations) {
  const auto& gpt = summarized()[1];
  EXPECT_EQ(gpt.correct, 6);  // 2.0, 1.2, 0.5, flagged 3.0, advisory 1.2, untimed
  EXPECT_DOUBLE_EQ(gpt.correctness_rate, 6.0 / 8.0);
  EXPECT_EQ(gpt.verdicts.at("correct"), 6);
  EXPECT_EQ(gpt.verdicts.at("incorrect"), 1);
  EXPECT_EQ(gpt.verdicts.at("compile_error"), 1);
  EXPECT_EQ(gpt.verdicts.size(), 3u);
}

TEST(Stats, FastPIsTheShareOfAllEvaluationsVerifiedAndStrictlyFasterThanP) {
  const auto& gpt = summarized()[1];
  // Verified: 2.0, 1.2, 0.5 and the advisory-flagged 1.2; not the other_stream_work 3.0, not the
  // untimed correct row, not the incorrect 5.0.
  EXPECT_EQ(gpt.verified, 4);
  EXPECT_DOUBLE_EQ(gpt.fast_p.at(0.0), 4.0 / 8.0);  // fast_0 is the verified share
  EXPECT_DOUBLE_EQ(gpt.fast_p.at(1.0), 3.0 / 8.0);  // 2.0, 1.2, 1.2
  EXPECT_DOUBLE_EQ(gpt.fast_p.at(1.5), 1.0 / 8.0);  // 2.0
  EXPECT_DOUBLE_EQ(gpt.fast_p.at(2.0), 0.0);  // 2.0 is not faster than 2
  const auto& claude = summarized()[0];
  EXPECT_DOUBLE_EQ(claude.fast_p.at(1.0), 1.0 / 3.0);  // 1.0 is not faster than 1; 4.0 is
}

TEST(Stats, MedianAndGeometricMeanAreOverVerifiedSpeedups) {
  const auto s = summarized();
  const auto& gpt = s[1];
  ASSERT_TRUE(gpt.median_speedup && gpt.geomean_speedup);
  EXPECT_DOUBLE_EQ(*gpt.median_speedup, 1.2);  // sorted 0.5, 1.2, 1.2, 2.0: mean of the middle two
  EXPECT_NEAR(*gpt.geomean_speedup, std::pow(2.0 * 1.2 * 0.5 * 1.2, 1.0 / 4), 1e-12);
  const auto& claude = s[0];
  EXPECT_DOUBLE_EQ(*claude.median_speedup, 2.5);  // (1 + 4) / 2
  EXPECT_NEAR(*claude.geomean_speedup, 2.0, 1e-12);  // sqrt(1 * 4)
}

TEST(Stats, TheSpeedOfLightGapIsClosedOverVerifiedEvaluationsWithAFloor) {
  const auto s = summarized();
  const auto& gpt = s[1];
  EXPECT_EQ(gpt.sol_scored, 2);  // the 2.0 and the 1.2; not the flagged 3.0
  ASSERT_TRUE(gpt.sol_gap_closed);
  EXPECT_DOUBLE_EQ(*gpt.sol_gap_closed, (0.6 + 0.0) / 2);  // slower than eager: none of the gap
  const auto& claude = s[0];
  EXPECT_EQ(claude.sol_scored, 1);
  EXPECT_DOUBLE_EQ(*claude.sol_gap_closed, 1.0);  // at most the whole gap
  EXPECT_FALSE(s[2].sol_gap_closed.has_value());  // no floor anywhere: no figure, not zero
}

TEST(Stats, AskedForPValuesAreTheOnlyOnesReported) {
  const auto s = eval::summarize(hand_built(), {3.0, 0.5});
  const auto& claude = s[0];
  ASSERT_EQ(claude.fast_p.size(), 2u);
  EXPECT_DOUBLE_EQ(claude.fast_p.at(0.5), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(claude.fast_p.at(3.0), 1.0 / 3.0);
}

TEST(Stats, NoRowsNoSources) { EXPECT_TRUE(eval::summarize({}, eval::default_fast_p()).empty()); }

TEST(StatsOutput, ConsoleTableMatchesGolden) {
  std::ostringstream out;
  report::write_stats_console(out, summarized());
  expect_golden(out.str(), "stats.txt");
}

TEST(StatsOutput, JsonMatchesGolden) {
  std::ostringstream out;
  report::write_stats_json(out, summarized());
  expect_golden(out.str(), "stats.json");
}

TEST(StatsOutput, CsvMatchesGolden) {
  std::ostringstream out;
  report::write_stats_csv(out, summarized());
  expect_golden(out.str(), "stats.csv");
}

TEST(StatsOutput, CustomPValuesBecomeTheColumns) {
  std::ostringstream out;
  report::write_stats_csv(out, eval::summarize(hand_built(), {0.0, 4.0}));
  std::istringstream lines(out.str());
  std::string header;
  std::getline(lines, header);
  EXPECT_NE(header.find(",fast_0,fast_4,verified,"), std::string::npos) << header;
  EXPECT_EQ(header.find("fast_1"), std::string::npos) << header;
}

TEST(StatsOutput, EmptySummariesStillMakeValidDocuments) {
  std::ostringstream json, csv;
  report::write_stats_json(json, {});
  report::write_stats_csv(csv, {});
  EXPECT_NE(json.str().find("\"sources\": []"), std::string::npos) << json.str();
  EXPECT_EQ(csv.str().find('\n'), csv.str().size() - 1) << "the header line only";
}
