#include "headroom/store/work_queue.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <tuple>

namespace headroom::store {
namespace {

// A job is this process's when my_jobs (a temporary table: this connection's alone) lists it.
constexpr std::string_view mine_sql =
    "jobs j JOIN my_jobs m ON m.candidate_hash = j.candidate_hash AND m.problem_hash = j.problem_hash";

// Claimable: never claimed, or claimed under a lease that has lapsed.
std::string claimable(connection& db) {
  return fmt::format("(j.state = 'pending' OR (j.state = 'claimed' AND j.lease_until < {}))", db.now_seconds());
}

}  // namespace

work_queue::work_queue(results_store& store, int checker, std::string platform, std::string worker, double lease_s)
    : store_(store), checker_(checker), platform_(std::move(platform)), worker_(std::move(worker)), lease_s_(lease_s) {
  std::random_device rd;
  start_ = fmt::format("{:08x}{:08x}", rd(), rd());
}

void work_queue::enqueue(const std::vector<job_key>& jobs) {
  connection& db = store_.db();
  db.exec(
      "CREATE TEMP TABLE IF NOT EXISTS my_jobs (candidate_hash TEXT NOT NULL, problem_hash TEXT NOT NULL, "
      "PRIMARY KEY (candidate_hash, problem_hash))");
  // In key order: processes queueing the same jobs together wait for each other instead of deadlocking.
  std::vector<const job_key*> sorted;
  for (const job_key& j : jobs) sorted.push_back(&j);
  std::sort(sorted.begin(), sorted.end(), [](const job_key* a, const job_key* b) {
    return std::tie(a->candidate_hash, a->problem_hash) < std::tie(b->candidate_hash, b->problem_hash);
  });
  transaction t(db);
  for (const job_key* k : sorted) {
    const job_key& j = *k;
    // (WHERE true: SQLite reads an ON CONFLICT after INSERT ... SELECT only behind a WHERE.)
    db.run(
        "INSERT INTO jobs (candidate_hash, problem_hash, checker, platform, state, claimed_by, claim, lease_until, attempts) "
        "SELECT $1, $2, CAST($3 AS INTEGER), $4, CASE WHEN EXISTS (SELECT 1 FROM evaluations e WHERE "
        "e.candidate_hash = $1 AND e.problem_hash = $2 AND e.checker = $3 AND "
        "((e.device = 'cpu' AND e.device = $4) OR (e.gpu = $4 AND e.device LIKE 'cuda:%'))) THEN 'done' ELSE 'pending' END, "
        "'', 0, NULL, 0 WHERE true ON CONFLICT (candidate_hash, problem_hash, checker, platform) DO NOTHING",
        {j.candidate_hash, j.problem_hash, std::int64_t{checker_}, platform_});
    db.run("INSERT INTO my_jobs VALUES ($1, $2) ON CONFLICT DO NOTHING", {j.candidate_hash, j.problem_hash});
  }
  t.commit();
}

std::vector<claimed_job> work_queue::claim(std::string_view held_problem, int batch) {
  connection& db = store_.db();
  transaction t(db);
  // A claim lost in a crash of the server is harmless: the job is claimed again, and a result made
  // under the lost claim is refused (finish). Only results wait for the disk.
  db.lazy_commit();
  // Up to `batch` claimable jobs of `problem`, past the rows other transactions hold.
  auto take = [&](const std::string& problem) {
    std::vector<claimed_job> got;
    // (No ORDER BY: the first claimable rows the index gives, not a sort of the problem's jobs.)
    db.run(fmt::format(
               "SELECT j.candidate_hash FROM jobs j WHERE j.checker = $1 AND j.platform = $2 AND j.problem_hash = $3 "
               "AND {} AND EXISTS (SELECT 1 FROM my_jobs m WHERE m.candidate_hash = j.candidate_hash AND "
               "m.problem_hash = j.problem_hash) LIMIT $4 {}",
               claimable(db), db.skip_locked("j")),
           {std::int64_t{checker_}, platform_, problem, std::int64_t{batch}}, [&](const row& r) {
             got.push_back({std::string(r.text(0)), problem, 0});
           });
    return got;
  };
  std::vector<claimed_job> out;
  if (!held_problem.empty()) out = take(std::string(held_problem));
  if (out.empty()) {
    // Another problem: one that no live claim holds, from this process's own place in hash order
    // (processes starting together spread over problems), else one that others work on too.
    std::vector<std::string> open;
    std::set<std::string> held;
    db.run(fmt::format("SELECT DISTINCT j.problem_hash FROM {} WHERE j.checker = $1 AND j.platform = $2 AND {}",
                       mine_sql, claimable(db)),
           {std::int64_t{checker_}, platform_}, [&](const row& r) { open.emplace_back(r.text(0)); });
    db.run(
        fmt::format("SELECT DISTINCT problem_hash FROM jobs WHERE checker = $1 AND platform = $2 AND state = 'claimed' "
                    "AND lease_until >= {}",
                    db.now_seconds()),
        {std::int64_t{checker_}, platform_}, [&](const row& r) { held.emplace(r.text(0)); });
    std::sort(open.begin(), open.end());
    std::rotate(open.begin(), std::lower_bound(open.begin(), open.end(), start_), open.end());
    std::stable_partition(open.begin(), open.end(), [&](const std::string& p) { return !held.count(p); });
    for (const std::string& p : open)
      if (!(out = take(p)).empty()) break;
  }
  if (out.empty()) return out;
  const std::string update = fmt::format(
      "UPDATE jobs SET state = 'claimed', claimed_by = $5, claim = claim + 1, lease_until = {} + CAST($6 AS DOUBLE PRECISION), "
      "attempts = attempts + 1 WHERE candidate_hash = $1 AND problem_hash = $2 AND checker = $3 AND platform = $4 "
      "RETURNING claim",
      db.now_seconds());
  for (claimed_job& j : out) {
    db.run(update, {j.candidate_hash, j.problem_hash, std::int64_t{checker_}, platform_, worker_, lease_s_},
           [&](const row& r) { j.claim = r.integer(0); });
  }
  t.commit();
  return out;
}

bool work_queue::finish(const claimed_job& job, const evaluation& e) {
  connection& db = store_.db();
  transaction t(db);
  const std::int64_t ours = db.run(
      "UPDATE jobs SET state = 'done', lease_until = NULL WHERE candidate_hash = $1 AND problem_hash = $2 AND "
      "checker = $3 AND platform = $4 AND claimed_by = $5 AND claim = $6 AND state = 'claimed'",
      {job.candidate_hash, job.problem_hash, std::int64_t{checker_}, platform_, worker_, job.claim});
  if (ours != 1) return false;  // rolled back: another process holds the job now
  put_evaluation(db, e);
  t.commit();
  return true;
}

void work_queue::release(const claimed_job& job) {
  store_.db().run(
      "UPDATE jobs SET state = 'pending', claimed_by = '', lease_until = NULL WHERE candidate_hash = $1 AND "
      "problem_hash = $2 AND checker = $3 AND platform = $4 AND claimed_by = $5 AND claim = $6 AND state = 'claimed'",
      {job.candidate_hash, job.problem_hash, std::int64_t{checker_}, platform_, worker_, job.claim});
}

queue_progress work_queue::progress() {
  connection& db = store_.db();
  queue_progress p;
  db.run(fmt::format("SELECT count(*), sum(CASE WHEN j.state <> 'done' THEN 1 ELSE 0 END), "
                     "min(CASE WHEN j.state = 'claimed' AND j.claimed_by <> $3 THEN j.lease_until END) - {} "
                     "FROM {} WHERE j.checker = $1 AND j.platform = $2",
                     db.now_seconds(), mine_sql),
         {std::int64_t{checker_}, platform_, worker_}, [&](const row& r) {
           p.total = r.integer(0);
           p.unfinished = r.integer(1);
           p.next_lapse_s = r.real(2);
         });
  return p;
}

void renew_leases(results_store& store, std::string_view worker, double lease_s) {
  connection& db = store.db();
  db.run(
      fmt::format(
          "UPDATE jobs SET lease_until = {} + CAST($2 AS DOUBLE PRECISION) WHERE claimed_by = $1 AND state = 'claimed'",
          db.now_seconds()),
      {worker, lease_s});
}

}  // namespace headroom::store
