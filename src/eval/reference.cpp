// The reference side of an evaluation: one worker runs the problem's Model on every trial's inputs
// and on the timing sets, times it eager and compiled, and counts its FLOPs. The outputs stay in the
// parent; the candidate's worker never sees them (docs/eval.md, "Processes").
#include <algorithm>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "headroom/eval/check.hpp"
#include "headroom/eval/speed_of_light.hpp"
#include "headroom/worker/timing_stats.hpp"
#include "headroom/util/json.hpp"
#include "session.hpp"
#include "timed_calls.hpp"

namespace headroom::eval {

using util::json_string;

namespace {

bool all_finite(const std::vector<tensor>& outputs) {
  return std::all_of(outputs.begin(), outputs.end(), [](const tensor& t) { return eval::all_finite(t); });
}

// Inputs under a seed and distribution, then the reference's outputs for them. The non-tensor
// arguments reach the candidate's worker once, at its load: they must not change from set to set.
// The first trial also records the forward's operators (ref.ops) and sets ref.constants.
bool run_trial(session& s, const eval_options& o, reference_data& ref, trial_data& t, bool first, std::string& error) {
  const bool record_ops = first;
  answer in = s.ask(fmt::format(R"("op":"inputs","seed":{},"distribution":{})", t.seed, t.distribution), {}, o.run_timeout);
  if (in.failure != worker_failure::none || !in.ok) {
    error = "get_inputs() failed: " + describe(in);
    return false;
  }
  t.inputs = wire::decode(in.doc["tensors"].get_array().value(), std::move(in.payload));
  std::string_view constants = "[]";
  if (in.doc["constants"].get_string().get(constants)) constants = "[]";
  if (first) ref.constants = constants;
  if (constants != ref.constants) {
    error = fmt::format("get_inputs() returned other non-tensor arguments under another seed ({} and {}); "
                        "headroom passes one set of them to every call",
                        ref.constants, constants);
    return false;
  }
  std::vector<std::span<const std::byte>> unused;
  std::string metas = wire::encode(t.inputs, unused);
  // The worker runs the forward on the inputs it just sent, which it kept: the same bytes, not
  // sent back.
  answer out = s.ask(
      fmt::format(R"("op":"run","inputs":{},"poison":-1,"record_ops":{},"kept_inputs":true)", metas, record_ops), {},
      o.run_timeout);
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
  if (first) {
    simdjson::dom::array arr;
    if (!out.doc["ops"].get_array().get(arr))
      for (simdjson::dom::element e : arr) ref.ops.emplace_back(e.get_string().value());
  }
  return true;
}

std::size_t bytes_of(const std::vector<tensor>& v) {
  std::size_t n = 0;
  for (const tensor& t : v) n += t.bytes.size();
  return n;
}

}  // namespace

answer load_reference_model(session& s, const problem_spec& problem, const eval_options& o, std::uint64_t init_seed) {
  return s.ask(fmt::format(R"("op":"load","path":{},"build_dir":"","class":"Model","compile_only":false,"seed":{})",
                           json_string(std::filesystem::absolute(problem.path).string()), init_seed),
               {}, o.load_timeout);
}

std::string reference_label(const problem_spec& problem) {
  return fmt::format("reference-{}", problem.hash.substr(0, 16));
}

reference_data prepare_reference(const problem_spec& problem, const eval_options& o, const std::string& device,
                                 std::optional<ceilings>& device_ceilings, const before_timing& before,
                                 std::unique_ptr<session> started) {
  reference_data ref;
  ref.init_seed = trial_seed(o.seed, 1000);
  if (!started) {
    started = std::make_unique<session>(o, device, reference_label(problem), std::map<std::string, std::string>{});
    started->hello(o.load_timeout);
  }
  session& s = *started;
  ref.env = s.env();
  answer load = load_reference_model(s, problem, o, ref.init_seed);
  if (load.failure != worker_failure::none || !load.ok) {
    ref.error = "the problem did not load: " + describe(load);
    return ref;
  }
  ref.init_inputs = std::string(load.doc["init_inputs"].get_string().value());

  int trials = std::max(1, o.trials), timing_sets = std::max(1, o.timing_sets);
  for (int i = 0; i < trials; ++i) {
    trial_data t;
    t.seed = trial_seed(o.seed, i);
    t.distribution = trial_distribution(i);
    std::string error;
    if (!run_trial(s, o, ref, t, i == 0, error)) {
      ref.error = error;
      return ref;
    }
    if (i == 0) {
      // KernelBench problems reach gigabytes per input: fit the kept sets into the memory budget.
      std::size_t per_set = std::max<std::size_t>(1, bytes_of(t.inputs) + bytes_of(t.outputs));
      auto allowed = static_cast<int>(std::max<std::uint64_t>(2, o.memory_budget / per_set));
      int want_trials = trials, want_sets = timing_sets;
      trials = std::min(trials, std::max(2, allowed - 1));
      timing_sets = std::min(timing_sets, std::max(1, allowed - trials));
      if (trials < want_trials || (o.timing && timing_sets < want_sets))
        ref.reduced = fmt::format("{} trial(s) and {} timing set(s) instead of {} and {}: one set is {:.1f} GiB",
                                  trials, timing_sets, want_trials, want_sets, static_cast<double>(per_set) / (1ull << 30));
    }
    // A distribution outside the problem's domain (log of a negative) makes the reference itself
    // non-finite: that trial says nothing about a candidate.
    if (i > 0 && !all_finite(t.outputs)) {
      ++ref.skipped_trials;
      continue;
    }
    ref.trials.push_back(std::move(t));
  }
  if (!o.timing) {
    s.stop();
    return ref;
  }
  for (int k = 0; k < timing_sets; ++k) {
    trial_data t;
    t.seed = trial_seed(o.seed, 100 + k);
    t.distribution = 0;
    std::string error;
    if (!run_trial(s, o, ref, t, false, error)) {
      ref.error = error;
      return ref;
    }
    ref.timing_sets.push_back(std::move(t));
  }
  for (const tensor& t : ref.timing_sets.front().inputs) ref.symmetric.push_back(symmetric_size(t));
  if (!o.baselines) {
    // Kept: the candidates' timed calls run again here to be checked (timed_calls.hpp).
    ref.replayer = std::shared_ptr<session>(std::move(started));
    return ref;
  }
  if (before) before();
  if (device != "cpu" && !device_ceilings) {
    answer c = s.ask(R"("op":"ceilings")", {}, o.run_timeout);
    if (c.failure == worker_failure::none && c.ok)
      device_ceilings = ceilings{c.doc["bandwidth"].get_double().value(), c.doc["matmul"].get_double().value()};
  }
  // The sets travel once: later timings of the same sets, and the FLOP count, run on what the
  // worker kept. One set does not travel at all: it is what the worker's last inputs request made
  // (6 GiB for some KernelBench problems, 2.5 s to send back on the H200 host).
  std::vector<std::span<const std::byte>> payload;
  std::string request = timing_request(o, ref.timing_sets, false, o.hold_launches, &payload, ref.symmetric);
  if (ref.timing_sets.size() == 1) {
    payload.clear();
    request += R"(,"sets_from_inputs":true)";
  }
  std::string kept_request = timing_request(o, ref.timing_sets, false, o.hold_launches, nullptr, ref.symmetric);
  std::string dispatch_request = timing_request(o, ref.timing_sets, false, false, nullptr, ref.symmetric);
  // Held timings are repeated with the dispatch included, for candidates that cannot be held.
  auto time_dispatch = [&](const timing_summary& held, std::optional<timing_summary>& into, std::chrono::seconds timeout) {
    if (!held.held) return;
    answer d = s.ask(dispatch_request, {}, timeout);
    if (d.failure == worker_failure::none && d.ok) into = parse_timing(d.doc["timing"]);
  };
  answer eager = s.ask(request, payload, o.run_timeout * 10);
  if (eager.failure != worker_failure::none || !eager.ok) {
    ref.error = "timing the reference failed: " + describe(eager);
    return ref;
  }
  ref.eager = parse_timing(eager.doc["timing"]);
  // What the harness costs around a call, by the parent's clock: the bound on candidates' answers.
  try {
    call_overhead overhead = measure_overhead(parse_timed_calls(eager.doc), s.last_timing());
    ref.call_overhead_ms = overhead.outside_ms;
    ref.wall_gap_ms = overhead.gap_ms;
  } catch (const std::exception& e) {
    ref.error = std::string("the reference's timing answer: ") + e.what();
    return ref;
  }
  time_dispatch(*ref.eager, ref.eager_dispatch, o.run_timeout * 10);
  if (device != "cpu") {
    answer f = s.ask(fmt::format(R"("op":"flops","inputs":{},"kept_sets":true)", wire::describe(ref.timing_sets[0].inputs)),
                     {}, o.run_timeout);
    double flops = -1;
    if (f.failure == worker_failure::none && f.ok) flops = f.doc["flops"].get_double().value();
    if (device_ceilings) {
      double bytes = static_cast<double>(bytes_of(ref.timing_sets[0].inputs) + bytes_of(ref.timing_sets[0].outputs));
      ref.speed_of_light_ms = speed_of_light_ms(bytes, flops, device_ceilings->bandwidth, device_ceilings->matmul);
    }
  }
  if (o.compiled_baseline) {
    answer c = s.ask(R"("op":"compile_baseline")", {}, o.run_timeout);
    if (c.failure == worker_failure::none && c.ok && c.doc["available"].get_bool().value()) {
      answer compiled = s.ask(kept_request, {}, o.compile_timeout);
      if (compiled.failure == worker_failure::none && compiled.ok) {
        ref.compiled = parse_timing(compiled.doc["timing"]);
        time_dispatch(*ref.compiled, ref.compiled_dispatch, o.compile_timeout);
      }
    }
  }
  // Kept: the candidates' timed calls run again here to be checked (timed_calls.hpp).
  ref.replayer = std::shared_ptr<session>(std::move(started));
  return ref;
}

}  // namespace headroom::eval
