// The kept timing statistics as the head of a worker's timing answer: every one, in the list's
// order, as JSON members the parent reads back by name.
#include <gtest/gtest.h>

#include "headroom/record/timing_summary.hpp"

namespace {

using namespace headroom::record;

TEST(TimingSummary, KeptStatisticsAreWrittenInTheListsOrder) {
  timing_summary s;
  s.samples = 12;
  s.median_ms = 1.5;
  s.mean_ms = 1.625;
  s.stddev_ms = 0.25;
  s.min_ms = 1.25;
  s.max_ms = 2.5;
  s.rel_spread = 0.001;
  s.wall_median_ms = 1.75;
  s.score_ms = 1.5;
  s.host_median_ms = 9;  // not kept: not written
  EXPECT_EQ(kept_statistics_json(s),
            R"("samples":12,"median_ms":1.5,"mean_ms":1.625,"stddev_ms":0.25,"min_ms":1.25,"max_ms":2.5,)"
            R"("rel_spread":0.001,"wall_median_ms":1.75,"score_ms":1.5)");
}

}  // namespace
