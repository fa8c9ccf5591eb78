#include "headroom/eval/jobs.hpp"
#include "headroom/eval/loaders.hpp"
#include "headroom/eval/suite.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "headroom/util/error.hpp"

using namespace headroom::eval;
using headroom::record::evaluation;
using headroom::record::verdict;
namespace fs = std::filesystem;

namespace {
fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("headroom-jobs-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}
void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}
}  // namespace

// KernelBench's runs folder names each generation after level, problem and sample; it pairs with
// the problem file whose name starts with the problem number.
TEST(Jobs, KernelBenchRunsNamesPairWithTheirProblems) {
  fs::path d = scratch("kb");
  write(d / "level1" / "19_ReLU.py", "class Model: pass\n");
  write(d / "level1" / "1_Square_matrix_multiplication_.py", "class Model: pass\n");
  write(d / "runs" / "gpt5" / "level_1_problem_19_sample_0_kernel.py", "class ModelNew: pass\n");
  write(d / "runs" / "gpt5" / "level_1_problem_1_sample_0_kernel.py", "class ModelNew: pass  # 1\n");
  auto problems = find_problems({d / "level1"});
  ASSERT_EQ(problems.size(), 2u);
  auto jobs = pair_candidates(problems, {d / "runs" / "gpt5"}, "");
  ASSERT_EQ(jobs.size(), 2u);
  for (const auto& j : jobs) {
    EXPECT_EQ(j.candidate.source, "gpt5");
    std::string c = j.candidate.path.filename().string();
    if (c.find("problem_19_") != std::string::npos) EXPECT_EQ(j.problem.id, "level1/19_ReLU");
    else EXPECT_EQ(j.problem.id, "level1/1_Square_matrix_multiplication_");
  }
  fs::remove_all(d);
}

TEST(Jobs, AGenerationsFileNameGivesItsLevelProblemAndSample) {
  const auto g = parse_generation_name("level_2_problem_17_sample_3_kernel.py");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->level, "2");
  EXPECT_EQ(g->problem, "17");
  EXPECT_EQ(g->sample, "3");
  // Anything else is not a generation, so it can be a problem or a candidate of another name.
  EXPECT_FALSE(parse_generation_name("17_Matmul.py"));
  EXPECT_FALSE(parse_generation_name("level_2_problem_17_sample_3_kernel.py.bak"));
  EXPECT_FALSE(parse_generation_name("level_2_problem_x_sample_3_kernel.py"));
}

TEST(Jobs, CandidatesNamedAfterTheProblemPairWithTheLongestMatchingStem) {
  fs::path d = scratch("stem");
  write(d / "p" / "softmax.py", "");
  write(d / "p" / "softmax_wide.py", "x");
  write(d / "c" / "softmax_wide_v2.py", "y");
  write(d / "c" / "softmax.fast.py", "z");
  auto jobs = pair_candidates(find_problems({d / "p"}), {d / "c"}, "mine");
  ASSERT_EQ(jobs.size(), 2u);
  for (const auto& j : jobs) {
    if (j.candidate.path.filename() == "softmax_wide_v2.py") EXPECT_EQ(j.problem.id, "p/softmax_wide");
    else EXPECT_EQ(j.problem.id, "p/softmax");
    EXPECT_EQ(j.candidate.source, "mine");
  }
  fs::remove_all(d);
}

TEST(Jobs, AnUnpairableCandidateIsNamedInTheError) {
  fs::path d = scratch("unpaired");
  write(d / "p" / "a.py", "");
  write(d / "p" / "b.py", "");
  write(d / "c" / "zzz.py", "");
  try {
    pair_candidates(find_problems({d / "p"}), {d / "c"}, "");
    FAIL() << "expected an input_error";
  } catch (const headroom::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("zzz.py"), std::string::npos);
  }
  fs::remove_all(d);
}

// Content addressing: the same bytes give the same hash wherever the file is.
TEST(Jobs, CandidatesAreIdentifiedByTheHashOfTheirBytes) {
  fs::path d = scratch("hash");
  write(d / "a" / "x.py", "same");
  write(d / "b" / "y.py", "same");
  EXPECT_EQ(load_candidate(d / "a" / "x.py", "s").hash, load_candidate(d / "b" / "y.py", "s").hash);
  EXPECT_EQ(load_candidate(d / "a" / "x.py", "s").hash.size(), 64u);
  fs::remove_all(d);
}

TEST(Jobs, SuiteExpectationsRequireTheVerdictAndEveryListedReason) {
  suite_case c;
  c.expect = verdict::incorrect;
  c.reasons = {"unwritten_output"};
  evaluation e;
  e.result = verdict::incorrect;
  e.reasons = {{"mismatch", "x"}};
  std::string why;
  EXPECT_FALSE(meets_expectation(c, e, why));
  EXPECT_NE(why.find("unwritten_output"), std::string::npos);
  e.reasons.push_back({"unwritten_output", "y"});
  EXPECT_TRUE(meets_expectation(c, e, why));
  // A correct case with no listed reasons must carry no disqualifying flag.
  suite_case ok;
  ok.expect = verdict::correct;
  evaluation flagged;
  flagged.result = verdict::correct;
  flagged.reasons = {{"torch_fallback", "relu"}};
  EXPECT_FALSE(meets_expectation(ok, flagged, why));
}

TEST(Jobs, SuiteCasesAreMatchedToTheirEvaluationByHashesAndAMissingOneIsNamed) {
  suite_case cpu_only;
  cpu_only.name = "zeros";
  cpu_only.expect = verdict::incorrect;
  cpu_only.devices = {"cpu"};
  cpu_only.job.candidate.hash = "c1";
  cpu_only.job.problem.hash = "p1";
  suite_case both = cpu_only;
  both.name = "correct";
  both.expect = verdict::correct;
  both.devices = {"cpu", "cuda"};
  both.job.candidate.hash = "c2";
  EXPECT_EQ(cases_for({cpu_only, both}, "cuda").size(), 1u);
  const auto cases = cases_for({cpu_only, both}, "cpu");
  ASSERT_EQ(cases.size(), 2u);

  evaluation other_problem;  // the same candidate on another problem is not the case's evaluation
  other_problem.candidate_hash = "c1";
  other_problem.problem_hash = "p2";
  other_problem.result = verdict::incorrect;
  evaluation e;
  e.candidate_hash = "c2";
  e.problem_hash = "p1";
  e.result = verdict::incorrect;
  e.reasons = {{"mismatch", "output 0"}};
  const auto outcomes = judge_cases(cases, {other_problem, e});
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_EQ(outcomes[0].got, nullptr);
  EXPECT_FALSE(outcomes[0].ok);
  EXPECT_EQ(outcomes[0].why, "not evaluated");
  ASSERT_NE(outcomes[1].got, nullptr);
  EXPECT_FALSE(outcomes[1].ok);
  EXPECT_NE(outcomes[1].why.find("expected correct, got incorrect"), std::string::npos) << outcomes[1].why;
}
