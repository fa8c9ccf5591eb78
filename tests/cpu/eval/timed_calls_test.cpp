// The parent's checks of a timing answer (src/eval/timed_calls.hpp): sketches compared within the
// dtype's tolerance, reported times held against the parent's own log of each call.
#include "timed_calls.hpp"

#include <gtest/gtest.h>

#include <random>

#include <fmt/format.h>

#include "headroom/util/allocation_log.hpp"
#include "headroom/worker/fresh_inputs.hpp"

namespace {

using namespace headroom::eval;
using headroom::dtype;

// The sketch the worker would report of `values`.
sketch sketch_of(const std::vector<double>& values, std::uint64_t seed) {
  std::array<double, headroom::worker::sketch_width> sum{};
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::uint32_t signs = headroom::worker::sketch_signs(seed, i);
    for (int k = 0; k < headroom::worker::sketch_width; ++k) sum[k] += (signs >> k) & 1u ? -values[i] : values[i];
  }
  sketch s;
  for (int k = 0; k < headroom::worker::sketch_width; ++k) s[k] = sum[k];
  return s;
}

std::vector<double> normal(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d;
  std::vector<double> v(n);
  for (double& x : v) x = d(rng);
  return v;
}

TEST(Sketches, AgreeWhenOutputsDifferByFloat32Rounding) {
  auto r = normal(100000, 1);
  auto c = r;
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> u(-1, 1);
  for (double& x : c) x *= 1 + 2e-6 * u(rng);  // a reordered float32 computation's error, normwise ~1e-6
  std::string why;
  EXPECT_TRUE(sketches_agree(sketch_of(c, 7), sketch_of(r, 7), dtype::f32, why)) << why;
}

TEST(Sketches, DisagreeForAStaleOrZeroOutput) {
  auto r = normal(100000, 1);
  auto stale = normal(100000, 3);  // another call's output
  std::vector<double> zeros(r.size(), 0.0);
  std::string why;
  EXPECT_FALSE(sketches_agree(sketch_of(stale, 7), sketch_of(r, 7), dtype::f32, why));
  EXPECT_NE(why.find("sketch"), std::string::npos);
  EXPECT_FALSE(sketches_agree(sketch_of(zeros, 7), sketch_of(r, 7), dtype::f32, why));
}

TEST(Sketches, DisagreeForAHalfPrecisionComputationOfAFloat32Output) {
  auto r = normal(100000, 1);
  auto c = r;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  for (double& x : c) x *= 1 + 1e-3 * u(rng);  // float16-sized errors, normwise ~6e-4, above float32's 1e-4
  std::string why;
  EXPECT_FALSE(sketches_agree(sketch_of(c, 11), sketch_of(r, 11), dtype::f32, why));
}

TEST(Sketches, IntegersMustMatchExactlyAndNonFiniteFails) {
  std::vector<double> r = {1, 2, 3, 4}, c = {1, 2, 3, 5};
  std::string why;
  EXPECT_TRUE(sketches_agree(sketch_of(r, 3), sketch_of(r, 3), dtype::i64, why));
  EXPECT_FALSE(sketches_agree(sketch_of(c, 3), sketch_of(r, 3), dtype::i64, why));
  sketch nan = sketch_of(r, 3);
  nan[4].reset();
  EXPECT_FALSE(sketches_agree(nan, sketch_of(r, 3), dtype::f32, why));
  EXPECT_NE(why.find("not finite"), std::string::npos);
  EXPECT_TRUE(sketches_agree(sketch_of(r, 3), nan, dtype::f32, why));  // a non-finite reference says nothing
}

// A log of `n` calls, each `each_ms` between its stamped start and end.
timing_log log_of(int n, double each_ms) {
  timing_log log;
  double now = 1000;
  log.start(2);
  for (int i = 0; i < n; ++i) {
    log.answer("call", i);
    log.announced(fmt::format("start {}", i), now);
    now += each_ms;
    log.announced(fmt::format("done {}", i), now);
    now += 3;  // the harness's work between calls, outside the intervals
  }
  return log;
}

timed_call call(std::size_t i, double event, double host, double wall) { return {i, event, host, wall, 0, {}}; }

// The harness's steps between a stamp and the timer, as measured on the reference.
const call_overhead harness{0.01, 0.02};

TEST(TimingLog, PlansNameEverySetInTurnAndRepeatForTheSameCall) {
  timing_log log;
  log.start(3);
  std::string a = log.answer("call", 0), again = log.answer("call", 0);
  EXPECT_EQ(a, again);
  log.answer("call", 1);
  log.answer("call", 2);
  EXPECT_EQ(log.set(0), 0u);
  EXPECT_EQ(log.set(1), 1u);
  EXPECT_EQ(log.set(2), 2u);
  EXPECT_NE(log.seed(0), log.seed(1));
  EXPECT_EQ(log.irregular(), "");
  log.answer("call", 7);
  EXPECT_NE(log.irregular().find("out of order"), std::string::npos);
}

// A candidate holding the worker's announcement socket can announce its call's end itself, early,
// so that the interval around the call looks short; the harness's own announcement comes after the
// call all the same, and the second is tampering (as is an end before any start).
TEST(TimingLog, AnEndAnnouncedTwiceOrBeforeItsStartIsTampering) {
  timing_log early = log_of(2, 1.0);
  early.announced("done 1", 2000);
  EXPECT_NE(contradicted_times({call(0, 0.9, 0.1, 1.0), call(1, 0.9, 0.1, 1.0)}, early, harness)
                .find("call 1 was announced done twice"),
            std::string::npos);
  timing_log twice = log_of(1, 1.0);
  twice.announced("start 0", 2000);
  EXPECT_NE(contradicted_times({call(0, 0.9, 0.1, 1.0)}, twice, harness).find("start twice"), std::string::npos);
  timing_log before;
  before.start(1);
  before.answer("call", 0);
  before.announced("done 0", 10);
  EXPECT_NE(contradicted_times({call(0, 0.9, 0.1, 1.0)}, before, harness).find("before it was announced to start"),
            std::string::npos);
  EXPECT_EQ(contradicted_times({call(0, 0.9, 0.1, 1.0), call(1, 0.9, 0.1, 1.0)}, log_of(2, 1.0), harness), "");
}

// Starts and ends come only as stamped datagrams: asked on the channel (whose arrival the parent
// notes only when it wakes), or announced in words the harness never uses, they are tampering.
TEST(TimingLog, AnnouncementsOffTheStampedSocketOrMalformedAreTampering) {
  timing_log asked = log_of(1, 1.0);
  asked.answer("done", 0);
  EXPECT_NE(asked.irregular().find("not announced on the stamped socket"), std::string::npos);
  timing_log odd = log_of(1, 1.0);
  odd.announced("done 0 please", 1500);
  EXPECT_NE(odd.irregular().find("never sends"), std::string::npos);
}

TEST(TimedCalls, HonestTimesAgreeWithTheStamps) {
  timing_log log = log_of(6, 2.0);
  std::vector<timed_call> calls;
  for (int i = 0; i < 6; ++i) calls.push_back(call(i, 1.95, 0.2, 1.99));
  EXPECT_EQ(contradicted_times(calls, log, harness), "");
  EXPECT_EQ(unconfirmed_times(calls, harness), "");
}

// The forgery the parent's clock once only flagged: each call reported at a little over half its
// time (2x unflagged while the parent's wake-up was in every interval). It is tampering now, and so is
// any under-report beyond 5% plus 0.05 ms of the median call.
TEST(TimedCalls, CallsReportedShorterThanTheirStampsAreTampering) {
  std::vector<timed_call> half, tenth_off, within;
  for (int i = 0; i < 6; ++i) {
    half.push_back(call(i, 1.0, 0.2, 1.1));  // 2 ms between the stamps
    tenth_off.push_back(call(i, 1.75, 0.2, 1.8));  // 10% short
    within.push_back(call(i, 1.88, 0.2, 1.9));  // the harness's 0.01 ms, and 0.09 ms more: within
  }
  timing_log log = log_of(6, 2.0);
  EXPECT_NE(contradicted_times(half, log, harness).find("longer between their stamped start and end"),
            std::string::npos);
  EXPECT_NE(contradicted_times(tenth_off, log, harness), "");
  EXPECT_EQ(contradicted_times(within, log, harness), "");
}

// A worker preempted between a stamp and its timer in a few calls leaves those calls long: the
// median over calls is not moved, so an honest candidate on a busy machine is not tampering, and a
// forger that under-reports only those few calls does not move the median sample either.
TEST(TimedCalls, AFewCallsLongBetweenTheirStampsAreNotTampering) {
  timing_log log;
  log.start(1);
  double now = 0;
  std::vector<timed_call> calls;
  for (int i = 0; i < 9; ++i) {
    log.answer("call", i);
    log.announced(fmt::format("start {}", i), now);
    now += 1.0 + (i % 3 == 0 ? 6.0 : 0.01);  // every third call preempted for 6 ms around its timer
    log.announced(fmt::format("done {}", i), now);
    now += 2;
    calls.push_back(call(i, 0.95, 0.2, 1.0));
  }
  EXPECT_EQ(contradicted_times(calls, log, harness), "");
}

TEST(TimedCalls, DeviceTimeAFewMicrosecondsOverTheWallClockIsNotTampering) {
  // Seen on the H200: events 0.1358 ms around a call whose host wall clock read 0.1306 ms.
  timing_log log = log_of(1, 0.135);
  EXPECT_EQ(contradicted_times({call(0, 0.1358, 0.0616, 0.1306)}, log, harness), "");
}

TEST(TimedCalls, AWallClockFarAboveItsDeviceAndHostTimesIsUnconfirmed) {
  std::vector<timed_call> calls;
  for (int i = 0; i < 4; ++i) calls.push_back(call(i, 0.2, 0.1, 1.0));
  EXPECT_NE(unconfirmed_times(calls, harness).find("neither its device nor its host"), std::string::npos);
}

TEST(TimedCalls, CallsNeverAskedForOrLongerThanTheirIntervalAreTampering) {
  timing_log log = log_of(2, 1.0);
  EXPECT_NE(contradicted_times({call(5, 0.5, 0.1, 0.6)}, log, harness).find("never asked"), std::string::npos);
  EXPECT_NE(contradicted_times({call(0, 0.5, 0.1, 50)}, log, harness).find("wall clock of 50"), std::string::npos);
  EXPECT_NE(contradicted_times({call(0, 3, 0.1, 1)}, log, harness).find("longer than its wall"), std::string::npos);
  EXPECT_NE(contradicted_times({call(0, 0.9, 0.1, 1.0), call(0, 0.9, 0.1, 1.0)}, log, harness).find("twice"),
            std::string::npos);
  EXPECT_NE(contradicted_times({}, log, harness).find("without the calls"), std::string::npos);
}

TEST(AllocationLog, HoldsOnlyRangesInsideBlocksOfTheCall) {
  headroom::util::allocation_log log;
  std::vector<char> a(1000), b(1000), earlier(1000);
  log.begin();
  log.record(earlier.data(), earlier.size());
  log.begin();  // a new call forgets the last one's blocks
  log.record(a.data(), a.size());
  log.record(b.data(), b.size());
  log.end();
  log.record(earlier.data(), earlier.size());  // after the call: not logged
  EXPECT_TRUE(log.holds(a.data(), 1000));
  EXPECT_TRUE(log.holds(b.data() + 100, 800));
  EXPECT_FALSE(log.holds(a.data() + 1, 1000));  // runs past the block
  EXPECT_FALSE(log.holds(earlier.data(), 10));
  EXPECT_EQ(log.blocks(), 2u);
}

TEST(FreshInputs, FactorsKeepSymmetryAndStayInRange) {
  const std::uint64_t n = 5, seed = 99;
  for (std::uint64_t r = 0; r < n; ++r)
    for (std::uint64_t c = 0; c < n; ++c) {
      double f = headroom::worker::perturb_factor(seed, headroom::worker::factor_index(r * n + c, n));
      double g = headroom::worker::perturb_factor(seed, headroom::worker::factor_index(c * n + r, n));
      EXPECT_EQ(f, g);
      EXPECT_GT(f, 0.5);
      EXPECT_LE(f, 1.0);
    }
  EXPECT_NE(headroom::worker::perturb_factor(seed, 1), headroom::worker::perturb_factor(seed + 1, 1));
}

}  // namespace
