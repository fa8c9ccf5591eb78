// The work queue of a shared (PostgreSQL) results store (headroom/store/work_queue.hpp): what many
// `headroom eval` processes rely on to evaluate every job exactly once, however many of them die. Each
// "process" here is a work_queue on a connection of its own, as it would be in another process.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "eval/results_rows.hpp"
#include "headroom/store/results_store.hpp"
#include "headroom/store/work_queue.hpp"
#include "store/scratch_store.hpp"

using namespace headroom;
using record::verdict;
using store::claimed_job;
using store::job_key;
using store::results_store;
using store::work_queue;
using test::scratch_store;

namespace {

class WorkQueueOn : public test::on_each_backend {};

// Jobs of `problems` problems with `per_problem` candidates each.
std::vector<job_key> jobs(int problems, int per_problem) {
  std::vector<job_key> out;
  for (int p = 0; p < problems; ++p)
    for (int c = 0; c < per_problem; ++c)
      out.push_back({"cand-" + std::to_string(p) + "-" + std::to_string(c), "prob-" + std::to_string(p)});
  return out;
}

record::evaluation result_of(const claimed_job& j, const std::string& by) {
  auto e = test::row("queue", by, verdict::correct, 1.5);
  e.candidate_hash = j.candidate_hash;
  e.problem_hash = j.problem_hash;
  e.problem = j.problem_hash;
  e.env.device = "cpu";
  e.log = by;  // who stored it
  return e;
}

void sleep_s(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

}  // namespace

TEST_P(WorkQueueOn, TwoWorkersClaimEveryJobOnceAndFinishTheQueue) {
  scratch_store s(GetParam(), "queue-two");
  results_store a_store(s.location()), b_store(s.location());
  work_queue a(a_store, 1, "cpu", "host-a:1:x", 60), b(b_store, 1, "cpu", "host-b:2:y", 60);
  const auto all = jobs(3, 4);
  a.enqueue(all);
  b.enqueue(all);  // the second process given the same jobs queues nothing twice
  std::multiset<std::string> claimed;
  for (bool more = true; more;) {
    more = false;
    for (auto* q : {&a, &b}) {
      const auto got = q->claim("", 3);
      more |= !got.empty();
      std::set<std::string> problems;
      for (const auto& j : got) {
        claimed.insert(j.candidate_hash);
        problems.insert(j.problem_hash);
        EXPECT_TRUE(q->finish(j, result_of(j, q->worker())));
      }
      EXPECT_LE(problems.size(), 1u) << "a batch mixes problems";
    }
  }
  EXPECT_EQ(claimed.size(), all.size());
  EXPECT_EQ(std::set<std::string>(claimed.begin(), claimed.end()).size(), all.size()) << "a job was claimed twice";
  EXPECT_EQ(a.progress().unfinished, 0);
  EXPECT_EQ(b.progress().total, static_cast<std::int64_t>(all.size()));
  EXPECT_EQ(a_store.evaluations().size(), all.size());
}

TEST_P(WorkQueueOn, ALapsedClaimIsTakenAgainAndTheLateResultIsNotStored) {
  scratch_store s(GetParam(), "queue-lapse");
  results_store a_store(s.location()), b_store(s.location());
  work_queue dying(a_store, 1, "cpu", "host-a:1:x", 0.3), other(b_store, 1, "cpu", "host-b:2:y", 60);
  dying.enqueue(jobs(1, 1));
  other.enqueue(jobs(1, 1));
  const auto held = dying.claim("", 1);
  ASSERT_EQ(held.size(), 1u);
  EXPECT_TRUE(other.claim("", 1).empty()) << "a live claim was taken";
  EXPECT_EQ(other.progress().unfinished, 1);
  sleep_s(0.5);  // no heartbeat: the claim lapses
  EXPECT_LT(other.progress().next_lapse_s, 0);
  const auto taken = other.claim("", 1);
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].candidate_hash, held[0].candidate_hash);
  EXPECT_GT(taken[0].claim, held[0].claim);
  // The first process was only slow: its result comes too late and is refused.
  EXPECT_FALSE(dying.finish(held[0], result_of(held[0], "late")));
  EXPECT_TRUE(other.finish(taken[0], result_of(taken[0], "taker")));
  const auto rows = b_store.evaluations();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].log, "taker");
  std::int64_t attempts = 0;
  b_store.db().run("SELECT attempts FROM jobs", {}, [&](const store::row& r) { attempts = r.integer(0); });
  EXPECT_EQ(attempts, 2);
}

TEST_P(WorkQueueOn, ARenewedClaimOutlivesItsLease) {
  scratch_store s(GetParam(), "queue-renew");
  results_store a_store(s.location()), beat(s.location()), b_store(s.location());
  work_queue alive(a_store, 1, "cpu", "host-a:1:x", 0.6), other(b_store, 1, "cpu", "host-b:2:y", 60);
  alive.enqueue(jobs(1, 1));
  other.enqueue(jobs(1, 1));
  ASSERT_EQ(alive.claim("", 1).size(), 1u);
  for (int i = 0; i < 4; ++i) {  // 1.2 s: twice the lease, renewed every 0.3 s
    sleep_s(0.3);
    store::renew_leases(beat, alive.worker(), alive.lease_s());
    EXPECT_TRUE(other.claim("", 1).empty()) << "taken after " << (i + 1) * 0.3 << " s";
  }
}

TEST_P(WorkQueueOn, ClaimsKeepToTheHeldProblemThenTakeOneNobodyHolds) {
  scratch_store s(GetParam(), "queue-affinity");
  results_store a_store(s.location()), b_store(s.location());
  work_queue a(a_store, 1, "cpu", "host-a:1:x", 60), b(b_store, 1, "cpu", "host-b:2:y", 60);
  a.enqueue(jobs(2, 3));
  b.enqueue(jobs(2, 3));
  const auto first = a.claim("", 1);
  ASSERT_EQ(first.size(), 1u);
  const auto elsewhere = b.claim("", 1);  // b holds nothing: it goes to the problem nobody holds
  ASSERT_EQ(elsewhere.size(), 1u);
  EXPECT_NE(elsewhere[0].problem_hash, first[0].problem_hash);
  // a stays on its problem while it has jobs (its reference data is prepared), b on the other.
  for (int i = 0; i < 2; ++i) {
    const auto next = a.claim(first[0].problem_hash, 1);
    ASSERT_EQ(next.size(), 1u);
    EXPECT_EQ(next[0].problem_hash, first[0].problem_hash);
  }
  const auto more = b.claim(elsewhere[0].problem_hash, 5);
  ASSERT_EQ(more.size(), 2u);
  EXPECT_EQ(more[0].problem_hash, elsewhere[0].problem_hash);
  EXPECT_TRUE(a.claim(first[0].problem_hash, 1).empty());
}

TEST_P(WorkQueueOn, AJobAlreadyEvaluatedIsQueuedDoneAndOnlyOwnJobsAreClaimed) {
  scratch_store s(GetParam(), "queue-done");
  results_store a_store(s.location()), b_store(s.location());
  const auto all = jobs(1, 3);
  claimed_job earlier{all[0].candidate_hash, all[0].problem_hash, 0};
  a_store.put(result_of(earlier, "an earlier run"));
  work_queue a(a_store, 1, "cpu", "host-a:1:x", 60), b(b_store, 1, "cpu", "host-b:2:y", 60);
  a.enqueue(all);
  b.enqueue({all[1]});  // b was given one job only
  EXPECT_EQ(a.progress().unfinished, 2);
  const auto mine = b.claim("", 5);
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_EQ(mine[0].candidate_hash, all[1].candidate_hash);
  // On a GPU platform the CPU's row does not count as done.
  work_queue gpu(a_store, 1, "NVIDIA H200", "host-a:1:z", 60);
  gpu.enqueue(all);
  EXPECT_EQ(gpu.progress().unfinished, 3);
}

TEST_P(WorkQueueOn, AReleasedClaimCanBeTakenAtOnce) {
  scratch_store s(GetParam(), "queue-release");
  results_store a_store(s.location()), b_store(s.location());
  work_queue a(a_store, 1, "cpu", "host-a:1:x", 60), b(b_store, 1, "cpu", "host-b:2:y", 60);
  a.enqueue(jobs(1, 1));
  b.enqueue(jobs(1, 1));
  const auto held = a.claim("", 1);
  ASSERT_EQ(held.size(), 1u);
  a.release(held[0]);
  EXPECT_EQ(b.claim("", 1).size(), 1u);
}

// Many workers claiming at once, each on its own connection: no job is handed out twice (PostgreSQL
// skips rows another transaction holds; SQLite serialises the claims) and none is left.
TEST_P(WorkQueueOn, ConcurrentWorkersNeverShareAJob) {
  scratch_store s(GetParam(), "queue-race");
  const auto all = jobs(4, 25);
  { results_store setup(s.location()); }
  std::mutex m;
  std::map<std::string, int> times;
  std::vector<std::thread> workers;
  for (int w = 0; w < 6; ++w) {
    workers.emplace_back([&, w] {
      results_store own(s.location());
      work_queue q(own, 1, "cpu", "worker-" + std::to_string(w), 60);
      q.enqueue(all);
      std::string held;
      for (auto got = q.claim(held, 2); !got.empty(); got = q.claim(held, 2)) {
        held = got.front().problem_hash;
        for (const auto& j : got) {
          EXPECT_TRUE(q.finish(j, result_of(j, q.worker())));
          std::lock_guard lock(m);
          ++times[j.candidate_hash];
        }
      }
    });
  }
  for (auto& t : workers) t.join();
  EXPECT_EQ(times.size(), all.size());
  for (const auto& [job, n] : times) EXPECT_EQ(n, 1) << job;
  results_store check(s.location());
  EXPECT_EQ(check.evaluations().size(), all.size());
}

// Only a PostgreSQL store is shared: a SQLite file has one writer at a time (ResultsStore.
// ASecondWriterIsRefusedWhileTheFirstHasTheStoreOpen), so no two processes claim from its queue.
INSTANTIATE_TEST_SUITE_P(Backends, WorkQueueOn, ::testing::Values(store::backend::postgresql), test::backend_test_name);
