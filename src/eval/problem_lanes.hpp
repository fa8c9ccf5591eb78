#pragma once
// The evaluation phase of a run (docs/eval.md, "Processes"): each device's lanes (--lanes per
// device) take batches of one problem's jobs from a job source (job_source.hpp), prepare the
// problem's reference once and keep it from one batch of that problem to the next, run the audit
// beside it and evaluate the candidates one fresh worker at a time, starting the next worker while
// the current one runs. Internal to src/eval.
#include <cstddef>
#include <exception>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "headroom/eval/audit.hpp"
#include "headroom/eval/orchestrator.hpp"
#include "headroom/eval/run_state.hpp"
#include "headroom/record/evaluation.hpp"
#include "compile_phase.hpp"
#include "job_source.hpp"
#include "session_start.hpp"

namespace headroom::eval {

using record::evaluation;

class problem_lanes {
 public:
  // `compiled`: the candidates' builds; with `compile_as_claimed` (a shared queue) each batch's
  // candidates are built as it is claimed.
  problem_lanes(job_source& source, compile_phase& compiled, bool compile_as_claimed, const run_state& run,
                const eval_callback& on_done);

  // Runs run.options.lanes lanes on each device until the source has nothing left; each evaluation is
  // stored as it finishes and appended to `results`. Rethrows the first lane's failure.
  void run(const std::vector<std::string>& devices, std::vector<evaluation>& results);

 private:
  // What one lane holds from one job to the next (problem_lanes.cpp).
  struct lane_state;
  void lane(const std::string& device);
  // Job k of `batch`, evaluated (or its compile failure), the problem's reference prepared first when
  // the lane holds none; `audit`: the problem's audit, when this preparation starts one.
  evaluation evaluate_job(lane_state& l, const job_batch& batch, std::size_t k, std::future<audit_result>& audit);
  void prepare(lane_state& l, const job_batch& batch, std::size_t k, std::future<audit_result>& audit);
  // Job k's worker, k past the batch: the first of the next batch claimed when it is of this problem.
  std::unique_ptr<session_start> start_worker(const lane_state& l, const job_batch& batch, std::size_t k) const;
  // The problem's audit into the lane, its line appended to --audit-to's file when asked for.
  void take_audit(lane_state& l, std::future<audit_result>& audit);
  void store_result(const job_batch& batch, std::size_t k, const evaluation& e);
  // A batch whose every candidate failed to compile needs no reference worker.
  bool needs_reference(const job_batch& b) const;
  // A batch as a lane claims it: with builds beside the evaluations, its builds queued (from a
  // shared queue) and its jobs whose build is over first, so that the others' builds go on while
  // they are judged.
  job_batch claimed_batch(job_batch b);

  job_source& source;
  compile_phase& compiled;
  const bool compile_as_claimed;
  const run_state& run_;
  const eval_callback& on_done;
  std::vector<evaluation>* results_ = nullptr;
  std::mutex result_mutex;
  std::exception_ptr failure;
};

}  // namespace headroom::eval
