#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "headroom/generate/feedback.hpp"
#include "headroom/generate/prompt.hpp"
#include "headroom/util/error.hpp"

using namespace headroom::generate;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(Prompt, RenderReplacesNamesAndRefusesUnknownOnes) {
  EXPECT_EQ(render("a {{x}} b {{y}}{{x}}", {{"x", "1"}, {"y", "{{x}}"}}, "t"), "a 1 b {{x}}1");
  EXPECT_EQ(render("no names } {", {}, "t"), "no names } {");
  try {
    render("{{problem}}", {{"problem_source", ""}}, "mine.md");
    FAIL();
  } catch (const headroom::input_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("mine.md: unknown template name {{problem}} (known here: problem_source)"));
  }
}

TEST(Prompt, TheFirstTurnHoldsTheTaskTheProblemAndTheExample) {
  model_config c;
  const auto t = templates_for(c);
  auto m = first_turn_messages(t, true, "level1/19_ReLU", "class Model:\n    pass\n\n");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].role, "system");
  EXPECT_EQ(m[1].role, "user");
  EXPECT_THAT(m[1].content, HasSubstr("(level1/19_ReLU):\n\n```python\nclass Model:\n    pass\n```"));
  EXPECT_THAT(m[1].content, HasSubstr("load_inline"));
  EXPECT_THAT(m[1].content, HasSubstr("relu_scale_kernel"));  // the worked example
  EXPECT_THAT(m[1].content, Not(HasSubstr("{{")));
  auto bare = first_turn_messages(t, false, "p", "x");
  EXPECT_THAT(bare[1].content, Not(HasSubstr("relu_scale_kernel")));
}

TEST(Prompt, UsersTemplatesAreReadAndChecked) {
  const auto dir = std::filesystem::temp_directory_path() / ("headroom_prompt_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "task.md") << "Speed up {{problem_name}}:\n{{problem_source}}\n";
  std::ofstream(dir / "feedback.md") << "Turn {{turn}} got {{verdict}}\n";
  model_config c;
  c.user_template = (dir / "task.md").string();
  const auto t = templates_for(c);
  EXPECT_EQ(first_turn_messages(t, true, "p1", "src")[1].content, "Speed up p1:\nsrc\n");
  c.feedback_template = (dir / "feedback.md").string();
  try {
    templates_for(c);
    ADD_FAILURE() << "a template with an unknown name was taken";
  } catch (const headroom::input_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("feedback.md: unknown template name {{verdict}}"));
  }
  c.feedback_template = (dir / "missing.md").string();
  EXPECT_THROW(templates_for(c), headroom::input_error);
  std::filesystem::remove_all(dir);
}

TEST(Feedback, AMismatchShowsTheVerdictAndTheFirstMismatch) {
  headroom::record::evaluation e;
  e.result = headroom::record::verdict::incorrect;
  e.env.device = "cpu";
  e.reasons = {{"mismatch", "output 0: 16384 of 16384 elements differ; first at [0, 0]: expected 1.5, got 3"}};
  e.errors.trials = 4;
  e.errors.trials_passed = 0;
  e.errors.normwise_error = 0.5;
  e.log = "not shown for a mismatch";
  const auto f = feedback_for(e);
  EXPECT_THAT(f.evaluation, HasSubstr("on cpu"));
  EXPECT_THAT(f.evaluation, HasSubstr("Verdict: incorrect."));
  EXPECT_THAT(f.evaluation,
              HasSubstr("- mismatch: output 0: 16384 of 16384 elements differ; first at [0, 0]: expected 1.5, got 3"));
  EXPECT_THAT(f.evaluation, HasSubstr("0 of 4 trials passed"));
  EXPECT_THAT(f.evaluation, Not(HasSubstr("not shown")));
  EXPECT_THAT(f.request, HasSubstr("fix what makes its outputs differ"));
}

TEST(Feedback, ABuildErrorShowsTheLogsEnd) {
  headroom::record::evaluation e;
  e.result = headroom::record::verdict::compile_error;
  e.log = std::string(5000, 'x') + "\nerror: identifier \"blockIdx\" is undefined";
  const auto f = feedback_for(e, 100);
  EXPECT_THAT(f.evaluation, HasSubstr("Verdict: compile_error."));
  EXPECT_THAT(f.evaluation, HasSubstr("...\n"));
  EXPECT_THAT(f.evaluation, HasSubstr("error: identifier \"blockIdx\" is undefined\n```"));
  EXPECT_LT(f.evaluation.size(), 600u);
  EXPECT_THAT(f.evaluation, Not(HasSubstr("trials passed")));
  EXPECT_EQ(f.request, "fix the build error.");
}

TEST(Feedback, ACorrectKernelShowsItsSpeedupAndSpeedOfLight) {
  headroom::record::evaluation e;
  e.result = headroom::record::verdict::correct;
  e.env.device = "cuda:0";
  e.speedup = 1.8;
  e.candidate_timing = headroom::record::timing_summary{};
  e.candidate_timing->median_ms = 0.2;
  e.eager_timing = headroom::record::timing_summary{};
  e.eager_timing->median_ms = 0.36;
  e.speed_of_light_ms = 0.05;
  auto f = feedback_for(e);
  EXPECT_THAT(f.evaluation, HasSubstr("Speedup over PyTorch eager: 1.8x (0.2 ms per call against 0.36 ms)."));
  EXPECT_THAT(f.evaluation, HasSubstr("0.05 ms, 25% of it reached."));
  e.sol_gap_closed = (0.36 - 0.2) / (0.36 - 0.05);
  f = feedback_for(e);
  EXPECT_THAT(f.evaluation, HasSubstr("0.05 ms, 25% of it reached; 52% of the gap from PyTorch eager to it closed."));
  EXPECT_EQ(f.request, "keep it correct and make it faster.");
}

TEST(Feedback, AnAnswerWithoutCode) {
  const auto f = feedback_for(std::nullopt);
  EXPECT_THAT(f.evaluation, HasSubstr("Verdict: no_code."));
}
