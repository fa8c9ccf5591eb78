#include <gtest/gtest.h>

#include <random>

#include "headroom/analyze/window.hpp"

using namespace headroom::analyze;
using headroom::trace::string_id;

namespace {

// A training step the way a transformer's kernel sequence looks: an embedding, `layers` identical
// layers of five kernels, a loss and an optimizer kernel. Ids stand for interned names.
std::vector<string_id> step(int layers) {
  std::vector<string_id> s{1};
  for (int l = 0; l < layers; ++l) s.insert(s.end(), {10, 11, 12, 11, 13});
  s.insert(s.end(), {20, 21});
  return s;
}

std::vector<string_id> warmup_noise(std::size_t n, unsigned seed) {
  // Autotuning and lazy initialisation: many distinct names and a few of the step's own.
  std::mt19937 rng(seed);
  std::vector<string_id> s;
  for (std::size_t i = 0; i < n; ++i)
    s.push_back(static_cast<string_id>(rng() % 3 == 0 ? 10 + rng() % 4 : 100 + rng() % 40));
  return s;
}

}  // namespace

TEST(RepeatingUnit, FindsTheTrainingStepNotTheLayerAfterWarmupNoise) {
  const auto one = step(12);
  auto seq = warmup_noise(150, 1);
  for (int i = 0; i < 8; ++i) seq.insert(seq.end(), one.begin(), one.end());
  const auto u = find_repeating_unit(seq, 1);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->period, one.size());  // 63 kernels, not the 5 of a layer
  EXPECT_EQ(u->units, 6);  // 8 steps: the last has no following anchor, one is warm-up
  EXPECT_EQ(u->skipped, 1);
  EXPECT_GE(u->match, 0.99);
  // The units start on a step boundary after the noise.
  EXPECT_GE(u->first, 150u);
  EXPECT_EQ((u->first - 150) % one.size(), 0u);
}

TEST(RepeatingUnit, ToleratesAStepThatDiffersSlightly) {
  auto seq = warmup_noise(40, 2);
  for (int i = 0; i < 10; ++i) {
    auto s = step(6);
    if (i == 5) s[7] = 99;  // one kernel of one step took another algorithm
    seq.insert(seq.end(), s.begin(), s.end());
  }
  const auto u = find_repeating_unit(seq, 0);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->period, step(6).size());
  EXPECT_EQ(u->units, 9);
  EXPECT_LT(u->match, 1.0);
}

TEST(RepeatingUnit, KeepsEveryUnitWhenWarmupWouldLeaveFewerThanTwo) {
  std::vector<string_id> seq;
  for (int i = 0; i < 3; ++i) {
    const auto s = step(2);
    seq.insert(seq.end(), s.begin(), s.end());
  }
  const auto u = find_repeating_unit(seq, 1);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->units, 2);
  EXPECT_EQ(u->skipped, 0);
}

TEST(RepeatingUnit, RandomSequenceHasNoPeriod) {
  std::mt19937 rng(7);
  std::vector<string_id> seq;
  for (int i = 0; i < 5000; ++i) seq.push_back(static_cast<string_id>(1 + rng() % 30));
  EXPECT_FALSE(find_repeating_unit(seq, 1).has_value());
}

TEST(RepeatingUnit, TooShortSequenceHasNoPeriod) {
  const std::vector<string_id> seq{1, 2, 1, 2};
  EXPECT_FALSE(find_repeating_unit(seq, 0).has_value());
}

TEST(RepeatingUnit, ScalesToAMillionKernels) {
  const auto one = step(40);  // 203 kernels a step
  std::vector<string_id> seq = warmup_noise(1000, 3);
  while (seq.size() < 1'000'000) seq.insert(seq.end(), one.begin(), one.end());
  const auto u = find_repeating_unit(seq, 1);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->period, one.size());
}
