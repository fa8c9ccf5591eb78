#include "problem_lanes.hpp"

#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <future>
#include <numeric>
#include <optional>
#include <thread>
#include <utility>

#include "headroom/eval/buffer_pool.hpp"
#include "headroom/util/phase_trace.hpp"
#include "audit_tally.hpp"
#include "candidate.hpp"
#include "candidate_sandbox.hpp"
#include "degenerate_flag.hpp"
#include "device_gate.hpp"
#include "reference.hpp"

namespace headroom::eval {

using record::evaluation;

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

}  // namespace

problem_lanes::problem_lanes(job_source& source, compile_phase& compiled, bool compile_as_claimed, const run_state& run,
                             const eval_callback& on_done)
    : source(source), compiled(compiled), compile_as_claimed(compile_as_claimed), run_(run), on_done(on_done) {}

bool problem_lanes::needs_reference(const job_batch& b) const {
  return std::any_of(b.jobs.begin(), b.jobs.end(),
                     [&](const eval_job* j) { return !compiled.failure(j->candidate.hash); });
}

void problem_lanes::run(const std::vector<std::string>& devices, std::vector<evaluation>& results) {
  results_ = &results;
  std::vector<std::thread> pool;
  for (const std::string& d : devices)
    for (int lane_index = 0; lane_index < run_.options.lanes; ++lane_index) pool.emplace_back([this, d] { lane(d); });
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

struct problem_lanes::lane_state {
  explicit lane_state(const std::string& d) : device(d) {}
  const std::string& device;
  std::optional<ceilings> device_ceilings;
  // The next problem's reference worker starts while this problem's last candidate runs (seconds
  // of start-up a problem, 4 s on the H200 host); the batch it is for is claimed for this lane then.
  std::unique_ptr<session_start> next_reference;
  std::optional<job_batch> claimed;
  // The worker of the job after the one running starts while this one prepares or runs its
  // trials; measurements wait for it (session_start).
  std::unique_ptr<session_start> pending;
  // The reference data of the problem this lane holds, kept from one batch to the next of it, and
  // its audit once taken.
  std::optional<reference_data> ref;
  std::string ref_problem;
  std::optional<audit_result> audit;

  void wait_for_pending() const {
    if (pending) pending->wait();
    if (next_reference) next_reference->wait();
  }
};

void problem_lanes::lane(const std::string& device) {
  lane_state l(device);
  try {
    for (;;) {
      job_batch batch =
          l.claimed && !l.claimed->empty() ? std::move(*l.claimed) : claimed_batch(source.next(l.ref_problem, true));
      l.claimed.reset();
      if (batch.empty()) break;
      if (l.ref && l.ref_problem != batch.problem().hash) {
        // The problem's reference data is done with (a lane keeps it from one batch of a problem to
        // the next of the same problem).
        release_problem_memory(l.ref);
        l.audit.reset();
      }
      if (compile_as_claimed) compiled.submit(batch.jobs);
      // The audit reads only the reference data. On a GPU it runs beside the first candidate's
      // evaluation (9-10 s of host work on a 6 GiB KernelBench problem); on the CPU, where the host
      // is the device being timed, before it. Either way it is taken (and its line appended) before
      // that evaluation is stored: an interrupted run never leaves a stored problem without its
      // audit, and a degenerate problem's evaluations are flagged as they are stored.
      // (Declared after `l`, so that an exception waits for a running audit before its `ref` goes.)
      std::future<audit_result> audit;
      for (std::size_t k = 0; k < batch.jobs.size(); ++k) {
        evaluation e = evaluate_job(l, batch, k, audit);
        e.env.device = device;
        if (audit.valid()) take_audit(l, audit);
        if (l.audit) flag_degenerate(e, *l.audit);
        util::phase_trace trace("store");
        store_result(batch, k, e);
      }
    }
    if (l.ref) release_problem_memory(l.ref);
  } catch (...) {
    std::lock_guard lock(result_mutex);
    if (!failure) failure = std::current_exception();
    source.stop();
  }
}

evaluation problem_lanes::evaluate_job(lane_state& l, const job_batch& batch, std::size_t k,
                                       std::future<audit_result>& audit) {
  const auto& group = batch.jobs;
  const eval_job* j = group[k];
  if (!compiled.ready(j->candidate.hash)) {
    util::phase_trace trace("wait for the build");
    compiled.wait(j->candidate.hash);
  }
  if (auto cf = compiled.failure(j->candidate.hash)) return compile_failure_evaluation(*j, *cf, l.device);
  if (!l.ref) prepare(l, batch, k, audit);
  util::phase_trace trace("evaluate_candidate");
  std::unique_ptr<session> started = l.pending ? l.pending->take() : nullptr;
  l.pending.reset();
  if (k + 1 == group.size()) {  // the batch's last job: claim the next batch, and start its reference
    l.claimed = claimed_batch(source.next(batch.problem().hash, false));
    if (!l.claimed->empty() && l.claimed->problem().hash != batch.problem().hash && needs_reference(*l.claimed))
      l.next_reference = std::make_unique<session_start>(run_, l.device, reference_label(l.claimed->problem()));
  }
  if (l.ref->error.empty()) l.pending = start_worker(l, batch, k + 1);
  return evaluate_candidate(j->candidate, j->problem, *l.ref, run_, l.device, std::move(started),
                            [&l] { l.wait_for_pending(); });
}

void problem_lanes::prepare(lane_state& l, const job_batch& batch, std::size_t k, std::future<audit_result>& audit) {
  const eval_job* j = batch.jobs[k];
  if (!l.pending) l.pending = start_worker(l, batch, k);
  {
    util::phase_trace trace("prepare_reference");
    std::unique_ptr<session> started = l.next_reference ? l.next_reference->take() : nullptr;
    l.next_reference.reset();
    l.ref = prepare_reference(
        j->problem, run_, l.device, l.device_ceilings, [&l] { l.wait_for_pending(); }, std::move(started), true);
    l.ref_problem = j->problem.hash;
  }
  if (!l.ref->error.empty()) l.pending.reset();  // every candidate gets reference_error
  const bool audit_beside = l.device != "cpu" || !run_.options.timing;
  audit =
      std::async(audit_beside ? std::launch::async : std::launch::deferred, [&problem = j->problem, &data = *l.ref] {
        auto quiet = host_work();  // not while a lane measures
        util::phase_trace trace("audit");
        return audit_reference(problem.id, data);
      });
  if (!audit_beside) take_audit(l, audit);
}

job_batch problem_lanes::claimed_batch(job_batch b) {
  if (b.empty() || !compiled.beside()) return b;
  if (compile_as_claimed) compiled.submit(b.jobs);
  std::vector<bool> ready;
  for (const eval_job* j : b.jobs) ready.push_back(compiled.ready(j->candidate.hash));
  std::vector<std::size_t> order(b.jobs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_partition(order.begin(), order.end(), [&](std::size_t i) { return ready[i]; });
  job_batch out;
  for (std::size_t i : order) {
    out.jobs.push_back(b.jobs[i]);
    if (i < b.claims.size()) out.claims.push_back(b.claims[i]);
  }
  return out;
}

std::unique_ptr<session_start> problem_lanes::start_worker(const lane_state& l, const job_batch& batch,
                                                           std::size_t k) const {
  const auto& group = batch.jobs;
  const eval_job* j = k < group.size() ? group[k]
                      : l.claimed && !l.claimed->empty() && l.claimed->problem().hash == batch.problem().hash
                          ? l.claimed->jobs.front()
                          : nullptr;
  // A worker started before its candidate's build is over would not see the build (the sandbox's
  // folders are fixed at its start): it starts when its turn comes.
  if (!j || !compiled.ready(j->candidate.hash) || compiled.failure(j->candidate.hash)) return nullptr;
  return std::make_unique<session_start>(run_, l.device, candidate_label(j->candidate, j->problem), true,
                                         candidate_isolation(run_, l.device, j->candidate));
}

void problem_lanes::take_audit(lane_state& l, std::future<audit_result>& audit) {
  l.audit = audit.get();
  if (run_.options.audit_output.empty()) return;
  std::string line = audit_json(*l.audit);
  std::lock_guard lock(result_mutex);  // only the append: other devices go on comparing
  std::ofstream(run_.options.audit_output, std::ios::app) << line << "\n";
}

void problem_lanes::store_result(const job_batch& batch, std::size_t k, const evaluation& e) {
  const eval_job* j = batch.jobs[k];
  if (!source.store(batch, k, e)) {
    std::fprintf(stderr,
                 "headroom: %s on %s: its claim lapsed and another process evaluates it; this result "
                 "is not stored\n",
                 j->candidate.path.c_str(), j->problem.id.c_str());
    return;
  }
  const auto [n, total] = source.progress();
  std::lock_guard lock(result_mutex);
  results_->push_back(e);
  if (on_done) on_done(*j, e, n, total);
}

}  // namespace headroom::eval
