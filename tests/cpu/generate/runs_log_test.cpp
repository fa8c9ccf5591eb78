#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "headroom/generate/request_log.hpp"
#include "headroom/generate/runs_folder.hpp"
#include "headroom/util/error.hpp"

using namespace headroom::generate;
namespace fs = std::filesystem;

namespace {
headroom::eval::problem_spec problem(const std::string& path) {
  headroom::eval::problem_spec p;
  p.path = path;
  p.id = fs::path(path).parent_path().filename().string() + "/" + fs::path(path).stem().string();
  return p;
}
}  // namespace

TEST(RunsFolder, KernelBenchNames) {
  auto n = name_problems({problem("/kb/level2/19_ReLU.py"), problem("/kb/other/007_conv.py"), problem("/x/relu.py")});
  EXPECT_EQ(candidate_file_name(n[0], 3), "level_2_problem_19_sample_3_kernel.py");
  EXPECT_EQ(candidate_file_name(n[1], 0), "level_1_problem_007_sample_0_kernel.py");
  EXPECT_EQ(candidate_file_name(n[2], 1), "relu_sample_1_kernel.py");
  EXPECT_EQ(turn_folder("/runs", "m", 1), fs::path("/runs/m"));
  EXPECT_EQ(turn_folder("/runs", "m", 3), fs::path("/runs/m.turn3"));
}

TEST(RunsFolder, ProblemsThatWouldShareANameAreRefused) {
  EXPECT_THROW(name_problems({problem("/a/level1/19_ReLU.py"), problem("/b/level1/19_Other.py")}),
               headroom::input_error);
  EXPECT_NO_THROW(name_problems({problem("/a/level1/19_ReLU.py"), problem("/b/level2/19_Other.py")}));
}

TEST(RequestLog, LinesRoundTripAndACutLastLineIsSkipped) {
  const fs::path dir = fs::temp_directory_path() / ("headroom_log_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path path = dir / "generate.jsonl";
  {
    request_log log(path);
    log_record r;
    r.config = "alpha";
    r.problem = "level1/1_relu";
    r.sample = 1;
    r.turn = 2;
    r.attempt = 3;
    r.status = 200;
    r.tokens_in = 100;
    r.tokens_out = 250;
    r.cost = 0.00125;
    r.outcome = "candidate";
    r.answer = "```python\nclass ModelNew: \"q\"\n```";
    log.append(r);
    log_record e;
    e.kind = "evaluation";
    e.config = "alpha";
    e.problem = "level1/1_relu";
    e.verdict = "incorrect";
    e.speedup = 0.9;
    log.append(e);
  }
  { std::ofstream(path, std::ios::app) << "{\"kind\":\"request\",\"config\":\"al"; }
  int skipped = -1;
  auto records = read_log(path, &skipped);
  EXPECT_EQ(skipped, 1);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].sample, 1);
  EXPECT_EQ(records[0].turn, 2);
  EXPECT_EQ(records[0].attempt, 3);
  EXPECT_EQ(records[0].tokens_out, 250);
  EXPECT_DOUBLE_EQ(*records[0].cost, 0.00125);
  EXPECT_EQ(records[0].answer, "```python\nclass ModelNew: \"q\"\n```");
  EXPECT_EQ(records[1].kind, "evaluation");
  EXPECT_EQ(records[1].verdict, "incorrect");
  EXPECT_DOUBLE_EQ(*records[1].speedup, 0.9);
  EXPECT_TRUE(read_log(dir / "missing.jsonl").empty());
  fs::remove_all(dir);
}
