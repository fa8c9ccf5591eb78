#pragma once
// `headroom eval`'s driver (docs/eval.md): compiles candidates in parallel, prepares each problem's
// reference data once, evaluates every candidate in a fresh worker, and stores every result.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "headroom/eval/tensor.hpp"
#include "headroom/record/evaluation.hpp"

namespace headroom::store {
class results_store;
}

namespace headroom::eval {

using store::results_store;

struct problem_spec {
  std::string id;  // "<folder>/<stem>"
  std::filesystem::path path;
  std::string hash;
  std::string text;
};

struct candidate_spec {
  std::filesystem::path path;
  std::string hash;
  std::string source;
  std::string text;
};

struct eval_job {
  problem_spec problem;
  candidate_spec candidate;
};

struct eval_options {
  std::string device = "cpu";  // "cpu", "cuda" (every visible GPU) or "cuda:N"
  std::string python = "python3";
  std::filesystem::path worker;   // headroom-worker
  std::filesystem::path poison_allocator;  // libheadroom_poison_alloc.so (GPU)
  std::filesystem::path op_record;  // libheadroom_op_record.so: the C++ operator record (docs/eval.md, "Verdicts")
  std::filesystem::path cache;    // build folders and worker logs
  // Every candidate process runs isolated by headroom-sandbox (docs/eval.md, "Sandbox"); false only
  // with --no-sandbox, for trusted candidates on a machine that cannot isolate.
  bool sandbox = true;
  std::filesystem::path sandbox_exe;          // headroom-sandbox
  std::vector<std::string> sandbox_binds;     // more host folders a candidate may read (--sandbox-bind)
  std::vector<std::string> sandbox_roots;     // found once per run (candidate_sandbox.hpp)
  std::uint64_t sandbox_scratch_bytes = 2ull << 30;  // each of /tmp and a build folder being made
  int trials = 4;
  int timing_sets = 3;
  bool timing = true;
  bool baselines = true;   // time the reference eager and compiled
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
  // (memory_plan.hpp); 0: default_memory_budget() of the machine when the run starts.
  std::uint64_t memory_budget = 0;
  std::chrono::seconds compile_timeout{600};
  std::chrono::seconds load_timeout{120};
  std::chrono::seconds run_timeout{120};
  int jobs = std::max(1u, std::thread::hardware_concurrency() / 2);  // parallel compilations
  // Evaluations in flight per GPU: their worker start-up, transfers and checks overlap, while each
  // measurement (timing, ceilings) has the device to itself (src/eval/device_gate.hpp).
  int lanes = 1;
  std::uint64_t seed = 0;         // 0: a fresh random seed per run (the candidate cannot predict it)
  bool force = false;             // re-evaluate what the store already has (never from a shared queue)
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
  std::map<std::string, std::string> worker_env;  // added to every worker's environment
  // When set, the discrimination audit of each problem's reference data is appended here as a JSON
  // line: the audit at no extra cost during an evaluation run.
  std::filesystem::path audit_output;
};

// "cpu", "cuda:N"... for a --device value: "cuda" is every visible GPU, "auto" is every visible GPU
// or the CPU when there is none.
std::vector<std::string> expand_devices(const std::string& device);

// One line per finished evaluation, for progress display and the suite's expectations.
using eval_callback = std::function<void(const eval_job&, const record::evaluation&, int done, int total)>;

// Runs every job; results go to `store` as they finish. Returns the evaluations of this run
// (including those the store already had, unless `force`). With a shared store (PostgreSQL), no
// shard and no `force`, the jobs are claimed from the store's work queue together with every other
// process given them, and this returns once all of them are done, wherever they ran.
std::vector<record::evaluation> run_evaluations(const std::vector<eval_job>& jobs, results_store& store,
                                        const eval_options& options, const eval_callback& on_done);

// The discrimination audit of one problem (docs/eval.md).
struct audit_fake {
  std::string name;  // zeros, constant, mean, passthrough
  bool applicable = true;         // false: it cannot be formed for some output, or equals it
  bool equals_reference = false;  // on some output the fake is exactly the reference (a 1-element mean)
  bool passes_ours = false;        // on every trial, as a candidate must: a failure of the audit
  bool passes_legacy_1e2 = false;  // allclose atol = rtol = 1e-2 on the problem's own inputs (trial 0)
  bool passes_legacy_1e4 = false;  // allclose 1e-4 there (float32 outputs only)
};
struct audit_result {
  std::string problem;
  std::string error;  // the reference failed
  int trials = 0;
  std::vector<audit_fake> fakes;
  bool discriminating() const;
};
audit_result audit_problem(const problem_spec& problem, const eval_options& options);
// One audit result as a JSON object (the `headroom audit --json` element; `eval --audit-to` lines).
std::string audit_json(const audit_result& r);

// Reads a file into a spec (hash = sha256 of its bytes).
problem_spec load_problem(const std::filesystem::path& path);
candidate_spec load_candidate(const std::filesystem::path& path, const std::string& source);
// An evaluation of `candidate` on `problem` under `checker`, not judged yet: what identifies it
// (hashes, source, path, problem id) filled in.
record::evaluation evaluation_of(const candidate_spec& candidate, const problem_spec& problem, int checker);
// Stores the problems' and candidates' texts of `jobs` (what reverify reruns), each once, in hash
// order, so processes storing the same texts together wait for each other instead of deadlocking.
// Inside the caller's transaction.
void put_texts(results_store& store, const std::vector<const eval_job*>& jobs);

}  // namespace headroom::eval
