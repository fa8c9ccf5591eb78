// Golden tests: the study's tables (summary.md) and its JSON (summary.json), line by line, from a
// fabricated study of three rows: a transformer recorded by both profilers, a recommender by
// torch.profiler only, a failed vision run. HEADROOM_UPDATE_GOLDEN=1 rewrites the golden files.
#include <gtest/gtest.h>

#include <sstream>

#include "golden.hpp"
#include "headroom/study/summary_output.hpp"

using namespace headroom;

namespace {

const std::string golden_dir = std::string(HEADROOM_SOURCE_DIR) + "/tests/cpu/report/golden/";

study::run_figures figures(std::int64_t wall, int steps, std::int64_t busy, std::int64_t kernels,
                           std::int64_t addressable, std::int64_t gemm, std::int64_t attention, std::string source) {
  study::run_figures f;
  f.window_source = std::move(source);
  f.window_description = "steps ProfilerStep#1..#10 (10 steps; 1 skipped as warm-up)";
  f.device = "rank 0 / GPU 0 (NVIDIA H200)";
  f.steps = steps;
  f.timelines = 1;
  f.wall = wall;
  f.busy = busy;
  f.kernel_busy = kernels;
  f.addressable = addressable;
  f.addressable_exclusive = addressable - addressable / 10;
  f.gemm = gemm;
  f.attention = attention;
  return f;
}

study::study_summary three_rows() {
  study::study_summary s;
  s.folder = "study-large";
  s.preset = "large";
  study::study_row gpt;
  gpt.workload = "gpt_train";
  gpt.domain = "transformer";
  gpt.variant = "eager";
  gpt.headroom.status = "ok";
  gpt.headroom.folder = "runs/gpt_train.eager.headroom";
  gpt.headroom.figures_from = "trace";
  gpt.headroom.figures =
      figures(1'486'000'000, 10, 1'460'000'000, 1'455'000'000, 397'000'000, 800'000'000, 260'000'000, "step_markers");
  gpt.headroom.all_steps_figures =
      figures(1'634'000'000, 11, 1'606'000'000, 1'600'000'000, 440'000'000, 880'000'000, 286'000'000, "step_markers");
  gpt.headroom.harness = study::harness_figures{
      0.1485, 21.5, 12, "NVIDIA H200", "2.11.0+cu130", "nvtx", "gpt L12 d2048 seq2048 batch8 (680M params, autocast)"};
  gpt.torch.status = "ok";
  gpt.torch.folder = "runs/gpt_train.eager.torch";
  gpt.torch.figures_from = "analysis.json";
  gpt.torch.figures =
      figures(1'475'000'000, 10, 1'450'000'000, 1'445'000'000, 390'000'000, 795'000'000, 258'000'000, "repeating_unit");
  gpt.torch.all_steps_figures =
      figures(1'770'000'000, 0, 1'740'000'000, 1'735'000'000, 470'000'000, 954'000'000, 310'000'000, "whole_span");
  gpt.torch.harness = study::harness_figures{0.1475, 20.9, 12, "NVIDIA H200", "2.11.0+cu130", "nvtx", "gpt"};
  study::study_row dlrm;
  dlrm.workload = "dlrm_train";
  dlrm.domain = "recommender";
  dlrm.variant = "compile";
  dlrm.torch.status = "ok";
  dlrm.torch.folder = "runs/dlrm_train.compile.torch";
  dlrm.torch.figures = figures(62'250'000, 5, 57'000'000, 56'000'000, 47'500'000, 6'000'000, 0, "repeating_unit");
  study::study_row vit;
  vit.workload = "vit_infer";
  vit.domain = "vision";
  vit.variant = "eager";
  vit.headroom.status = "timed out: ran past its 180 s timeout; last line of the log: step | 3";
  vit.headroom.folder = "runs/vit_infer.eager.headroom";
  s.rows = {gpt, dlrm, vit};
  s.notes = {
      "1 run read from analysis.json (the trace was not copied with the folder): rules given now do not apply to it"};
  return s;
}

}  // namespace

TEST(StudyOutput, MarkdownTablesMatchGolden) {
  std::ostringstream out;
  study::write_markdown(out, three_rows());
  test::expect_golden(out.str(), golden_dir + "study_summary.md");
}

TEST(StudyOutput, JsonMatchesGolden) {
  std::ostringstream out;
  study::write_json(out, three_rows());
  test::expect_golden(out.str(), golden_dir + "study_summary.json");
}

TEST(StudyOutput, AStudyWithoutFiguresSaysSo) {
  study::study_summary s;
  s.folder = "empty";
  std::ostringstream out;
  study::write_markdown(out, s);
  EXPECT_NE(out.str().find("No run of this study has figures yet."), std::string::npos) << out.str();
}
