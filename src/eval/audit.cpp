// The discrimination audit (docs/eval.md, "Discrimination audit"): the fakes every problem's reference
// data must reject, judged by our check and by KernelBench's legacy allclose, trial by trial.
#include "audit_tally.hpp"

#include <algorithm>
#include <random>

#include <fmt/format.h>

#include "headroom/eval/audit_fakes.hpp"
#include "headroom/eval/check.hpp"
#include "headroom/eval/memory_budget.hpp"
#include "headroom/eval/run_state.hpp"
#include "headroom/util/json.hpp"
#include "reference.hpp"

namespace headroom::eval {

using util::json_string;

std::string audit_json(const audit_result& r) {
  std::string s = fmt::format(R"({{"problem":{},"error":{},"trials":{},"discriminating":{},"fakes":[)",
                              json_string(r.problem), json_string(r.error), r.trials, r.discriminating());
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
  if (!error.empty()) return false;
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

void audit_tally::add(const trial_data& t) {
  const bool first = trials_++ == 0;
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
    out.fakes.push_back(f);
  }
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
