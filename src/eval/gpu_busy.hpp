#pragma once
// A measurement refused because the GPU was busy (docs/eval.md, "Sandbox"): a worker found another
// context's work on the GPU before a timed call (include/headroom/worker/gpu_idle.hpp) and answered
// gpu_busy. A frozen sandbox's processes stop, their kernels do not: the candidate under evaluation
// may have left them, or something else on the machine keeps the GPU busy. Which one is told by
// ending the candidate's sandbox (every process of it) and asking a trusted worker, which runs no
// candidate code, whether the GPU is idle now. Internal to src/eval (candidate_timing.cpp, paired.cpp,
// reference.cpp).
#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "session.hpp"

namespace headroom::eval {

// What a worker said when it refused to time: before which call, the probe's latency and the
// threshold it exceeded, and how long the worker waited for the GPU to turn idle.
struct busy_report {
  std::string measurement;  // "the candidate's timing", "a paired round's reference turn", ...
  std::int64_t call = -1;
  double probe_ms = 0;
  double threshold_ms = 0;
  double waited_ms = 0;
};

// The report of a gpu_busy answer (ok false, error "gpu_busy"); nothing for any other answer.
std::optional<busy_report> busy_report_of(const answer& a, const std::string& measurement);

// Thrown by a candidate's timing (candidate_timing.cpp, paired.cpp) when a worker answered
// gpu_busy: nothing more is timed, and time_candidate decides what the busy GPU means.
class gpu_busy_seen : public std::runtime_error {
 public:
  explicit gpu_busy_seen(busy_report r);
  const busy_report& report() const { return report_; }

 private:
  busy_report report_;
};
// Throws gpu_busy_seen when `a` is a gpu_busy answer.
void throw_if_busy(const answer& a, const std::string& measurement);

// A trusted worker's `probe` of the GPU.
struct idle_proof {
  bool answered = false;  // the worker answered; else `failure` says why not
  bool quiet = false;
  double probe_ms = 0;
  double threshold_ms = 0;
  double waited_ms = 0;
  std::vector<std::uint64_t> pids;  // processes with a context on the device, the prober's own left out
  std::string failure;
};
// The proof in a `probe` answer.
idle_proof idle_proof_of(const answer& a);
// Asks `trusted` whether the GPU is idle, a busy one probed again for up to `settle_ms`.
idle_proof probe_gpu(session& trusted, double settle_ms, std::chrono::seconds timeout);
// How long the trusted probe waits for the GPU to turn idle once a candidate's sandbox has ended:
// its processes' contexts go back to the driver as they die.
inline constexpr double ended_sandbox_settle_ms = 10000;

// What a busy GPU means for the candidate whose sandbox was ended before `after` was probed. The
// candidate is blamed (gpu_left_busy, `detail` written for the kernel's author) only when the GPU
// was then idle: nothing else had changed. Otherwise `detail` is the error that ends the run
// without a verdict on the candidate (busy_gpu_error).
struct busy_judgment {
  bool candidate_blamed = false;
  std::string detail;
};
busy_judgment judge_busy_gpu(const busy_report& seen, const idle_proof& after);

// Why nothing was timed: the busy GPU `seen`, what the trusted probe found `after` (once the
// candidate's sandbox had ended, when `sandbox_ended`; otherwise no candidate of the evaluation was
// running, as for the reference's baselines), the processes holding the GPU, and that a later run
// evaluates it again.
std::string busy_gpu_error(const busy_report& seen, const idle_proof& after, bool sandbox_ended);

}  // namespace headroom::eval
