#include "headroom/eval/timing_stats.hpp"

#include <gtest/gtest.h>

using namespace headroom::eval;

// The stopping rule ends as soon as the median is known well enough: constant samples need only the
// minimum count.
TEST(TimingStats, ConstantSamplesStopAtTheMinimumCount) {
  stopping_rule rule;
  rule.min_samples = 10;
  sample_set s;
  for (int i = 0; i < 9; ++i) s.add(1.0, 1.01);
  EXPECT_FALSE(s.done(rule, 0.1));
  s.add(1.0, 1.01);
  EXPECT_TRUE(s.done(rule, 0.1));
}

TEST(TimingStats, NoisySamplesGoOnUntilTheSpreadIsSmallOrTheTimeIsUp) {
  stopping_rule rule;
  rule.min_samples = 10;
  rule.target_spread = 0.002;
  rule.max_seconds = 10;
  sample_set s;
  for (int i = 0; i < 20; ++i) s.add(i % 2 ? 1.0 : 1.2, 1.3);  // 10% spread
  EXPECT_GT(s.rel_spread(), 0.002);
  EXPECT_FALSE(s.done(rule, 1.0));
  EXPECT_TRUE(s.done(rule, 10.5));  // out of time
  rule.max_samples = 20;
  EXPECT_TRUE(s.done(rule, 1.0));   // out of samples
}

// A preempted sample must not keep the loop sampling: the spread comes from the MAD.
TEST(TimingStats, OneOutlierDoesNotInflateTheSpread) {
  sample_set s;
  for (int i = 0; i < 30; ++i) s.add(1.0 + 0.0001 * (i % 3), 1.0);
  s.add(50.0, 50.0);
  EXPECT_LT(s.rel_spread(), 0.002);
  timing_summary t = s.summarize(0);
  EXPECT_NEAR(t.median_ms, 1.0001, 1e-4);
  EXPECT_EQ(t.max_ms, 50.0);
}

// Work on another stream: the events see 1 ms, the synchronised wall clock 5 ms. The score is the
// wall clock, so the hidden work counts.
TEST(TimingStats, WallClockBeyondTheEventsIsHiddenWorkAndScoresTheResult) {
  sample_set s;
  for (int i = 0; i < 10; ++i) s.add(1.0, 5.02);
  timing_summary t = s.summarize(0.02);
  EXPECT_NEAR(t.wall_median_ms, 5.0, 1e-9);
  EXPECT_TRUE(sample_set::hidden_work(t));
  EXPECT_DOUBLE_EQ(t.score_ms, t.wall_median_ms);
}

TEST(TimingStats, HostOverheadWithinTheMarginIsNotHiddenWork) {
  sample_set s;
  for (int i = 0; i < 10; ++i) s.add(1.0, 1.03 + 0.01);  // 30 us of launch and sync, 10 us empty call
  timing_summary t = s.summarize(0.01);
  EXPECT_FALSE(sample_set::hidden_work(t));
  EXPECT_DOUBLE_EQ(t.score_ms, t.median_ms);
}

TEST(TimingStats, HeldLaunchesCostTheLongerOfDeviceAndHostTime) {
  // Device-bound: 0.2 ms on the device, 0.03 ms to dispatch; launch-bound: the other way round.
  EXPECT_DOUBLE_EQ(make_sample(0.2, 0.24, 0.03, true).time_ms, 0.2);
  EXPECT_DOUBLE_EQ(make_sample(0.01, 0.06, 0.05, true).time_ms, 0.05);
  // Held, the wall clock is dispatch then device work: both are accounted for.
  EXPECT_DOUBLE_EQ(make_sample(0.2, 0.24, 0.03, true).accounted_ms, 0.23);
  // Not held, the events already include the dispatch.
  EXPECT_DOUBLE_EQ(make_sample(0.2, 0.24, 0.03, false).time_ms, 0.2);
  EXPECT_DOUBLE_EQ(make_sample(0.2, 0.24, 0.03, false).accounted_ms, 0.2);
}

TEST(TimingStats, HeldDispatchIsNotHiddenWorkButWorkBeyondItIs) {
  // A held call: 0.1 ms to dispatch, then 0.2 ms on the device; the wall clock shows both.
  sample_set legit;
  for (int i = 0; i < 20; ++i) legit.add(make_sample(0.2, 0.305, 0.1, true));
  timing_summary a = legit.summarize(0.005);
  EXPECT_FALSE(sample_set::hidden_work(a));
  EXPECT_DOUBLE_EQ(a.score_ms, 0.2);
  EXPECT_DOUBLE_EQ(a.host_median_ms, 0.1);
  // Work on another stream that runs on after the held stream finished: 1 ms of wall clock that
  // neither the dispatch nor the device time explains.
  sample_set hidden;
  for (int i = 0; i < 20; ++i) hidden.add(make_sample(0.2, 1.305, 0.1, true));
  timing_summary b = hidden.summarize(0.005);
  EXPECT_TRUE(sample_set::hidden_work(b));
  EXPECT_DOUBLE_EQ(b.score_ms, 1.3);
  // Work hidden under a long host call (the call waits on another stream) is paid as host time.
  sample_set waited;
  for (int i = 0; i < 20; ++i) waited.add(make_sample(0.01, 1.02, 1.0, true));
  timing_summary c = waited.summarize(0.005);
  EXPECT_FALSE(sample_set::hidden_work(c));
  EXPECT_DOUBLE_EQ(c.score_ms, 1.0);
}

TEST(TimingStats, MedianOfEvenCountIsTheMiddlePair) {
  EXPECT_DOUBLE_EQ(median_of({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median_of({5}), 5);
  EXPECT_DOUBLE_EQ(median_of({}), 0);
}

// H200 figures (DEVICE-NOTES.md): 4.3 TB/s copies, ~780 TFLOP/s bf16 matmul. A 4096^3 matmul is
// compute-bound, a 64 MiB ReLU memory-bound; a time below either floor is impossible.
TEST(TimingStats, SpeedOfLightIsTheLongerOfTrafficAndCompute) {
  double bw = 4.3e12, mm = 7.8e14;
  auto matmul = speed_of_light_ms(3.0 * 4096 * 4096 * 4, 2.0 * 4096.0 * 4096 * 4096, bw, mm);
  ASSERT_TRUE(matmul);
  EXPECT_NEAR(*matmul, 2.0 * 4096.0 * 4096 * 4096 / mm * 1e3, 1e-9);  // 0.176 ms of compute
  auto relu = speed_of_light_ms(2.0 * (64 << 20), 64 << 20, bw, mm);
  ASSERT_TRUE(relu);
  EXPECT_NEAR(*relu, 2.0 * (64 << 20) / bw * 1e3, 1e-9);  // 0.031 ms of traffic
  EXPECT_NEAR(*speed_of_light_ms(1e9, -1, bw, mm), 1e9 / bw * 1e3, 1e-12);  // FLOPs unknown
  EXPECT_FALSE(speed_of_light_ms(1e9, 1e12, 0, mm));  // the CPU: no floor
}
