// A run (docs/eval.md, "Processes"): what the store does not have yet is compiled in parallel on the
// CPU (compile_phase.cpp), beside the evaluations or before them, and each visible device's lanes
// take batches of one problem's jobs (problem_lanes.cpp) from a job source (job_source.hpp): this
// process's list, or, with a shared store (docs/scale.md), the store's work queue, where compiling
// waits until a batch is claimed.
// Results are stored as they finish. The run state (run_state.hpp) is built first, once.
#include "headroom/eval/orchestrator.hpp"

#include <sys/prctl.h>

#include <algorithm>
#include <memory>
#include <set>

#include "headroom/eval/buffer_pool.hpp"
#include "headroom/eval/check.hpp"
#include "headroom/eval/jobs.hpp"
#include "headroom/eval/loaders.hpp"
#include "headroom/eval/run_state.hpp"
#include "headroom/store/results_store.hpp"
#include "compile_phase.hpp"
#include "job_source.hpp"
#include "problem_lanes.hpp"
#include "session.hpp"

namespace headroom::eval {

using record::evaluation;

namespace {

// The first GPU's model and architecture, said by a worker started there: the last part of the run
// state (extensions are built for that architecture only, in the compile phase and at load alike,
// so the load finds the build up to date). Returns the model ("" when the worker did not say).
std::string probe_device(run_state& run) {
  session probe(run, run.devices.front(), "probe", {});
  probe.hello(run.options.load_timeout);
  const std::string gpu_model = probe.env().gpu;
  if (!run.worker_env.count("TORCH_CUDA_ARCH_LIST") && !probe.capability().empty())
    run.worker_env["TORCH_CUDA_ARCH_LIST"] = probe.capability();
  probe.stop();
  return gpu_model;
}

// The problems of `todo` one of whose candidates has an extension to build.
std::set<std::string> problems_with_builds(const std::vector<const eval_job*>& todo, const compile_phase& compiled) {
  std::set<std::string> out;
  for (const eval_job* j : todo)
    if (compiled.needs_build(j->candidate)) out.insert(j->problem.hash);
  return out;
}

// A shared queue's run, once every job is done (by this process or another): the store's
// evaluations of `todo` under this checker, on this platform.
std::vector<evaluation> stored_results(results_store& store, const std::vector<const eval_job*>& todo,
                                       const std::string& platform) {
  std::set<std::pair<std::string, std::string>> wanted;
  for (const eval_job* j : todo) wanted.insert({j->candidate.hash, j->problem.hash});
  std::vector<evaluation> results;
  for (evaluation& e : store.evaluations()) {
    const bool here = platform == "cpu" ? e.env.device == "cpu" : e.env.gpu == platform || platform == "cuda";
    if (e.checker == checker_version && here && wanted.count({e.candidate_hash, e.problem_hash}))
      results.push_back(std::move(e));
  }
  return results;
}

}  // namespace

std::vector<evaluation> run_evaluations(const std::vector<eval_job>& given_jobs, results_store& store,
                                        const eval_options& options, const eval_callback& on_done) {
  run_state run = start_run(options);
  const eval_options& o = run.options;
  const std::vector<std::string>& devices = run.devices;
  // The parent holds every worker's payload regions and the reference outputs: a candidate (same
  // user) must not reach them through /proc/<pid>/fd or /proc/<pid>/mem.
  prctl(PR_SET_DUMPABLE, 0);
  // Kept payload buffers: about one problem's reference data (--memory-budget) per lane.
  payload_pool().set_limit(static_cast<std::size_t>(std::max<std::uint64_t>(run.memory_budget, 1ull << 30)) *
                           static_cast<std::size_t>(std::max(1, o.lanes)));

  // --shard i/N: this process's share of a static split (docs/scale.md).
  std::vector<eval_job> share;
  if (o.shard) share = shard_jobs(given_jobs, o.shard->index, o.shard->count);
  const std::vector<eval_job>& jobs = o.shard ? share : given_jobs;
  // A shared store: the jobs are claimed from its work queue with every other process given them.
  const bool shared = store.shared() && !o.shard && !o.force;

  // What is left to do: the store already has the rest (an interrupted run continues). A shared
  // store's queue knows what is done.
  std::vector<evaluation> results;
  std::vector<const eval_job*> todo;
  auto done_before = [&](const eval_job& j, const std::string& gpu_model) {
    if (o.force || !store.has(j.candidate.hash, j.problem.hash, checker_version, devices, gpu_model)) return false;
    store::evaluation_filter f;
    f.problem = j.problem.id;
    for (evaluation& e : store.evaluations(f))
      if (e.candidate_hash == j.candidate.hash && e.problem_hash == j.problem.hash) results.push_back(e);
    return true;
  };
  for (const eval_job& j : jobs)
    if (shared || !done_before(j, {})) todo.push_back(&j);
  // Only when something is left, the first GPU is probed. Its model: a row of another GPU index of
  // that model is done too (an index means nothing from one machine to the next), and a shared
  // queue's jobs are per model.
  std::string platform = "cpu";
  if (!todo.empty() && devices.front() != "cpu") {
    const std::string gpu_model = probe_device(run);
    platform = gpu_model.empty() ? "cuda" : gpu_model;
    if (!gpu_model.empty() && !shared)
      std::erase_if(todo, [&](const eval_job* j) { return done_before(*j, gpu_model); });
  }
  if (todo.empty()) return results;
  {
    store::transaction t(store.db());
    put_texts(store, todo);
    t.commit();
  }
  // Compile phase: every distinct candidate imported once, `jobs` at a time, on the CPU: beside the
  // evaluations where no measurement can feel it (compile_phase.hpp), else before them; from a
  // shared queue, those of each batch as it is claimed.
  compile_phase compiled(run);
  // Beside the evaluations, the problems with a build to wait for come after the others (in the
  // order given), so that their builds run while the others are judged.
  if (!shared && compiled.beside()) {
    const std::set<std::string> building = problems_with_builds(todo, compiled);
    std::stable_partition(todo.begin(), todo.end(),
                          [&](const eval_job* j) { return !building.contains(j->problem.hash); });
  }
  std::unique_ptr<job_source> source;
  if (shared) source = std::make_unique<shared_jobs>(todo, store, platform, o.lease_s);
  else source = std::make_unique<local_jobs>(todo, store);
  if (!shared) compiled.submit(todo);

  // Evaluation: batches of one problem's jobs are shared out among the devices' lanes (--lanes per
  // device, one by default).
  problem_lanes(*source, compiled, shared, run, on_done).run(devices, results);
  source.reset();  // a shared queue's heartbeat stops
  // Every job is done (by this process or another): the run's results are the store's.
  if (shared) results = stored_results(store, todo, platform);
  return results;
}

}  // namespace headroom::eval
