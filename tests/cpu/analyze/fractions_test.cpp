#include <gtest/gtest.h>

#include "analyze/trace_builder.hpp"
#include "headroom/analyze/analysis.hpp"

using namespace headroom;
using namespace headroom::analyze;
using classify::category;
using classify::provenance;
using headroom::test::trace_builder;

namespace {

analyze_options whole() {
  analyze_options o;
  o.mode = window_mode::whole;
  return o;
}

// Hand-computed case over [0, 500):
//   gemm (cuBLAS)      [0,100)   stream 7   not addressable
//   ATen add           [50,150)  stream 8   addressable, half under the GEMM
//   triton             [200,260) stream 7   addressable, 20 ns under NCCL
//   NCCL all-reduce    [240,300) stream 9   not addressable
//   memcpy HtoD        [300,320) stream 7   not addressable
//   ATen layer norm    [400,500) stream 7   addressable
trace_builder mixed() {
  trace_builder b;
  b.kernel(test::gemm, 0, 100, 7)
      .kernel(test::elementwise, 50, 150, 8)
      .kernel(test::triton, 200, 260, 7)
      .kernel(test::nccl, 240, 300, 9)
      .copy(300, 320, 7)
      .kernel(test::layer_norm, 400, 500, 7);
  return b;
}

}  // namespace

TEST(Fractions, AddressableFractionIsTheUnionOfAddressableKernelsOverWallClock) {
  const auto rep = analyze::analyze(mixed().t, test::test_classifier(), whole());
  ASSERT_EQ(rep.timelines.size(), 1u);
  const auto& r = rep.timelines[0];
  EXPECT_EQ(r.wall, 500);
  EXPECT_EQ(r.busy_all, 150 + 120 + 100);
  EXPECT_EQ(r.busy_kernels, 150 + 100 + 100);
  EXPECT_EQ(r.busy_addressable, 100 + 60 + 100);
  EXPECT_DOUBLE_EQ(r.addressable_fraction(), 260.0 / 500.0);
  EXPECT_DOUBLE_EQ(r.idle_fraction(), 130.0 / 500.0);
}

TEST(Fractions, ExclusiveVariantRemovesTimeOverlappedByLibraryWork) {
  const auto r = analyze::analyze(mixed().t, test::test_classifier(), whole()).timelines[0];
  // [100,150) + [200,240) + [400,500): the ATen add under the GEMM and triton under NCCL drop out.
  EXPECT_EQ(r.busy_addressable_exclusive, 50 + 40 + 100);
  EXPECT_DOUBLE_EQ(r.addressable_exclusive_fraction(), 190.0 / 500.0);
  EXPECT_LE(r.addressable_exclusive_fraction(), r.addressable_fraction());
}

TEST(Fractions, BreakdownsGiveUnionSumAndCountPerClass) {
  const auto r = analyze::analyze(mixed().t, test::test_classifier(), whole()).timelines[0];
  const auto& ew = r.by_category[static_cast<int>(category::elementwise)];
  EXPECT_EQ(ew.busy, 160);
  EXPECT_EQ(ew.sum, 160);
  EXPECT_EQ(ew.count, 2u);
  EXPECT_EQ(r.by_category[static_cast<int>(category::gemm)].busy, 100);
  EXPECT_EQ(r.by_category[static_cast<int>(category::communication)].busy, 60);
  // Copies count as memory / runtime without asking the classifier.
  EXPECT_EQ(r.by_category[static_cast<int>(category::memory)].busy, 20);
  EXPECT_EQ(r.by_provenance[static_cast<int>(provenance::runtime)].count, 1u);
  EXPECT_EQ(r.by_provenance[static_cast<int>(provenance::framework)].busy, 200);
  EXPECT_EQ(r.by_provenance[static_cast<int>(provenance::compiler_generated)].busy, 60);
}

TEST(Fractions, OverlappingKernelsOfOneClassCountOnceInBusyButTwiceInSum) {
  trace_builder b;
  b.kernel(test::triton, 0, 100, 7).kernel(test::triton, 50, 150, 8).kernel(test::gemm, 150, 200, 7);
  const auto r = analyze::analyze(b.t, test::test_classifier(), whole()).timelines[0];
  const auto& ew = r.by_category[static_cast<int>(category::elementwise)];
  EXPECT_EQ(ew.busy, 150);
  EXPECT_EQ(ew.sum, 200);
  EXPECT_EQ(r.busy_addressable, 150);
}

TEST(Fractions, KernelsAreClippedToTheWindow) {
  analyze_options o;
  parse_window_spec("75:425", o);  // relative to the first activity at 0
  const auto r = analyze::analyze(mixed().t, test::test_classifier(), o).timelines[0];
  EXPECT_EQ(r.wall, 350);
  // ATen add [75,150), triton [200,260), layer norm [400,425)
  EXPECT_EQ(r.busy_addressable, 75 + 60 + 25);
  ASSERT_FALSE(r.top_kernels.empty());
  EXPECT_EQ(r.top_kernels[0].name, test::elementwise);
  EXPECT_EQ(r.top_kernels[0].total, 75);
}

TEST(Fractions, TopKernelsAreRankedByTotalTimeWithTheirClass) {
  trace_builder b;
  for (int i = 0; i < 5; ++i) b.kernel(test::triton, 1000 * i, 1000 * i + 100);
  b.kernel(test::gemm, 6000, 6300).kernel(test::nccl, 7000, 7050);
  analyze_options o = whole();
  o.top_kernels = 2;
  const auto r = analyze::analyze(b.t, test::test_classifier(), o).timelines[0];
  ASSERT_EQ(r.top_kernels.size(), 2u);
  EXPECT_EQ(r.top_kernels[0].name, test::triton);
  EXPECT_EQ(r.top_kernels[0].count, 5u);
  EXPECT_EQ(r.top_kernels[0].total, 500);
  EXPECT_EQ(r.top_kernels[0].prov, provenance::compiler_generated);
  EXPECT_EQ(r.top_kernels[0].rule, "t-triton");
  EXPECT_DOUBLE_EQ(r.top_kernels[0].share_of_wall, 500.0 / 7050.0);
  EXPECT_EQ(r.top_kernels[1].cat, category::gemm);
}

TEST(Fractions, RanksMergedFromSeparateFilesAreWeightedByDeviceTime) {
  // Rank 0: 100 ns window, 50 addressable. Rank 1: 300 ns window, 30 addressable.
  trace_builder r0;
  r0.t.processes[0].rank = 0;
  r0.kernel(test::triton, 0, 50).kernel(test::gemm, 50, 100);
  trace_builder r1;
  r1.t.processes[0].rank = 1;
  r1.kernel(test::triton, 0, 30).kernel(test::nccl, 30, 300);
  trace::trace merged;
  trace::append(merged, std::move(r0.t));
  trace::append(merged, std::move(r1.t));
  const auto rep = analyze::analyze(merged, test::test_classifier(), whole());
  ASSERT_EQ(rep.timelines.size(), 2u);
  EXPECT_EQ(rep.timelines[0].rank, 0);
  EXPECT_EQ(rep.timelines[1].rank, 1);
  EXPECT_EQ(rep.timelines[1].label, "rank 1 / GPU 0");
  EXPECT_DOUBLE_EQ(rep.timelines[0].addressable_fraction(), 0.5);
  EXPECT_DOUBLE_EQ(rep.timelines[1].addressable_fraction(), 0.1);
  // 80 of 400 device-ns, not the mean of 50% and 10%.
  EXPECT_EQ(rep.total.wall, 400);
  EXPECT_DOUBLE_EQ(rep.total.addressable_fraction(), 0.2);
  EXPECT_EQ(rep.total.by_category[static_cast<int>(category::communication)].busy, 270);
}

TEST(Fractions, DevicesOfOneProcessAndUnknownDevicesGetTheirOwnTimelines) {
  trace_builder b;
  b.kernel(test::triton, 0, 100, 7, 0, 0, 0)
      .kernel(test::triton, 0, 100, 7, 0, 0, 1)
      .kernel(test::gemm, 0, 10, 7, 0, 0, -1);
  const auto rep = analyze::analyze(b.t, test::test_classifier(), whole());
  ASSERT_EQ(rep.timelines.size(), 3u);
  EXPECT_EQ(rep.timelines[0].device, -1);
  EXPECT_EQ(rep.timelines[0].label, "rank 0 / unknown device");
  EXPECT_EQ(rep.total.busy_addressable, 200);
  bool noted = false;
  for (const auto& n : rep.notes) noted |= n.find("without a device id") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(Fractions, GroupsTakeEachKernelOnceInOrder) {
  analyze_options o = whole();
  o.groups.push_back({"layer norm", "layer_norm", std::nullopt, false, ""});
  o.groups.push_back({"framework and compiled", "", std::nullopt, true, ""});
  o.groups.push_back({"gemm", "", category::gemm, false, ""});
  const auto r = analyze::analyze(mixed().t, test::test_classifier(), o).timelines[0];
  ASSERT_EQ(r.groups.size(), 3u);
  EXPECT_EQ(r.groups[0].busy, 100);
  EXPECT_EQ(r.groups[1].busy, 160);  // the layer norm went to the first group
  EXPECT_EQ(r.groups[2].busy, 100);
}

TEST(Fractions, EmptyTraceSaysThereIsNoGpuActivity) {
  trace::trace t;
  const auto rep = analyze::analyze(t, test::test_classifier(), {});
  EXPECT_TRUE(rep.timelines.empty());
  EXPECT_EQ(rep.total.wall, 0);
  EXPECT_DOUBLE_EQ(rep.total.addressable_fraction(), 0.0);
  ASSERT_FALSE(rep.notes.empty());
  EXPECT_NE(rep.notes[0].find("no GPU activity"), std::string::npos);
}

TEST(Fractions, ReaderWarningsAndForeignPlatformsReachTheNotes) {
  auto b = mixed();
  b.t.platform = "rocm";
  b.t.warn("clamped 3 events with negative duration");
  const auto rep = analyze::analyze(b.t, test::test_classifier(), whole());
  std::string all;
  for (const auto& n : rep.notes) all += n + "\n";
  EXPECT_NE(all.find("platform rocm"), std::string::npos) << all;
  EXPECT_NE(all.find("reader: clamped 3 events"), std::string::npos) << all;
}
