// A worker started on another thread (session_start.hpp).
#include "session_start.hpp"

#include <map>
#include <utility>

namespace headroom::eval {

// The process is forked here, on the calling thread: the worker's parent-death signal fires when the
// thread that forked it ends (prctl PR_SET_PDEATHSIG), so it must be the long-lived evaluation
// thread, not the helper thread that only waits for the greeting.
session_start::session_start(const run_state& run, const std::string& device, const std::string& label,
                             bool warm_record, std::optional<sandbox::policy> isolation) {
  auto s = std::make_unique<session>(run, device, label, std::map<std::string, std::string>{}, std::move(isolation));
  auto timeout = run.options.load_timeout;
  started_ = std::async(std::launch::async, [s = std::move(s), timeout, warm_record]() mutable {
    s->hello(timeout, warm_record);
    return std::move(s);
  });
}

// An unused start (the evaluation before it threw) is waited for and its worker stopped.
session_start::~session_start() {
  if (!started_.valid()) return;
  try {
    started_.get();
  } catch (...) {}
}

void session_start::wait() const {
  if (started_.valid()) started_.wait();
}

std::unique_ptr<session> session_start::take() { return started_.get(); }

}  // namespace headroom::eval
