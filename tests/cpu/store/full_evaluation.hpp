#pragma once
// An evaluation with every stored field set, and the comparison that every stored field came back:
// what a round trip through the results store or a release is tested with.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <variant>

#include "eval/results_rows.hpp"
#include "headroom/record/evaluation.hpp"

namespace headroom::test {

// Exact equality of every field, NaN equal to NaN: the store must give back what it was given.
inline bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// Every kept statistic (record::kept_timing_statistics): what the store and releases keep of a timing.
inline void expect_same_timing(const std::optional<record::timing_summary>& a,
                               const std::optional<record::timing_summary>& b, const char* which) {
  ASSERT_EQ(a.has_value(), b.has_value()) << which;
  if (!a) return;
  for (const record::timing_statistic& s : record::kept_timing_statistics) {
    std::visit([&](auto member) { EXPECT_TRUE(same((*a).*member, (*b).*member)) << which << " " << s.name; }, s.member);
  }
}

inline void expect_same(const record::evaluation& a, const record::evaluation& b) {
  EXPECT_EQ(a.candidate_hash, b.candidate_hash);
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.candidate_path, b.candidate_path);
  EXPECT_EQ(a.problem, b.problem);
  EXPECT_EQ(a.problem_hash, b.problem_hash);
  EXPECT_EQ(a.result, b.result);
  ASSERT_EQ(a.reasons.size(), b.reasons.size());
  for (std::size_t i = 0; i < a.reasons.size(); ++i) {
    EXPECT_EQ(a.reasons[i].code, b.reasons[i].code);
    EXPECT_EQ(a.reasons[i].detail, b.reasons[i].detail);
  }
  EXPECT_TRUE(same(a.errors.normwise_error, b.errors.normwise_error));
  EXPECT_TRUE(same(a.errors.max_abs_error, b.errors.max_abs_error));
  EXPECT_EQ(a.errors.mismatched, b.errors.mismatched);
  EXPECT_EQ(a.errors.unwritten, b.errors.unwritten);
  EXPECT_EQ(a.errors.trials, b.errors.trials);
  EXPECT_EQ(a.errors.trials_passed, b.errors.trials_passed);
  expect_same_timing(a.candidate_timing, b.candidate_timing, "candidate");
  expect_same_timing(a.eager_timing, b.eager_timing, "eager");
  expect_same_timing(a.compiled_timing, b.compiled_timing, "compiled");
  EXPECT_EQ(a.speedup, b.speedup);
  EXPECT_EQ(a.speedup_compiled, b.speedup_compiled);
  EXPECT_EQ(a.speed_of_light_ms, b.speed_of_light_ms);
  EXPECT_EQ(a.roofline_ms, b.roofline_ms);
  EXPECT_EQ(a.sol_gap_closed, b.sol_gap_closed);
  ASSERT_EQ(a.paired.has_value(), b.paired.has_value());
  if (a.paired) {
    EXPECT_EQ(a.paired->rounds, b.paired->rounds);
    EXPECT_TRUE(same(a.paired->rel_spread, b.paired->rel_spread));
  }
  EXPECT_EQ(a.env.device, b.env.device);
  EXPECT_EQ(a.env.gpu, b.env.gpu);
  EXPECT_EQ(a.env.driver, b.env.driver);
  EXPECT_EQ(a.env.cuda, b.env.cuda);
  EXPECT_EQ(a.env.torch, b.env.torch);
  EXPECT_EQ(a.env.python, b.env.python);
  EXPECT_EQ(a.env.host, b.env.host);
  EXPECT_EQ(a.env.clocks, b.env.clocks);
  EXPECT_EQ(a.checker, b.checker);
  EXPECT_EQ(a.started_at, b.started_at);
  EXPECT_TRUE(same(a.duration_s, b.duration_s));
  EXPECT_EQ(a.log, b.log);
}

// Every field set, each to a value no other field has.
inline record::evaluation full_row() {
  auto e = row("gpt-5/level1", "19_ReLU_sample_0", record::verdict::correct, 1.8734);
  e.reasons = {{"excessive_speedup", "1.87x over eager, \"check\" it\nsecond line"},
               {"other_stream_work", "wall 12% over events"}};
  e.errors = {3.25e-7, 1.5e-5, 17, 4, 4, 3};
  e.candidate_timing = test::timing(0.0421, 311);
  e.eager_timing = test::timing(0.0789, 127);
  e.compiled_timing = test::timing(0.0612, 205);
  e.compiled_timing->rel_spread = 0.0031;
  e.speedup_compiled = 1.4537;
  e.speed_of_light_ms = 0.0093;
  e.roofline_ms = 0.0311;
  e.sol_gap_closed = 0.5317;
  e.paired = record::paired_timing{6, 0.0172};
  e.env = {"cuda:1",      "NVIDIA H200", "570.124.06", "12.8",
           "2.7.1+cu128", "3.12.9",      "node-17",    "sm 1980 MHz, mem 3201 MHz"};
  e.checker = 3;
  e.started_at = "2025-06-30T12:34:56Z";
  e.duration_s = 41.25;
  e.log = "Traceback (most recent call last):\n  File \"x.py\", line 3\nÄ non-ASCII tail";
  return e;
}

}  // namespace headroom::test
