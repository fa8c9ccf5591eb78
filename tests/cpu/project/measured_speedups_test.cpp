// Where measured speedups come from: evaluations (a results store), CSV files, problem categories.
#include <gtest/gtest.h>

#include <fstream>

#include "headroom/project/measured_speedups.hpp"
#include "headroom/util/error.hpp"

using namespace headroom;
using namespace headroom::project;
using classify::category;

namespace {

record::evaluation evaluation(std::string source, std::string problem, record::verdict v, std::optional<double> speedup,
                              std::vector<record::reason> reasons = {}) {
  record::evaluation e;
  e.source = std::move(source);
  e.problem = std::move(problem);
  e.candidate_hash = e.source + e.problem + std::to_string(speedup.value_or(0));
  e.result = v;
  e.speedup = speedup;
  e.reasons = std::move(reasons);
  return e;
}

std::filesystem::path write_file(const std::string& name, const std::string& text) {
  const auto p =
      std::filesystem::temp_directory_path() / ("headroom-measured-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream(p) << text;
  return p;
}

}  // namespace

TEST(ProblemCategories, KnowEveryKernelBenchProblemOfLevelsOneToThree) {
  const auto c = problem_categories::with_defaults();
  EXPECT_EQ(c.problem_count(), 250u + 12u);
  EXPECT_EQ(c.of_problem("level1/19_ReLU")->kernels, category::elementwise);
  EXPECT_EQ(c.of_problem("level1/1_Square_matrix_multiplication_")->kernels, category::gemm);
  EXPECT_EQ(c.of_problem("level1/23_Softmax")->kernels, category::softmax);
  // Pooling and losses are reductions to the classifier (data/rules/80-aten.toml), scans sort_scan.
  EXPECT_EQ(c.of_problem("level1/42_Max_Pooling_2D")->name, "pooling");
  EXPECT_EQ(c.of_problem("level1/42_Max_Pooling_2D")->kernels, category::reduction);
  EXPECT_EQ(c.of_problem("level1/95_CrossEntropyLoss")->kernels, category::reduction);
  EXPECT_EQ(c.of_problem("level1/89_cumsum")->kernels, category::sort_scan);
  EXPECT_EQ(c.of_problem("level1/97_ScaledDotProductAttention")->kernels, category::attention);
  EXPECT_EQ(c.of_problem("level2/1_Conv2D_ReLU_BiasAdd")->kernels, category::convolution);
  EXPECT_EQ(c.of_problem("level2/12_Gemm_Multiply_LeakyReLU")->kernels, category::gemm);
  EXPECT_EQ(c.of_problem("level3/44_MiniGPTBlock")->kernels, category::attention);
  EXPECT_FALSE(c.of_problem("level1/19_ReLU_typo"));
  // DLRM-Bench, as `headroom eval suites/dlrm-bench/problems` names its problems.
  EXPECT_EQ(c.of_problem("problems/01_embedding_bag_zipf")->kernels, category::embedding);
  EXPECT_EQ(c.of_problem("problems/05_dot_interaction")->name, "interaction");
  EXPECT_EQ(c.of_problem("problems/10_sampled_softmax_loss")->kernels, category::reduction);
  EXPECT_EQ(c.category("interaction")->kernels, category::gemm);
}

TEST(ProblemCategories, AUserFileOverridesAndBadEntriesAreNamed) {
  auto c = problem_categories::with_defaults();
  c.add_text("[problems]\n\"level1/19_ReLU\" = \"embedding\"\n\"mine/tbe\" = \"embedding\"\n", "mine.toml");
  EXPECT_EQ(c.of_problem("level1/19_ReLU")->kernels, category::embedding);
  EXPECT_EQ(c.of_problem("mine/tbe")->kernels, category::embedding);
  try {
    c.add_text("[problems]\n\"x\" = \"gemmm\"\n", "bad.toml");
    FAIL() << "an unknown category must be refused";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.toml"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("'x'"), std::string::npos);
  }
  EXPECT_THROW(c.add_text("[kernel_categories]\nloss = \"nope\"\n", "bad.toml"), input_error);
  EXPECT_THROW(c.add_text("[problem]\n", "bad.toml"), input_error);
}

TEST(MeasuredSpeedups, AWrongSlowerOrFlaggedCandidateCountsAsOneX) {
  const auto cats = problem_categories::with_defaults();
  const std::vector<record::evaluation> rows{
      evaluation("m", "level1/19_ReLU", record::verdict::correct, 1.5),
      evaluation("m", "level1/19_ReLU", record::verdict::correct, 0.8),
      evaluation("m", "level1/19_ReLU", record::verdict::incorrect, std::nullopt),
      evaluation("m", "level1/19_ReLU", record::verdict::correct, 3.0, {{"other_stream_work", "hidden work"}}),
      evaluation("m", "level1/23_Softmax", record::verdict::reference_error, std::nullopt),
      evaluation("m", "my/own_problem", record::verdict::correct, 2.0),
      evaluation("reference", "level1/19_ReLU", record::verdict::correct, 1.0),
  };
  const auto sources = sources_from_evaluations(rows, cats, "kb.sqlite");
  ASSERT_EQ(sources.size(), 1u) << "the reference source is the harness's own check, not a model";
  const auto& s = sources[0];
  ASSERT_EQ(s.problems.size(), 2u) << "a reference_error says nothing about the candidate";
  const auto& relu = s.problems[0].problem == "level1/19_ReLU" ? s.problems[0] : s.problems[1];
  EXPECT_EQ(relu.effective, (std::vector<double>{1.5, 1.0, 1.0, 1.0}));
  EXPECT_EQ(relu.category->kernels, category::elementwise);
  const auto& own = s.problems[0].problem == "my/own_problem" ? s.problems[0] : s.problems[1];
  EXPECT_FALSE(own.category);
  ASSERT_TRUE(s.figures);
  EXPECT_EQ(s.figures->evaluations, 5);
  EXPECT_EQ(s.figures->correct, 4);
  EXPECT_EQ(s.verified_speedups, (std::vector<double>{0.8, 1.5, 2.0}));
}

TEST(SpeedupsCsv, TheBundledPublishedFiguresRead) {
  const auto sources = read_speedups_csv(HEADROOM_SOURCE_DIR "/data/results/published-figures.csv", std::nullopt,
                                         problem_categories::with_defaults());
  ASSERT_EQ(sources.size(), 2u);
  EXPECT_EQ(sources[0].name, "recommender");
  ASSERT_TRUE(sources[0].published_only());
  EXPECT_DOUBLE_EQ(sources[0].summaries[0].win_rate, 0.417);
  EXPECT_DOUBLE_EQ(sources[0].summaries[0].median_win, 1.552);
  EXPECT_FALSE(sources[0].summaries[0].problems);
  EXPECT_EQ(sources[1].name, "transformer");
  EXPECT_EQ(*sources[1].summaries[0].problems, 56);
  EXPECT_EQ(*sources[1].summaries[0].wins, 22);
  EXPECT_NEAR(sources[1].summaries[0].win_rate, 22.0 / 56, 1e-12);
}

TEST(SpeedupsCsv, ADistributionWithQuotedFieldsAndCategories) {
  const auto p = write_file(
      "dist.csv",
      "# one row per candidate\r\nsource,problem,category,speedup\r\n"
      "\"model, large\",level1/19_ReLU,,1.25\r\nmodel,mine/tbe,embedding,\r\nmodel,mine/tbe,embedding,2.5\r\n");
  const auto s = read_speedups_csv(p, std::nullopt, problem_categories::with_defaults());
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].name, "model");
  ASSERT_EQ(s[0].problems.size(), 1u);
  EXPECT_EQ(s[0].problems[0].category->kernels, category::embedding);
  EXPECT_EQ(s[0].problems[0].effective, (std::vector<double>{1.0, 2.5}));
  EXPECT_EQ(s[1].name, "model, large");
  EXPECT_EQ(s[1].problems[0].category->kernels, category::elementwise);
  std::filesystem::remove(p);
}

TEST(SpeedupsCsv, InconsistentOrIncompleteFiguresAreRefusedWithTheLine) {
  const auto cats = problem_categories::with_defaults();
  const auto expect_error = [&](const std::string& text, const std::string& needle) {
    const auto p = write_file("bad.csv", text);
    try {
      read_speedups_csv(p, std::nullopt, cats);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const input_error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
    std::filesystem::remove(p);
  };
  expect_error("category,problems,wins,win_rate,median_speedup\nall,56,22,0.5,1.2\n", ":2: column 'win_rate'");
  expect_error("category,win_rate,median_speedup\nall,0.4,0.9\n", "median_speedup");
  expect_error("category,win_rate,median_speedup\ngemmm,0.4,1.2\n", "unknown category 'gemmm'");
  expect_error("category,win_rate,median_speedup\nloss,0.4,1.2\npooling,0.3,1.1\n", "kernel category 'reduction'");
  expect_error("problem,speedup\nlevel1/19_ReLU,fast\n", "not a non-negative number");
  expect_error("problem,speedup\nlevel1/19_ReLU,1.2,3\n", "3 fields where the header has 2");
  expect_error("a,b\n1,2\n", "expected a distribution");
}
