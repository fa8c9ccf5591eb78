#include "compile_phase.hpp"

#include <algorithm>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "headroom/eval/check.hpp"
#include "headroom/util/json.hpp"
#include "headroom/util/phase_trace.hpp"
#include "candidate_sandbox.hpp"
#include "judged.hpp"

namespace headroom::eval {

using util::json_string;
using record::evaluation;
using record::verdict;

namespace {

bool has_extension(const candidate_spec& c) {
  return c.text.find("load_inline") != std::string::npos || c.text.find("cpp_extension") != std::string::npos;
}

}  // namespace

// A build beside a measurement must be frozen by it (freeze_others freezes every sandbox), and
// without a sandbox nothing freezes it; an untimed run measures nothing.
compile_phase::compile_phase(const run_state& run) : run_(run), beside_(run.options.sandbox || !run.options.timing) {}

compile_phase::~compile_phase() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  changed_.notify_all();
  for (auto& t : threads_) t.join();
}

void compile_phase::submit(const std::vector<const eval_job*>& jobs) {
  // A candidate built by an earlier run is ready at once: its jobs go first, and a worker can be
  // started ahead for it. (The stamp is read outside the lock.)
  std::vector<const eval_job*> to_build;
  for (const eval_job* j : jobs)
    if (needs_build(j->candidate)) to_build.push_back(j);
  std::vector<std::string> mine;
  {
    std::lock_guard lock(mutex_);
    for (const eval_job* j : to_build) {
      if (!seen_.insert(j->candidate.hash).second) continue;
      unfinished_.insert(j->candidate.hash);
      queue_.push_back(&j->candidate);
      mine.push_back(j->candidate.hash);
    }
    // One thread a build up to `jobs`; a thread outlives its builds until the phase ends.
    const std::size_t wanted = std::min<std::size_t>(static_cast<std::size_t>(std::max(1, run_.options.jobs)),
                                                     threads_.size() + queue_.size());
    while (threads_.size() < wanted) threads_.emplace_back([this] { work(); });
  }
  changed_.notify_all();
  if (beside_) {
    rethrow_installation_failure();
    return;
  }
  for (const std::string& h : mine) wait(h);
}

void compile_phase::wait(const std::string& candidate_hash) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !unfinished_.contains(candidate_hash) || installation_failure_; });
  if (installation_failure_) std::rethrow_exception(installation_failure_);
}

bool compile_phase::ready(const std::string& candidate_hash) const {
  std::lock_guard lock(mutex_);
  return !unfinished_.contains(candidate_hash);
}

bool compile_phase::needs_build(const candidate_spec& candidate) const {
  return has_extension(candidate) && !compiled_already(run_, candidate);
}

void compile_phase::rethrow_installation_failure() const {
  std::lock_guard lock(mutex_);
  if (installation_failure_) std::rethrow_exception(installation_failure_);
}

void compile_phase::work() {
  for (;;) {
    const candidate_spec* c = nullptr;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      c = queue_.front();
      queue_.pop_front();
    }
    try {
      build_one(*c);
      std::lock_guard lock(mutex_);
      unfinished_.erase(c->hash);
    } catch (...) {
      // The installation's problem (a worker that cannot start): every waiter gets it, nothing more is built.
      std::lock_guard lock(mutex_);
      if (!installation_failure_) installation_failure_ = std::current_exception();
      queue_.clear();
    }
    changed_.notify_all();
  }
}

void compile_phase::build_one(const candidate_spec& c) {
  const run_state& run = run_;
  if (compiled_already(run, c)) return;
  // The build's own parallelism (ninja's MAX_JOBS): the machine's cores shared among the builds at once.
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const unsigned builds = static_cast<unsigned>(std::max(1, run.options.jobs));
  std::map<std::string, std::string> env = {{"MAX_JOBS", std::to_string(std::max(1u, cores / builds))}};
  std::optional<sandbox::policy> isolation;
  if (run.options.sandbox) isolation = candidate_policy(run, "cpu", c, true, env);
  util::phase_trace trace("build");
  session s(run, "cpu", "compile-" + c.hash.substr(0, 16), env, std::move(isolation));
  if (beside_) s.pass_no_gates();
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
