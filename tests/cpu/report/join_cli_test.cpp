// `headroom project --results` end to end: the executable joins a results store (written through the
// store's public API, as `headroom eval` writes it) to a bundled trace.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "headroom/eval/results_store.hpp"

using namespace headroom;

namespace {

const std::string dlrm = HEADROOM_SOURCE_DIR "/tests/data/h200-dlrm-train.json.gz";

record::evaluation evaluation(const std::string& source, const std::string& problem, const std::string& candidate,
                              record::verdict v, std::optional<double> speedup) {
  record::evaluation e;
  e.source = source;
  e.problem = problem;
  e.problem_hash = "sha-" + problem;
  e.candidate_hash = "sha-" + source + "-" + problem + "-" + candidate;
  e.candidate_path = candidate + ".py";
  e.result = v;
  e.speedup = speedup;
  return e;
}

struct run_result {
  int status = -1;
  std::string out;
  std::string err;
};

run_result run(const std::filesystem::path& dir, const std::string& args) {
  const auto out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string cmd =
      std::string("'") + HEADROOM_CLI + "' " + args + " >'" + out.string() + "' 2>'" + err.string() + "'";
  const int rc = std::system(cmd.c_str());
  run_result r;
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  std::stringstream o, e;
  o << std::ifstream(out).rdbuf();
  e << std::ifstream(err).rdbuf();
  r.out = o.str();
  r.err = e.str();
  return r;
}

class JoinCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("headroom-join-cli-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    eval::results_store store(dir_ / "kb.sqlite");
    // Elementwise problems (which the DLRM step has addressable time in) and a gemm one (which it has none of).
    store.put(evaluation("model-a", "level1/19_ReLU", "a", record::verdict::correct, 1.5));
    store.put(evaluation("model-a", "level1/19_ReLU", "b", record::verdict::incorrect, std::nullopt));
    store.put(evaluation("model-a", "level1/21_Sigmoid", "a", record::verdict::correct, 0.8));
    store.put(evaluation("model-a", "level1/88_MinGPTNewGelu", "a", record::verdict::correct, 2.0));
    store.put(evaluation("model-a", "level1/1_Square_matrix_multiplication_", "a", record::verdict::correct, 3.0));
    store.put(evaluation("model-b", "level1/19_ReLU", "a", record::verdict::compile_error, std::nullopt));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

}  // namespace

TEST_F(JoinCli, ThreeEstimatesWithIntervalsForEachSourceOfAStore) {
  const auto r = run(dir_, "project '" + dlrm + "' --results '" + (dir_ / "kb.sqlite").string() + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Source 'model-a'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Source 'model-b'"), std::string::npos);
  EXPECT_NE(r.out.find("published: f_c * win rate * (1 - 1/median win)"), std::string::npos);
  EXPECT_NE(r.out.find("expectation over the distribution (wrong or slower = 1x)"), std::string::npos);
  EXPECT_NE(r.out.find("best candidate per problem"), std::string::npos);
  EXPECT_NE(r.out.find("no embedding problem: pooled over all 4 problems"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("elementwise"), std::string::npos);
  EXPECT_NE(r.out.find("3 problems"), std::string::npos) << "ReLU, Sigmoid and GELU are elementwise";
  EXPECT_NE(r.out.find("not applied: gemm (1)"), std::string::npos) << "no addressable gemm time in this step";
}

TEST_F(JoinCli, OneSourceAndNothingForUncoveredCategories) {
  const auto r = run(dir_, "project '" + dlrm + "' --results '" + (dir_ / "kb.sqlite").string() +
                               "' --source model-a --uncovered none --json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("\"model-b\""), std::string::npos);
  EXPECT_NE(r.out.find("\"basis\": \"none\""), std::string::npos);
  EXPECT_NE(r.out.find("\"expectation\": {\"time_saved\": "), std::string::npos);
  const auto bad =
      run(dir_, "project '" + dlrm + "' --results '" + (dir_ / "kb.sqlite").string() + "' --source nobody");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("no evaluations of source 'nobody'"), std::string::npos) << bad.err;
}
