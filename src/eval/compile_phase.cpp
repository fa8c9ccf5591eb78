#include "compile_phase.hpp"

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "headroom/eval/check.hpp"
#include "headroom/util/json.hpp"
#include "candidate_sandbox.hpp"
#include "judged.hpp"

namespace headroom::eval {

using util::json_string;
using record::evaluation;
using record::verdict;

void compile_phase::build(const std::vector<const eval_job*>& jobs) {
  const run_state& run = run_;
  std::vector<const candidate_spec*> unique;
  {
    std::lock_guard lock(mutex_);
    for (const eval_job* j : jobs)
      if (seen_.insert(j->candidate.hash).second) unique.push_back(&j->candidate);
  }
  std::atomic<std::size_t> next{0};
  std::mutex m;
  int threads = std::max(1, std::min<int>(run.options.jobs, static_cast<int>(unique.size())));
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::map<std::string, std::string> env = {{"MAX_JOBS", std::to_string(std::max(1u, cores / threads))}};
  std::exception_ptr compile_failure;  // the installation's problem (a worker that cannot start): rethrown
  auto work = [&] {
    try {
      for (std::size_t i; (i = next++) < unique.size();) {
        const candidate_spec& c = *unique[i];
        if (c.text.find("load_inline") == std::string::npos && c.text.find("cpp_extension") == std::string::npos)
          continue;  // nothing to build
        if (compiled_already(run, c)) continue;
        std::optional<sandbox::policy> isolation;
        if (run.options.sandbox) isolation = candidate_policy(run, "cpu", c, true, env);
        session s(run, "cpu", "compile-" + c.hash.substr(0, 16), env, std::move(isolation));
        s.hello(run.options.load_timeout);
        answer a =
            s.ask(fmt::format(R"("op":"load","path":{},"build_dir":{},"class":"ModelNew","compile_only":true,"seed":0)",
                              json_string(candidate_import_path(run, c)), json_string(candidate_build_path(run, c))),
                  {}, run.options.compile_timeout);
        bool failed = (a.failure == worker_failure::none && !a.ok && a.error == "compile_error") ||
                      a.failure == worker_failure::timeout;
        if (failed) {
          std::lock_guard lock(mutex_);
          failures_[c.hash] = a;
        }
        // A sandboxed build is copied out of the sandbox as its worker exits.
        s.stop();
        if (!failed && a.failure == worker_failure::none && a.ok) mark_compiled(run, c, s.env());
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

std::optional<answer> compile_phase::failure(const std::string& candidate_hash) const {
  std::lock_guard lock(mutex_);
  const auto it = failures_.find(candidate_hash);
  return it == failures_.end() ? std::nullopt : std::optional<answer>(it->second);
}

evaluation compile_failure_evaluation(const eval_job& j, const answer& failure, const std::string& device) {
  evaluation e = evaluation_of(j.candidate, j.problem, checker_version);
  e.started_at = iso_now();
  e.env.device = device;
  bool timeout = failure.failure == worker_failure::timeout;
  e.result = timeout ? verdict::timeout : verdict::compile_error;
  e.reasons.push_back({timeout ? "compile" : "compile_error", timeout ? failure.detail : failure.message});
  e.log = failure.traceback;
  return e;
}

}  // namespace headroom::eval
