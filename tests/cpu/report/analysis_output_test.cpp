// Golden tests: the console, JSON and CSV renderings of a small two-rank trace, line by line.
// HEADROOM_UPDATE_GOLDEN=1 rewrites the golden files (review the diff before committing it).
#include <gtest/gtest.h>

#include "golden.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "analyze/trace_builder.hpp"
#include "headroom/report/analysis_output.hpp"

using namespace headroom;
using headroom::test::trace_builder;

namespace {

const std::string golden_dir = std::string(HEADROOM_SOURCE_DIR) + "/tests/cpu/report/golden/";

// Rank 0: four ProfilerSteps with correlated launches, measured start to start (step 0 skipped as
// warm-up, step 3 closes the window: steps 1..2 over 20 us, 80% busy, 20% addressable, 10%
// exclusive of the GEMM it overlaps); rank 1: other kernels without markers, over the whole span.
trace::trace two_ranks() {
  trace_builder r0;
  r0.t.processes[0].rank = 0;
  r0.t.devices.push_back({0, 0, "NVIDIA H200", 9, 0, 132, 0});
  std::uint64_t corr = 1;
  for (int s = 0; s < 4; ++s) {
    const trace::time_ns t0 = 1'000'000 + 10'000 * s;
    r0.range("ProfilerStep#" + std::to_string(s), t0, t0 + 10'000);
    r0.launch(t0 + 10, corr).kernel(test::gemm, t0 + 1000, t0 + 5000, 7, corr);
    ++corr;
    r0.launch(t0 + 20, corr).kernel(test::triton, t0 + 4000, t0 + 6000, 8, corr);
    ++corr;
    r0.launch(t0 + 30, corr).kernel(test::nccl, t0 + 6000, t0 + 9000, 9, corr);
    ++corr;
  }
  trace_builder r1;
  r1.t.processes[0].rank = 1;
  r1.kernel(test::layer_norm, 1'000'500, 1'002'500)
      .kernel(test::flash, 1'003'000, 1'010'000)
      .copy(1'010'000, 1'011'000);
  r1.t.warn("clamped 1 event with negative duration");
  trace::trace merged;
  trace::append(merged, std::move(r0.t));
  trace::append(merged, std::move(r1.t));
  return merged;
}

analyze::analysis_report analysed() {
  analyze::analyze_options o;
  o.top_kernels = 4;
  return analyze::analyze(two_ranks(), test::test_classifier(), o);
}

void expect_golden(const std::string& text, const std::string& file) { test::expect_golden(text, golden_dir + file); }

}  // namespace

TEST(AnalysisOutput, ConsoleTableMatchesGolden) {
  std::ostringstream out;
  report::write_console(out, analysed());
  expect_golden(out.str(), "analysis.txt");
}

TEST(AnalysisOutput, JsonMatchesGolden) {
  std::ostringstream out;
  report::write_json(out, analysed());
  expect_golden(out.str(), "analysis.json");
}

TEST(AnalysisOutput, CsvMatchesGolden) {
  std::ostringstream out;
  report::write_csv(out, analysed());
  expect_golden(out.str(), "analysis.csv");
}

TEST(AnalysisOutput, ProjectionMatchesGolden) {
  std::vector<project::speedup_rule> rules{project::parse_kernel_speedup("layer_norm=2"),
                                           project::parse_category_speedup("gemm=1.5"),
                                           project::parse_addressable_speedup("1.235")};
  const auto p = project::project_amdahl(two_ranks(), test::test_classifier(), {}, rules);
  std::ostringstream out;
  report::write_console(out, p);
  expect_golden(out.str(), "projection.txt");
  std::ostringstream json;
  report::write_json(json, p);
  expect_golden(json.str(), "projection.json");
}

TEST(AnalysisOutput, JsonEscapesKernelNamesAndWritesInfinityAsNull) {
  trace_builder b;
  b.kernel("weird \"quoted\"\\name\n", 0, 100);  // custom: addressable, so f = 1 and the ceiling is infinite
  analyze::analyze_options o;
  o.mode = analyze::window_mode::whole;
  std::ostringstream out;
  report::write_json(out, analyze::analyze(b.t, test::test_classifier(), o));
  const std::string s = out.str();
  EXPECT_NE(s.find(R"("weird \"quoted\"\\name\n")"), std::string::npos) << s;
  EXPECT_NE(s.find(R"("ceiling": null)"), std::string::npos) << s;
  EXPECT_NE(s.find(R"("schema_version": 1)"), std::string::npos);
}
