#include <gtest/gtest.h>

#include <cmath>

#include "analyze/trace_builder.hpp"
#include "headroom/project/amdahl.hpp"
#include "headroom/project/what_if.hpp"
#include "headroom/util/error.hpp"

using namespace headroom;
using headroom::test::trace_builder;

namespace {

// Over [0, 500): cuBLAS GEMM [0,100), ATen add [50,150), triton [200,260), NCCL [240,300),
// layer norm [400,500).
trace::trace small() {
  trace_builder b;
  b.kernel(test::gemm, 0, 100, 7)
      .kernel(test::elementwise, 50, 150, 8)
      .kernel(test::triton, 200, 260, 7)
      .kernel(test::nccl, 240, 300, 9)
      .kernel(test::layer_norm, 400, 500, 7);
  return std::move(b.t);
}

analyze::analyze_options whole() {
  analyze::analyze_options o;
  o.mode = analyze::window_mode::whole;
  return o;
}

}  // namespace

TEST(WhatIf, GlobalSpeedupAppliesToTheAddressableFraction) {
  const auto p =
      project::project_amdahl(small(), test::test_classifier(), whole(), {project::parse_addressable_speedup("2")});
  ASSERT_EQ(p.parts.size(), 1u);
  EXPECT_DOUBLE_EQ(p.parts[0].fraction, 260.0 / 500.0);
  EXPECT_DOUBLE_EQ(p.speedup, project::amdahl(0.52, 2.0));
  EXPECT_DOUBLE_EQ(p.ceiling, project::ceiling(0.52));
}

TEST(WhatIf, KernelCategoryAndRestCombineTermByTermWithoutSharingKernels) {
  const std::vector<project::speedup_rule> rules{project::parse_addressable_speedup("1.235"),
                                                 project::parse_category_speedup("gemm=1.5"),
                                                 project::parse_kernel_speedup("layer_norm=2")};
  const auto p = project::project_amdahl(small(), test::test_classifier(), whole(), rules);
  ASSERT_EQ(p.parts.size(), 3u);
  // Kernel patterns first, then categories, then the addressable rest.
  EXPECT_EQ(p.parts[0].label, "kernels /layer_norm/");
  EXPECT_DOUBLE_EQ(p.parts[0].fraction, 0.2);
  EXPECT_EQ(p.parts[1].label, "category gemm");
  EXPECT_DOUBLE_EQ(p.parts[1].fraction, 0.2);  // a vendor category is allowed
  EXPECT_DOUBLE_EQ(p.parts[2].fraction, 160.0 / 500.0);  // the layer norm is not counted twice
  EXPECT_NEAR(p.speedup, 1.0 / (1.0 - 0.72 + 0.2 / 2 + 0.2 / 1.5 + 0.32 / 1.235), 1e-12);
  EXPECT_NEAR(p.ceiling, 1.0 / 0.28, 1e-12);
  ASSERT_EQ(p.at_reference.size(), project::reference_speedups().size());
  EXPECT_NEAR(p.at_reference[2], project::amdahl(0.72, 2.0), 1e-12);
}

TEST(WhatIf, BadSpeedupsAndCategoriesAreRejectedWithTheReason) {
  EXPECT_THROW(project::parse_category_speedup("gemms=1.5"), input_error);
  EXPECT_THROW(project::parse_category_speedup("gemm"), input_error);
  EXPECT_THROW(project::parse_kernel_speedup("=2"), input_error);
  EXPECT_THROW(project::parse_addressable_speedup("-1"), input_error);
  EXPECT_THROW(project::parse_addressable_speedup("fast"), input_error);
  try {
    project::parse_category_speedup("gemms=1.5");
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("one of: gemm"), std::string::npos) << e.what();
  }
  // A pattern may itself contain '=': the speedup follows the last one.
  const auto r = project::parse_kernel_speedup("a=b=3");
  EXPECT_EQ(r.pattern, "a=b");
  EXPECT_DOUBLE_EQ(r.speedup, 3.0);
  EXPECT_TRUE(std::isinf(project::parse_addressable_speedup("inf").speedup));
}

TEST(WhatIf, InvalidKernelRegexIsAnInputError) {
  EXPECT_THROW(
      project::project_amdahl(small(), test::test_classifier(), whole(), {project::parse_kernel_speedup("(=2")}),
      input_error);
}
