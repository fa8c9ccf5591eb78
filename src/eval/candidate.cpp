// One candidate on one problem, in a fresh worker (docs/eval.md): load, every trial twice under two
// poison bytes, the float64 comparison here in the parent, then timing with the timed outputs
// re-checked (candidate_timing.cpp). Every way this can end is a verdict.
#include <algorithm>
#include <chrono>
#include <set>

#include <fmt/format.h>

#include "headroom/eval/check.hpp"
#include "headroom/eval/unwritten.hpp"
#include "headroom/util/json.hpp"
#include "candidate_sandbox.hpp"
#include "candidate_timing.hpp"
#include "judged.hpp"
#include "paired.hpp"
#include "headroom/util/phase_trace.hpp"
#include "session.hpp"

namespace headroom::eval {

using util::json_string;

namespace {

constexpr std::byte poison_a{0xFF};  // NaN in every floating type, -1 in integers
constexpr std::byte poison_b{0x7F};

void check_side_effects(judged& j, const answer& a, int trial) {
  simdjson::dom::array arr;
  if (!a.doc["mutated"].get_array().get(arr) && arr.size() > 0) {
    j.fail(verdict::incorrect, "mutated_input", fmt::format("trial {}: input {} changed by the call", trial, joined(arr)));
  }
  std::int64_t added = 0;
  if (!a.doc["threads_added"].get_int64().get(added) && added > 0)
    j.fail(verdict::incorrect, "background_thread",
           fmt::format("trial {}: {} thread(s) still running after forward returned", trial, added));
  if (!a.doc["tampered"].get_array().get(arr) && arr.size() > 0) {
    j.fail(verdict::incorrect, "tampering", "replaced: " + joined(arr));
  }
}

std::vector<tensor> outputs_of(answer& a) {
  return wire::decode(a.doc["outputs"].get_array().value(), std::move(a.payload));
}

}  // namespace

std::string candidate_label(const candidate_spec& candidate, const problem_spec& problem) {
  return fmt::format("candidate-{}-{}", candidate.hash.substr(0, 12), problem.hash.substr(0, 8));
}

evaluation evaluate_candidate(const candidate_spec& candidate, const problem_spec& problem, const reference_data& ref,
                              const eval_options& o, const std::string& device, std::unique_ptr<session> started,
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

  // Paired rounds will be needed whatever the candidate does when the reference's own cost
  // follows the host (paired.hpp): their second reference worker starts now, beside the
  // candidate's load and trials, and the timing waits for it.
  std::unique_ptr<session_start> paired_start;
  if (o.timing && o.paired_rounds > 0 && !ref.timing_sets.empty() && ref.eager && host_sensitive(*ref.eager))
    paired_start = std::make_unique<session_start>(o, device, paired_reference_label(problem), false);

  if (!started) {
    started = std::make_unique<session>(o, device, candidate_label(candidate, problem), std::map<std::string, std::string>{},
                                        candidate_isolation(o, device, candidate));
    started->hello(o.load_timeout);
  }
  session& s = *started;
  e.env = s.env();
  answer load = s.ask(fmt::format(R"("op":"load","path":{},"build_dir":{},"class":"ModelNew","compile_only":false,"seed":{},"init_inputs":{},"constants":{})",
                                  json_string(candidate_import_path(o, candidate)),
                                  json_string(candidate_build_path(o, candidate)),
                                  ref.init_seed, json_string(ref.init_inputs), json_string(ref.constants)),
                      {}, o.compile_timeout);
  if (load.failure != worker_failure::none || !load.ok) {
    fail_request(j, load, "load", s);
    return finish();
  }
  {
    simdjson::dom::array arr;
    if (!load.doc["tampered"].get_array().get(arr) && arr.size() > 0) {
      j.fail(verdict::incorrect, "tampering", "replaced at import: " + joined(arr));
      s.stop();
      return finish();
    }
  }

  std::set<std::string> candidate_ops;
  bool ops_known = false;
  for (std::size_t t = 0; t < ref.trials.size() && !j.failed(); ++t) {
    const trial_data& trial = ref.trials[t];
    std::vector<std::span<const std::byte>> payload;
    std::string metas = wire::encode(trial.inputs, payload);
    std::vector<tensor> runs[2];
    for (int pass = 0; pass < 2 && !j.failed(); ++pass) {
      int poison = static_cast<int>(pass == 0 ? poison_a : poison_b);
      // The second call runs on the inputs the worker kept from the first (gigabytes not sent twice);
      // the worker checks them unmodified after each call against its copy of what was sent.
      answer a = s.ask(fmt::format(R"("op":"run","inputs":{},"poison":{},"record_ops":{},"kept_inputs":{})", metas,
                                   poison, pass == 0, pass == 1),
                       pass == 0 ? std::span<const std::span<const std::byte>>(payload)
                                 : std::span<const std::span<const std::byte>>(),
                       o.run_timeout);
      if (a.failure != worker_failure::none || !a.ok) {
        fail_request(j, a, "run", s);
        break;
      }
      check_side_effects(j, a, static_cast<int>(t));
      std::string_view invalid;
      if (!a.doc["invalid"].get_string().get(invalid)) {
        j.fail(verdict::incorrect, "not_a_tensor", std::string(invalid));
        break;
      }
      if (!a.doc["foreign"].get_string().get(invalid)) {
        j.fail(verdict::incorrect, "foreign_output", fmt::format("trial {}: {}", t, invalid));
        break;
      }
      runs[pass] = outputs_of(a);
      simdjson::dom::array ops;
      if (pass == 0 && !a.doc["ops"].get_array().get(ops)) {
        ops_known = true;
        for (auto x : ops) candidate_ops.emplace(x.get_string().value());
      }
    }
    if (j.failed()) break;
    ++e.errors.trials;
    // Unwritten elements first: they explain the mismatch they also cause.
    for (std::size_t i = 0; i < std::min(runs[0].size(), runs[1].size()); ++i) {
      const tensor &x = runs[0][i], &y = runs[1][i];
      if (x.type != y.type || x.shape != y.shape || x.bytes.size() != y.bytes.size()) continue;
      util::phase_trace trace("count_unwritten");
      std::int64_t n = count_unwritten(runs[0][i], poison_a, runs[1][i], poison_b);
      if (n > 0) {
        e.errors.unwritten = std::max(e.errors.unwritten, n);
        j.fail(verdict::incorrect, "unwritten_output",
               fmt::format("trial {}, output {}: {} of {} elements never written", t, i, n, runs[0][i].numel()));
      }
    }
    std::string where = fmt::format("trial {} (distribution {})", t, trial.distribution);
    bool ok = compare_outputs(j, trial.outputs, runs[0], where, "mismatch");
    if (ok && !j.failed()) compare_outputs(j, trial.outputs, runs[1], where + ", second call", "mismatch");
    if (!j.failed()) ++e.errors.trials_passed;
    // The next trial's outputs are read into these outputs' buffers.
    for (auto& run : runs)
      for (tensor& out : run) s.recycle(std::move(out.bytes));
  }

  if (!j.failed() && ops_known && !ref.ops.empty() &&
      std::all_of(ref.ops.begin(), ref.ops.end(), [&](const std::string& op) { return candidate_ops.count(op) > 0; })) {
    std::string list;
    for (const auto& op : ref.ops) list += (list.empty() ? "" : ", ") + op;
    j.flag("torch_fallback", "forward dispatched every compute operator of the reference: " + list);
  }

  if (!j.failed() && o.timing && !ref.timing_sets.empty()) {
    if (before) before();
    if (paired_start) paired_start->wait();
    time_candidate(j, s, problem, ref, o, device, paired_start.get());
  }
  if (!ref.reduced.empty()) e.reasons.push_back({"trials_reduced", ref.reduced});
  if (ref.skipped_trials > 0)
    e.reasons.push_back({"trials_skipped", fmt::format("{} input distribution(s) outside the problem's domain "
                                                       "(the reference was not finite)", ref.skipped_trials)});
  s.stop();
  return finish();
}

}  // namespace headroom::eval
