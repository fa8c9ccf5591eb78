// The discrimination audit (docs/eval.md, "Discrimination audit"): the fakes every problem's reference
// data must reject, judged by our check and by KernelBench's legacy allclose, trial by trial.
#include "audit_tally.hpp"

#include <algorithm>
#include <functional>
#include <random>
#include <string_view>

#include <fmt/format.h>

#include "headroom/eval/audit_fakes.hpp"
#include "headroom/eval/check.hpp"
#include "headroom/eval/memory_budget.hpp"
#include "headroom/eval/run_state.hpp"
#include "headroom/util/json.hpp"
#include "reference.hpp"
#include "trial_plan.hpp"

namespace headroom::eval {

using util::json_string;

std::string audit_json(const audit_result& r) {
  std::string s = fmt::format(R"({{"problem":{},"error":{},"trials":{},"discriminating":{},"degenerate":{},"fakes":[)",
                              json_string(r.problem), json_string(r.error), r.trials, r.discriminating(),
                              r.degenerate.empty() ? std::string("null") : json_string(r.degenerate));
  for (std::size_t k = 0; k < r.fakes.size(); ++k) {
    const auto& f = r.fakes[k];
    s += fmt::format(
        R"({}{{"name":"{}","applicable":{},"equals_reference":{},"passes_ours":{},"passes_legacy_1e-2":{},"passes_legacy_1e-4":{}}})",
        k ? "," : "", f.name, f.applicable, f.equals_reference, f.passes_ours, f.passes_legacy_1e2,
        f.passes_legacy_1e4);
  }
  return s + "]}";
}

bool audit_result::discriminating() const {
  if (!error.empty() || !degenerate.empty()) return false;
  return std::none_of(fakes.begin(), fakes.end(), [](const audit_fake& f) { return f.applicable && f.passes_ours; });
}

audit_result audit_problem(const problem_spec& problem, const eval_options& options) {
  // The audit's own run: the reference prepared untimed, on the first device, unsandboxed (only the
  // reference runs).
  run_state run;
  run.options = options;
  run.options.timing = false;
  run.seed = options.seed != 0 ? options.seed : std::random_device{}();
  run.memory_budget = options.memory_budget != 0 ? options.memory_budget : default_memory_budget(1);
  run.devices = {expand_devices(options.device).front()};
  std::optional<ceilings> none;
  return audit_reference(problem.id, prepare_reference(problem, run, run.devices.front(), none, {}, nullptr, true));
}

audit_tally::audit_tally() {
  for (const char* name : {"zeros", "constant", "mean", "passthrough"}) {
    fake_state f;
    f.fake.name = name;
    // Ours accepts a fake only if it passes every trial (as a candidate must); the legacy check is
    // judged on the problem's own inputs (trial 0), which is what KernelBench's check sees.
    f.fake.passes_ours = f.fake.passes_legacy_1e2 = f.fake.passes_legacy_1e4 = true;
    fakes_.push_back(f);
  }
}

namespace {

// One trial's outputs as one hash: each output's type, shape and bytes.
std::size_t outputs_hash(const std::vector<tensor>& outputs) {
  std::size_t h = outputs.size();
  auto mix = [&h](std::size_t x) { h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  for (const tensor& t : outputs) {
    mix(static_cast<std::size_t>(t.type));
    for (std::int64_t d : t.shape) mix(static_cast<std::size_t>(d));
    mix(std::hash<std::string_view>{}(std::string_view(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size())));
  }
  return h;
}

// Fakes that owe nothing to the reference's answer: passing one on every trial means a kernel that
// ignores the problem passes too. (The mean is formed from the reference's own output.)
bool trivial_fake(const std::string& name) { return name == "zeros" || name == "constant" || name == "passthrough"; }

}  // namespace

void audit_tally::add(const trial_data& t) {
  const bool first = trials_++ == 0;
  const std::size_t outputs = outputs_hash(t.outputs);
  if (first) first_outputs_ = outputs;
  else if (outputs != first_outputs_) outputs_constant_ = false;
  for (fake_state& s : fakes_) {
    audit_fake& f = s.fake;
    for (const tensor& r : t.outputs) {
      if (!form_fake(f.name, r, t.inputs, scratch_)) {
        f.applicable = false;
        continue;
      }
      tensor_check c = compare(r, scratch_);
      // Equal to the reference on this trial: it passes this one (ReLU of inputs shifted below
      // zero is all zeros; of inputs in [0, 1) it is the input itself).
      if (c.pass && c.max_abs_error == 0 && c.nonfinite == 0) {
        if (first && r.type == dtype::f32) s.any_fp32 = true;  // and passes both legacy checks there
        continue;
      }
      s.always_equal = false;
      if (!c.pass) f.passes_ours = false;
      if (!first) continue;
      if (!legacy_allclose(r, scratch_, 1e-2, 1e-2)) f.passes_legacy_1e2 = false;
      if (r.type == dtype::f32) {
        s.any_fp32 = true;
        if (!legacy_allclose(r, scratch_, 1e-4, 1e-4)) f.passes_legacy_1e4 = false;
      }
    }
  }
}

audit_result audit_tally::result(const std::string& problem_id) const {
  audit_result out;
  out.problem = problem_id;
  out.trials = trials_;
  for (const fake_state& s : fakes_) {
    audit_fake f = s.fake;
    if (!s.any_fp32) f.passes_legacy_1e4 = false;
    // Equal to the reference on every trial, the fake is the right answer, not a fake: the mean of a
    // one-element output (a loss), zeros where every output is all zeros.
    if (f.applicable && s.always_equal && trials_ > 0) {
      f.applicable = false;
      f.equals_reference = true;
    }
    if (!f.applicable) f.passes_ours = f.passes_legacy_1e2 = f.passes_legacy_1e4 = false;
    // A fake that passes every trial says the problem cannot tell it from a kernel only once the
    // trials drew every input distribution: ReLU of inputs drawn in [0, 1) is the input itself until
    // the normal draw (trial 2); fewer trials leave the fake's PASS in the table, not the verdict.
    if (out.degenerate.empty() && trials_ >= trial_distributions && trivial_fake(f.name) &&
        (f.passes_ours || f.equals_reference))
      out.degenerate = fmt::format("the fake output '{}' {} on all {} trials", f.name,
                                   f.equals_reference ? "equals the reference's output" : "passes the check", trials_);
    out.fakes.push_back(f);
  }
  if (trials_ >= 2 && outputs_constant_)
    out.degenerate =
        fmt::format("the reference's output is the same on all {} trials: it does not depend on the inputs", trials_);
  return out;
}

audit_result audit_reference(const std::string& problem_id, const reference_data& ref) {
  if (!ref.error.empty()) {
    audit_result out;
    out.problem = problem_id;
    out.error = ref.error;
    return out;
  }
  if (ref.audit) return *ref.audit;
  audit_tally tally;
  for (const trial_data& t : ref.trials) tally.add(t);
  return tally.result(problem_id);
}

}  // namespace headroom::eval
