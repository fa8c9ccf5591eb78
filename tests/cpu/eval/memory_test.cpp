// How much memory `headroom eval` may use and how a problem is fitted into it (docs/eval.md,
// "Memory"): the default budget read from /proc/meminfo and the memory cgroup's files, and the plan
// that keeps trials while they fit, then makes them again, then times fewer sets, then refuses.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "headroom/eval/memory_budget.hpp"
#include "candidate_sandbox.hpp"
#include "memory_plan.hpp"

namespace headroom::eval {
namespace {

constexpr std::uint64_t gib = 1ull << 30;

TEST(MemoryBudget, ReadsMemAvailableFromMeminfo) {
  const char* meminfo =
      "MemTotal:       24683584 kB\n"
      "MemFree:         5950456 kB\n"
      "MemAvailable:   21689228 kB\n"
      "Buffers:          328324 kB\n";
  EXPECT_EQ(meminfo_available(meminfo), 21689228ull * 1024);
  EXPECT_FALSE(meminfo_available("MemTotal: 1 kB\n"));
}

TEST(MemoryBudget, ACgroupLeavesItsLimitLessWhatItHoldsThatCannotBeReclaimed) {
  // cgroup v2: 8 GiB limit, 5 GiB charged of which 1 GiB is inactive page cache.
  EXPECT_EQ(cgroup_room("8589934592\n", "5368709120\n", "anon 4000000000\ninactive_file 1073741824\nactive_file 5\n"),
            8 * gib - 4 * gib);
  // cgroup v1 names the hierarchy's inactive file pages total_inactive_file.
  EXPECT_EQ(cgroup_room("4294967296\n", "3221225472\n", "inactive_file 0\ntotal_inactive_file 1073741824\n"), 2 * gib);
  // Charged beyond the limit (page cache the kernel has not reclaimed yet): nothing left.
  EXPECT_EQ(cgroup_room("1073741824\n", "2147483648\n", ""), 0u);
}

TEST(MemoryBudget, ACgroupWithoutALimitLeavesNoBound) {
  EXPECT_FALSE(cgroup_room("max\n", "5368709120\n", ""));
  EXPECT_FALSE(cgroup_room("9223372036854771712\n", "353783808\n", "total_inactive_file 132530176\n"));  // v1
  EXPECT_FALSE(cgroup_room("", "", ""));  // not a memory cgroup's folder
}

TEST(MemoryBudget, TheMachineHasSomeMemoryAvailable) {
  EXPECT_GT(available_memory(), 0u);
  EXPECT_LE(default_memory_budget(2), default_memory_budget(1) / 2 + 1);
}

TEST(MemoryPlan, KeepsTheTrialsWhileTheyFit) {
  set_bytes small{64ull << 20, 64ull << 20};
  memory_plan kept = estimate_memory(small, 4, 3, true);
  auto plan = fit_memory(small, 4, 3, kept.total());
  ASSERT_TRUE(plan);
  EXPECT_TRUE(plan->keep_trials);
  EXPECT_EQ(plan->timing_sets, 3);
  EXPECT_EQ(plan->trials, 4);
}

TEST(MemoryPlan, MakesTrialsAgainBeforeTimingFewerSets) {
  set_bytes big{gib, gib};
  memory_plan kept = estimate_memory(big, 4, 3, true);
  memory_plan made = estimate_memory(big, 4, 3, false);
  ASSERT_LT(made.total(), kept.total());
  EXPECT_LT(made.parent, kept.parent);  // the parent holds one trial instead of four
  auto plan = fit_memory(big, 4, 3, made.total());
  ASSERT_TRUE(plan);
  EXPECT_FALSE(plan->keep_trials);
  EXPECT_EQ(plan->timing_sets, 3);
  EXPECT_EQ(plan->trials, 4);  // never fewer trials

  auto tighter = fit_memory(big, 4, 3, made.total() - 1);
  ASSERT_TRUE(tighter);
  EXPECT_FALSE(tighter->keep_trials);
  EXPECT_LT(tighter->timing_sets, 3);
  EXPECT_GE(tighter->timing_sets, 1);
}

TEST(MemoryPlan, RefusesWhatDoesNotFitEvenWithOneSetAndSaysWhatItNeeds) {
  set_bytes big{4 * gib, 4 * gib};
  memory_plan least = least_memory(big, 4, 3);
  EXPECT_EQ(least.timing_sets, 1);
  EXPECT_FALSE(least.keep_trials);
  EXPECT_GT(least.total(), 8 * gib);
  EXPECT_FALSE(fit_memory(big, 4, 3, least.total() - 1));
  auto just = fit_memory(big, 4, 3, least.total());
  ASSERT_TRUE(just);
  EXPECT_EQ(just->total(), least.total());
}

TEST(MemoryPlan, GrowsWithTheProblemItsSetsAndItsTiming) {
  for (std::uint64_t bytes : {std::uint64_t{1} << 20, gib, 4 * gib}) {
    set_bytes b{bytes, bytes};
    EXPECT_LT(estimate_memory(b, 4, 1, false).total(), estimate_memory(b, 4, 3, false).total());
    EXPECT_LT(estimate_memory(b, 4, 0, false).total(), estimate_memory(b, 4, 1, false).total());  // not timed
  }
  EXPECT_LT(estimate_memory({gib, gib}, 4, 3, false).total(), estimate_memory({2 * gib, 2 * gib}, 4, 3, false).total());
  // The parent's own share stays within a small multiple of one set, however many trials there are,
  // when it does not keep them.
  for (int trials : {1, 4, 16}) EXPECT_LE(estimate_memory({gib, gib}, trials, 3, false).parent, 2 * (2 * gib));
}

// A 4 GiB output, whole in the reply of the first timed call, goes through a shared region: with
// the sandbox's 2 GiB file-size limit the candidate's worker was killed by SIGXFSZ (`crash`) on
// the H200 machine's 4 GiB problem. An evaluation worker's limit covers the memory budget; a
// compile worker keeps the default, its build folder being the only place it writes to.
TEST(MemoryBudget, ACandidatesEvaluationWorkerMayWriteAnswersAsLargeAsTheBudget) {
  const std::filesystem::path cache =
      std::filesystem::temp_directory_path() / ("headroom-memory-test-" + std::to_string(::getpid()));
  run_state run;
  run.options.cache = cache;
  run.memory_budget = 6ull << 30;
  candidate_spec c;
  c.hash = "0123456789abcdef";
  c.text = "class ModelNew: pass\n";
  const std::uint64_t default_limit = sandbox::policy{}.limits.file_bytes;
  EXPECT_GE(candidate_policy(run, "cpu", c, false, {}).limits.file_bytes, run.memory_budget);
  EXPECT_EQ(candidate_policy(run, "cpu", c, true, {}).limits.file_bytes, default_limit);
  run.memory_budget = 1ull << 30;  // a budget below the default never lowers it
  EXPECT_EQ(candidate_policy(run, "cpu", c, false, {}).limits.file_bytes, default_limit);
  std::filesystem::remove_all(cache);
}

}  // namespace
}  // namespace headroom::eval
