// The join of measured speedups to a workload: the published figures, the three estimates and their
// bootstrap intervals.
#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "headroom/project/join.hpp"

using namespace headroom;
using namespace headroom::project;
using classify::category;

namespace {

std::array<double, classify::category_count> fractions(std::initializer_list<std::pair<category, double>> parts) {
  std::array<double, classify::category_count> f{};
  for (const auto& [c, v] : parts) f[static_cast<std::size_t>(c)] = v;
  return f;
}

measured_source published(std::optional<int> problems, std::optional<int> wins, double win_rate, double median) {
  measured_source s;
  s.name = "published";
  s.origin = "test";
  published_summary r;
  r.problems = problems;
  r.wins = wins;
  r.win_rate = win_rate;
  r.median_win = median;
  s.summaries.push_back(r);
  return s;
}

problem_result problem(std::string id, category c, std::vector<double> effective) {
  return {std::move(id), problem_category{std::string(classify::to_string(c)), c}, std::move(effective)};
}

// Three gemm problems: p1 one 2x win and one failure, p2 two failures, p3 wins of 1.25x and 1.6x.
measured_source gemm_distribution() {
  measured_source s;
  s.name = "model";
  s.origin = "test";
  s.problems = {problem("level1/1_gemm", category::gemm, {2.0, 1.0}),
                problem("level1/2_gemm", category::gemm, {1.0, 1.0}),
                problem("level1/3_gemm", category::gemm, {1.25, 1.6})};
  return s;
}

join_options no_intervals() {
  join_options o;
  o.resamples = 0;
  return o;
}

}  // namespace

TEST(Join, PublishedFormulaGivesTheRecommenderProjection) {
  // 0.582 x 0.417 x (1 - 1/1.552) = 8.63% of the wall clock saved.
  EXPECT_NEAR(published_time_saved(0.582, 0.417, 1.552), 0.0863, 5e-5);
}

TEST(Join, TransformerAtFourteenToTwentyPercentSavesAboutOnePercent) {
  // 22 wins of 56 problems at median 1.235, on 14% to 20% of the wall clock: 1.05% to 1.50%.
  EXPECT_NEAR(published_time_saved(0.14, 22.0 / 56, 1.235), 0.01047, 1e-5);
  EXPECT_NEAR(published_time_saved(0.20, 22.0 / 56, 1.235), 0.01495, 1e-5);
}

TEST(Join, PublishedFiguresApplyToEveryAddressableCategory) {
  // The recommender's 58.2% spread over three categories gives the same 8.63% as f in one piece.
  const auto f = fractions({{category::embedding, 0.40}, {category::elementwise, 0.12}, {category::reduction, 0.062}});
  const auto j = join_speedups(f, {published(std::nullopt, std::nullopt, 0.417, 1.552)}, no_intervals());
  ASSERT_EQ(j.size(), 1u);
  EXPECT_NEAR(j[0].published.time_saved, 0.0863, 5e-5);
  EXPECT_NEAR(j[0].published.speedup(), 1 / (1 - 0.08631855), 1e-6);
  EXPECT_FALSE(j[0].expectation.available) << "published figures hold no distribution";
  EXPECT_FALSE(j[0].best.available);
  ASSERT_EQ(j[0].categories.size(), 3u);
  EXPECT_EQ(j[0].categories[0].cat, category::embedding) << "largest first";
  EXPECT_EQ(j[0].categories[0].applied, basis::pooled);
}

TEST(Join, PublishedWinCountsGiveAnIntervalAroundTheFigure) {
  const auto f = fractions({{category::elementwise, 0.14}});
  join_options o;
  const auto j = join_speedups(f, {published(56, 22, 22.0 / 56, 1.235)}, o);
  ASSERT_TRUE(j[0].published.low && j[0].published.high);
  EXPECT_LT(*j[0].published.low, j[0].published.time_saved);
  EXPECT_GT(*j[0].published.high, j[0].published.time_saved);
  // The win rate of 56 problems spans roughly +-0.13 at 95%: the interval is wide, not a point.
  EXPECT_GT(*j[0].published.high - *j[0].published.low, 0.004);
  EXPECT_LT(*j[0].published.high - *j[0].published.low, 0.012);
}

TEST(Join, PublishedFiguresWithoutCountsHaveNoInterval) {
  const auto j = join_speedups(fractions({{category::embedding, 0.5}}),
                               {published(std::nullopt, std::nullopt, 0.417, 1.552)}, join_options{});
  EXPECT_FALSE(j[0].published.low);
  bool said = false;
  for (const auto& n : j[0].notes) said = said || n.find("no interval") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(Join, ThreeEstimatesFromADistribution) {
  const auto j = join_speedups(fractions({{category::gemm, 0.4}}), {gemm_distribution()}, no_intervals());
  const auto& s = j[0];
  // published: 3 wins of 6 evaluations, median win 1.6: 0.4 x 0.5 x (1 - 1/1.6).
  EXPECT_NEAR(s.published.time_saved, 0.4 * 0.5 * (1 - 1 / 1.6), 1e-12);
  // expectation: per problem the mean of 1 - 1/s, then the mean over problems.
  const double p1 = (0.5 + 0) / 2, p2 = 0, p3 = ((1 - 1 / 1.25) + (1 - 1 / 1.6)) / 2;
  EXPECT_NEAR(s.expectation.time_saved, 0.4 * (p1 + p2 + p3) / 3, 1e-12);
  // best: each problem's best candidate.
  EXPECT_NEAR(s.best.time_saved, 0.4 * (0.5 + 0 + (1 - 1 / 1.6)) / 3, 1e-12);
  ASSERT_EQ(s.categories.size(), 1u);
  EXPECT_EQ(s.categories[0].applied, basis::measured);
  EXPECT_EQ(s.categories[0].problems, 3);
  EXPECT_EQ(s.categories[0].evaluations, 6);
  EXPECT_EQ(s.categories[0].wins, 3);
  EXPECT_DOUBLE_EQ(*s.categories[0].median_win, 1.6);
}

TEST(Join, UncoveredCategoriesGetThePooledDistributionOrNothing) {
  const auto f = fractions({{category::gemm, 0.2}, {category::embedding, 0.5}});
  auto pooled_opts = no_intervals();
  const auto pooled = join_speedups(f, {gemm_distribution()}, pooled_opts)[0];
  ASSERT_EQ(pooled.categories.size(), 2u);
  EXPECT_EQ(pooled.categories[0].cat, category::embedding);
  EXPECT_EQ(pooled.categories[0].applied, basis::pooled);
  EXPECT_NE(pooled.categories[0].basis_text.find("pooled"), std::string::npos);
  // The only problems are gemm ones, so the pool is the gemm distribution: (0.2 + 0.5) x the same gain.
  EXPECT_NEAR(pooled.published.time_saved, 0.7 * 0.5 * (1 - 1 / 1.6), 1e-12);

  auto none_opts = no_intervals();
  none_opts.uncovered = uncovered_policy::none;
  const auto none = join_speedups(f, {gemm_distribution()}, none_opts)[0];
  EXPECT_EQ(none.categories[0].applied, basis::none);
  EXPECT_NE(none.categories[0].basis_text.find("1x"), std::string::npos);
  EXPECT_NEAR(none.published.time_saved, 0.2 * 0.5 * (1 - 1 / 1.6), 1e-12);
}

TEST(Join, BootstrapIntervalsAreReproducibleAndHoldThePoint) {
  const auto f = fractions({{category::gemm, 0.4}});
  join_options o;
  const auto a = join_speedups(f, {gemm_distribution()}, o)[0];
  const auto b = join_speedups(f, {gemm_distribution()}, o)[0];
  for (const auto* e : {&a.published, &a.expectation, &a.best}) {
    ASSERT_TRUE(e->low && e->high);
    EXPECT_LE(*e->low, e->time_saved + 1e-12);
    EXPECT_GE(*e->high, e->time_saved - 1e-12);
  }
  EXPECT_EQ(*a.expectation.low, *b.expectation.low) << "same seed, same interval";
  EXPECT_EQ(*a.best.high, *b.best.high);
}

TEST(Join, AnotherSeedDrawsOtherResamples) {
  measured_source s;
  s.name = "varied";
  for (int i = 0; i < 12; ++i) {
    s.problems.push_back(problem("p" + std::to_string(i), category::gemm, {1.0 + 0.11 * i, 1.0, 1.0 + 0.05 * (i % 5)}));
  }
  const auto f = fractions({{category::gemm, 0.4}});
  join_options o;
  const auto a = join_speedups(f, {s}, o)[0];
  o.seed = 2;
  const auto b = join_speedups(f, {s}, o)[0];
  EXPECT_EQ(a.expectation.time_saved, b.expectation.time_saved) << "the point estimate does not depend on the seed";
  EXPECT_TRUE(*a.expectation.low != *b.expectation.low || *a.expectation.high != *b.expectation.high);
  EXPECT_NEAR(*a.expectation.low, *b.expectation.low, 0.01) << "but the interval barely moves";
}

TEST(Join, IdenticalProblemsGiveAnIntervalOfOnePoint) {
  measured_source s;
  s.name = "same";
  for (int i = 0; i < 5; ++i) s.problems.push_back(problem("p" + std::to_string(i), category::softmax, {1.5, 1.0}));
  const auto j = join_speedups(fractions({{category::softmax, 0.3}}), {s}, join_options{})[0];
  EXPECT_NEAR(*j.expectation.low, j.expectation.time_saved, 1e-12);
  EXPECT_NEAR(*j.expectation.high, j.expectation.time_saved, 1e-12);
}

TEST(Join, ProblemsOfAbsentCategoriesAreNamed) {
  const auto j = join_speedups(fractions({{category::embedding, 0.3}}), {gemm_distribution()}, no_intervals())[0];
  bool said = false;
  for (const auto& n : j.notes) said = said || n.find("gemm (3)") != std::string::npos;
  EXPECT_TRUE(said);
}
