// Wall-clock attribution: the stacked bar of a window adds up to its busy time.
#include <gtest/gtest.h>

#include "analyze/trace_builder.hpp"
#include "headroom/analyze/analysis.hpp"
#include "headroom/analyze/attribution.hpp"

using namespace headroom;
using namespace headroom::analyze;
using classify::category;
using classify::provenance;
using headroom::test::trace_builder;

TEST(Attribution, OverlappingTimeIsSplitEvenlyAmongTheClassesRunning) {
  running_attribution a(3);
  a.add({0, 100}, 0);  // class 0 alone for 50, then with class 1
  a.add({50, 150}, 1);  // with 0 for 50, alone for 50
  a.add({60, 80}, 1);  // a second class-1 activity inside the first: class 1 is still one class
  a.add({200, 260}, 2);
  a.add({240, 300}, 0);
  const auto g = a.finish();
  EXPECT_DOUBLE_EQ(g[0], 50 + 25 + 10 + 40);  // [240,260) shared with class 2
  EXPECT_DOUBLE_EQ(g[1], 25 + 50);
  EXPECT_DOUBLE_EQ(g[2], 40 + 10);
  EXPECT_DOUBLE_EQ(g[0] + g[1] + g[2], 150 + 100) << "the busy time: union of everything";
}

TEST(Attribution, ThreeClassesAtOnceGetAThirdEach) {
  running_attribution a(3);
  a.add({0, 30}, 0);
  a.add({0, 30}, 1);
  a.add({0, 30}, 2);
  const auto g = a.finish();
  EXPECT_DOUBLE_EQ(g[0], 10);
  EXPECT_DOUBLE_EQ(g[1], 10);
  EXPECT_DOUBLE_EQ(g[2], 10);
}

TEST(Attribution, AnalysisFillsTheBarOnlyWhenAsked) {
  trace_builder b;
  b.kernel(test::gemm, 0, 100, 7).kernel(test::elementwise, 50, 150, 8).kernel(test::layer_norm, 400, 500, 7);
  analyze_options o;
  o.mode = window_mode::whole;
  const auto plain = analyze::analyze(b.t, test::test_classifier(), o);
  EXPECT_EQ(plain.total.attributed[static_cast<int>(provenance::vendor_library)][static_cast<int>(category::gemm)], 0);

  o.attribute_wall_clock = true;
  const auto rep = analyze::analyze(b.t, test::test_classifier(), o);
  const auto& at = rep.total.attributed;
  EXPECT_DOUBLE_EQ(at[static_cast<int>(provenance::vendor_library)][static_cast<int>(category::gemm)], 75);
  EXPECT_DOUBLE_EQ(at[static_cast<int>(provenance::framework)][static_cast<int>(category::elementwise)], 75);
  EXPECT_DOUBLE_EQ(at[static_cast<int>(provenance::framework)][static_cast<int>(category::normalization)], 100);
  double sum = 0;
  for (const auto& row : at) {
    for (double v : row) sum += v;
  }
  EXPECT_DOUBLE_EQ(sum, static_cast<double>(rep.total.busy_all));
  EXPECT_EQ(rep.total.busy_addressable, 200) << "unions are unchanged by the attribution";
}
