#pragma once
// A worker started (and greeted) on another thread, so that its start-up overlaps the evaluation
// before it, and the wait a measurement makes for it. Internal to src/eval (problem_lanes.cpp).
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>

#include "headroom/eval/run_state.hpp"
#include "headroom/sandbox/worker_process.hpp"
#include "session.hpp"

namespace headroom::eval {

// A worker started (and greeted) on another thread, so that its start-up (importing torch, creating
// a CUDA context: seconds) overlaps the evaluation before it. Whoever times something waits for it
// first (wait()), so that a worker starting up never disturbs a measurement.
class session_start {
 public:
  session_start(const run_state& run, const std::string& device, const std::string& label, bool warm_record = true,
                std::optional<sandbox::policy> isolation = std::nullopt);
  ~session_start();
  session_start(const session_start&) = delete;
  session_start& operator=(const session_start&) = delete;
  void wait() const;
  // The greeted session; rethrows what starting it threw (input_error: the installation's problem).
  std::unique_ptr<session> take();

 private:
  std::future<std::unique_ptr<session>> started_;
};

// Called by prepare_reference and evaluate_candidate before they measure anything (the ceilings,
// the timing): the orchestrator passes the wait for the next worker's start-up.
using before_timing = std::function<void()>;

}  // namespace headroom::eval
