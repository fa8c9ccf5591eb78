// Golden files of `project --replay`'s console table and JSON, on a fabricated trace where another
// stream's work hides the shrink. HEADROOM_UPDATE_GOLDEN=1 rewrites them (review the diff).
#include <gtest/gtest.h>

#include <sstream>

#include "golden.hpp"
#include "headroom/report/replay_output.hpp"
#include "project/replay_builder.hpp"

using namespace headroom;

namespace {

const std::string golden_dir = std::string(HEADROOM_SOURCE_DIR) + "/tests/cpu/report/golden/";

constexpr trace::time_ns us(int v) { return static_cast<trace::time_ns>(v) * 1000; }

// A 300 us GEMM on stream 7 beside ten 20 us Triton kernels on stream 13; each step ends in
// cudaDeviceSynchronize.
project::replay_projection overlap_projection() {
  test::replay_builder b;
  trace::time_ns t0 = us(1000);
  for (int s = 0; s <= 3; ++s) {
    b.step(s + 1, t0, t0 + us(310));
    b.launch(t0, t0 + us(5), test::gemm, t0 + us(6), t0 + us(306), 7);
    for (int k = 0; k < 10; ++k) {
      b.launch(t0 + us(6 + 6 * k), t0 + us(11 + 6 * k), test::triton, t0 + us(12 + 21 * k), t0 + us(32 + 21 * k), 13);
    }
    const auto c = b.call("cudaDeviceSynchronize", t0 + us(66), t0 + us(309));
    b.sync(trace::sync_kind::context_synchronize, c, t0 + us(66), t0 + us(309));
    t0 += us(312);
  }
  analyze::analyze_options o;
  o.warmup_steps = 0;
  return project::project_replay(b.t, test::test_classifier(), o, {project::parse_kernel_speedup("triton_=2")});
}

TEST(ReplayOutput, ConsoleTableMatchesGolden) {
  std::ostringstream out;
  report::write_console(out, overlap_projection());
  test::expect_golden(out.str(), golden_dir + "replay.txt");
}

TEST(ReplayOutput, JsonMatchesGolden) {
  std::ostringstream out;
  report::write_json(out, overlap_projection());
  test::expect_golden(out.str(), golden_dir + "replay.json");
}

}  // namespace
