// `headroom reverify`'s plan: which stored rows are rerun and from what, which stored speedups a
// rerun without timing would replace, and which verdicts a rerun changed.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "eval/results_rows.hpp"
#include "headroom/eval/check.hpp"
#include "headroom/eval/reverify.hpp"
#include "headroom/util/sha256.hpp"

using namespace headroom;
using record::verdict;
using headroom::test::row;
using headroom::test::scratch_dir;

namespace {

const std::string problem_text = "import torch\nclass Model(torch.nn.Module):\n    pass\n";

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A row whose candidate and problem are stored with their texts, keyed by the texts' hashes (as
// `headroom eval` stores them).
record::evaluation stored(eval::results_store& store, const std::string& candidate, const std::string& text, verdict v,
                          std::optional<double> speedup = std::nullopt) {
  auto e = row("gpt-5/level1", candidate, v, speedup);
  e.checker = eval::checker_version;
  e.candidate_hash = util::sha256_hex(text);
  e.problem_hash = util::sha256_hex(problem_text);
  store.put_candidate({e.candidate_hash, e.source, e.candidate_path, text});
  store.put_problem({e.problem, e.problem_hash, "problems/level1/19_ReLU.py", problem_text});
  store.put(e);
  return e;
}

class reverify_plan_test : public ::testing::Test {
 protected:
  scratch_dir dir{"reverify"};
  eval::results_store store{(dir / "results.sqlite").string()};
};

TEST_F(reverify_plan_test, RerunsEachStoredRowFromTheStoredTextsUnderTheSameKey) {
  const std::string text = "class ModelNew:\n    pass  # the stored candidate\n";
  const auto e = stored(store, "g1", text, verdict::correct, 2.0);
  const auto plan = eval::plan_reverify(store, {}, dir / "plan");
  ASSERT_EQ(plan.jobs.size(), 1u);
  ASSERT_EQ(plan.before.size(), 1u);
  const auto& job = plan.jobs.front();
  // The rerun reads the texts written from the store, not the original files (which may be gone).
  EXPECT_TRUE(job.candidate.path.string().starts_with((dir / "plan").string()));
  EXPECT_EQ(read(job.candidate.path), text);
  EXPECT_EQ(read(job.problem.path), problem_text);
  // Its row has the stored row's key, so a rerun under the same checker replaces it.
  EXPECT_EQ(job.candidate.hash, e.candidate_hash);
  EXPECT_EQ(job.candidate.source, e.source);
  EXPECT_EQ(job.problem.hash, e.problem_hash);
  EXPECT_EQ(job.problem.id, e.problem);
  EXPECT_EQ(plan.before.front().candidate_hash, e.candidate_hash);
  EXPECT_TRUE(plan.skipped.empty());
}

TEST_F(reverify_plan_test, LeavesOutReferenceErrorsAndNamesRowsWithoutTheirText) {
  stored(store, "broken_reference", "class ModelNew: pass  # a\n", verdict::reference_error);
  auto orphan = row("gpt-5/level1", "orphan", verdict::incorrect);  // its texts were never stored
  store.put(orphan);
  const auto plan = eval::plan_reverify(store, {}, dir / "plan");
  EXPECT_TRUE(plan.jobs.empty());
  ASSERT_EQ(plan.skipped.size(), 1u);
  EXPECT_NE(plan.skipped.front().find(orphan.candidate_path), std::string::npos) << plan.skipped.front();
  EXPECT_NE(plan.skipped.front().find("missing"), std::string::npos) << plan.skipped.front();
}

TEST_F(reverify_plan_test, TimingLostNamesOnlyTimedRowsARerunWithoutTimingWouldReplace) {
  stored(store, "timed", "class ModelNew: pass  # timed\n", verdict::correct, 2.0);
  stored(store, "untimed", "class ModelNew: pass  # untimed\n", verdict::correct);
  const auto plan = eval::plan_reverify(store, {}, dir / "plan");
  ASSERT_EQ(plan.jobs.size(), 2u);

  eval::eval_options untimed;
  untimed.timing = false;
  untimed.device = "cuda:0";  // the rows' device
  const auto lost = eval::timing_lost(plan, untimed);
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost.front()->candidate_path, "runs/gpt-5/level1/timed.py");

  untimed.device = "cuda:1";  // a row of another device is kept beside the rerun's
  EXPECT_TRUE(eval::timing_lost(plan, untimed).empty());
  eval::eval_options timed = untimed;
  timed.device = "cuda:0";
  timed.timing = true;
  EXPECT_TRUE(eval::timing_lost(plan, timed).empty());
}

TEST_F(reverify_plan_test, ChangedVerdictsPairsEachOverturnedRowWithItsRerun) {
  const auto kept = stored(store, "kept", "class ModelNew: pass  # kept\n", verdict::correct, 1.5);
  const auto lax = stored(store, "lax", "class ModelNew: pass  # lax\n", verdict::correct, 3.0);
  const auto plan = eval::plan_reverify(store, {}, dir / "plan");
  auto rerun_kept = kept;
  auto rerun_lax = lax;
  rerun_lax.result = verdict::incorrect;
  const std::vector<record::evaluation> after{rerun_kept, rerun_lax};
  const auto changes = eval::changed_verdicts(plan, after);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes.front().before->candidate_hash, lax.candidate_hash);
  EXPECT_EQ(changes.front().before->result, verdict::correct);
  EXPECT_EQ(changes.front().after->result, verdict::incorrect);
}

}  // namespace
