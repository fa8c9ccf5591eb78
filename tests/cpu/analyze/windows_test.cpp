#include <gtest/gtest.h>

#include "analyze/trace_builder.hpp"
#include "headroom/analyze/analysis.hpp"
#include "headroom/util/error.hpp"

using namespace headroom;
using namespace headroom::analyze;
using headroom::test::trace_builder;

namespace {

// Four ProfilerStep ranges of 1000 ns on the host; each launches two kernels whose GPU execution
// lags the launch by 300 ns, so the GPU span of step N is not the host range.
trace_builder four_correlated_steps() {
  trace_builder b;
  std::uint64_t corr = 1;
  for (int s = 0; s < 4; ++s) {
    const time_ns t0 = 1000 * s;
    b.range("ProfilerStep#" + std::to_string(s + 1), t0, t0 + 1000);
    b.launch(t0 + 10, corr).kernel(test::gemm, t0 + 300, t0 + 700, 7, corr);
    ++corr;
    b.launch(t0 + 20, corr).kernel(test::elementwise, t0 + 700, t0 + 1200, 7, corr);
    ++corr;
  }
  return b;
}

analysis_report run(const trace::trace& t, analyze_options o = {}) {
  return analyze::analyze(t, test::test_classifier(), o);
}

}  // namespace

TEST(Windows, StepMarkersAreMappedToTheGpuThroughCorrelation) {
  auto b = four_correlated_steps();
  const auto rep = run(b.t);
  ASSERT_EQ(rep.timelines.size(), 1u);
  const auto& w = rep.timelines[0].win;
  EXPECT_EQ(w.source, window_source::step_markers);
  // GPU spans start at 300, 1300, 2300, 3300. Steps are measured start to start, so step 4 only
  // closes the window; step 1 is skipped as warm-up: steps 2..3 run from 1300 to 3300.
  EXPECT_EQ(w.start, 1300);
  EXPECT_EQ(w.end, 3300);
  EXPECT_EQ(w.steps, 2);
  EXPECT_EQ(w.skipped_warmup, 1);
  EXPECT_NE(w.description.find("ProfilerStep#2..#3"), std::string::npos) << w.description;
  EXPECT_NE(w.description.find("start to start"), std::string::npos) << w.description;
  EXPECT_NE(w.description.find("correlation"), std::string::npos) << w.description;
}

TEST(Windows, WarmupIsKeptWhenFewerThanTwoStepsWouldRemain) {
  trace_builder b;
  for (int s = 0; s < 2; ++s) {
    b.range("ProfilerStep#" + std::to_string(s), 1000 * s, 1000 * s + 900);
    b.launch(1000 * s + 1, s + 1).kernel(test::gemm, 1000 * s + 100, 1000 * s + 500, 7, s + 1);
  }
  const auto w = run(b.t).timelines[0].win;
  // Two steps are one start-to-start period: nothing is skipped.
  EXPECT_EQ(w.steps, 1);
  EXPECT_EQ(w.skipped_warmup, 0);
  EXPECT_EQ(w.start, 100);
  EXPECT_EQ(w.end, 1100);
}

TEST(Windows, StepCutOffAtTheTraceEndIsDropped) {
  auto b = four_correlated_steps();
  // Step 4 launched a kernel that the profiler never recorded: its GPU span is incomplete.
  b.launch(3000 + 900, 999);
  const auto w = run(b.t).timelines[0].win;
  // Steps 1..3 remain: two periods, too few to skip a warm-up step.
  EXPECT_EQ(w.steps, 2);
  EXPECT_EQ(w.start, 300);
  EXPECT_EQ(w.end, 2300);
  EXPECT_NE(w.description.find("dropped"), std::string::npos) << w.description;
}

TEST(Windows, GpuAnnotationsServeWhenThereIsNoCorrelation) {
  trace_builder b;
  for (int s = 0; s < 4; ++s) {
    b.range("ProfilerStep#" + std::to_string(s), 1000 * s, 1000 * s + 1000);
    b.range("ProfilerStep#" + std::to_string(s), 1000 * s + 200, 1000 * s + 1100, trace::range_kind::gpu_annotation, 0,
            0);
    b.kernel(test::gemm, 1000 * s + 200, 1000 * s + 1100);
  }
  const auto w = run(b.t).timelines[0].win;
  EXPECT_EQ(w.source, window_source::step_markers);
  EXPECT_EQ(w.start, 1200);
  EXPECT_EQ(w.end, 3200);
  EXPECT_NE(w.description.find("gpu_user_annotation"), std::string::npos) << w.description;
}

TEST(Windows, HostRangesAreUsedAsTheyAreAsALastResort) {
  trace_builder b;
  for (int s = 0; s < 3; ++s) {
    b.range("step " + std::to_string(s), 1000 * s, 1000 * s + 1000, trace::range_kind::nvtx);
    b.kernel(test::gemm, 1000 * s + 200, 1000 * s + 900);
  }
  const auto w = run(b.t).timelines[0].win;
  EXPECT_EQ(w.start, 0);  // three steps are two periods: no warm-up skipped
  EXPECT_EQ(w.end, 2000);
  EXPECT_NE(w.description.find("host ranges"), std::string::npos) << w.description;
}

TEST(Windows, CustomStepMarkerRegexIsHonoured) {
  trace_builder b;
  for (int s = 0; s < 5; ++s) {
    b.range("train_batch", 1000 * s, 1000 * s + 1000);
    b.kernel(test::gemm, 1000 * s + 100, 1000 * s + 900);
  }
  analyze_options o;
  EXPECT_NE(run(b.t, o).timelines[0].win.source, window_source::step_markers);
  o.step_marker = "^train_batch$";
  o.warmup_steps = 2;
  const auto w = run(b.t, o).timelines[0].win;
  EXPECT_EQ(w.source, window_source::step_markers);
  EXPECT_EQ(w.start, 2000);
  EXPECT_EQ(w.steps, 2);
}

TEST(Windows, WithoutMarkersTheRepeatingUnitIsMeasuredStartToStart) {
  trace_builder b;
  time_ns t = 0;
  b.kernel("cudnn_autotune_probe", t, t + 5000);  // warm-up noise
  t += 6000;
  for (int s = 0; s < 6; ++s) {
    for (int layer = 0; layer < 4; ++layer) {
      b.kernel(test::layer_norm, t, t + 10).kernel(test::gemm, t + 10, t + 60).kernel(test::triton, t + 60, t + 70);
      t += 100;
    }
    b.kernel(test::nccl, t, t + 200);
    t += 300;
  }
  const auto w = run(b.t).timelines[0].win;
  EXPECT_EQ(w.source, window_source::repeating_unit);
  // Steps are 700 ns; 6 steps give 5 whole units start to start, one skipped as warm-up.
  EXPECT_EQ(w.steps, 4);
  EXPECT_EQ(w.length(), 4 * 700);
  EXPECT_NE(w.description.find("13 kernels"), std::string::npos) << w.description;
}

TEST(Windows, NoPeriodFallsBackToTheWholeSpanAndSaysSo) {
  trace_builder b;
  b.kernel(test::gemm, 100, 200).kernel(test::triton, 300, 350).kernel(test::nccl, 400, 900);
  const auto rep = run(b.t);
  const auto& w = rep.timelines[0].win;
  EXPECT_EQ(w.source, window_source::whole_span);
  EXPECT_EQ(w.start, 100);
  EXPECT_EQ(w.end, 900);
  EXPECT_NE(w.description.find("no step markers"), std::string::npos);
  ASSERT_FALSE(rep.notes.empty());
  EXPECT_NE(rep.notes[0].find("whole span"), std::string::npos) << rep.notes[0];
}

TEST(Windows, ExplicitBoundsAreRelativeToTheFirstActivity) {
  auto b = four_correlated_steps();
  analyze_options o;
  parse_window_spec("1us:2.5us", o);
  EXPECT_EQ(o.mode, window_mode::explicit_bounds);
  const auto w = run(b.t, o).timelines[0].win;
  EXPECT_EQ(w.start, 300 + 1000);
  EXPECT_EQ(w.end, 300 + 2500);
}

TEST(Windows, WindowSpecsAreParsedOrRejectedWithTheReason) {
  analyze_options o;
  parse_window_spec("whole", o);
  EXPECT_EQ(o.mode, window_mode::whole);
  parse_window_spec("12.5ms:40ms", o);
  EXPECT_EQ(o.window_start, 12'500'000);
  EXPECT_EQ(o.window_end, 40'000'000);
  parse_window_spec("0:1500", o);
  EXPECT_EQ(o.window_end, 1500);
  EXPECT_THROW(parse_window_spec("steadystate", o), input_error);
  EXPECT_THROW(parse_window_spec("5ms:1ms", o), input_error);
  EXPECT_THROW(parse_window_spec("1 parsec:2ms", o), input_error);
  EXPECT_THROW(parse_window_spec(":2ms", o), input_error);
}

TEST(Windows, WholeSpanRunsFromFirstStartToLastEnd) {
  auto b = four_correlated_steps();
  analyze_options o;
  o.mode = window_mode::whole;
  const auto w = run(b.t, o).timelines[0].win;
  EXPECT_EQ(w.start, 300);
  EXPECT_EQ(w.end, 4200);
}
