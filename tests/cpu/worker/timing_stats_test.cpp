#include "headroom/worker/timing_stats.hpp"

#include <gtest/gtest.h>

using namespace headroom::worker;
using headroom::record::timing_summary;

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
  EXPECT_TRUE(s.done(rule, 1.0));  // out of samples
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

// A set of `n` samples with the same device, host and wall times.
static timing_summary summary_of(double event_ms, double host_ms, bool held, int n = 20) {
  sample_set s;
  for (int i = 0; i < n; ++i) s.add(make_sample(event_ms, event_ms + host_ms, host_ms, 0.004, held));
  return s.summarize({0.005, 0.004});
}

TEST(TimingStats, HeldLaunchesCostTheLongerOfDeviceAndHostTime) {
  // Device-bound: 0.2 ms on the device, 0.03 ms to dispatch.
  timing_summary device_bound = summary_of(0.2, 0.03, true);
  EXPECT_DOUBLE_EQ(device_bound.median_ms, 0.2);
  EXPECT_FALSE(device_bound.host_bound);
  // Launch-bound: the other way round; the device time is still reported.
  timing_summary launch_bound = summary_of(0.01, 0.05, true);
  EXPECT_DOUBLE_EQ(launch_bound.median_ms, 0.05);
  EXPECT_DOUBLE_EQ(launch_bound.score_ms, 0.05);
  EXPECT_TRUE(launch_bound.host_bound);
  EXPECT_DOUBLE_EQ(launch_bound.device_median_ms, 0.01);
  EXPECT_DOUBLE_EQ(launch_bound.device_cost_ms, 0.01);
  EXPECT_DOUBLE_EQ(device_bound.device_cost_ms, 0.2);
  // Not held, the events already include the dispatch.
  timing_summary not_held = summary_of(0.01, 0.05, false);
  EXPECT_DOUBLE_EQ(not_held.median_ms, 0.01);
  EXPECT_FALSE(not_held.host_bound);
}

// Calls follow one another with their launches queued: a slow dispatch of one call overlaps the
// device's work on the one before. When host and device trade places from sample to sample, the
// call costs the slower side's median, not the median of each sample's slower side (0.07 here).
TEST(TimingStats, HeldCostIsTheSlowerSidesMedianNotTheMedianOfPerSampleMaxima) {
  sample_set s;
  for (int i = 0; i < 20; ++i) {
    bool odd = i % 2;
    s.add(make_sample(odd ? 0.05 : 0.07, 0.1, odd ? 0.07 : 0.05, 0.004, true));
  }
  timing_summary t = s.summarize({0.005, 0.004});
  EXPECT_NEAR(t.median_ms, 0.06, 1e-12);
  EXPECT_NEAR(t.score_ms, 0.06, 1e-12);
}

// A launch-bound call's spread is its dispatch's: a steady device time must not end the sampling
// while the host's time, which sets the cost, is still uncertain.
TEST(TimingStats, LaunchBoundSpreadIsTheHostsSpread) {
  sample_set s;
  for (int i = 0; i < 20; ++i) s.add(make_sample(0.01, 0.2, i % 2 ? 0.05 : 0.06, 0.004, true));
  EXPECT_TRUE(s.host_bound());
  EXPECT_GT(s.rel_spread(), 0.01);
  timing_summary t = s.summarize({0.005, 0.004});
  EXPECT_DOUBLE_EQ(t.min_ms, 0.05);
  EXPECT_DOUBLE_EQ(t.max_ms, 0.06);
}

TEST(TimingStats, HeldWorkPastTheTimedStreamIsHiddenButWorkUnderTheHostCallIsPaidAsHostTime) {
  // Work on another stream that runs on 1 ms after the held stream finished.
  sample_set hidden;
  for (int i = 0; i < 20; ++i) hidden.add(make_sample(0.2, 1.305, 0.1, 1.004, true));
  timing_summary b = hidden.summarize({0.005, 0.004});
  EXPECT_TRUE(sample_set::hidden_work(b));
  EXPECT_NEAR(b.score_ms, 1.2, 1e-9);
  EXPECT_DOUBLE_EQ(b.host_median_ms, 0.1);
  // The device's side of the cost keeps the hidden work (paired rounds compare it, paired.hpp).
  EXPECT_NEAR(b.device_cost_ms, 1.2, 1e-9);
  EXPECT_DOUBLE_EQ(b.device_median_ms, 0.2);
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
