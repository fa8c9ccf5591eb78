// The reference's preparation (reference.hpp): one worker runs the problem's Model on every trial's
// inputs and on the timing sets, times it eager and compiled, and counts its FLOPs. The outputs stay
// in the parent; the candidate's worker never sees them (docs/eval.md, "Processes"). Its steps, in
// order: load the Model, the trials (the memory plan made at the first), the timing sets, the
// device's ceilings, the baselines' timings with the speed-of-light floor. A baseline is timed on an
// idle GPU or not at all (gpu_busy.hpp).
#include <algorithm>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "headroom/eval/check.hpp"
#include "headroom/worker/gpu_idle.hpp"
#include "headroom/worker/timing_stats.hpp"
#include "headroom/util/error.hpp"
#include "headroom/util/json.hpp"
#include "audit_tally.hpp"
#include "gpu_busy.hpp"
#include "memory_plan.hpp"
#include "reference.hpp"
#include "tensor_wire.hpp"
#include "timed_calls.hpp"
#include "timing_request.hpp"

namespace headroom::eval {

using util::json_string;
using record::timing_summary;

namespace {

bool all_finite(const std::vector<tensor>& outputs) {
  return std::all_of(outputs.begin(), outputs.end(), [](const tensor& t) { return eval::all_finite(t); });
}

std::size_t bytes_of(const std::vector<tensor>& v) {
  std::size_t n = 0;
  for (const tensor& t : v) n += t.bytes.size();
  return n;
}

// The largest inputs, and then outputs, that the least plan fits in the budget: the worker refuses
// larger ones before it copies them out (a problem of tens of GiB is a reference_error, not the
// end of the run). The plan is affine in each.
std::uint64_t largest_fitting(const run_state& run, std::uint64_t inputs, bool vary_inputs) {
  const int trials = std::max(1, run.options.trials), sets = run.options.timing ? 1 : 0;
  auto need = [&](std::uint64_t x) {
    return least_memory(vary_inputs ? set_bytes{x, 0} : set_bytes{inputs, x}, trials, sets).total();
  };
  const std::uint64_t base = need(0), per_gib = need(1ull << 30) - base;
  if (base >= run.memory_budget || per_gib == 0) return 0;
  return static_cast<std::uint64_t>(static_cast<double>(run.memory_budget - base) / static_cast<double>(per_gib) *
                                    static_cast<double>(1ull << 30));
}

// Why a problem does not fit the memory budget, from what is known of it so far: its inputs (a
// worker refused them before copying them out), or its inputs and outputs.
std::string beyond_budget(set_bytes known, bool outputs_known, const run_state& run) {
  const int sets = run.options.timing ? 1 : 0;
  const std::uint64_t need = least_memory(known, std::max(1, run.options.trials), sets).total();
  std::string what = outputs_known ? fmt::format("one set of inputs and outputs is {} ({} in, {} out)",
                                                 gib_text(known.inputs + known.outputs), gib_text(known.inputs),
                                                 gib_text(known.outputs))
                                   : fmt::format("its inputs are {}", gib_text(known.inputs));
  return fmt::format(
      "{}: evaluating it needs {}{} (the parent and its workers together), more than the memory "
      "budget of {} (--memory-budget; docs/eval.md, \"Memory\")",
      what, outputs_known ? "" : "at least ", gib_text(need), gib_text(run.memory_budget));
}

std::uint64_t refused_bytes(const answer& a) {
  std::uint64_t bytes = 0;
  if (a.doc["bytes"].get_uint64().get(bytes)) bytes = 0;
  return bytes;
}

struct made_trial {
  std::string constants = "[]";
  std::vector<std::string> ops;
};

// Inputs under a seed and distribution, then the reference's outputs for them, in the reference's
// worker. record_ops: the forward's operators are recorded (made.ops).
bool make_trial(session& s, const run_state& run, trial_data& t, bool record_ops, made_trial& made,
                std::string& error) {
  answer in = s.ask(fmt::format(R"("op":"inputs","seed":{},"distribution":{},"max_bytes":{})", t.seed, t.distribution,
                                largest_fitting(run, 0, true)),
                    {}, run.options.run_timeout);
  if (in.failure == worker_failure::none && !in.ok && in.error == "too_large") {
    error = beyond_budget({refused_bytes(in), 0}, false, run);
    return false;
  }
  if (in.failure != worker_failure::none || !in.ok) {
    error = "get_inputs() failed: " + describe(in);
    return false;
  }
  t.inputs = wire::decode(in.doc["tensors"].get_array().value(), std::move(in.payload));
  std::string_view constants = "[]";
  if (in.doc["constants"].get_string().get(constants)) constants = "[]";
  made.constants = constants;
  // The worker runs the forward on the inputs it just sent, which it kept: the same bytes, not
  // sent back.
  answer out = s.ask(
      fmt::format(
          R"("op":"run","inputs":{},"poison":-1,"record_ops":{},"kept_inputs":true,"release":true,"max_bytes":{})",
          wire::describe(t.inputs), record_ops, largest_fitting(run, bytes_of(t.inputs), false)),
      {}, run.options.run_timeout);
  if (out.failure == worker_failure::none && !out.ok && out.error == "too_large") {
    error = beyond_budget({bytes_of(t.inputs), refused_bytes(out)}, true, run);
    return false;
  }
  if (out.failure != worker_failure::none || !out.ok) {
    error = "the reference's forward failed: " + describe(out);
    return false;
  }
  std::string_view invalid;
  if (!out.doc["invalid"].get_string().get(invalid)) {
    error = std::string("the reference's forward: ") + std::string(invalid);
    return false;
  }
  t.outputs = wire::decode(out.doc["outputs"].get_array().value(), std::move(out.payload));
  simdjson::dom::array arr;
  // The outermost kernels only: what the reference's side of torch_fallback compares with.
  if (record_ops && !out.doc["outer_ops"].get_array().get(arr))
    for (simdjson::dom::element e : arr) made.ops.emplace_back(e.get_string().value());
  return true;
}

// A trial of the preparation: the first also records the forward's operators (ref.ops) and sets
// ref.constants. The non-tensor arguments reach the candidate's worker once, at its load: they must
// not change from trial to trial.
bool run_trial(session& s, const run_state& run, reference_data& ref, trial_data& t, bool first, std::string& error) {
  made_trial made;
  if (!make_trial(s, run, t, first, made, error)) return false;
  if (first) {
    ref.constants = made.constants;
    ref.ops = std::move(made.ops);
  }
  if (made.constants != ref.constants) {
    error = fmt::format(
        "get_inputs() returned other non-tensor arguments under another seed ({} and {}); "
        "headroom passes one set of them to every call",
        ref.constants, made.constants);
    return false;
  }
  return true;
}

std::vector<tensor> shapes_of(const std::vector<tensor>& tensors) {
  std::vector<tensor> out;
  for (const tensor& t : tensors) out.push_back(tensor{t.type, t.shape, {}});
  return out;
}

// The preparation's steps, in order. Each returns false with ref.error set when the problem failed.

// The problem's Model loaded into the reference's worker `s`, its weights from ref.init_seed.
bool load_model(session& s, const problem_spec& problem, const run_state& run, reference_data& ref) {
  ref.env = s.env();
  answer load = load_reference_model(s, problem, run, ref.init_seed);
  if (load.failure != worker_failure::none || !load.ok) {
    ref.error = "the problem did not load: " + describe(load);
    return false;
  }
  ref.init_inputs = std::string(load.doc["init_inputs"].get_string().value());
  return true;
}

// The memory plan, from the first trial's sizes: KernelBench problems reach gigabytes per input, so
// the plan fits the problem into the memory budget, parent and workers together (memory_plan.hpp),
// or says what it would need. It decides whether the parent keeps the trials (ref.keep_trials) and
// may cut `timing_sets`.
bool plan_memory(const trial_data& first, int trials, const run_state& run, reference_data& ref, int& timing_sets) {
  set_bytes one{bytes_of(first.inputs), bytes_of(first.outputs)};
  ref.set_input_bytes = one.inputs;
  ref.set_output_bytes = one.outputs;
  ref.output_shapes = shapes_of(first.outputs);
  std::optional<memory_plan> plan = fit_memory(one, trials, timing_sets, run.memory_budget);
  if (!plan) {
    ref.error = beyond_budget(one, true, run);
    return false;
  }
  ref.keep_trials = plan->keep_trials;
  if (plan->timing_sets < timing_sets)
    ref.reduced = fmt::format(
        "{} timing set(s) instead of {}: one set of inputs and outputs is {}, the memory "
        "budget {}",
        plan->timing_sets, timing_sets, gib_text(one.inputs + one.outputs), gib_text(run.memory_budget));
  timing_sets = plan->timing_sets;
  return true;
}

// Every trial (the trial plan, trial_plan.hpp) made by the reference's worker; kept in ref.trials,
// with their tensors when the plan keeps them. audit: the discrimination audit is taken as the
// trials pass through when they are not kept (ref.audit).
bool make_trials(session& s, const problem_spec& problem, const run_state& run, bool audit, reference_data& ref,
                 int& timing_sets) {
  const int trials = std::max(1, run.options.trials);
  std::optional<audit_tally> tally;
  for (int i = 0; i < trials; ++i) {
    trial_data t;
    t.seed = trial_seed(run.seed, i);
    t.distribution = trial_distribution(i);
    std::string error;
    if (!run_trial(s, run, ref, t, i == 0, error)) {
      ref.error = error;
      return false;
    }
    if (i == 0) {
      if (!plan_memory(t, trials, run, ref, timing_sets)) return false;
      if (!ref.keep_trials && audit) tally.emplace();
    }
    // A distribution outside the problem's domain (log of a negative) makes the reference itself
    // non-finite: that trial says nothing about a candidate.
    if (i > 0 && !all_finite(t.outputs)) {
      ++ref.skipped_trials;
      recycle(t.inputs);
      recycle(t.outputs);
      continue;
    }
    if (tally) tally->add(t);
    if (!ref.keep_trials) {
      recycle(t.inputs);
      recycle(t.outputs);
    }
    ref.trials.push_back(std::move(t));
  }
  if (tally) ref.audit = tally->result(problem.id);
  return true;
}

// The timing sets stay in the reference's worker, which passes them on to every worker that times
// (timing_sets.hpp); the parent reads each once, for the shapes of symmetric inputs.
bool keep_timing_sets(session& s, const run_state& run, int timing_sets, reference_data& ref) {
  for (int k = 0; k < timing_sets; ++k) {
    answer in = s.ask(
        fmt::format(R"("op":"inputs","seed":{},"distribution":0,"keep_set":{})", trial_seed(run.seed, 100 + k), k), {},
        run.options.run_timeout);
    if (in.failure != worker_failure::none || !in.ok) {
      ref.error = "get_inputs() failed: " + describe(in);
      return false;
    }
    std::vector<tensor> inputs = wire::decode(in.doc["tensors"].get_array().value(), std::move(in.payload));
    if (k == 0)
      for (const tensor& t : inputs) ref.symmetric.push_back(symmetric_size(t));
    recycle(inputs);
  }
  ref.timing_sets = timing_sets;
  return true;
}

// The device's ceilings, once per lane (on a GPU): the speed-of-light floor's denominators.
void measure_ceilings(session& s, const run_state& run, const std::string& device,
                      std::optional<ceilings>& device_ceilings) {
  if (device == "cpu" || device_ceilings) return;
  answer c = s.ask(R"("op":"ceilings")", {}, run.options.run_timeout);
  if (c.failure == worker_failure::none && c.ok)
    device_ceilings = ceilings{c.doc["bandwidth"].get_double().value(), c.doc["matmul"].get_double().value()};
}

// A baseline's timing that found the GPU busy: no candidate of this evaluation runs yet, so something
// else keeps the GPU busy. Nothing is timed: the run ends with the error, which names the processes
// that hold the GPU (gpu_busy.hpp), and a later run prepares the problem again.
void refuse_if_busy(session& s, const answer& a, const run_state& run, const char* baseline) {
  std::optional<busy_report> seen = busy_report_of(a, fmt::format("timing the reference's {} baseline", baseline));
  if (!seen) return;
  throw input_error(busy_gpu_error(*seen, probe_gpu(s, worker::busy_settle_ms, run.options.run_timeout), false));
}

// The baselines, timed on the sets the worker keeps: eager (and from it what the harness costs
// around a call), its FLOPs for the informative roofline and the speed-of-light floor
// (reference_floor.hpp), then compiled; a floor either baseline ran below is dropped. Held timings
// are repeated with the dispatch included, for candidates that cannot be held.
bool time_baselines(session& s, const problem_spec& problem, const run_state& run, const std::string& device,
                    const std::optional<ceilings>& device_ceilings, reference_data& ref) {
  const eval_options& o = run.options;
  std::string request = timing_request(limits_of(o), ref, false, o.hold_launches);
  std::string kept_request = request;
  std::string dispatch_request = timing_request(limits_of(o), ref, false, false);
  auto time_dispatch = [&](const timing_summary& held, std::optional<timing_summary>& into,
                           std::chrono::seconds timeout) {
    if (!held.held) return;
    answer d = s.ask(dispatch_request, {}, timeout);
    refuse_if_busy(s, d, run, "dispatch-included");
    if (d.failure == worker_failure::none && d.ok) into = parse_timing(d.doc["timing"]);
  };
  answer eager = s.ask(request, {}, o.run_timeout * 10);
  refuse_if_busy(s, eager, run, "eager");
  if (eager.failure != worker_failure::none || !eager.ok) {
    ref.error = "timing the reference failed: " + describe(eager);
    return false;
  }
  ref.eager = parse_timing(eager.doc["timing"]);
  // What the harness costs around a call, by the parent's clock: the bound on candidates' answers.
  try {
    call_overhead overhead = measure_overhead(parse_timed_calls(eager.doc), s.last_timing());
    ref.call_overhead_ms = overhead.outside_ms;
    ref.wall_gap_ms = overhead.gap_ms;
  } catch (const std::exception& e) {
    ref.error = std::string("the reference's timing answer: ") + e.what();
    return false;
  }
  time_dispatch(*ref.eager, ref.eager_dispatch, o.run_timeout * 10);
  double flops = -1;
  if (device != "cpu") {
    answer f = s.ask(R"("op":"flops")", {}, o.run_timeout);
    if (f.failure == worker_failure::none && f.ok) flops = f.doc["flops"].get_double().value();
  }
  prepare_floor(s, problem, run, device, device_ceilings, flops, ref);
  if (o.compiled_baseline) {
    answer c = s.ask(R"("op":"compile_baseline")", {}, o.run_timeout);
    if (c.failure == worker_failure::none && c.ok && c.doc["available"].get_bool().value()) {
      answer compiled = s.ask(kept_request, {}, o.compile_timeout);
      refuse_if_busy(s, compiled, run, "compiled");
      if (compiled.failure == worker_failure::none && compiled.ok) {
        ref.compiled = parse_timing(compiled.doc["timing"]);
        time_dispatch(*ref.compiled, ref.compiled_dispatch, o.compile_timeout);
      }
    }
  }
  check_floor_against_reference(ref);
  return true;
}

}  // namespace

std::string remake_trial(const reference_data& ref, const trial_data& plan, const run_state& run, trial_data& out) {
  out.seed = plan.seed;
  out.distribution = plan.distribution;
  made_trial made;
  std::string error;
  if (!ref.worker) return "the reference's worker is gone";
  if (!make_trial(*ref.worker, run, out, false, made, error)) return error;
  if (made.constants != ref.constants) return "get_inputs() returned other non-tensor arguments this time";
  return {};
}

answer load_reference_model(session& s, const problem_spec& problem, const run_state& run, std::uint64_t init_seed) {
  return s.ask(fmt::format(R"("op":"load","path":{},"build_dir":"","class":"Model","compile_only":false,"seed":{})",
                           json_string(std::filesystem::absolute(problem.path).string()), init_seed),
               {}, run.options.load_timeout);
}

std::string reference_label(const problem_spec& problem) {
  return fmt::format("reference-{}", problem.hash.substr(0, 16));
}

reference_data prepare_reference(const problem_spec& problem, const run_state& run, const std::string& device,
                                 std::optional<ceilings>& device_ceilings, const before_timing& before,
                                 std::unique_ptr<session> started, bool audit) {
  reference_data ref;
  ref.init_seed = trial_seed(run.seed, 1000);
  if (!started) {
    started = std::make_unique<session>(run, device, reference_label(problem), std::map<std::string, std::string>{});
    started->hello(run.options.load_timeout);
  }
  session& s = *started;
  if (!load_model(s, problem, run, ref)) return ref;
  int timing_sets = run.options.timing ? std::max(1, run.options.timing_sets) : 0;
  if (!make_trials(s, problem, run, audit, ref, timing_sets)) return ref;
  if (!run.options.timing) {
    // Trials the parent does not keep are made again by this worker.
    if (ref.keep_trials) s.stop();
    else ref.worker = std::shared_ptr<session>(std::move(started));
    return ref;
  }
  if (!keep_timing_sets(s, run, timing_sets, ref)) return ref;
  if (run.options.baselines) {
    if (before) before();
    measure_ceilings(s, run, device, device_ceilings);
    if (!time_baselines(s, problem, run, device, device_ceilings, ref)) return ref;
  }
  // Kept: the candidates' timed calls run again here to be checked (timed_calls.hpp).
  ref.worker = std::shared_ptr<session>(std::move(started));
  return ref;
}

}  // namespace headroom::eval
