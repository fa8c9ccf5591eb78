#include "problem_lanes.hpp"

#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <future>
#include <optional>
#include <thread>
#include <utility>

#include "headroom/eval/buffer_pool.hpp"
#include "headroom/util/phase_trace.hpp"
#include "candidate_sandbox.hpp"
#include "device_gate.hpp"

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

problem_lanes::problem_lanes(job_source& source, compile_phase& compiled, bool compile_as_claimed,
                             const eval_options& o, const eval_callback& on_done)
    : source(source), compiled(compiled), compile_as_claimed(compile_as_claimed), o(o), on_done(on_done) {}

bool problem_lanes::needs_reference(const job_batch& b) const {
  return std::any_of(b.jobs.begin(), b.jobs.end(), [&](const eval_job* j) { return !compiled.failure(j->candidate.hash); });
}

void problem_lanes::run(const std::vector<std::string>& devices, std::vector<evaluation>& results) {
  results_ = &results;
  std::vector<std::thread> pool;
  for (const std::string& d : devices)
    for (int lane_index = 0; lane_index < o.lanes; ++lane_index) pool.emplace_back([this, d] { lane(d); });
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

void problem_lanes::lane(const std::string& device) {
  std::optional<ceilings> device_ceilings;
  // The next problem's reference worker starts while this problem's last candidate runs (seconds
  // of start-up a problem, 4 s on the H200 host); the batch it is for is claimed for this lane then.
  std::unique_ptr<session_start> next_reference;
  std::optional<job_batch> claimed;
  // The worker of the job after the one running starts while this one prepares or runs its
  // trials; measurements wait for it (session_start).
  std::unique_ptr<session_start> pending;
  auto wait_for_pending = [&] {
    if (pending) pending->wait();
    if (next_reference) next_reference->wait();
  };
  // The reference data of the problem this lane holds, kept from one batch to the next of it.
  std::optional<reference_data> ref;
  std::string ref_problem;
  try {
    for (;;) {
      job_batch batch = claimed && !claimed->empty() ? std::move(*claimed) : source.next(ref_problem, true);
      claimed.reset();
      if (batch.empty()) break;
      const auto& group = batch.jobs;
      if (ref && ref_problem != batch.problem().hash) {
        // The problem's reference data is done with (a lane keeps it from one batch of a problem to
        // the next of the same problem).
        release_problem_memory(ref);
      }
      if (compile_as_claimed) compiled.build(group);
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
      // Job k's worker, k past the batch: the first of the next batch claimed when it is of this problem.
      auto start_worker = [&](std::size_t k) -> std::unique_ptr<session_start> {
        const eval_job* j = k < group.size() ? group[k]
                            : claimed && !claimed->empty() && claimed->problem().hash == batch.problem().hash
                                ? claimed->jobs.front()
                                : nullptr;
        if (!j || compiled.failure(j->candidate.hash)) return nullptr;
        return std::make_unique<session_start>(o, device, candidate_label(j->candidate, j->problem), true,
                                               candidate_isolation(o, device, j->candidate));
      };
      for (std::size_t k = 0; k < group.size(); ++k) {
        const eval_job* j = group[k];
        evaluation e;
        if (auto cf = compiled.failure(j->candidate.hash)) {
          e = compile_failure_evaluation(*j, *cf, device);
        } else {
          if (!ref) {
            if (!pending) pending = start_worker(k);
            {
              util::phase_trace trace("prepare_reference");
              std::unique_ptr<session> started = next_reference ? next_reference->take() : nullptr;
              next_reference.reset();
              ref = prepare_reference(j->problem, o, device, device_ceilings, wait_for_pending, std::move(started),
                                      !o.audit_output.empty());
              ref_problem = j->problem.hash;
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
          pending.reset();
          if (k + 1 == group.size()) {  // the batch's last job: claim the next batch, and start its reference
            claimed = source.next(batch.problem().hash, false);
            if (!claimed->empty() && claimed->problem().hash != batch.problem().hash && needs_reference(*claimed))
              next_reference = std::make_unique<session_start>(o, device, reference_label(claimed->problem()));
          }
          if (ref->error.empty()) pending = start_worker(k + 1);
          e = evaluate_candidate(j->candidate, j->problem, *ref, o, device, std::move(started), wait_for_pending);
        }
        e.env.device = device;
        if (audit_line.valid()) append_audit();
        util::phase_trace trace("store");
        if (!source.store(batch, k, e)) {
          std::fprintf(stderr, "headroom: %s on %s: its claim lapsed and another process evaluates it; this result "
                               "is not stored\n", j->candidate.path.c_str(), j->problem.id.c_str());
          continue;
        }
        const auto [n, total] = source.progress();
        std::lock_guard lock(result_mutex);
        results_->push_back(e);
        if (on_done) on_done(*j, e, n, total);
      }
    }
    if (ref) release_problem_memory(ref);
  } catch (...) {
    std::lock_guard lock(result_mutex);
    if (!failure) failure = std::current_exception();
    source.stop();
  }
}

}  // namespace headroom::eval
