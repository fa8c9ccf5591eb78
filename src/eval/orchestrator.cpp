// A run (docs/eval.md, "Processes"): what the store does not have yet is compiled in parallel on the
// CPU (compile_phase.cpp), then each visible device's lanes take batches of one problem's jobs
// (problem_lanes.cpp) from a job source (job_source.hpp): this process's list, or, with a shared
// store (docs/scale.md), the store's work queue, where compiling waits until a batch is claimed.
// Results are stored as they finish.
#include "headroom/eval/orchestrator.hpp"

#include <sys/prctl.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>
#include <set>

#include <fmt/format.h>

#include "headroom/eval/buffer_pool.hpp"
#include "headroom/eval/memory_budget.hpp"
#include "headroom/eval/check.hpp"
#include "headroom/eval/jobs.hpp"
#include "headroom/store/results_store.hpp"
#include "headroom/util/error.hpp"
#include "headroom/util/read_file.hpp"
#include "headroom/util/sha256.hpp"
#include "candidate_sandbox.hpp"
#include "compile_phase.hpp"
#include "job_source.hpp"
#include "problem_lanes.hpp"
#include "session.hpp"

namespace headroom::eval {

using record::evaluation;

std::string sha256_hex(const std::string& bytes) { return util::sha256_hex(bytes); }

namespace {

std::string read_file(const std::filesystem::path& p) {
  auto text = util::read_file(p);
  if (!text) throw input_error(fmt::format("cannot read {}", p.string()));
  return std::move(*text);
}

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

problem_spec load_problem(const std::filesystem::path& path) {
  problem_spec p;
  p.path = path;
  p.text = read_file(path);
  p.hash = util::sha256_hex(p.text);
  p.id = path.parent_path().filename().string() + "/" + path.stem().string();
  return p;
}

candidate_spec load_candidate(const std::filesystem::path& path, const std::string& source) {
  candidate_spec c;
  c.path = path;
  c.text = read_file(path);
  c.hash = util::sha256_hex(c.text);
  c.source = source;
  return c;
}

evaluation evaluation_of(const candidate_spec& candidate, const problem_spec& problem, int checker) {
  evaluation e;
  e.candidate_hash = candidate.hash;
  e.source = candidate.source;
  e.candidate_path = candidate.path.string();
  e.problem = problem.id;
  e.problem_hash = problem.hash;
  e.checker = checker;
  return e;
}

void put_texts(results_store& store, const std::vector<const eval_job*>& jobs) {
  std::map<std::string, const problem_spec*> problems;
  std::map<std::string, const candidate_spec*> candidates;
  for (const eval_job* j : jobs) {
    problems.emplace(j->problem.hash, &j->problem);
    candidates.emplace(j->candidate.hash, &j->candidate);
  }
  for (const auto& [hash, p] : problems) store.put_problem({p->id, hash, p->path.string(), p->text});
  for (const auto& [hash, c] : candidates) store.put_candidate({hash, c->source, c->path.string(), c->text});
}

std::vector<std::string> expand_devices(const std::string& device) {
  if (device == "cpu") return {"cpu"};
  if (device.rfind("cuda:", 0) == 0) return {device};
  int n = visible_gpus();
  if (device == "cuda" && n == 0) throw input_error("--device cuda: no GPU is visible on this machine");
  if (device != "cuda" && device != "auto") throw input_error(fmt::format("unknown device '{}' (cpu, cuda, cuda:N, auto)", device));
  if (n == 0) return {"cpu"};
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(fmt::format("cuda:{}", i));
  return out;
}

std::vector<evaluation> run_evaluations(const std::vector<eval_job>& given_jobs, results_store& store,
                                        const eval_options& given, const eval_callback& on_done) {
  eval_options o = given;
  if (o.seed == 0) o.seed = std::random_device{}() | (static_cast<std::uint64_t>(std::random_device{}()) << 32);
  std::vector<std::string> devices = expand_devices(o.device);
  // --memory-budget 0: a share of what the machine has available now, split among the problems in
  // flight (docs/eval.md, "Memory").
  if (o.memory_budget == 0) o.memory_budget = default_memory_budget(static_cast<int>(devices.size()) * std::max(1, o.lanes));
  // The parent holds every worker's payload regions and the reference outputs: a candidate (same
  // user) must not reach them through /proc/<pid>/fd or /proc/<pid>/mem.
  prctl(PR_SET_DUMPABLE, 0);
  if (o.lanes < 1) throw input_error("--lanes must be at least 1");
  // On the CPU the "device" is the host: another lane's work would run inside every measurement.
  if (o.lanes > 1 && o.timing && devices.front() == "cpu")
    throw input_error("--lanes above 1 needs a GPU when timing (on the CPU other lanes would run during every "
                      "measurement); use --no-timing or one lane");
  // Kept payload buffers: about one problem's reference data (--memory-budget) per lane.
  payload_pool().set_limit(static_cast<std::size_t>(std::max<std::uint64_t>(o.memory_budget, 1ull << 30)) *
                           static_cast<std::size_t>(std::max(1, o.lanes)));

  // Candidates run isolated (docs/eval.md, "Sandbox"): refused here when this machine cannot.
  if (o.sandbox) {
    require_sandbox(o);
    o.sandbox_roots = sandbox_roots(o.python);
  }

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
  // Only when something is left, a worker on the first GPU says its model and architecture. The
  // model: a row of another GPU index of that model is done too (an index means nothing from one
  // machine to the next), and a shared queue's jobs are per model. The architecture: extensions
  // are built for it only, in the compile phase and at load alike, so the load finds the build up
  // to date.
  std::string platform = "cpu";
  if (!todo.empty() && devices.front() != "cpu") {
    session probe(o, devices.front(), "probe", {});
    probe.hello(o.load_timeout);
    const std::string gpu_model = probe.env().gpu;
    if (!o.worker_env.count("TORCH_CUDA_ARCH_LIST") && !probe.capability().empty())
      o.worker_env["TORCH_CUDA_ARCH_LIST"] = probe.capability();
    probe.stop();
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
  std::unique_ptr<job_source> source;
  if (shared) source = std::make_unique<shared_jobs>(todo, store, platform, o.lease_s);
  else source = std::make_unique<local_jobs>(todo, store);

  // Compile phase: every distinct candidate imported once, `jobs` at a time, on the CPU: all of
  // them before the evaluations, or, from a shared queue, those of each batch as it is claimed.
  compile_phase compiled(o);
  if (!shared) compiled.build(todo);

  // Evaluation: batches of one problem's jobs are shared out among the devices' lanes (--lanes per
  // device, one by default).
  problem_lanes(*source, compiled, shared, o, on_done).run(devices, results);
  source.reset();  // a shared queue's heartbeat stops
  if (shared) {
    // Every job is done (by this process or another): the run's results are the store's.
    std::set<std::pair<std::string, std::string>> wanted;
    for (const eval_job* j : todo) wanted.insert({j->candidate.hash, j->problem.hash});
    results.clear();
    for (evaluation& e : store.evaluations()) {
      const bool here = platform == "cpu" ? e.env.device == "cpu" : e.env.gpu == platform || platform == "cuda";
      if (e.checker == checker_version && here && wanted.count({e.candidate_hash, e.problem_hash}))
        results.push_back(std::move(e));
    }
  }
  return results;
}

}  // namespace headroom::eval
