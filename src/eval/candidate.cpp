// A candidate's evaluation (candidate.hpp), in a fresh worker (docs/eval.md): load, every trial
// twice under two poison bytes, the float64 comparison here in the parent, then timing with the timed
// outputs re-checked (candidate_timing.cpp). Every way this can end is a verdict. Its steps, in
// order: load, the trials (each: two calls, then judged), the fallback check, the timing.
#include <algorithm>
#include <chrono>
#include <set>

#include <fmt/format.h>

#include "headroom/eval/check.hpp"
#include "headroom/eval/unwritten.hpp"
#include "headroom/util/json.hpp"
#include "headroom/util/phase_trace.hpp"
#include "candidate.hpp"
#include "candidate_sandbox.hpp"
#include "candidate_timing.hpp"
#include "judged.hpp"
#include "reference.hpp"
#include "tensor_wire.hpp"
#include "torch_fallback.hpp"

namespace headroom::eval {

using util::json_string;
using record::evaluation;
using record::verdict;

namespace {

constexpr std::byte poison_a{0xFF};  // NaN in every floating type, -1 in integers
constexpr std::byte poison_b{0x7F};

void check_side_effects(judged& j, const answer& a, int trial) {
  simdjson::dom::array arr;
  if (!a.doc["mutated"].get_array().get(arr) && arr.size() > 0) {
    j.fail(verdict::incorrect, "mutated_input",
           fmt::format("trial {}: input {} changed by the call", trial, joined(arr)));
  }
  std::int64_t added = 0;
  if (!a.doc["threads_added"].get_int64().get(added) && added > 0)
    j.fail(verdict::incorrect, "background_thread",
           fmt::format("trial {}: {} thread(s) still running after forward returned", trial, added));
  if (!a.doc["tampered"].get_array().get(arr) && arr.size() > 0) {
    j.fail(verdict::incorrect, "tampering", "replaced: " + joined(arr));
  }
  if (!a.doc["record_off"].get_array().get(arr) && arr.size() > 0)
    j.fail(verdict::incorrect, "tampering", fmt::format("trial {}: the operator record: {}", trial, joined(arr)));
}

std::vector<tensor> outputs_of(answer& a) {
  return wire::decode(a.doc["outputs"].get_array().value(), std::move(a.payload));
}

// The candidate's ModelNew loaded into its worker `s`, with the reference's weights' seed, init
// inputs and constants. False when the evaluation has failed (its verdict set through `j`).
bool load_model(judged& j, session& s, const candidate_spec& candidate, const reference_data& ref,
                const run_state& run) {
  // Lean: when the parent does not keep the trials, the problem barely fits; its worker keeps no
  // payload buffer from one request to the next (memory_plan.hpp).
  answer load = s.ask(
      fmt::format(
          R"("op":"load","path":{},"build_dir":{},"class":"ModelNew","compile_only":false,"seed":{},"init_inputs":{},"constants":{},"lean":{})",
          json_string(candidate_import_path(run, candidate)), json_string(candidate_build_path(run, candidate)),
          ref.init_seed, json_string(ref.init_inputs), json_string(ref.constants), !ref.keep_trials),
      {}, run.options.compile_timeout);
  if (load.failure != worker_failure::none || !load.ok) {
    fail_request(j, load, "load", s);
    return false;
  }
  simdjson::dom::array arr;
  if (!load.doc["tampered"].get_array().get(arr) && arr.size() > 0) {
    j.fail(verdict::incorrect, "tampering", "replaced at import: " + joined(arr));
    s.stop();
    return false;
  }
  return true;
}

// The operators the candidate's forward dispatched, each with its operands' sizes, from the first
// call of every trial: its side of torch_fallback.
struct dispatched_ops {
  std::set<std::string> ops;
  bool known = false;
};

// What a trial's two calls leave to be judged: the first call's checks and poisoned elements (its
// outputs already let go), and the second call's outputs; which of the second call's outputs lie in
// memory an earlier call returned (src/worker/output_memory.hpp), and whether any output of either
// call lies in memory the candidate keeps.
struct trial_calls {
  output_checks first;
  std::vector<poison_marks> marks;
  std::vector<tensor> second;
  std::vector<bool> second_kept;
  bool persistent = false;
};

// The memory of a call's outputs, as its worker placed them: "fresh", "kept", "first_returned".
void note_memory(const answer& a, int pass, trial_calls& calls) {
  simdjson::dom::array memory;
  if (a.doc["memory"].get_array().get(memory)) return;
  for (simdjson::dom::element m : memory) {
    std::string_view where;
    if (m.get_string().get(where)) where = "fresh";
    if (where != "fresh") calls.persistent = true;
    if (pass == 1) calls.second_kept.push_back(where == "kept");
  }
}

// Trial `t`'s two calls, under poison_a then poison_b. The first call's outputs are compared and
// their poisoned elements marked as soon as they arrive, and let go before the second call's do: the
// parent holds one call's outputs at a time. `remade`: the trial made again (when the parent does
// not keep its trials), whose inputs go once the worker has them.
void call_twice(judged& j, session& s, const reference_data& ref, const run_state& run, const trial_data& trial,
                trial_data& remade, std::size_t t, dispatched_ops& dispatched, trial_calls& calls) {
  std::vector<std::span<const std::byte>> payload;
  std::string metas = wire::encode(trial.inputs, payload);
  for (int pass = 0; pass < 2 && !j.failed(); ++pass) {
    int poison = static_cast<int>(pass == 0 ? poison_a : poison_b);
    // The second call runs on the inputs the worker kept from the first (gigabytes not sent twice);
    // the worker checks them unmodified after each call against its copy of what was sent.
    answer a = s.ask(fmt::format(R"("op":"run","inputs":{},"poison":{},"record_ops":{},"kept_inputs":{})", metas,
                                 poison, pass == 0, pass == 1),
                     pass == 0 ? std::span<const std::span<const std::byte>>(payload)
                               : std::span<const std::span<const std::byte>>(),
                     run.options.run_timeout);
    if (!ref.keep_trials && pass == 0) recycle(remade.inputs);  // the worker keeps them for the second call
    if (a.failure != worker_failure::none || !a.ok) {
      fail_request(j, a, "run", s);
      return;
    }
    check_side_effects(j, a, static_cast<int>(t));
    std::string_view invalid;
    if (!a.doc["invalid"].get_string().get(invalid)) {
      j.fail(verdict::incorrect, "not_a_tensor", std::string(invalid));
      return;
    }
    if (fail_misplaced(j, a, fmt::format("trial {}{}", t, pass == 1 ? ", second call" : ""))) return;
    note_memory(a, pass, calls);
    std::vector<tensor> outputs = outputs_of(a);
    simdjson::dom::array ops;
    if (pass == 0 && !a.doc["ops"].get_array().get(ops)) {
      dispatched.known = true;
      for (auto x : ops) dispatched.ops.emplace(x.get_string().value());
    }
    if (pass == 1) {
      calls.second = std::move(outputs);
      return;
    }
    calls.first = check_outputs(trial.outputs, outputs);
    for (const tensor& out : outputs) {
      util::phase_trace trace("mark_poisoned");
      calls.marks.push_back(mark_poisoned(out, poison_a));
    }
    // The next call's outputs are read into these outputs' buffers.
    for (tensor& out : outputs) s.recycle(std::move(out.bytes));
  }
}

// Trial `t` judged from its two calls: unwritten elements first (they explain the mismatch they
// also cause), then the first call's comparison, then the second's.
void judge_trial(judged& j, const trial_data& trial, const trial_calls& calls, std::size_t t) {
  evaluation& e = j.e;
  for (std::size_t i = 0; i < std::min(calls.marks.size(), calls.second.size()); ++i) {
    const poison_marks& x = calls.marks[i];
    const tensor& y = calls.second[i];
    if (x.type != y.type || x.shape != y.shape) continue;
    util::phase_trace trace("count_unwritten");
    std::int64_t n = count_unwritten(x, y, poison_b);
    if (n <= 0) continue;
    e.errors.unwritten = std::max(e.errors.unwritten, n);
    // In memory an earlier call returned, which the harness filled before the call: a result left in place.
    if (i < calls.second_kept.size() && calls.second_kept[i])
      j.fail(verdict::incorrect, "stale_output",
             fmt::format("trial {}, output {}: memory an earlier call returned, filled by the harness before each "
                         "call: {} of {} elements still held its fill after both calls (never rewritten)",
                         t, i, n, y.numel()));
    else
      j.fail(verdict::incorrect, "unwritten_output",
             fmt::format("trial {}, output {}: {} of {} elements never written", t, i, n, y.numel()));
  }
  std::string where = fmt::format("trial {} (distribution {})", t, trial.distribution);
  bool ok = record_checks(j, calls.first, trial.outputs.size(), where, "mismatch");
  if (ok && !j.failed()) compare_outputs(j, trial.outputs, calls.second, where + ", second call", "mismatch");
  if (!j.failed()) ++e.errors.trials_passed;
}

// Every trial of the reference, in order, until one fails: made again by the reference's worker
// when the parent does not keep them, called twice, judged.
void run_trials(judged& j, session& s, const reference_data& ref, const run_state& run, dispatched_ops& dispatched) {
  trial_data remade;  // a trial the parent does not keep, made again by the reference's worker
  for (std::size_t t = 0; t < ref.trials.size() && !j.failed(); ++t) {
    const trial_data* trial = &ref.trials[t];
    if (!ref.keep_trials) {
      util::phase_trace trace("remake_trial");
      if (std::string error = remake_trial(ref, ref.trials[t], run, remade); !error.empty()) {
        j.fail(verdict::reference_error, "reference_error",
               fmt::format("trial {}: the reference could not make it again: {}", t, error));
        break;
      }
      trial = &remade;
    }
    trial_calls calls;
    call_twice(j, s, ref, run, *trial, remade, t, dispatched, calls);
    if (calls.persistent) flag_persistent_output(j);
    if (j.failed()) break;
    ++j.e.errors.trials;
    judge_trial(j, *trial, calls, t);
    for (tensor& out : calls.second) s.recycle(std::move(out.bytes));
    if (!ref.keep_trials) recycle(remade.outputs);
  }
}

// The flag of a forward that only dispatched the reference's own operators (torch_fallback.hpp).
void check_fallback(judged& j, const session& s, const reference_data& ref, const dispatched_ops& dispatched) {
  if (j.failed() || !dispatched.known) return;
  if (auto ops = torch_fallback(ref.ops, dispatched.ops))
    j.flag("torch_fallback",
           fmt::format("forward dispatched every compute operator of the reference on operands of the reference's "
                       "sizes ({}): {}",
                       s.op_record() == "dispatcher" ? "recorded by PyTorch's dispatcher, every thread"
                                                     : "recorded by a Python dispatch mode",
                       *ops));
}

// The reasons that inform without failing: what the memory budget and the problem's domain left out.
void add_informative_reasons(evaluation& e, const reference_data& ref) {
  if (!ref.reduced.empty()) e.reasons.push_back({"timing_sets_reduced", ref.reduced});
  if (ref.skipped_trials > 0)
    e.reasons.push_back({"trials_skipped", fmt::format("{} input distribution(s) outside the problem's domain "
                                                       "(the reference was not finite)",
                                                       ref.skipped_trials)});
}

}  // namespace

std::string candidate_label(const candidate_spec& candidate, const problem_spec& problem) {
  return fmt::format("candidate-{}-{}", candidate.hash.substr(0, 12), problem.hash.substr(0, 8));
}

evaluation evaluate_candidate(const candidate_spec& candidate, const problem_spec& problem, const reference_data& ref,
                              const run_state& run, const std::string& device, std::unique_ptr<session> started,
                              const before_timing& before) {
  auto begin = std::chrono::steady_clock::now();
  evaluation e = evaluation_of(candidate, problem, checker_version);
  e.started_at = iso_now();
  e.env = ref.env;
  e.result = verdict::correct;
  judged j{e};
  auto finish = [&]() -> evaluation {
    e.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    return e;
  };
  if (!ref.error.empty()) {
    e.result = verdict::reference_error;
    e.reasons.push_back({"reference_error", ref.error});
    return finish();
  }
  if (!started) {
    started =
        std::make_unique<session>(run, device, candidate_label(candidate, problem),
                                  std::map<std::string, std::string>{}, candidate_isolation(run, device, candidate));
    started->hello(run.options.load_timeout);
  }
  session& s = *started;
  e.env = s.env();
  if (!load_model(j, s, candidate, ref, run)) return finish();
  dispatched_ops dispatched;
  run_trials(j, s, ref, run, dispatched);
  check_fallback(j, s, ref, dispatched);
  if (!j.failed() && run.options.timing && ref.timing_sets > 0) {
    if (before) before();
    time_candidate(j, s, ref, run, device);
  }
  add_informative_reasons(e, ref);
  s.stop();
  return finish();
}

}  // namespace headroom::eval
