// The swap check on fabricated before and after traces of one program: a GEMM, the swapped kernel
// family and an elementwise kernel per step, the host waiting for the device at the end of every
// step, so that a step's length is its kernels' and the replay reproduces it exactly. The swaps: a
// faster kernel, a slower one, a swap that left one targeted kernel on the old path, and an operator
// named by the host range around it rather than by its kernels' names.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <sstream>

#include "headroom/project/swap_check.hpp"
#include "headroom/report/swap_check_output.hpp"
#include "headroom/util/error.hpp"
#include "project/replay_builder.hpp"

using namespace headroom;

namespace {

constexpr trace::time_ns us(double v) { return static_cast<trace::time_ns>(v * 1000); }

constexpr const char* gemm =
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas";
constexpr const char* gelu =
    "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(c10::BFloat16)#1}, at::detail::Array<char*, 2> >(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(c10::BFloat16)#1}, at::detail::Array<char*, 2>)";
constexpr const char* gelu_backward =
    "void at::native::vectorized_elementwise_kernel<4, at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16)#1}, at::detail::Array<char*, 3> >(int, at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16)#1}, at::detail::Array<char*, 3>)";
constexpr const char* mul =
    "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 3> >(int, at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 3>)";

// One kernel of a step: its name, its length, and the host range its launch sits in ("" for none).
struct kernel {
  std::string name;
  double us_long;
  std::string range;
  double range_us = 2;  // the host range's length around the launch
};

// `steps` steps of GEMM (100 us), `middle`, and a MulFunctor kernel (50 us). The host launches every
// kernel of a step 2 us apart, then synchronises; the next step starts 5 us after the sync returns.
trace::trace program(int steps, const std::vector<kernel>& middle) {
  test::replay_builder b;
  std::vector<kernel> all{{gemm, 100, ""}};
  all.insert(all.end(), middle.begin(), middle.end());
  all.push_back({mul, 50, ""});
  trace::time_ns t = us(1000);
  for (int s = 0; s < steps; ++s) {
    const auto step_start = t;
    trace::time_ns device = t + us(5);
    trace::time_ns host = t;
    for (const auto& k : all) {
      const auto c = b.call("cudaLaunchKernel", host, host + us(1));
      if (!k.range.empty()) {
        trace::range r;
        r.start = host - us(0.5);
        r.end = r.start + us(k.range_us);
        r.name = b.t.strings.intern(k.range);
        r.thread = 1;
        r.kind = trace::range_kind::nvtx;
        b.t.ranges.push_back(r);
      }
      const auto start = std::max(device, host + us(3));
      b.work(c, k.name, start, start + us(k.us_long));
      device = start + us(k.us_long);
      host += us(2);
    }
    const auto sync_end = device + us(2);
    b.sync(trace::sync_kind::context_synchronize, b.call("cudaDeviceSynchronize", host, sync_end), host, sync_end);
    b.step(s + 1, step_start, sync_end);
    t = sync_end + us(5);
  }
  return std::move(b.t);
}

project::swap_check check(const trace::trace& before, const trace::trace& after,
                          std::vector<project::speedup_rule> rules) {
  analyze::analyze_options o;
  o.warmup_steps = 0;
  return project::check_swap(before, after, test::test_classifier(), o, rules);
}

// 100 + 50 + 50 us of kernels and 12 us of latencies between steps (the first launch's 5 us, the
// sync's 2, the 5 before the next step): the step is 212 us long, GELU takes 50 us of it.
TEST(SwapCheck, AFasterKernelsGainIsPredictedByAmdahlAndTheReplay) {
  const auto before = program(6, {{gelu, 50, ""}});
  const auto after = program(6, {{"gelu_tanh_kernel", 25, ""}});
  const auto s = check(before, after, {project::parse_kernel_speedup("GeluCUDAKernelImpl=2")});
  ASSERT_EQ(s.before.steps.size(), 5u);  // the last marker closes the window
  EXPECT_NEAR(s.before.median, us(212), us(0.01));
  EXPECT_NEAR(s.after.median, us(187), us(0.01));
  EXPECT_NEAR(s.measured_gain, 100.0 * 25 / 212, 0.01);
  EXPECT_NEAR(s.amdahl_gain, 100.0 * 25 / 212, 0.01);
  ASSERT_TRUE(s.replayed);
  EXPECT_NEAR(s.replay_gain, 100.0 * 25 / 212, 0.01);
  EXPECT_NEAR(s.replay_error(), 0.0, 0.01);
  EXPECT_EQ(s.route.targeted, 1u);
  EXPECT_EQ(s.route.gone, 1u);
  EXPECT_EQ(s.route.appeared, 1u);
  EXPECT_EQ(s.route.fallbacks, 0u);
  EXPECT_TRUE(s.route.every_target_replaced());
  ASSERT_FALSE(s.route.kernels.empty());
  EXPECT_EQ(s.route.kernels.front().name, gelu);
  EXPECT_DOUBLE_EQ(s.route.kernels.front().before_per_step, 1.0);
  EXPECT_DOUBLE_EQ(s.route.kernels.front().after_per_step, 0.0);
}

// The control of known size: a kernel three times slower loses what Amdahl says it loses.
TEST(SwapCheck, ASlowerKernelIsANegativeGainPredictedToThePoint) {
  const auto before = program(6, {{gelu, 50, ""}});
  const auto after = program(6, {{"gelu_tanh_slow_kernel", 150, ""}});
  const auto s = check(before, after, {project::parse_kernel_speedup("GeluCUDAKernelImpl=0.333333333333")});
  EXPECT_NEAR(s.measured_gain, -100.0 * 100 / 212, 0.01);
  EXPECT_NEAR(s.amdahl_gain, -100.0 * 100 / 212, 0.05);
  EXPECT_NEAR(s.replay_gain, -100.0 * 100 / 212, 0.05);
  EXPECT_TRUE(s.route.every_target_replaced());
}

// The planted fallback: forward and backward were targeted, the backward still runs the old kernel.
// The audit names it, and the measured gain falls short of the prediction by the backward's share.
TEST(SwapCheck, ATargetedKernelLeftOnTheOldPathIsAFallback) {
  const auto before = program(6, {{gelu, 50, ""}, {gelu_backward, 40, ""}});
  const auto after = program(6, {{"gelu_tanh_kernel", 25, ""}, {gelu_backward, 40, ""}});
  const auto s = check(before, after, {project::parse_kernel_speedup("Gelu(Backward)?CUDAKernelImpl=2")});
  EXPECT_EQ(s.route.targeted, 2u);
  EXPECT_EQ(s.route.fallbacks, 1u);
  EXPECT_FALSE(s.route.every_target_replaced());
  const auto it = std::find_if(s.route.kernels.begin(), s.route.kernels.end(),
                               [](const project::route_kernel& k) { return k.name == gelu_backward; });
  ASSERT_NE(it, s.route.kernels.end());
  EXPECT_DOUBLE_EQ(it->fallback_per_step, 1.0);
  EXPECT_NEAR(s.measured_gain, 100.0 * 25 / 252, 0.01);
  EXPECT_NEAR(s.amdahl_gain, 100.0 * 45 / 252, 0.01);
  EXPECT_NEAR(s.replay_error(), 100.0 * 20 / 252, 0.01);  // the backward's promised 20 us never came
  ASSERT_FALSE(s.notes.empty());
  EXPECT_NE(s.notes.back().find("1 of the 2 targeted kernels still run"), std::string::npos);
}

// An operator of generic kernels: the MulFunctor kernel runs inside the operator's range and outside
// it. --range takes only the launches inside; after the swap the same name still runs outside the
// range, which is not a fallback; left inside the range, it is.
TEST(SwapCheck, ARangeRuleTakesOnlyTheKernelsLaunchedInsideTheOperator) {
  const auto before = program(6, {{mul, 40, "swap:rowwise_adagrad_update"}});
  const auto after = program(6, {{"rowwise_adagrad_segments_kernel", 10, "swap:rowwise_adagrad_update"}});
  const auto s = check(before, after, {project::parse_range_speedup("swap:rowwise_adagrad=4")});
  ASSERT_EQ(s.parts.size(), 1u);
  EXPECT_EQ(s.parts[0].busy, 5 * us(40));  // the 40 us launches only, in 5 steps
  EXPECT_NEAR(s.measured_gain, 100.0 * 30 / 202, 0.01);
  EXPECT_NEAR(s.replay_gain, 100.0 * 30 / 202, 0.01);
  EXPECT_EQ(s.route.targeted, 1u);
  EXPECT_EQ(s.route.fallbacks, 0u);
  // The range takes the new kernel after the swap: 40 us became 10 inside the program.
  ASSERT_EQ(s.in_situ.size(), 1u);
  EXPECT_NEAR(s.in_situ[0].speedup(), 4.0, 1e-9);
  EXPECT_TRUE(s.in_situ[0].host_range);
  EXPECT_NEAR(s.in_situ[0].before_host_ms_per_step, 0.002, 1e-9);
  EXPECT_NEAR(s.in_situ[0].after_host_ms_per_step, 0.002, 1e-9);
  for (const auto& n : s.notes) EXPECT_EQ(n.find("host ranges shrank"), std::string::npos) << n;

  const auto stuck = program(6, {{mul, 40, "swap:rowwise_adagrad_update"}});
  const auto f = check(before, stuck, {project::parse_range_speedup("swap:rowwise_adagrad=4")});
  EXPECT_EQ(f.route.fallbacks, 1u);
  EXPECT_NEAR(f.measured_gain, 0.0, 0.01);
}

// A fused operator: its range held the host for 150 us before (dispatching many operations, waiting
// on their results) and 2 us after. Held open that long, the range before also takes the MulFunctor
// launched after it: 90 us of kernels became 10. The check says the host work went too.
TEST(SwapCheck, HostWorkTheSwapRemovedIsShownBesideTheKernelSaving) {
  const auto before = program(6, {{mul, 40, "swap:rowwise_adagrad_update", 150}});
  const auto after = program(6, {{"rowwise_adagrad_segments_kernel", 10, "swap:rowwise_adagrad_update", 2}});
  const auto s = check(before, after, {project::parse_range_speedup("swap:rowwise_adagrad=4")});
  ASSERT_EQ(s.in_situ.size(), 1u);
  EXPECT_NEAR(s.in_situ[0].before_host_ms_per_step, 0.150, 1e-9);
  EXPECT_NEAR(s.in_situ[0].after_host_ms_per_step, 0.002, 1e-9);
  ASSERT_FALSE(s.notes.empty());
  EXPECT_NE(s.notes.back().find("host ranges shrank by 0.148 ms per step, their kernels by 0.080 ms"),
            std::string::npos)
      << s.notes.back();
}

// A host-bound fused operator: inside the range "swap:op" the host makes `launches` launches of
// `kernel_us` kernels, `gap_us` apart (each call `call_us` long), then waits for the stream; a
// 100 us GEMM before it, a 50 us MulFunctor kernel after, a device synchronisation ends the step.
trace::trace host_bound(int steps, int launches, double gap_us, double call_us, double kernel_us) {
  test::replay_builder b;
  trace::time_ns t = us(1000);
  for (int s = 0; s < steps; ++s) {
    const auto step_start = t;
    trace::time_ns host = t;
    trace::time_ns device = host + us(3);
    const auto launch = [&](const char* name, double long_us) {
      const auto c = b.call("cudaLaunchKernel", host, host + us(call_us));
      const auto start = std::max(device, host + us(3));
      b.work(c, name, start, start + us(long_us));
      device = start + us(long_us);
    };
    launch(gemm, 100);
    host += us(1);
    const auto range_start = host + us(gap_us) - us(0.5);
    for (int i = 0; i < launches; ++i) {
      host += us(gap_us);
      launch(i == 0 ? mul : gelu, kernel_us);
      host += us(call_us);
    }
    host += us(gap_us);
    const auto wait_end = std::max(device + us(2), host + us(call_us));
    b.sync(trace::sync_kind::stream_synchronize, b.call("cudaStreamSynchronize", host, wait_end), host, wait_end, 7);
    trace::range r;
    r.start = range_start;
    r.end = wait_end + us(0.5);
    r.name = b.t.strings.intern("swap:op");
    r.thread = 1;
    r.kind = trace::range_kind::nvtx;
    b.t.ranges.push_back(r);
    host = wait_end + us(2);
    launch(mul, 50);
    host += us(1);
    const auto sync_end = device + us(2);
    b.sync(trace::sync_kind::context_synchronize, b.call("cudaDeviceSynchronize", host, sync_end), host, sync_end);
    b.step(s + 1, step_start, sync_end);
    t = sync_end + us(5);
  }
  return std::move(b.t);
}

// Five eager operations (40 us of host each, 4 us kernels) fused into one launch of a 10 us kernel:
// the kernels' speedup alone leaves the host's 200 us in the replayed step; the host's own time in the
// range given as well (--host-range), the replay lands on the measured gain. The in-situ figures say
// what that host speedup was: the range time less the stream wait, before against after.
TEST(SwapCheck, AFusedOperatorsHostTimeGivenToTheReplayMeetsTheMeasuredGain) {
  const auto before = host_bound(6, 5, 40, 1, 4);
  const auto after = host_bound(6, 1, 40, 1, 10);
  const auto kernels = project::parse_range_speedup("swap:op=2");
  const auto without = check(before, after, {kernels});
  ASSERT_EQ(without.in_situ.size(), 1u);
  EXPECT_NEAR(without.in_situ[0].speedup(), 2.0, 1e-9);  // 5 x 4 us became 10 us
  // The host's own time in the range (it opens 0.5 us before the first launch and closes 0.5 us
  // after the stream wait): 5 gaps of 40 us and 5 calls of 1 us before (206 us), 1 gap and 1 call
  // after (42 us); the stream waits are not the host's.
  EXPECT_NEAR(without.in_situ[0].before_host_work_ms_per_step, 0.206, 1e-9);
  EXPECT_NEAR(without.in_situ[0].after_host_work_ms_per_step, 0.042, 1e-9);
  EXPECT_GT(without.measured_gain - without.replay_gain, 40.0);  // host-bound: the kernels' speedup buys nothing

  const double host = without.in_situ[0].host_speedup();
  const auto with =
      project::check_swap(before, after, test::test_classifier(),
                          [] {
                            analyze::analyze_options o;
                            o.warmup_steps = 0;
                            return o;
                          }(),
                          {kernels}, {project::parse_host_range_speedup(fmt::format("swap:op={}", host))});
  // Within 0.13 points here: the replay keeps five launches of shrunk kernels where the program
  // after the swap launches one (a launch latency apart).
  EXPECT_NEAR(with.replay_gain, with.measured_gain, 0.25) << "host speedup " << host;
  EXPECT_LT(std::abs(with.replay_error()), std::abs(without.replay_error()) / 5);
  EXPECT_NEAR(with.amdahl_gain, without.amdahl_gain, 1e-9);  // Amdahl knows no host
  ASSERT_EQ(with.host.size(), 1u);
  std::ostringstream json, text;
  report::write_json(json, with);
  report::write_console(text, with);
  EXPECT_NE(json.str().find("\"host_rules\":[{\"pattern\":\"swap:op\""), std::string::npos) << json.str();
  EXPECT_NE(json.str().find("\"host_speedup\":"), std::string::npos);
  EXPECT_NE(text.str().find("host calls in ranges /swap:op/"), std::string::npos) << text.str();
  EXPECT_THROW(project::parse_host_range_speedup("swap:op"), input_error);
  EXPECT_THROW(project::parse_host_range_speedup("swap:op=0"), input_error);
}

TEST(SwapCheck, RulesThatTakeNothingOrNoRulesAreRefused) {
  const auto before = program(4, {{gelu, 50, ""}});
  const auto after = program(4, {{"gelu_tanh_kernel", 25, ""}});
  EXPECT_THROW(check(before, after, {}), input_error);
  EXPECT_THROW(check(before, after, {project::parse_kernel_speedup("LayerNorm=2")}), input_error);
  EXPECT_THROW(project::parse_range_speedup("swap:gelu"), input_error);
}

TEST(SwapCheck, JsonAndSectionCarryTheFiguresAndTheAudit) {
  const auto before = program(6, {{gelu, 50, ""}, {gelu_backward, 40, ""}});
  const auto after = program(6, {{"gelu_tanh_kernel", 25, ""}, {gelu_backward, 40, ""}});
  const auto s = check(before, after, {project::parse_kernel_speedup("Gelu(Backward)?CUDAKernelImpl=2")});
  std::ostringstream json, section, text;
  report::write_json(json, s);
  report::write_section_json(section, s, "GELU swap", "gpt_train");
  report::write_console(text, s);
  EXPECT_NE(json.str().find("\"headroom_swap_check\":1"), std::string::npos);
  EXPECT_NE(json.str().find("\"fallbacks\":1"), std::string::npos);
  EXPECT_NE(json.str().find("\"every_target_replaced\":false"), std::string::npos);
  EXPECT_NE(section.str().find("\"headroom_report_section\":1"), std::string::npos);
  EXPECT_NE(section.str().find("\"workload\":\"gpt_train\""), std::string::npos);
  EXPECT_NE(text.str().find("Route audit: 1 of 2 targeted kernels still run (fallbacks)"), std::string::npos);
}

}  // namespace
