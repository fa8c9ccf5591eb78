#pragma once
// The compile phase of a run (docs/eval.md, "Processes"): every distinct candidate that builds an
// extension is built once, several at a time, on the CPU, before it is evaluated: beside the
// evaluations of others where no measurement can feel a build, else before them all. Internal to
// src/eval.
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "headroom/eval/job.hpp"
#include "headroom/eval/run_state.hpp"
#include "headroom/record/evaluation.hpp"
#include "session.hpp"

namespace headroom::eval {

using record::evaluation;

// The candidates that build an extension, each built once, options.jobs at a time, on threads of
// the phase's own. Where a build may run beside evaluations (beside(): every build sandboxed, so
// that a measurement freezes it as it freezes every other sandbox, or nothing timed), submit()
// queues and returns, and an evaluation waits only for its own candidate's build; else submit()
// returns once its builds are done, and the run builds everything before it evaluates anything.
// submit may be called again, from any lane; what was submitted before is not built again.
class compile_phase {
 public:
  explicit compile_phase(const run_state& run);
  // Builds not begun are dropped; a build under way is waited for.
  ~compile_phase();
  compile_phase(const compile_phase&) = delete;
  compile_phase& operator=(const compile_phase&) = delete;

  bool beside() const { return beside_; }
  // Queues the builds of `jobs`' candidates not submitted yet; waits for them unless beside().
  // Rethrows a failure of the installation (a worker that cannot start).
  void submit(const std::vector<const eval_job*>& jobs);
  // Waits until the candidate's build, if it has one, is over. Rethrows an installation failure.
  void wait(const std::string& candidate_hash);
  // Whether the candidate's build, if it has one, is over (without waiting).
  bool ready(const std::string& candidate_hash) const;
  // Whether the candidate has an extension to build that no earlier run built (the cache's stamp).
  bool needs_build(const candidate_spec& candidate) const;
  // The worker's answer for a candidate whose build failed or timed out; nothing when it built or
  // is not over.
  std::optional<answer> failure(const std::string& candidate_hash) const;

 private:
  void work();
  void build_one(const candidate_spec& c);
  void rethrow_installation_failure() const;

  const run_state& run_;
  const bool beside_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::set<std::string> seen_;  // submitted
  std::set<std::string> unfinished_;  // submitted, build not over
  std::deque<const candidate_spec*> queue_;
  std::map<std::string, answer> failures_;
  std::exception_ptr installation_failure_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// The evaluation of a job whose candidate did not build: compile_error, or timeout.
evaluation compile_failure_evaluation(const eval_job& j, const answer& failure, const std::string& device);

}  // namespace headroom::eval
