#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "headroom/project/amdahl.hpp"

using namespace headroom::project;

TEST(Amdahl, PublishedTransformerCaseGainsAboutOnePercent) {
  // 14% of wall clock addressable, the published median 1.235x on it: about 2.7% end to end.
  EXPECT_NEAR(amdahl(0.14, 1.235), 1.0 / (0.86 + 0.14 / 1.235), 1e-12);
  EXPECT_NEAR(amdahl(0.05, 1.235), 1.0097, 1e-4);
}

TEST(Amdahl, InfiniteSpeedupReachesTheCeiling) {
  EXPECT_DOUBLE_EQ(amdahl(0.58, infinite_speedup), ceiling(0.58));
  EXPECT_NEAR(ceiling(0.58), 2.380952, 1e-6);
}

TEST(Amdahl, NoAddressableTimeMeansNoGain) {
  EXPECT_DOUBLE_EQ(amdahl(0.0, 10.0), 1.0);
  EXPECT_DOUBLE_EQ(ceiling(0.0), 1.0);
}

TEST(Amdahl, PerCategorySpeedupsCombineTermByTerm) {
  const std::array<part, 2> parts{part{0.3, 2.0}, part{0.2, 4.0}};
  EXPECT_NEAR(amdahl(parts), 1.0 / (0.5 + 0.15 + 0.05), 1e-12);
  EXPECT_NEAR(ceiling(parts), 2.0, 1e-12);
}

TEST(Amdahl, WholeTraceAddressableHasNoCeiling) {
  EXPECT_TRUE(std::isinf(ceiling(1.0)));
  EXPECT_DOUBLE_EQ(amdahl(1.0, 4.0), 4.0);
}
