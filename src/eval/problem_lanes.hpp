#pragma once
// The evaluation phase of a run (docs/eval.md, "Processes"): the problems are shared out among the
// devices' lanes (--lanes per device); a lane takes whole problems, prepares the reference once,
// runs the audit beside it and evaluates the problem's candidates one fresh worker at a time,
// starting the next worker while the current one runs. Internal to src/eval.
#include <atomic>
#include <exception>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "headroom/eval/evaluation.hpp"
#include "headroom/eval/orchestrator.hpp"
#include "session.hpp"

namespace headroom::eval {

class problem_lanes {
 public:
  // `compile_failures`: the candidates that did not build (compile_phase.hpp), by hash.
  problem_lanes(const std::vector<const eval_job*>& todo, const std::map<std::string, answer>& compile_failures,
                const eval_options& o, results_store& store, const eval_callback& on_done);

  // Runs options.lanes lanes on each device until every problem is done; each evaluation is stored
  // as it finishes and appended to `results`. Rethrows the first lane's failure.
  void run(const std::vector<std::string>& devices, std::vector<evaluation>& results);

 private:
  void lane(const std::string& device);
  // A problem whose every candidate failed to compile needs no reference worker.
  bool needs_reference(std::size_t i);

  const std::map<std::string, answer>& compile_failures;
  const eval_options& o;
  results_store& store;
  const eval_callback& on_done;
  std::vector<evaluation>* results_ = nullptr;
  std::map<std::string, std::vector<const eval_job*>> by_problem;
  std::vector<std::string> order;  // problem hashes in the jobs' order
  int total = 0;
  std::atomic<int> done{0};
  std::atomic<std::size_t> next_problem{0};
  std::mutex result_mutex;
  std::exception_ptr failure;
};

}  // namespace headroom::eval
