#include "problem_lanes.hpp"

#include <malloc.h>

#include <fstream>
#include <future>
#include <thread>
#include <utility>

#include "headroom/eval/buffer_pool.hpp"
#include "headroom/eval/results_store.hpp"
#include "headroom/util/phase_trace.hpp"
#include "candidate_sandbox.hpp"
#include "compile_phase.hpp"
#include "device_gate.hpp"

namespace headroom::eval {
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

problem_lanes::problem_lanes(const std::vector<const eval_job*>& todo, const std::map<std::string, answer>& compile_failures,
                             const eval_options& o, results_store& store, const eval_callback& on_done)
    : compile_failures(compile_failures), o(o), store(store), on_done(on_done), total(static_cast<int>(todo.size())) {
  for (const eval_job* j : todo) {
    if (!by_problem.count(j->problem.hash)) order.push_back(j->problem.hash);
    by_problem[j->problem.hash].push_back(j);
  }
}

bool problem_lanes::needs_reference(std::size_t i) {
  const auto& group = by_problem[order[i]];
  return std::any_of(group.begin(), group.end(), [&](const eval_job* j) { return !compile_failures.count(j->candidate.hash); });
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
          e = compile_failure_evaluation(*j, cf->second, device);
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
        results_->push_back(e);
        if (on_done) on_done(*j, e, n, total);
      }
      release_problem_memory(ref);
    }
  } catch (...) {
    std::lock_guard lock(result_mutex);
    if (!failure) failure = std::current_exception();
    next_problem = order.size();
  }
}

}  // namespace headroom::eval
