#include "job_source.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

#include <fmt/format.h>

#include "headroom/eval/check.hpp"

namespace headroom::eval {

using record::evaluation;

local_jobs::local_jobs(const std::vector<const eval_job*>& todo, store::results_store& store) : store_(store) {
  std::map<std::string, std::size_t> group_of;
  for (const eval_job* j : todo) {
    auto [it, added] = group_of.emplace(j->problem.hash, groups_.size());
    if (added) groups_.emplace_back();
    groups_[it->second].push_back(j);
  }
  total_ = static_cast<int>(todo.size());
}

job_batch local_jobs::next(const std::string&, bool) {
  const std::size_t i = next_++;
  if (i >= groups_.size()) return {};
  return {groups_[i], {}};
}

bool local_jobs::store(const job_batch&, std::size_t, const evaluation& e) {
  std::lock_guard lock(mutex_);
  store_.put(e);
  ++done_;
  return true;
}

namespace {

// A claim takes about this much work: one job of a GPU evaluation (seconds to minutes), many of
// cheap ones, whose claims would otherwise cost more than their evaluations. With the lane's claim
// of the next batch while the last job of one runs, a lane holds at most two batches.
constexpr double claim_seconds = 2.0;
constexpr int max_claim_batch = 16;

std::string worker_name() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  std::random_device rd;
  return fmt::format("{}:{}:{:08x}", host, ::getpid(), rd());
}

}  // namespace

shared_jobs::shared_jobs(const std::vector<const eval_job*>& jobs, store::results_store& store,
                         const std::string& platform, double lease_s)
    : store_(store), queue_(store, checker_version, platform, worker_name(), lease_s) {
  std::vector<store::job_key> keys;
  for (const eval_job* j : jobs)
    if (by_key_.emplace(std::pair(j->candidate.hash, j->problem.hash), j).second)
      keys.push_back({j->candidate.hash, j->problem.hash});
  queue_.enqueue(keys);
  beat_thread_ = std::thread([this] { heartbeat(); });
}

shared_jobs::~shared_jobs() {
  {
    std::lock_guard lock(beat_mutex_);
    beat_stop_ = true;
  }
  beat_.notify_all();
  beat_thread_.join();
}

// Renews this process's leases every third of a lease, on a connection of its own, for as long as
// the run lasts: a process that dies stops renewing, and its jobs go back to the queue.
void shared_jobs::heartbeat() {
  std::unique_ptr<store::results_store> own;
  const auto period = std::chrono::duration<double>(queue_.lease_s() / 3);
  std::unique_lock lock(beat_mutex_);
  while (!beat_.wait_for(lock, period, [this] { return beat_stop_; })) {
    try {
      if (!own) own = std::make_unique<store::results_store>(store_.where().text);
      store::renew_leases(*own, queue_.worker(), queue_.lease_s());
    } catch (const std::exception& e) {
      // The next beat tries again (on a new connection); a claim that lapses meanwhile is taken by
      // another process and this one's result of it is not stored.
      std::fprintf(stderr, "headroom: renewing claims in %s: %s\n", store_.where().display().c_str(), e.what());
      own.reset();
    }
  }
}

job_batch shared_jobs::next(const std::string& held_problem, bool wait) {
  while (!stopping_) {
    store::queue_progress left;
    {
      std::lock_guard lock(mutex_);
      const int batch = std::clamp(static_cast<int>(claim_seconds / std::max(job_seconds_, 1e-3)), 1, max_claim_batch);
      auto claims = queue_.claim(held_problem, batch);
      if (!claims.empty()) {
        job_batch b;
        for (auto& c : claims) {
          b.jobs.push_back(by_key_.at({c.candidate_hash, c.problem_hash}));
          b.claims.push_back(std::move(c));
        }
        return b;
      }
      left = queue_.progress();
    }
    if (left.unfinished == 0 || !wait) break;
    // The rest is claimed (by others, or by this process's other lanes): wait for it to be done,
    // or for a claim to lapse (its process died) and be taken here.
    double wait_s = std::min(1.0, queue_.lease_s() / 4);
    if (std::isfinite(left.next_lapse_s)) wait_s = std::clamp(left.next_lapse_s + 0.05, 0.05, wait_s);
    std::this_thread::sleep_for(std::chrono::duration<double>(wait_s));
  }
  return {};
}

bool shared_jobs::store(const job_batch& batch, std::size_t k, const evaluation& e) {
  std::lock_guard lock(mutex_);
  const bool stored = queue_.finish(batch.claims.at(k), e);
  stored_since_ += stored ? 1 : 0;
  // The recent jobs' mean time (a moving average): what the next claim's size follows.
  if (std::isfinite(e.duration_s) && e.duration_s >= 0)
    job_seconds_ =
        job_seconds_ == claim_seconds_unknown ? e.duration_s : job_seconds_ + 0.2 * (e.duration_s - job_seconds_);
  return stored;
}

// Counting the queue reads every job of the run: once a second is enough for a progress line.
std::pair<int, int> shared_jobs::progress() {
  std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (now - counted_at_ >= std::chrono::seconds(1)) {
    const auto p = queue_.progress();
    counted_ = {static_cast<int>(p.total - p.unfinished), static_cast<int>(p.total)};
    stored_since_ = 0;
    counted_at_ = now;
  }
  return {std::min(counted_.first + stored_since_, counted_.second), counted_.second};
}

}  // namespace headroom::eval
