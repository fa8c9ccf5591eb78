#pragma once
// HEADROOM_EVAL_TRACE=1: the parent logs each phase of an evaluation (a worker request, decoding,
// the comparison, ...) and its duration to stderr, as HEADROOM_WORKER_TRACE does for the worker's
// requests. Off, a phase costs one branch.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace headroom::eval {

inline bool eval_trace_enabled() {
  static const bool on = std::getenv("HEADROOM_EVAL_TRACE") != nullptr;
  return on;
}

// Logs "headroom: <what> took <ms> ms" when it goes out of scope.
class phase_trace {
 public:
  explicit phase_trace(std::string_view what) : on_(eval_trace_enabled()) {
    if (!on_) return;
    what_ = std::string(what);
    begin_ = std::chrono::steady_clock::now();
  }
  ~phase_trace() {
    if (!on_) return;
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin_).count();
    std::fprintf(stderr, "headroom: %s took %.1f ms\n", what_.c_str(), ms);
  }
  phase_trace(const phase_trace&) = delete;
  phase_trace& operator=(const phase_trace&) = delete;

 private:
  bool on_;
  std::string what_;
  std::chrono::steady_clock::time_point begin_;
};

}  // namespace headroom::eval
