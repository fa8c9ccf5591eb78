// One candidate on one problem, in a fresh worker (docs/eval.md): load, every trial twice under two
// poison bytes, the float64 comparison here in the parent, then timing with the timed outputs
// re-checked. Every way this can end is a verdict.
#include <algorithm>
#include <chrono>
#include <set>

#include <fmt/format.h>

#include "headroom/eval/check.hpp"
#include "headroom/eval/timing_stats.hpp"
#include "headroom/util/json.hpp"
#include "device_gate.hpp"
#include "phase_trace.hpp"
#include "paired.hpp"
#include "session.hpp"

namespace headroom::eval {

using util::json_string;

namespace {

constexpr std::byte poison_a{0xFF};  // NaN in every floating type, -1 in integers
constexpr std::byte poison_b{0x7F};

struct judged {
  evaluation& e;
  void fail(verdict v, std::string code, std::string detail) {
    if (e.result == verdict::correct) e.result = v;
    e.reasons.push_back({std::move(code), std::move(detail)});
  }
  void flag(std::string code, std::string detail) { e.reasons.push_back({std::move(code), std::move(detail)}); }
  bool failed() const { return e.result != verdict::correct; }
};

// A failed request ends the evaluation with the verdict its manner of failure implies.
void fail_request(judged& j, const answer& a, const char* stage, session& s) {
  if (a.failure == worker_failure::timeout) return j.fail(verdict::timeout, stage, a.detail);
  if (a.failure == worker_failure::died) {
    j.e.log = s.log_tail();
    return j.fail(verdict::crash, "signal", fmt::format("the worker died during {}: {}", stage, a.detail));
  }
  if (a.failure == worker_failure::tampering) return j.fail(verdict::incorrect, "tampering", a.detail);
  std::string msg = a.message;
  if (!a.traceback.empty()) j.e.log = a.traceback;
  if (a.error == "compile_error") return j.fail(verdict::compile_error, "compile_error", msg);
  if (a.error == "load_error") return j.fail(verdict::load_error, a.kind.empty() ? "load_error" : a.kind, msg);
  j.fail(verdict::runtime_error, a.kind.empty() ? "exception" : a.kind, msg);
}

// "0, 2" or "time.perf_counter, torch.cuda.synchronize": a worker's list for a reason's detail.
std::string joined(simdjson::dom::array arr) {
  std::string out;
  for (simdjson::dom::element e : arr) {
    std::string item = e.is_string() ? std::string(e.get_string().value()) : std::to_string(e.get_int64().value());
    out += (out.empty() ? "" : ", ") + item;
  }
  return out;
}

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

// Compares a call's outputs with the reference's; false when a reason was recorded.
bool compare_outputs(judged& j, const std::vector<tensor>& ref, const std::vector<tensor>& got, const std::string& where,
                     const char* mismatch_code) {
  if (got.size() != ref.size()) {
    j.fail(verdict::incorrect, "wrong_output_count",
           fmt::format("{}: {} output(s), the reference has {}", where, got.size(), ref.size()));
    return false;
  }
  bool ok = true;
  auto quiet = host_work();  // on every core: not while another lane measures (device_gate.hpp)
  for (std::size_t i = 0; i < ref.size(); ++i) {
    phase_trace trace("compare");
    tensor_check c = compare(ref[i], got[i]);
    j.e.errors.normwise_error = std::max(j.e.errors.normwise_error, c.normwise_error);
    j.e.errors.max_abs_error = std::max(j.e.errors.max_abs_error, c.max_abs_error);
    j.e.errors.mismatched = std::max(j.e.errors.mismatched, c.mismatched);
    for (const reason& r : c.reasons) {
      std::string code = r.code == "mismatch" ? mismatch_code : r.code;
      j.fail(verdict::incorrect, code, fmt::format("{}, output {}: {}", where, i, r.detail));
      ok = false;
    }
  }
  return ok;
}

}  // namespace

std::string candidate_label(const candidate_spec& candidate, const problem_spec& problem) {
  return fmt::format("candidate-{}-{}", candidate.hash.substr(0, 12), problem.hash.substr(0, 8));
}

evaluation evaluate_candidate(const candidate_spec& candidate, const problem_spec& problem, const reference_data& ref,
                              const eval_options& o, const std::string& device, std::unique_ptr<session> started,
                              const before_timing& before) {
  auto begin = std::chrono::steady_clock::now();
  evaluation e;
  e.candidate_hash = candidate.hash;
  e.source = candidate.source;
  e.candidate_path = candidate.path.string();
  e.problem = problem.id;
  e.problem_hash = problem.hash;
  e.checker = checker_version;
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
    paired_start = std::make_unique<session_start>(o, device, paired_reference_label(problem));

  std::string build_dir = (o.cache / "ext" / candidate.hash).string();
  if (!started) {
    started = std::make_unique<session>(o, device, candidate_label(candidate, problem), std::map<std::string, std::string>{});
    started->hello(o.load_timeout);
  }
  session& s = *started;
  e.env = s.env();
  answer load = s.ask(fmt::format(R"("op":"load","path":{},"build_dir":{},"class":"ModelNew","compile_only":false,"seed":{},"init_inputs":{},"constants":{})",
                                  json_string(std::filesystem::absolute(candidate.path).string()), json_string(build_dir),
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
      phase_trace trace("count_unwritten");
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
    // A timing answer's checks: the worker answered, nothing guarded was replaced, and the timed
    // calls sent back match the reference. Paired rounds run them on every turn too.
    int checked_calls = 0;
    auto check_timing = [&](answer& a) -> bool {
      if (a.failure != worker_failure::none || !a.ok) {
        fail_request(j, a, "timing", s);
        return false;
      }
      simdjson::dom::array tampered;
      if (!a.doc["tampered"].get_array().get(tampered) && tampered.size() > 0)
        j.fail(verdict::incorrect, "tampering", "a guarded function was replaced during timing");
      std::size_t at = 0;
      // A named array: range-for over `.value()` of a temporary result would dangle.
      simdjson::dom::array checked = a.doc["checked"].get_array().value();
      for (simdjson::dom::element c : checked) {
        auto set = static_cast<std::size_t>(c["set"].get_int64().value());
        // One checked call (always so when outputs exceed the check budget) owns the payload.
        std::vector<tensor> got = checked.size() == 1
                                      ? wire::decode(c["outputs"].get_array().value(), std::move(a.payload))
                                      : wire::decode(c["outputs"].get_array().value(), a.payload, at);
        if (set < ref.timing_sets.size())
          compare_outputs(j, ref.timing_sets[set].outputs, got,
                          fmt::format("timed call {} (input set {})", checked_calls, set), "timed_output_mismatch");
        ++checked_calls;
        if (j.failed()) break;
      }
      return !j.failed();
    };
    std::vector<std::span<const std::byte>> payload;
    std::string request = timing_request(o, ref.timing_sets, true, o.hold_launches, &payload);
    answer a = s.ask(request, payload, o.run_timeout * 10);
    const bool answered = a.failure == worker_failure::none && a.ok;
    check_timing(a);
    if (answered) {
      timing_summary t = parse_timing(a.doc["timing"]);
      e.candidate_timing = t;
      std::uint64_t lo = 0, hi = 0, dropped = 0;
      auto tj = a.doc["timing"];
      if (!tj["sm_clock_max_mhz"].get_uint64().get(hi) && hi > 0 && !tj["sm_clock_min_mhz"].get_uint64().get(lo)) {
        if (tj["throttled_samples"].get_uint64().get(dropped)) dropped = 0;
        e.env.clocks += fmt::format("{}timed at sm {}-{} MHz, {} throttled sample(s) dropped",
                                    e.env.clocks.empty() ? "" : "; ", lo, hi, dropped);
      }
      if (o.hold_launches && device.rfind("cuda", 0) == 0)
        e.env.clocks += fmt::format("{}{}", e.env.clocks.empty() ? "" : "; ",
                                    t.held ? fmt::format("launches held (device time{}), host call {:.4g} ms{}",
                                                         t.hold_mechanism.empty() ? "" : ", " + t.hold_mechanism,
                                                         t.host_median_ms,
                                                         t.host_bound ? fmt::format(" (launch-bound: the host's time set the "
                                                                                    "cost, device {:.4g} ms)",
                                                                                    t.device_median_ms)
                                                                      : "")
                                           : "dispatch included (the call waits for its own stream)");
      if (sample_set::hidden_work(t))
        j.flag("other_stream_work",
               fmt::format("the device stayed busy {:.4g} ms past the timed stream's end ({:.4g} ms on it); "
                           "scored until the device was done: {:.4g} ms",
                           t.tail_median_ms, t.device_median_ms > 0 ? t.device_median_ms : t.median_ms, t.score_ms));
      // The baselines timed the way the candidate was: a candidate that waits for its own stream
      // cannot be held, and is compared with the reference timed with its dispatch too. A call timed
      // with its dispatch included costs more than the same call held: a speedup across the two
      // modes compares different things, and is flagged when no baseline of the candidate's mode exists.
      auto same_mode = [&](const std::optional<timing_summary>& held_base, const std::optional<timing_summary>& dispatch_base) {
        return !t.held && dispatch_base ? dispatch_base : held_base;
      };
      e.eager_timing = same_mode(ref.eager, ref.eager_dispatch);
      e.compiled_timing = same_mode(ref.compiled, ref.compiled_dispatch);
      for (const auto* base : {&e.eager_timing, &e.compiled_timing})
        if (*base && (*base)->samples > 0 && (*base)->held != t.held) {
          j.flag("timing_modes_differ",
                 fmt::format("the candidate was timed {} and the reference {}", t.held ? "device-only" : "with its dispatch",
                             (*base)->held ? "device-only" : "with its dispatch"));
          break;
        }
      e.speed_of_light_ms = ref.speed_of_light_ms;
      if (!j.failed() && t.score_ms > 0) {
        if (e.eager_timing && e.eager_timing->score_ms > 0) e.speedup = e.eager_timing->score_ms / t.score_ms;
        if (e.compiled_timing && e.compiled_timing->score_ms > 0) e.speedup_compiled = e.compiled_timing->score_ms / t.score_ms;
        // The host's speed can set this comparison: time both sides again, turn about (paired.hpp).
        if (e.speedup && o.paired_rounds > 0 && (host_sensitive(t) || host_sensitive(*e.eager_timing))) {
          phase_trace trace("paired_rounds");
          std::unique_ptr<session> paired_worker;
          if (paired_start) {
            try {
              paired_worker = paired_start->take();
            } catch (const std::exception&) {
              // time_paired starts another, and says why if that fails too
            }
          }
          paired_result p = time_paired(s, problem, ref, o, device, t.held, check_timing, std::move(paired_worker));
          if (p.error.empty() && !p.candidate_failed) {
            e.speedup = p.speedup;
            e.paired = paired_timing{static_cast<int>(p.ratios.size()), p.rel_spread};
            e.env.clocks += fmt::format("{}speedup from {} paired rounds{} (ratios {:.4g}-{:.4g})",
                                        e.env.clocks.empty() ? "" : "; ", p.ratios.size(),
                                        p.cpu >= 0 ? fmt::format(" on CPU {}", p.cpu) : "",
                                        *std::min_element(p.ratios.begin(), p.ratios.end()),
                                        *std::max_element(p.ratios.begin(), p.ratios.end()));
          } else if (p.candidate_failed) {
            e.speedup.reset();  // the verdict says why
            e.speedup_compiled.reset();
          } else {
            e.env.clocks += fmt::format("{}paired rounds not run: {}", e.env.clocks.empty() ? "" : "; ", p.error);
          }
        }
      }
      if (!j.failed() && t.score_ms > 0) {
        if (ref.speed_of_light_ms && t.score_ms < *ref.speed_of_light_ms)
          j.flag("below_speed_of_light", fmt::format("{:.4g} ms is below the floor of {:.4g} ms from bytes and FLOPs",
                                                     t.score_ms, *ref.speed_of_light_ms));
        if (e.speedup && *e.speedup > 10)
          j.flag("excessive_speedup", fmt::format("{:.1f}x over eager PyTorch", *e.speedup));
      }
    }
  }
  if (!ref.reduced.empty()) e.reasons.push_back({"trials_reduced", ref.reduced});
  if (ref.skipped_trials > 0)
    e.reasons.push_back({"trials_skipped", fmt::format("{} input distribution(s) outside the problem's domain "
                                                       "(the reference was not finite)", ref.skipped_trials)});
  s.stop();
  return finish();
}

}  // namespace headroom::eval
