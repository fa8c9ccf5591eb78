#pragma once
// The work queue of a shared results store (docs/scale.md): any number of `headroom eval` processes,
// on any number of hosts, enqueue the jobs they were given and claim them from one table. A claim is
// a lease that its process renews while it works (renew_leases, from a heartbeat); the jobs of a
// process that died are claimed again once their lease has lapsed. Storing a result and marking its
// job done are one transaction that succeeds only while the claim is still the process's own, so
// every evaluation is stored exactly once. Claims come in batches of one problem, preferring the
// problem the claiming lane already holds the reference data of, then a problem no one holds, so a
// problem's reference is prepared once per process that works on it, not once per candidate.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "headroom/store/results_store.hpp"

namespace headroom::store {

struct job_key {
  std::string candidate_hash;
  std::string problem_hash;
};

struct claimed_job {
  std::string candidate_hash;
  std::string problem_hash;
  std::int64_t claim = 0;  // bumped by every claim of the job: whose claim it is
};

struct queue_progress {
  std::int64_t total = 0;  // this process's jobs
  std::int64_t unfinished = 0;  // of them, not done (pending, or claimed by anyone)
  // Seconds until the earliest live claim of another lapses (negative: one has lapsed); NaN: none.
  double next_lapse_s = 0;
};

class work_queue {
 public:
  // A job's identity in the queue: its candidate, its problem, the checker version, and the
  // platform it is evaluated on ("cpu", or a GPU model such as "NVIDIA H200": one GPU of a model is
  // as good as another). `worker` names this process in its claims (host:pid:nonce).
  work_queue(results_store& store, int checker, std::string platform, std::string worker, double lease_s);

  // Queues the jobs not queued yet (one stored on this platform already is queued done) and
  // remembers them as this process's own: it claims nothing else. One transaction.
  void enqueue(const std::vector<job_key>& jobs);
  // Up to `batch` of this process's jobs, all of one problem: `held_problem`'s while it has any
  // left, else a problem no live claim holds, else any. Empty: nothing can be claimed now (the
  // rest is done, or claimed by others: see progress()).
  std::vector<claimed_job> claim(std::string_view held_problem, int batch);
  // Stores the job's evaluation and marks it done, in one transaction, if the claim is still ours.
  // False when it is not (its lease lapsed and another process claimed it): nothing is stored.
  bool finish(const claimed_job& job, const evaluation& e);
  // Gives a claim back unfinished, for another process to take at once.
  void release(const claimed_job& job);
  queue_progress progress();

  const std::string& worker() const { return worker_; }
  double lease_s() const { return lease_s_; }

 private:
  results_store& store_;
  int checker_;
  std::string platform_;
  std::string worker_;
  double lease_s_;
  std::string start_;  // where in problem-hash order this process looks first for a free problem
};

// Extends the lease of every job `worker` holds; meant for a heartbeat on a connection of its own
// (a results_store opened on the same location), every third of the lease.
void renew_leases(results_store& store, std::string_view worker, double lease_s);

}  // namespace headroom::store
