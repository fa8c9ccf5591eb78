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
  timing_summary t = s.summarize({});
  EXPECT_NEAR(t.median_ms, 1.0001, 1e-4);
  EXPECT_EQ(t.max_ms, 50.0);
}

// Work on another stream: the timed stream is done after 1 ms, the device 4 ms later. Each call is
// scored until the device was done with it, so the hidden work counts.
TEST(TimingStats, DeviceBusyPastTheTimedStreamIsHiddenWorkAndScoresTheResult) {
  sample_set s;
  for (int i = 0; i < 10; ++i) s.add(make_sample(1.0, 5.02, 0.05, 4.003, false));
  timing_summary t = s.summarize({0.02, 0.003});
  EXPECT_NEAR(t.tail_median_ms, 4.0, 1e-9);
  EXPECT_NEAR(t.wall_median_ms, 5.0, 1e-9);
  EXPECT_TRUE(sample_set::hidden_work(t));
  EXPECT_NEAR(t.score_ms, 5.0, 1e-9);
}

// The empty call's own tail (the second synchronisation's cost) is not hidden work, nor is a wall
// clock far beyond the events when the device was done with the timed stream: held launches pay a
// release and a wake-up that the tail, measured between two waits, does not see.
TEST(TimingStats, WakeUpCostsAndHeldReleaseAreNotHiddenWork) {
  sample_set s;
  for (int i = 0; i < 10; ++i) s.add(make_sample(0.177, 0.37, 0.035, 0.006 + 0.001 * (i % 3), true));
  timing_summary t = s.summarize({0.01, 0.005});
  EXPECT_FALSE(sample_set::hidden_work(t));
  EXPECT_DOUBLE_EQ(t.score_ms, t.median_ms);
  EXPECT_DOUBLE_EQ(t.median_ms, 0.177);
}

// The threshold: a tail beyond 10% of the call plus 20 us.
TEST(TimingStats, HiddenWorkThresholdIsAShareOfTheCallPlusAMargin) {
  timing_summary t;
  t.median_ms = 1.0;
  t.tail_median_ms = 0.119;
  EXPECT_FALSE(sample_set::hidden_work(t));
  t.tail_median_ms = 0.121;
  EXPECT_TRUE(sample_set::hidden_work(t));
}

TEST(TimingStats, HeldLaunchesCostTheLongerOfDeviceAndHostTime) {
  // Device-bound: 0.2 ms on the device, 0.03 ms to dispatch; launch-bound: the other way round.
  EXPECT_DOUBLE_EQ(make_sample(0.2, 0.24, 0.03, 0, true).time_ms, 0.2);
  EXPECT_DOUBLE_EQ(make_sample(0.01, 0.06, 0.05, 0, true).time_ms, 0.05);
  // Not held, the events already include the dispatch.
  EXPECT_DOUBLE_EQ(make_sample(0.01, 0.06, 0.05, 0, false).time_ms, 0.01);
}

TEST(TimingStats, HeldWorkPastTheTimedStreamIsHiddenButWorkUnderTheHostCallIsPaidAsHostTime) {
  // Work on another stream that runs on 1 ms after the held stream finished.
  sample_set hidden;
  for (int i = 0; i < 20; ++i) hidden.add(make_sample(0.2, 1.305, 0.1, 1.004, true));
  timing_summary b = hidden.summarize({0.005, 0.004});
  EXPECT_TRUE(sample_set::hidden_work(b));
  EXPECT_NEAR(b.score_ms, 1.2, 1e-9);
  EXPECT_DOUBLE_EQ(b.host_median_ms, 0.1);
  // Work on another stream that the call waits for on the host: paid as the host's time.
  sample_set waited;
  for (int i = 0; i < 20; ++i) waited.add(make_sample(0.01, 1.02, 1.0, 0.004, true));
  timing_summary c = waited.summarize({0.005, 0.004});
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
