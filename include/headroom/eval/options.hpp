#pragma once
// What the user asked of `headroom eval` (and of audit, reverify and generate, which share its
// options: tools/headroom/eval_options.cpp), as given. What a run derives from it (its seed, memory
// budget, devices, sandbox roots, the workers' environment) is the run state, run_state.hpp.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace headroom::eval {

struct eval_options {
  std::string device = "cpu";  // "cpu", "cuda" (every visible GPU) or "cuda:N"
  std::string python = "python3";
  std::filesystem::path worker;  // headroom-worker
  std::filesystem::path poison_allocator;  // libheadroom_poison_alloc.so (GPU)
  // libheadroom_alloc_tracker.so (GPU, where it was built): the allocation hook on PyTorch's own
  // caching allocator, used instead of the pluggable allocator (docs/eval.md, "CUDA graphs")
  std::filesystem::path alloc_tracker;
  std::filesystem::path op_record;  // libheadroom_op_record.so: the C++ operator record (docs/eval.md, "Verdicts")
  std::filesystem::path cache;  // build folders and worker logs
  // Every candidate process runs isolated by headroom-sandbox (docs/eval.md, "Sandbox"); false only
  // with --no-sandbox, for trusted candidates on a machine that cannot isolate.
  bool sandbox = true;
  std::filesystem::path sandbox_exe;  // headroom-sandbox
  std::vector<std::string> sandbox_binds;  // more host folders a candidate may read (--sandbox-bind)
  std::uint64_t sandbox_scratch_bytes = 2ull << 30;  // each of /tmp and a build folder being made
  int trials = 4;
  int timing_sets = 3;
  bool timing = true;
  bool baselines = true;  // time the reference eager and compiled
  bool compiled_baseline = true;
  int warmup = 3;
  // CUDA: hold each timed call's launches behind a gate until it returns, so events measure device
  // time and not the host's dispatch (docs/eval.md, "Timing"); false times dispatch included.
  bool hold_launches = true;
  // Paired rounds (docs/eval.md): when either side's cost follows the host (timed with its
  // dispatch, or its host time at least half its device time), the candidate and a fresh reference
  // worker are timed again in this many short turns each, one after the other on one CPU; the
  // speedup then comes from the rounds (paired.hpp). 0: never.
  int paired_rounds = 6;
  int min_samples = 10;
  int max_samples = 2000;
  double max_seconds = 10;
  double target_spread = 0.002;
  std::uint64_t check_bytes = 64ull << 20;
  // Host memory one problem's evaluation may hold, the parent and its workers together
  // (memory_plan.hpp); 0: default_memory_budget() of the machine when the run starts (run_state.hpp).
  std::uint64_t memory_budget = 0;
  std::chrono::seconds compile_timeout{600};
  std::chrono::seconds load_timeout{120};
  std::chrono::seconds run_timeout{120};
  int jobs = std::max(1u, std::thread::hardware_concurrency() / 2);  // parallel compilations
  // Evaluations in flight per GPU: their worker start-up, transfers and checks overlap, while each
  // measurement (timing, ceilings) has the device to itself (src/eval/device_gate.hpp).
  int lanes = 1;
  std::uint64_t seed = 0;  // 0: a fresh random seed per run (the candidate cannot predict it; run_state.hpp)
  bool force = false;  // re-evaluate what the store already has (never from a shared queue)
  // --shard i/N (docs/scale.md): only this process's share of a static split of the jobs.
  struct shard_spec {
    int index = 0;
    int count = 1;
  };
  std::optional<shard_spec> shard;
  // A shared store's claims (docs/scale.md): the seconds a claim lives without its process's
  // heartbeat, after which another process takes the job.
  double lease_s = 120;
  bool quiet = false;
  // When set, the discrimination audit of each problem's reference data is appended here as a JSON
  // line: the audit at no extra cost during an evaluation run.
  std::filesystem::path audit_output;
};

}  // namespace headroom::eval
