// The busy rule of the GPU's idle probes (include/headroom/worker/gpu_idle.hpp), on fabricated
// round trips: tens of microseconds on an idle GPU, about a time slice (1-2 ms) behind another
// context's queued kernels.
#include "headroom/worker/gpu_idle.hpp"

#include <cstddef>
#include <vector>

#include <gtest/gtest.h>

using namespace headroom::worker;

namespace {

// A GPU seen through its probes: each probe takes its own latency on the clock, as a real one does.
struct scripted_gpu {
  std::vector<double> probes;  // in order; the last repeats
  std::size_t next = 0;
  double now_ms = 0;
  double probe() {
    const double p = probes[std::min(next, probes.size() - 1)];
    ++next;
    now_ms += p;
    return p;
  }
  double clock() const { return now_ms; }
};

idle_check check(idle_watch& w, scripted_gpu& g, double settle_ms = busy_settle_ms) {
  return w.check([&] { return g.probe(); }, [&] { return g.clock(); }, settle_ms);
}

}  // namespace

TEST(GpuIdle, AnIdleRoundTripIsFarBelowTheThreshold) {
  EXPECT_DOUBLE_EQ(busy_threshold_ms(0.02), busy_floor_ms);  // an H100's idle round trip
  EXPECT_DOUBLE_EQ(busy_threshold_ms(0.09), 0.72);  // a slow host's: eight times its quiet value
}

// A request that begins on a busy GPU has no idle probe to compare with: its least probe is a time
// slice, and the threshold must stay below one.
TEST(GpuIdle, ABusyQuietValueDoesNotRaiseTheThresholdAboveASlice) {
  EXPECT_DOUBLE_EQ(busy_threshold_ms(1.5), busy_multiple * quiet_ceiling_ms);
  EXPECT_LT(busy_threshold_ms(50), 1.0);
  idle_watch w;
  scripted_gpu g{{1.2, 1.3, 1.1}};
  idle_check c = check(w, g);
  EXPECT_FALSE(c.quiet);
  EXPECT_DOUBLE_EQ(c.first_ms, 1.2);
}

TEST(GpuIdle, AProbeIsTheMedianOfItsRoundTrips) {
  std::vector<double> host_delayed{0.02, 3.0, 0.03};  // one round trip preempted on the host
  std::size_t k = 0;
  EXPECT_DOUBLE_EQ(probe_once([&] { return host_delayed[k++]; }), 0.03);
  std::vector<double> behind_a_slice{0.1, 1.9, 2.0};  // the first caught the end of a slice
  k = 0;
  EXPECT_DOUBLE_EQ(probe_once([&] { return behind_a_slice[k++]; }), 1.9);
}

TEST(GpuIdle, AnIdleGpuIsProbedOnceAndNotWaitedFor) {
  idle_watch w;
  scripted_gpu g{{0.02}};
  idle_check c = check(w, g);
  EXPECT_TRUE(c.quiet);
  EXPECT_EQ(c.probes, 1);
  EXPECT_DOUBLE_EQ(c.waited_ms, 0);
  EXPECT_DOUBLE_EQ(*w.quiet_ms(), 0.02);
}

// Another process's short burst only delays the call: the probes go on until the GPU is quiet.
TEST(GpuIdle, ShortWorkIsWaitedOut) {
  idle_watch w;
  scripted_gpu quiet{{0.02}};
  check(w, quiet);
  std::vector<double> burst(150, 2.0);  // 300 ms of slices
  burst.push_back(0.03);
  scripted_gpu g{burst};
  idle_check c = check(w, g);
  EXPECT_TRUE(c.quiet);
  EXPECT_DOUBLE_EQ(c.first_ms, 2.0);
  EXPECT_DOUBLE_EQ(c.probe_ms, 0.03);
  EXPECT_NEAR(c.waited_ms, 300, 2.1);
  EXPECT_DOUBLE_EQ(w.waited_ms(), c.waited_ms);
}

// Work that outlasts the wait refuses the measurement, after about busy_settle_ms.
TEST(GpuIdle, LongWorkOutlastsTheWait) {
  idle_watch w;
  scripted_gpu quiet{{0.02}};
  check(w, quiet);
  scripted_gpu g{{1.5}};
  idle_check c = check(w, g);
  EXPECT_FALSE(c.quiet);
  EXPECT_DOUBLE_EQ(c.probe_ms, 1.5);
  EXPECT_DOUBLE_EQ(c.threshold_ms, busy_floor_ms);
  EXPECT_GE(c.waited_ms, busy_settle_ms);
  EXPECT_LT(c.waited_ms, busy_settle_ms + 2);
  EXPECT_GT(c.probes, 1000);
}

// A probe just above an idle one is not busy: host noise of a few tens of microseconds passes.
TEST(GpuIdle, NoiseOnAnIdleGpuPasses) {
  idle_watch w;
  scripted_gpu g{{0.02, 0.3, 0.05, 0.45}};
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(check(w, g).quiet) << "probe " << i;
  EXPECT_DOUBLE_EQ(*w.quiet_ms(), 0.02);
  EXPECT_DOUBLE_EQ(w.worst_quiet_ms(), 0.45);
}
