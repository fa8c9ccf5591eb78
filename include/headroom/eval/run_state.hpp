#pragma once
// What a run derives from what the user asked for (options.hpp), built once as the run starts and
// read, never changed, by every stage after: the run's seed, its devices, the memory budget, the
// folders a sandboxed candidate may read, and what every worker's environment adds.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "headroom/eval/options.hpp"

namespace headroom::eval {

struct run_state {
  eval_options options;  // what the user asked for, as given
  std::uint64_t seed = 0;  // options.seed, or a fresh random one (never 0)
  std::vector<std::string> devices;  // expand_devices(options.device)
  // Host memory one problem's evaluation may hold (memory_plan.hpp): options.memory_budget, or a
  // share of what the machine has available when the run starts (docs/eval.md, "Memory").
  std::uint64_t memory_budget = 0;
  std::vector<std::string> sandbox_roots;  // found once per run (candidate_sandbox.hpp)
  std::map<std::string, std::string> worker_env;  // added to every worker's environment
};

// "cpu", "cuda:N"... for a --device value: "cuda" is every visible GPU, "auto" is every visible GPU
// or the CPU when there is none.
std::vector<std::string> expand_devices(const std::string& device);

// The run state of `headroom eval`: the seed and devices, the memory budget split among the lanes,
// and the sandbox checked (input_error when this machine cannot isolate candidates) and its roots
// found. The first GPU's architecture is added later, by the device probe (orchestrator.cpp), only
// when something is left to evaluate.
run_state start_run(const eval_options& options);

}  // namespace headroom::eval
