// The run state (run_state.hpp): what a run derives from its options, once, as it starts.
#include "headroom/eval/run_state.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <random>

#include <fmt/format.h>

#include "headroom/eval/memory_budget.hpp"
#include "headroom/util/error.hpp"
#include "candidate_sandbox.hpp"

namespace headroom::eval {

namespace {

int visible_gpus() {
  std::error_code ec;
  int n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/driver/nvidia/gpus", ec);
       !ec && it != std::filesystem::directory_iterator(); ++it)
    ++n;
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) {
    std::string s = v;
    if (s.empty()) return 0;
    int listed = static_cast<int>(std::count(s.begin(), s.end(), ',')) + 1;
    n = std::min(n, listed);
  }
  return n;
}

}  // namespace

std::vector<std::string> expand_devices(const std::string& device) {
  if (device == "cpu") return {"cpu"};
  if (device.rfind("cuda:", 0) == 0) return {device};
  int n = visible_gpus();
  if (device == "cuda" && n == 0) throw input_error("--device cuda: no GPU is visible on this machine");
  if (device != "cuda" && device != "auto")
    throw input_error(fmt::format("unknown device '{}' (cpu, cuda, cuda:N, auto)", device));
  if (n == 0) return {"cpu"};
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(fmt::format("cuda:{}", i));
  return out;
}

run_state start_run(const eval_options& options) {
  run_state run;
  run.options = options;
  const eval_options& o = run.options;
  run.seed = o.seed != 0 ? o.seed : std::random_device{}() | (static_cast<std::uint64_t>(std::random_device{}()) << 32);
  run.devices = expand_devices(o.device);
  // --memory-budget 0: a share of what the machine has available now, split among the problems in
  // flight (docs/eval.md, "Memory").
  run.memory_budget = o.memory_budget != 0
                          ? o.memory_budget
                          : default_memory_budget(static_cast<int>(run.devices.size()) * std::max(1, o.lanes));
  if (o.lanes < 1) throw input_error("--lanes must be at least 1");
  // On the CPU the "device" is the host: another lane's work would run inside every measurement.
  if (o.lanes > 1 && o.timing && run.devices.front() == "cpu")
    throw input_error(
        "--lanes above 1 needs a GPU when timing (on the CPU other lanes would run during every "
        "measurement); use --no-timing or one lane");
  // Candidates run isolated (docs/eval.md, "Sandbox"): refused here when this machine cannot.
  if (o.sandbox) {
    require_sandbox(run);
    run.sandbox_roots = sandbox_roots(o.python);
  }
  return run;
}

}  // namespace headroom::eval
