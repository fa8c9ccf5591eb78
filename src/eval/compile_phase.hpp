#pragma once
// The compile phase of a run (docs/eval.md, "Processes"): every distinct candidate that builds an
// extension is built once, several at a time, on the CPU, before it is evaluated. Internal to src/eval.
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "headroom/eval/job.hpp"
#include "headroom/eval/run_state.hpp"
#include "headroom/record/evaluation.hpp"
#include "session.hpp"

namespace headroom::eval {

using record::evaluation;

// The candidates that build an extension, each built once, options.jobs at a time: all of a run's
// before its evaluations, or, from a shared queue, those of each batch as it is claimed (build may
// be called again, from any lane; what an earlier call built is not built again).
class compile_phase {
 public:
  explicit compile_phase(const run_state& run) : run_(run) {}
  // Builds the candidates of `jobs` not built yet. Rethrows a failure of the installation (a worker
  // that cannot start).
  void build(const std::vector<const eval_job*>& jobs);
  // The worker's answer for a candidate whose build failed or timed out; nothing when it built.
  std::optional<answer> failure(const std::string& candidate_hash) const;

 private:
  const run_state& run_;
  mutable std::mutex mutex_;
  std::set<std::string> seen_;
  std::map<std::string, answer> failures_;
};

// The evaluation of a job whose candidate did not build: compile_error, or timeout.
evaluation compile_failure_evaluation(const eval_job& j, const answer& failure, const std::string& device);

}  // namespace headroom::eval
