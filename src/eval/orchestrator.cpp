// Scheduling of a run (docs/eval.md, "Processes"): candidates are compiled in parallel on the CPU,
// then each visible device takes whole problems (the reference is prepared once per problem) and
// evaluates their candidates one fresh worker at a time. Results are stored as they finish.
#include "headroom/eval/orchestrator.hpp"

#include <malloc.h>
#include <sys/prctl.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "headroom/eval/buffer_pool.hpp"
#include "headroom/eval/check.hpp"
#include "headroom/eval/memory_budget.hpp"
#include "headroom/eval/results_store.hpp"
#include "headroom/util/error.hpp"
#include "headroom/util/json.hpp"
#include "headroom/util/sha256.hpp"
#include "candidate_sandbox.hpp"
#include "device_gate.hpp"
#include "headroom/util/phase_trace.hpp"
#include "session.hpp"

namespace headroom::eval {

using util::json_string;

std::string sha256_hex(const std::string& bytes) { return util::sha256_hex(bytes); }

namespace {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw input_error(fmt::format("cannot read {}", p.string()));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
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

std::string audit_json(const audit_result& r) {
  std::string s = fmt::format(R"({{"problem":{},"error":{},"trials":{},"discriminating":{},"fakes":[)",
                              json_string(r.problem), json_string(r.error), r.trials, r.discriminating());
  for (std::size_t k = 0; k < r.fakes.size(); ++k) {
    const auto& f = r.fakes[k];
    s += fmt::format(R"({}{{"name":"{}","applicable":{},"equals_reference":{},"passes_ours":{},"passes_legacy_1e-2":{},"passes_legacy_1e-4":{}}})",
                     k ? "," : "", f.name, f.applicable, f.equals_reference, f.passes_ours, f.passes_legacy_1e2,
                     f.passes_legacy_1e4);
  }
  return s + "]}";
}

bool audit_result::discriminating() const {
  if (!error.empty()) return false;
  return std::none_of(fakes.begin(), fakes.end(), [](const audit_fake& f) { return f.applicable && f.passes_ours; });
}

namespace {
// A problem's memory goes back to the machine when it is done: the next problem's plan counts only
// its own (memory_plan.hpp), and the heap keeps what is freed (finish_eval_options), so it is
// trimmed too.
void release_problem_memory(std::optional<reference_data>& ref) {
  ref.reset();
  std::size_t limit = payload_pool().limit();
  payload_pool().set_limit(0);
  payload_pool().set_limit(limit);
  malloc_trim(0);
}

// --memory-budget 0: a share of what the machine has available now, split among the problems in
// flight (docs/eval.md, "Memory").
void resolve_memory_budget(eval_options& o, std::size_t devices) {
  if (o.memory_budget == 0)
    o.memory_budget = default_memory_budget(static_cast<int>(devices) * std::max(1, o.lanes));
}
}  // namespace

std::vector<evaluation> run_evaluations(const std::vector<eval_job>& jobs, results_store& store, const eval_options& given,
                                        const eval_callback& on_done) {
  eval_options o = given;
  if (o.seed == 0) o.seed = std::random_device{}() | (static_cast<std::uint64_t>(std::random_device{}()) << 32);
  std::vector<std::string> devices = expand_devices(o.device);
  resolve_memory_budget(o, devices.size());
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

  // What is left to do: the store already has the rest (an interrupted run continues).
  std::vector<evaluation> results;
  std::vector<const eval_job*> todo;
  auto done_before = [&](const eval_job& j, const std::string& gpu_model) {
    if (o.force || !store.has(j.candidate.hash, j.problem.hash, checker_version, devices, gpu_model)) return false;
    evaluation_filter f;
    f.problem = j.problem.id;
    for (evaluation& e : store.evaluations(f))
      if (e.candidate_hash == j.candidate.hash && e.problem_hash == j.problem.hash) results.push_back(e);
    return true;
  };
  for (const eval_job& j : jobs)
    if (!done_before(j, {})) todo.push_back(&j);
  // Only when something is left, a worker on the first GPU says its model and architecture. The
  // model: a row of another GPU index of that model is done too (an index means nothing from one
  // machine to the next). The architecture: extensions are built for it only, in the compile
  // phase and at load alike, so the load finds the build up to date.
  if (!todo.empty() && devices.front() != "cpu") {
    session probe(o, devices.front(), "probe", {});
    probe.hello(o.load_timeout);
    const std::string gpu_model = probe.env().gpu;
    if (!o.worker_env.count("TORCH_CUDA_ARCH_LIST") && !probe.capability().empty())
      o.worker_env["TORCH_CUDA_ARCH_LIST"] = probe.capability();
    probe.stop();
    if (!gpu_model.empty())
      std::erase_if(todo, [&](const eval_job* j) { return done_before(*j, gpu_model); });
  }
  int total = static_cast<int>(todo.size());
  std::atomic<int> done{0};
  if (todo.empty()) return results;
  for (const eval_job* j : todo) {
    store.put_problem({j->problem.id, j->problem.hash, j->problem.path.string(), j->problem.text});
    store.put_candidate({j->candidate.hash, j->candidate.source, j->candidate.path.string(), j->candidate.text});
  }

  // Compile phase: every distinct candidate imported once, `jobs` at a time, on the CPU.
  std::map<std::string, answer> compile_failures;
  {
    std::vector<const candidate_spec*> unique;
    std::set<std::string> seen;
    for (const eval_job* j : todo)
      if (seen.insert(j->candidate.hash).second) unique.push_back(&j->candidate);
    std::atomic<std::size_t> next{0};
    std::mutex m;
    int threads = std::max(1, std::min<int>(o.jobs, static_cast<int>(unique.size())));
    unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    std::map<std::string, std::string> env = {{"MAX_JOBS", std::to_string(std::max(1u, cores / threads))}};
    std::exception_ptr compile_failure;  // the installation's problem (a worker that cannot start): rethrown
    auto work = [&] {
      try {
        for (std::size_t i; (i = next++) < unique.size();) {
          const candidate_spec& c = *unique[i];
          if (c.text.find("load_inline") == std::string::npos && c.text.find("cpp_extension") == std::string::npos)
            continue;  // nothing to build
          if (compiled_already(o, c)) continue;
          std::optional<sandbox::policy> isolation;
          if (o.sandbox) isolation = candidate_policy(o, "cpu", c, true, env);
          session s(o, "cpu", "compile-" + c.hash.substr(0, 16), env, std::move(isolation));
          s.hello(o.load_timeout);
          answer a = s.ask(fmt::format(R"("op":"load","path":{},"build_dir":{},"class":"ModelNew","compile_only":true,"seed":0)",
                                       json_string(candidate_import_path(o, c)), json_string(candidate_build_path(o, c))),
                           {}, o.compile_timeout);
          bool failed = (a.failure == worker_failure::none && !a.ok && a.error == "compile_error") ||
                        a.failure == worker_failure::timeout;
          if (failed) {
            std::lock_guard lock(m);
            compile_failures[c.hash] = a;
          }
          // A sandboxed build is copied out of the sandbox as its worker exits.
          s.stop();
          if (!failed && a.failure == worker_failure::none && a.ok) mark_compiled(o, c, s.env());
        }
      } catch (...) {
        std::lock_guard lock(m);
        if (!compile_failure) compile_failure = std::current_exception();
        next = unique.size();
      }
    };
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(work);
    for (auto& t : pool) t.join();
    if (compile_failure) std::rethrow_exception(compile_failure);
  }

  // Evaluation: problems are shared out among the devices' lanes (--lanes per device, one by default).
  std::map<std::string, std::vector<const eval_job*>> by_problem;
  std::vector<std::string> order;
  for (const eval_job* j : todo) {
    if (!by_problem.count(j->problem.hash)) order.push_back(j->problem.hash);
    by_problem[j->problem.hash].push_back(j);
  }
  std::atomic<std::size_t> next_problem{0};
  std::mutex result_mutex;
  std::exception_ptr failure;
  // A problem whose every candidate failed to compile needs no reference worker.
  auto needs_reference = [&](std::size_t i) {
    const auto& group = by_problem[order[i]];
    return std::any_of(group.begin(), group.end(), [&](const eval_job* j) { return !compile_failures.count(j->candidate.hash); });
  };
  auto device_loop = [&](const std::string& device) {
    std::optional<ceilings> device_ceilings;
    // The next problem's reference worker starts while this problem's last candidate runs (seconds
    // of start-up a problem, 4 s on the H200 host); that problem is claimed for this lane then.
    std::unique_ptr<session_start> next_reference;
    std::optional<std::size_t> claimed;
    try {
      for (std::size_t i; (i = claimed ? *std::exchange(claimed, std::nullopt) : next_problem++) < order.size();) {
        const auto& group = by_problem[order[i]];
        std::optional<reference_data> ref;
        // The audit reads only the reference data. On a GPU it runs beside the first candidate's
        // evaluation (9-10 s of host work on a 6 GiB KernelBench problem); on the CPU, where the host
        // is the device being timed, before it. Either way its line is appended before that
        // evaluation is stored: an interrupted run never leaves a stored problem without its audit.
        // (Declared after `ref`, so that an exception waits for a running audit before `ref` goes.)
        std::future<std::string> audit_line;
        const bool audit_beside = device != "cpu" || !o.timing;
        auto append_audit = [&] {
          std::string line = audit_line.get();
          std::lock_guard lock(result_mutex);  // only the append: other devices go on comparing
          std::ofstream(o.audit_output, std::ios::app) << line << "\n";
        };
        // The worker of the job after the one running starts while this one prepares or runs its
        // trials; measurements wait for it (session_start).
        auto start_worker = [&](std::size_t k) -> std::unique_ptr<session_start> {
          if (k >= group.size() || compile_failures.count(group[k]->candidate.hash)) return nullptr;
          return std::make_unique<session_start>(o, device, candidate_label(group[k]->candidate, group[k]->problem), true,
                                                 candidate_isolation(o, device, group[k]->candidate));
        };
        std::unique_ptr<session_start> pending;
        auto wait_for_pending = [&] {
          if (pending) pending->wait();
          if (next_reference) next_reference->wait();
        };
        for (std::size_t k = 0; k < group.size(); ++k) {
          const eval_job* j = group[k];
          evaluation e;
          auto cf = compile_failures.find(j->candidate.hash);
          if (cf != compile_failures.end()) {
            e.candidate_hash = j->candidate.hash;
            e.source = j->candidate.source;
            e.candidate_path = j->candidate.path.string();
            e.problem = j->problem.id;
            e.problem_hash = j->problem.hash;
            e.checker = checker_version;
            e.started_at = iso_now();
            e.env.device = device;
            bool timeout = cf->second.failure == worker_failure::timeout;
            e.result = timeout ? verdict::timeout : verdict::compile_error;
            e.reasons.push_back({timeout ? "compile" : "compile_error", timeout ? cf->second.detail : cf->second.message});
            e.log = cf->second.traceback;
          } else {
            if (!ref) {
              pending = start_worker(k);
              {
                util::phase_trace trace("prepare_reference");
                std::unique_ptr<session> started = next_reference ? next_reference->take() : nullptr;
                next_reference.reset();
                ref = prepare_reference(j->problem, o, device, device_ceilings, wait_for_pending, std::move(started),
                                        !o.audit_output.empty());
              }
              if (!ref->error.empty()) pending.reset();  // every candidate gets reference_error
              if (!o.audit_output.empty()) {
                audit_line = std::async(audit_beside ? std::launch::async : std::launch::deferred,
                                        [&problem = j->problem, &data = *ref] {
                                          auto quiet = host_work();  // not while a lane measures
                                          util::phase_trace trace("audit");
                                          return audit_json(audit_reference(problem.id, data));
                                        });
                if (!audit_beside) append_audit();
              }
            }
            util::phase_trace trace("evaluate_candidate");
            std::unique_ptr<session> started = pending ? pending->take() : nullptr;
            pending = ref->error.empty() ? start_worker(k + 1) : nullptr;
            if (k + 1 == group.size()) {  // the problem's last candidate: start the next problem's reference
              claimed = next_problem++;
              if (*claimed < order.size() && needs_reference(*claimed))
                next_reference = std::make_unique<session_start>(o, device, reference_label(by_problem[order[*claimed]].front()->problem));
            }
            e = evaluate_candidate(j->candidate, j->problem, *ref, o, device, std::move(started), wait_for_pending);
          }
          e.env.device = device;
          if (audit_line.valid()) append_audit();
          std::lock_guard lock(result_mutex);
          util::phase_trace trace("store");
          store.put(e);
          int n = ++done;
          results.push_back(e);
          if (on_done) on_done(*j, e, n, total);
        }
        release_problem_memory(ref);
      }
    } catch (...) {
      std::lock_guard lock(result_mutex);
      if (!failure) failure = std::current_exception();
      next_problem = order.size();
    }
  };
  std::vector<std::thread> pool;
  for (const std::string& d : devices)
    for (int lane = 0; lane < o.lanes; ++lane) pool.emplace_back(device_loop, d);
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  return results;
}

audit_result audit_problem(const problem_spec& problem, const eval_options& given) {
  eval_options o = given;
  o.timing = false;
  if (o.seed == 0) o.seed = std::random_device{}();
  std::optional<ceilings> none;
  std::string device = expand_devices(o.device).front();
  resolve_memory_budget(o, 1);
  return audit_reference(problem.id, prepare_reference(problem, o, device, none, {}, nullptr, true));
}

}  // namespace headroom::eval
