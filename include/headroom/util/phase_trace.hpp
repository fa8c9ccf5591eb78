#pragma once
// HEADROOM_EVAL_TRACE=1: the parent logs each phase of an evaluation (a worker request, decoding,
// the comparison, ...) with its end time and duration to stderr, as HEADROOM_WORKER_TRACE does for
// the worker's requests. Off, a phase costs one branch.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace headroom::util {

inline bool eval_trace_enabled() {
  static const bool on = std::getenv("HEADROOM_EVAL_TRACE") != nullptr;
  return on;
}

// Logs "headroom: [<s since the first phase began>] <what> took <ms> ms" when it goes out of scope.
class phase_trace {
 public:
  explicit phase_trace(std::string_view what) : on_(eval_trace_enabled()) {
    if (!on_) return;
    what_ = std::string(what);
    begin_ = std::chrono::steady_clock::now();
    epoch();
  }
  ~phase_trace() {
    if (!on_) return;
    auto now = std::chrono::steady_clock::now();
    std::fprintf(stderr, "headroom: [%.3f s] %s took %.1f ms\n", std::chrono::duration<double>(now - epoch()).count(),
                 what_.c_str(), std::chrono::duration<double, std::milli>(now - begin_).count());
  }
  phase_trace(const phase_trace&) = delete;
  phase_trace& operator=(const phase_trace&) = delete;

 private:
  static std::chrono::steady_clock::time_point epoch() {
    static const auto first = std::chrono::steady_clock::now();
    return first;
  }

  bool on_;
  std::string what_;
  std::chrono::steady_clock::time_point begin_;
};

}  // namespace headroom::util
