#pragma once
// Where a run's lanes get their work and put their results (orchestrator.cpp). Local: this process
// has every job to itself and takes whole problems in turn. Shared: the jobs are claimed from the
// store's work queue (headroom/store/work_queue.hpp) together with any number of other processes,
// on any number of hosts; a heartbeat keeps this process's claims alive. Internal to src/eval.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "headroom/eval/orchestrator.hpp"
#include "headroom/store/results_store.hpp"
#include "headroom/store/work_queue.hpp"

namespace headroom::eval {

using record::evaluation;

// Jobs of one problem, evaluated in order by one lane.
struct job_batch {
  std::vector<const eval_job*> jobs;
  std::vector<store::claimed_job> claims;  // shared: each job's claim
  bool empty() const { return jobs.empty(); }
  const problem_spec& problem() const { return jobs.front()->problem; }
};

class job_source {
 public:
  virtual ~job_source() = default;
  // The next batch for a lane that holds `held_problem`'s reference data (its hash, or empty).
  // Empty when nothing is left for this process; without `wait`, also when nothing can be had at
  // once (a shared queue's other jobs are claimed, one of them maybe by the lane asking).
  virtual job_batch next(const std::string& held_problem, bool wait) = 0;
  // Stores the evaluation of the batch's job k. False when it was not stored: its claim had lapsed
  // and another process evaluates the job.
  virtual bool store(const job_batch& batch, std::size_t k, const evaluation& e) = 0;
  // Done and total jobs, for progress lines (shared: over every process's work on these jobs).
  virtual std::pair<int, int> progress() = 0;
  // Tells next() to hand out nothing more (a lane failed).
  virtual void stop() = 0;
};

// `todo`: the jobs left to do, in the order given.
class local_jobs final : public job_source {
 public:
  local_jobs(const std::vector<const eval_job*>& todo, store::results_store& store);
  job_batch next(const std::string& held_problem, bool wait) override;
  bool store(const job_batch& batch, std::size_t k, const evaluation& e) override;
  std::pair<int, int> progress() override { return {done_, total_}; }
  void stop() override { next_ = groups_.size(); }

 private:
  store::results_store& store_;
  std::vector<std::vector<const eval_job*>> groups_;  // by problem, in the order problems first appear
  std::atomic<std::size_t> next_{0};
  std::mutex mutex_;  // the store's connection
  std::atomic<int> done_{0};
  int total_ = 0;
};

class shared_jobs final : public job_source {
  // Until a job has been timed, each claim takes one.
  static constexpr double claim_seconds_unknown = 1e9;

 public:
  // Queues `jobs` (work_queue::enqueue) on `platform` and starts the heartbeat.
  shared_jobs(const std::vector<const eval_job*>& jobs, store::results_store& store, const std::string& platform,
              double lease_s);
  ~shared_jobs() override;
  job_batch next(const std::string& held_problem, bool wait) override;
  bool store(const job_batch& batch, std::size_t k, const evaluation& e) override;
  std::pair<int, int> progress() override;
  void stop() override { stopping_ = true; }

 private:
  void heartbeat();

  store::results_store& store_;
  store::work_queue queue_;
  std::map<std::pair<std::string, std::string>, const eval_job*> by_key_;
  std::mutex mutex_;  // the store's connection
  // progress(): the queue's count, asked at most once a second, plus what this process stored since.
  std::pair<int, int> counted_{0, 0};
  int stored_since_ = 0;
  double job_seconds_ = claim_seconds_unknown;  // the recent jobs' mean evaluation time
  std::chrono::steady_clock::time_point counted_at_{};
  std::atomic<bool> stopping_{false};
  std::mutex beat_mutex_;
  std::condition_variable beat_;
  bool beat_stop_ = false;
  std::thread beat_thread_;
};

}  // namespace headroom::eval
