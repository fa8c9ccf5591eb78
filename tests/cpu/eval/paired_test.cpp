// Paired rounds (src/eval/paired.hpp): which comparisons get them, the order of the turns, and
// that their median ratio stays the true one when the host's speed changes partway, where two
// single timings at two moments do not.
#include "paired.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include <string>
#include <vector>

namespace {

using namespace headroom::eval;

timing_summary held(double device_ms, double host_ms) {
  timing_summary t;
  t.held = true;
  t.median_ms = device_ms;
  t.device_median_ms = device_ms;
  t.host_median_ms = host_ms;
  return t;
}

paired_turn held_turn(double ms) { return {ms, true}; }
// Timed with its dispatch (the CPU, --no-hold): the host's speed is inside every sample.
paired_turn dispatch_turn(double ms) { return {ms, false}; }

// A held turn that reports its two sides: it costs the longer.
paired_turn held_sides(double device_ms, double host_ms) {
  return {std::max(device_ms, host_ms), true, device_ms, host_ms};
}

TEST(PairedRounds, HostSensitiveWhenTimedWithItsDispatchOrItsHostTakesHalfItsDeviceTime) {
  timing_summary dispatch;
  dispatch.held = false;
  dispatch.median_ms = 3;
  EXPECT_TRUE(host_sensitive(dispatch));
  // KernelBench's 12_ on the H200: 0.057 ms on the device, 0.022 ms of dispatch on a quick host...
  EXPECT_FALSE(host_sensitive(held(0.057, 0.022)));
  // ...and 0.057 ms of it while the host ran slow.
  EXPECT_TRUE(host_sensitive(held(0.057, 0.057)));
  EXPECT_TRUE(host_sensitive(held(0.057, 0.0285)));
  EXPECT_FALSE(host_sensitive(held(0.057, 0.0284)));
  // Without a device median (an old worker's answer) the median stands in.
  timing_summary old = held(0, 0.04);
  old.median_ms = 0.05;
  EXPECT_TRUE(host_sensitive(old));
}

TEST(PairedRounds, ApplyWhenEitherSideIsHostSensitiveAndBothWereTimedTheSameWay) {
  timing_summary dispatch;
  dispatch.held = false;
  dispatch.median_ms = 3;
  EXPECT_TRUE(pairing_applies(held(0.057, 0.057), held(0.057, 0.022)));
  EXPECT_TRUE(pairing_applies(held(0.057, 0.022), held(0.057, 0.057)));
  EXPECT_FALSE(pairing_applies(held(0.057, 0.022), held(0.057, 0.022)));
  EXPECT_TRUE(pairing_applies(dispatch, dispatch));  // the CPU, --no-hold
  // A held candidate against a reference that waits for its own stream (timed with its dispatch):
  // every reference turn would lose its hold again, and no round would compare like with like.
  EXPECT_FALSE(pairing_applies(held(0.057, 0.057), dispatch));
  EXPECT_FALSE(pairing_applies(dispatch, held(0.057, 0.057)));
}

TEST(PairedRounds, TurnsAlternateWhichSideGoesFirst) {
  std::string order;
  auto c = [&]() -> std::optional<paired_turn> {
    order += 'C';
    return held_turn(1.0);
  };
  auto r = [&]() -> std::optional<paired_turn> {
    order += 'R';
    return held_turn(1.0);
  };
  paired_result p = run_paired_rounds(4, c, r);
  EXPECT_EQ(order, "CRRCCRRC");
  EXPECT_EQ(p.ratios.size(), 4u);
  EXPECT_TRUE(p.error.empty());
  EXPECT_FALSE(p.candidate_failed);
}

// Each turn costs its side's true time times the host's slowness at that moment (the turn's index).
struct host_with_a_spell {
  int turn = 0;
  int spell_from, spell_to;  // turns run this many times slower in between
  double slowness;
  double cost(double true_ms) {
    double f = turn >= spell_from && turn < spell_to ? slowness : 1.0;
    ++turn;
    return true_ms * f;
  }
};

TEST(PairedRounds, TheMedianRatioIsTheTrueOneThroughASpellOfSlowHost) {
  // The candidate truly takes 0.050 ms, the reference 0.060 ms: a speedup of 1.2. The host runs
  // 2.5x slower from turn 3 to turn 5 (a spell of two turns, across a round's two sides).
  host_with_a_spell host{0, 3, 5, 2.5};
  auto c = [&]() -> std::optional<paired_turn> { return dispatch_turn(host.cost(0.050)); };
  auto r = [&]() -> std::optional<paired_turn> { return dispatch_turn(host.cost(0.060)); };
  paired_result p = run_paired_rounds(6, c, r);
  ASSERT_EQ(p.ratios.size(), 6u);
  EXPECT_NEAR(p.speedup, 1.2, 1e-12);
  // Rounds 1 and 2 had their candidate's turn in the spell (ratios 0.48): the spread shows it.
  EXPECT_NEAR(p.rel_spread, (1.2 - 0.48) / 1.2, 1e-12);
  // Two single timings, the reference's during the spell and the candidate's after: 3.0, not 1.2.
  host_with_a_spell again{0, 0, 1, 2.5};
  double unpaired = again.cost(0.060) / again.cost(0.050);
  EXPECT_NEAR(unpaired, 3.0, 1e-12);
}

TEST(PairedRounds, TheTwoOrdersMediansCombineGeometrically) {
  std::vector<double> refs = {1.0, 1.1, 1.3, 0.9}, got;
  std::size_t k = 0;
  auto c = [&]() -> std::optional<paired_turn> { return dispatch_turn(1.0); };
  auto r = [&]() -> std::optional<paired_turn> { return dispatch_turn(refs[k++]); };
  paired_result p = run_paired_rounds(4, c, r);
  // Candidate first in rounds 0 and 2 (ratios 1.0, 1.3: median 1.15), second in 1 and 3 (1.1, 0.9: 1.0).
  EXPECT_NEAR(p.speedup, std::sqrt(1.15 * 1.0), 1e-12);
  EXPECT_NEAR(p.rel_spread, (1.3 - 0.9) / std::sqrt(1.15), 1e-12);
}

TEST(PairedRounds, TheSideThatGoesSecondBeingSlowerCancels) {
  // Equal sides (a true speedup of 1), but whichever side goes second in a round runs 1.3x slower,
  // as on the 2-core CPU machine. Five rounds: three with the candidate first, two with it second.
  int turn = 0;
  auto cost = [&] { return dispatch_turn(turn++ % 2 == 1 ? 1.3 : 1.0); };
  auto c = [&]() -> std::optional<paired_turn> { return cost(); };
  auto r = [&]() -> std::optional<paired_turn> { return cost(); };
  paired_result p = run_paired_rounds(5, c, r);
  ASSERT_EQ(p.ratios.size(), 5u);
  EXPECT_NEAR(p.ratios[0], 1.3, 1e-12);
  EXPECT_NEAR(p.ratios[1], 1 / 1.3, 1e-12);
  // The median of the five ratios would be 1.3 (three of one order); the orders' medians cancel.
  EXPECT_NEAR(p.speedup, 1.0, 1e-12);
}

// Seen on the H200 (KernelBench's 12_ against itself, 0.056 ms on the device): for
// three rounds in a row the reference's dispatch ran in a slow spell of the host, 0.072 ms a call,
// the candidate's at its usual 0.025. The rounds' ratios say 1.29 there; their orders' medians
// said 1.13. Held turns compare the sides' costs: the device's median, the host's least time.
TEST(PairedRounds, HeldSidesCostTheirDeviceMedianOrTheirLeastHostTime) {
  int round = 0;
  auto c = [&]() -> std::optional<paired_turn> { return held_sides(0.056, 0.025); };
  auto r = [&]() -> std::optional<paired_turn> {
    const int now = round++;
    return held_sides(0.056, now >= 2 && now <= 4 ? 0.072 : 0.025);
  };
  paired_result p = run_paired_rounds(6, c, r);
  ASSERT_EQ(p.ratios.size(), 6u);
  EXPECT_TRUE(p.by_sides);
  EXPECT_NEAR(p.speedup, 1.0, 1e-12);
  EXPECT_NEAR(p.rel_spread, 0.072 / 0.056 - 1, 1e-12);  // the spell still shows in the spread
}

// Launch-bound on both sides (the host's time sets the cost): a candidate that dispatches in
// 0.10 ms against a reference's 0.15 ms is 1.5x faster through spells that catch either side.
TEST(PairedRounds, LaunchBoundHeldSidesCompareTheHostsLeastTimes) {
  host_with_a_spell host{0, 3, 8, 2.5};
  auto c = [&]() -> std::optional<paired_turn> { return held_sides(0.01, host.cost(0.10)); };
  auto r = [&]() -> std::optional<paired_turn> { return held_sides(0.01, host.cost(0.15)); };
  paired_result p = run_paired_rounds(6, c, r);
  EXPECT_TRUE(p.by_sides);
  EXPECT_NEAR(p.speedup, 1.5, 1e-12);
  // Device-bound sides compare their device costs (a candidate hiding 0.2 ms of work on another
  // stream reports it in its device cost, timing_stats_test).
  auto slow = [&]() -> std::optional<paired_turn> { return held_sides(1.2, 0.1); };
  auto ref = [&]() -> std::optional<paired_turn> { return held_sides(1.0, 0.1); };
  EXPECT_NEAR(run_paired_rounds(4, slow, ref).speedup, 1.0 / 1.2, 1e-12);
}

// One round whose turns did not report their sides (or were timed with their dispatch): the
// speedup comes from the rounds' ratios, as for dispatch-included timing.
TEST(PairedRounds, TurnsWithoutTheirSidesFallBackToTheRatios) {
  int turn = 0;
  auto c = [&]() -> std::optional<paired_turn> { return held_sides(1.0, 0.1); };
  auto r = [&]() -> std::optional<paired_turn> { return ++turn == 3 ? held_turn(1.0) : held_sides(1.0, 0.1); };
  paired_result p = run_paired_rounds(4, c, r);
  EXPECT_FALSE(p.by_sides);
  EXPECT_NEAR(p.speedup, 1.0, 1e-12);
}

TEST(PairedRounds, AFailedCandidateTurnEndsTheRoundsAsTheCandidatesFailure) {
  int calls = 0;
  auto c = [&]() -> std::optional<paired_turn> {
    if (++calls == 2) return std::nullopt;
    return held_turn(1.0);
  };
  auto r = [&]() -> std::optional<paired_turn> { return held_turn(1.0); };
  paired_result p = run_paired_rounds(6, c, r);
  EXPECT_TRUE(p.candidate_failed);
  EXPECT_EQ(p.ratios.size(), 1u);
  EXPECT_TRUE(p.error.empty());
}

TEST(PairedRounds, AFailedReferenceTurnLeavesTheUnpairedSpeedup) {
  auto c = [&]() -> std::optional<paired_turn> { return held_turn(1.0); };
  auto r = [&]() -> std::optional<paired_turn> { return std::nullopt; };
  paired_result p = run_paired_rounds(6, c, r);
  EXPECT_FALSE(p.candidate_failed);
  EXPECT_FALSE(p.error.empty());
  EXPECT_TRUE(p.ratios.empty());
  // A turn that measured nothing is not a ratio either.
  auto zero = [&]() -> std::optional<paired_turn> { return held_turn(0.0); };
  paired_result q = run_paired_rounds(6, c, zero);
  EXPECT_FALSE(q.error.empty());
}

TEST(PairedRounds, ARoundTimedHeldOnOneSideOnlyGivesNoRatio) {
  // The reference's second turn lost its hold (timed with its dispatch: twice the cost): that round
  // compares two kinds of cost and is left out, not counted as a ratio of 0.5.
  int turn = 0;
  auto c = [&]() -> std::optional<paired_turn> { return held_turn(1.0); };
  auto r = [&]() -> std::optional<paired_turn> { return ++turn == 2 ? paired_turn{2.0, false} : held_turn(1.0); };
  paired_result p = run_paired_rounds(6, c, r);
  EXPECT_EQ(p.ratios.size(), 5u);
  EXPECT_EQ(p.mismatched, 1);
  EXPECT_NEAR(p.speedup, 1.0, 1e-12);
  EXPECT_NEAR(p.rel_spread, 0.0, 1e-12);
  // When no round timed both sides alike, there is no paired speedup, and the error says why.
  auto unheld = [&]() -> std::optional<paired_turn> { return paired_turn{2.0, false}; };
  paired_result q = run_paired_rounds(4, c, unheld);
  EXPECT_TRUE(q.ratios.empty());
  EXPECT_EQ(q.mismatched, 4);
  EXPECT_NE(q.error.find("same way"), std::string::npos) << q.error;
  EXPECT_FALSE(q.candidate_failed);
  // Both timed with their dispatch (the CPU, --no-hold) is alike.
  paired_result both = run_paired_rounds(4, unheld, unheld);
  EXPECT_EQ(both.ratios.size(), 4u);
  EXPECT_EQ(both.mismatched, 0);
}

// Claims lock files in $TMPDIR: each test points it at a folder of its own.
class CpuClaims : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* before = std::getenv("TMPDIR");
    if (before) saved_ = before;
    had_ = before != nullptr;
    char dir[] = "/tmp/headroom-claims-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    setenv("TMPDIR", dir_.c_str(), 1);
    CPU_ZERO(&allowed_);
    ASSERT_EQ(sched_getaffinity(0, sizeof allowed_, &allowed_), 0);
  }
  void TearDown() override {
    if (had_) setenv("TMPDIR", saved_.c_str(), 1);
    else unsetenv("TMPDIR");
    std::filesystem::remove_all(dir_);
  }
  std::string dir_, saved_;
  bool had_ = false;
  cpu_set_t allowed_;
};

TEST_F(CpuClaims, PinToACpuThisProcessMayUse) {
  cpu_claim claim = cpu_claim::take();
  ASSERT_GE(claim.cpu(), 0);
  EXPECT_TRUE(CPU_ISSET(claim.cpu(), &allowed_));
  EXPECT_TRUE(claim.held());
}

// Two headroom processes timing at once (one per GPU) must not pin to the same CPU. A lock on a
// file opened twice conflicts within one process as it does between two, so two claims here stand
// for two processes.
TEST_F(CpuClaims, TwoAtOnceTakeTwoCpusAndAReleasedOneIsTakenAgain) {
  if (CPU_COUNT(&allowed_) < 2) GTEST_SKIP() << "one CPU: nothing to choose between";
  int first_cpu = -1;
  {
    cpu_claim first = cpu_claim::take();
    cpu_claim second = cpu_claim::take();
    ASSERT_TRUE(first.held());
    ASSERT_TRUE(second.held());
    EXPECT_NE(first.cpu(), second.cpu());
    EXPECT_GT(first.cpu(), second.cpu());  // the last CPU first
    first_cpu = first.cpu();
  }
  EXPECT_EQ(cpu_claim::take().cpu(), first_cpu);
}

TEST_F(CpuClaims, WithoutLockFilesTheLastCpuIsUsedUnclaimed) {
  setenv("TMPDIR", (dir_ + "/missing").c_str(), 1);
  cpu_claim claim = cpu_claim::take();
  EXPECT_FALSE(claim.held());
  ASSERT_GE(claim.cpu(), 0);
  for (int c = claim.cpu() + 1; c < CPU_SETSIZE; ++c) EXPECT_FALSE(CPU_ISSET(c, &allowed_)) << c;
}

}  // namespace

namespace {

// Alternating calls: the candidate's call i, the reference's call i, the candidate's call i + 1.
// A host whose speed changes from call to call (a factor per call number and side, in time order)
// multiplies both sides' neighbouring calls alike.
std::vector<alternated_call> side_calls(double ms, int side, int from, int to, double (*speed)(int)) {
  std::vector<alternated_call> v;
  for (int i = from; i < to; ++i) v.push_back({i, ms * speed(2 * i + side)});
  return v;
}

double steady(int) { return 1.0; }
// Slow spells of up to 3x that last a few calls and move over half a second of calls.
double drifting(int t) { return 1.0 + 1.0 * (1 + std::sin(t / 7.0)) * ((t / 25) % 2); }

TEST(AlternatingCalls, NeighbouringCallsGiveTheTrueRatioThroughADriftingHost) {
  paired_result p = alternated_speedup(side_calls(2.0, 0, 0, 200, drifting), side_calls(3.0, 1, 0, 200, drifting));
  EXPECT_TRUE(p.alternated);
  EXPECT_TRUE(p.error.empty());
  EXPECT_NEAR(p.speedup, 1.5, 0.015);
  EXPECT_EQ(p.ratios.size(), 399u);  // 200 pairs with the candidate first, 199 with the reference first
  EXPECT_DOUBLE_EQ(alternated_speedup(side_calls(2.0, 0, 0, 200, steady), side_calls(3.0, 1, 0, 200, steady)).speedup,
                   1.5);
}

TEST(AlternatingCalls, CallsNotKeptOnOneSideGiveNoRatio) {
  // The candidate's warm-up was longer (calls 0-4 not kept), the reference's calls 0-2 not kept.
  paired_result p = alternated_speedup(side_calls(2.0, 0, 5, 20, steady), side_calls(2.0, 1, 3, 20, steady));
  // Reference first: its call i with the candidate's i + 1, for i = 4..18; candidate first: i = 5..19.
  EXPECT_EQ(p.ratios.size(), 15u + 15u);
  EXPECT_DOUBLE_EQ(p.speedup, 1.0);
  EXPECT_TRUE(alternated_speedup({}, side_calls(2.0, 1, 0, 5, steady)).error.size() > 0);
}

// A host whose calls scatter by +-20% at random: the standard error falls as the calls grow.
std::vector<alternated_call> scattered(double ms, int from, int to, unsigned seed) {
  std::vector<alternated_call> v;
  std::srand(seed);
  for (int i = from; i < to; ++i) v.push_back({i, ms * (0.8 + 0.4 * std::rand() / RAND_MAX)});
  return v;
}

TEST(AlternatingCalls, TheStandardErrorFallsWithTheCallsAndIsNoneOnASteadyHost) {
  EXPECT_DOUBLE_EQ(alternated_speedup(side_calls(2.0, 0, 0, 50, steady), side_calls(2.0, 1, 0, 50, steady)).std_error,
                   0.0);
  const double few = alternated_speedup(scattered(2.0, 0, 40, 1), scattered(2.0, 0, 40, 2)).std_error;
  const double many = alternated_speedup(scattered(2.0, 0, 640, 1), scattered(2.0, 0, 640, 2)).std_error;
  EXPECT_GT(few, 0.02);
  EXPECT_NEAR(many / few, 0.25, 0.1);  // sixteen times the calls: a quarter of the error
}

double slowing(int t) { return 1.0 + 0.01 * t; }

TEST(AlternatingCalls, AHostSlowingSteadilyFavoursNeitherSide) {
  // Each call a little slower than the one before: with the candidate first every pair's ratio is
  // above the truth, with the reference first below it; the two orders' medians cancel.
  paired_result p = alternated_speedup(side_calls(2.0, 0, 0, 50, slowing), side_calls(2.0, 1, 0, 50, slowing));
  EXPECT_GT(p.ratios.front(), 1.0);
  EXPECT_LT(p.ratios[1], 1.0);
  EXPECT_NEAR(p.speedup, 1.0, 1e-3);
  EXPECT_GT(p.rel_spread, 0.0);  // the ratios' interquartile range, over the speedup
}

}  // namespace
