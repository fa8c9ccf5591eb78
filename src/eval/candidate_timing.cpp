// The timing half of a candidate's evaluation (docs/eval.md, "Timing"): the candidate's worker times
// it on the reference's timing sets, the timed outputs come back to be compared, the speedups against
// the baselines timed the same way, and paired rounds when the host's speed could set the outcome.
// A measurement that found the GPU busy ends it: the candidate is blamed for work its processes left
// there, or nothing is timed (gpu_busy.hpp).
#include "candidate_timing.hpp"

#include <algorithm>
#include <cstdio>
#include <random>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "headroom/eval/speed_of_light.hpp"
#include "headroom/util/error.hpp"
#include "headroom/worker/timing_stats.hpp"
#include "gpu_busy.hpp"
#include "paired.hpp"
#include "reference_floor.hpp"
#include "timing_request.hpp"
#include "timing_sets.hpp"
#include "timed_calls.hpp"
#include "headroom/util/phase_trace.hpp"

namespace headroom::eval {

using record::evaluation;
using record::paired_timing;
using record::timing_summary;
using record::verdict;

namespace {

// A timing answer's checks: the worker answered, nothing guarded was replaced, every timed call
// returned tensors the call allocated (or kept memory it rewrote), the reported times agree with the parent's clock, and calls
// picked now (and those sent back whole) agree with the reference run again on the same fresh
// inputs (timed_calls.hpp). Paired rounds run them on every turn too, with fewer calls.
struct timing_check {
  timing_check(judged& j, session& s, const reference_data& ref, const run_state& run)
      : j(j), s(s), ref(ref), run(run) {}
  judged& j;
  session& s;
  const reference_data& ref;
  const run_state& run;
  std::uint64_t sketch_seed = 0;
  std::size_t random_calls = 8;
  timing_summary summary;  // the last checked answer's, from its calls
  bool unconfirmed_flagged = false;

  bool operator()(answer& a) {
    throw_if_busy(a, "the candidate's timing");
    if (a.failure != worker_failure::none || !a.ok) {
      fail_request(j, a, "timing", s);
      return false;
    }
    std::string_view bad;
    std::int64_t call = 0;
    if (a.doc["call"].get_int64().get(call)) call = -1;
    if (!a.doc["invalid"].get_string().get(bad)) {
      j.fail(verdict::incorrect, "not_a_tensor", fmt::format("timed call {}: {}", call, bad));
      return false;
    }
    if (fail_misplaced(j, a, fmt::format("timed call {}", call))) return false;
    std::int64_t kept_calls = 0;
    if (!a.doc["kept_calls"].get_int64().get(kept_calls) && kept_calls > 0) flag_persistent_output(j);
    simdjson::dom::array tampered;
    if (!a.doc["tampered"].get_array().get(tampered) && tampered.size() > 0)
      j.fail(verdict::incorrect, "tampering", "a guarded function was replaced during timing");
    std::vector<timed_call> calls;
    try {
      calls = parse_timed_calls(a.doc);
    } catch (const std::exception& e) {
      j.fail(verdict::incorrect, "tampering", std::string("the timing answer: ") + e.what());
      return false;
    }
    const call_overhead reference{ref.call_overhead_ms, ref.wall_gap_ms};
    if (std::string why = contradicted_times(calls, s.last_timing(), reference); !why.empty()) {
      j.fail(verdict::incorrect, "tampering", "the timing answer contradicts what the parent saw: " + why);
      return false;
    }
    if (std::string why = unconfirmed_times(calls, reference); !why.empty() && !unconfirmed_flagged) {
      j.flag("timing_unconfirmed", why);
      unconfirmed_flagged = true;
    }
    check_timed_outputs(j, a, calls, s.last_timing(), ref, sketch_seed, random_calls, run);
    summary = summarize_calls(calls, a.doc["timing"]);
    return !j.failed();
  }
};

// How the candidate was timed, in the evaluation's clocks: the SM clock range and throttled samples
// of the answer `tj`, and on CUDA whether its launches were held.
void note_clocks(evaluation& e, simdjson::dom::element tj, const timing_summary& t, const run_state& run,
                 const std::string& device) {
  std::uint64_t lo = 0, hi = 0, dropped = 0;
  if (!tj["sm_clock_max_mhz"].get_uint64().get(hi) && hi > 0 && !tj["sm_clock_min_mhz"].get_uint64().get(lo)) {
    if (tj["throttled_samples"].get_uint64().get(dropped)) dropped = 0;
    e.env.clocks += fmt::format("{}timed at sm {}-{} MHz, {} throttled sample(s) dropped",
                                e.env.clocks.empty() ? "" : "; ", lo, hi, dropped);
  }
  if (run.options.hold_launches && device.rfind("cuda", 0) == 0)
    e.env.clocks +=
        fmt::format("{}{}", e.env.clocks.empty() ? "" : "; ",
                    t.held ? fmt::format("launches held (device time{}), host call {:.4g} ms{}",
                                         t.hold_mechanism.empty() ? "" : ", " + t.hold_mechanism, t.host_median_ms,
                                         t.host_bound ? fmt::format(" (launch-bound: the host's time set the "
                                                                    "cost, device {:.4g} ms)",
                                                                    t.device_median_ms)
                                                      : "")
                           : "dispatch included (the call waits for its own stream)");
}

// The baselines timed the way the candidate was: a candidate that waits for its own stream cannot
// be held, and is compared with the reference timed with its dispatch too. A call timed with its
// dispatch included costs more than the same call held: a speedup across the two modes compares
// different things, and is flagged when no baseline of the candidate's mode exists.
void choose_baselines(judged& j, const reference_data& ref, const timing_summary& t) {
  evaluation& e = j.e;
  auto same_mode = [&](const std::optional<timing_summary>& held_base,
                       const std::optional<timing_summary>& dispatch_base) {
    return !t.held && dispatch_base ? dispatch_base : held_base;
  };
  e.eager_timing = same_mode(ref.eager, ref.eager_dispatch);
  e.compiled_timing = same_mode(ref.compiled, ref.compiled_dispatch);
  for (const auto* base : {&e.eager_timing, &e.compiled_timing})
    if (*base && (*base)->samples > 0 && (*base)->held != t.held) {
      j.flag("timing_modes_differ", fmt::format("the candidate was timed {} and the reference {}",
                                                t.held ? "device-only" : "with its dispatch",
                                                (*base)->held ? "device-only" : "with its dispatch"));
      break;
    }
}

// The host's speed can set the comparison: both sides timed again, turn about (paired.hpp), and the
// speedup taken from that. On the CPU both sides' calls alternate (call_alternation.hpp): the host's
// drift there moves a whole turn. On a GPU the turns stay: held calls compare the sides' costs over
// turns.
void pair_speedup(judged& j, session& s, const reference_data& ref, const run_state& run, const std::string& device,
                  const timing_summary& t, timing_check& check) {
  evaluation& e = j.e;
  util::phase_trace trace("paired_rounds");
  check.random_calls = 4;
  const bool alternate = device == "cpu";
  paired_result p = time_paired(
      s, ref, run, t.held, [&](answer& a) { return check(a); }, check.sketch_seed, alternate);
  if (p.error.empty() && !p.candidate_failed) {
    e.speedup = p.speedup;
    e.paired = paired_timing{static_cast<int>(p.ratios.size()), p.rel_spread};
    e.env.clocks += fmt::format(
        "{}speedup from {} {}{}{} (ratios {:.4g}-{:.4g}{})", e.env.clocks.empty() ? "" : "; ", p.ratios.size(),
        p.alternated ? "neighbouring calls of the two sides, alternating" : "paired rounds",
        p.by_sides ? " (each side's median device cost and least host time)" : "",
        p.cpu >= 0 ? fmt::format(" on CPU {}", p.cpu) : "", *std::min_element(p.ratios.begin(), p.ratios.end()),
        *std::max_element(p.ratios.begin(), p.ratios.end()),
        p.mismatched   ? fmt::format("; {} round(s) held on one side only left out", p.mismatched)
        : p.alternated ? fmt::format("; standard error {:.2g}%", 100 * p.std_error)
                       : "");
    if (util::eval_trace_enabled())
      fmt::print(stderr, "headroom: paired {}' ratios (reference / candidate, in order): {:.4f}\n",
                 p.alternated ? "calls" : "rounds", fmt::join(p.ratios, " "));
  } else if (p.candidate_failed) {
    e.speedup.reset();  // the verdict says why
    e.speedup_compiled.reset();
  } else {
    e.env.clocks += fmt::format("{}paired rounds not run: {}", e.env.clocks.empty() ? "" : "; ", p.error);
  }
}

// A score below the speed-of-light floor, or over 10x with no floor to judge it by (none could be
// measured, or the reference itself ran below it), is not verified until someone has looked
// (docs/eval.md, "Verdicts"); with a floor, the floor decides. On the CPU a score below the floor is
// first held against the floor measured again now (reference_floor.hpp): the host's speed drifts,
// and a floor measured in a slow spell must not judge a kernel timed in a fast one. The share of the
// gap to the floor the candidate closed is kept with the evaluation, and the clocks text says where
// the floor came from.
void judge_speed(judged& j, const reference_data& ref, const run_state& run, const std::string& device,
                 const timing_summary& t) {
  evaluation& e = j.e;
  std::optional<double> floor = ref.speed_of_light_ms;
  std::string basis = ref.floor_basis;
  if (floor && t.score_ms < *floor && device == "cpu") {
    const double first = *floor;
    floor = floor_measured_again(ref, run);
    basis += fmt::format("; measured again after this timing: {:.4g} ms, the lesser kept", *floor);
    floor = std::min(first, *floor);
  }
  if (auto f = judge_against_floor(floor, basis, ref.no_floor, t.score_ms, e.speedup)) j.flag(f->code, f->detail);
  e.speed_of_light_ms = floor;
  if (floor && e.speedup && e.eager_timing) e.sol_gap_closed = gap_closed(e.eager_timing->score_ms, *e.speedup, *floor);
  e.env.clocks +=
      floor ? fmt::format("{}speed-of-light floor {:.4g} ms ({})", e.env.clocks.empty() ? "" : "; ", *floor, basis)
            : fmt::format("{}no speed-of-light floor: {}", e.env.clocks.empty() ? "" : "; ",
                          ref.no_floor.empty() ? "none measured" : ref.no_floor);
}

// The candidate timed, its timed outputs checked, its speedups.
void time_and_compare(judged& j, session& s, const reference_data& ref, const run_state& run,
                      const std::string& device) {
  evaluation& e = j.e;
  timing_check check(j, s, ref, run);
  check.sketch_seed = std::random_device{}() | 1u;
  // The timing sets come from the reference's worker, one at a time (memory_plan.hpp).
  if (set_transfer sent = send_timing_sets(ref, s, run); !sent.error.empty()) {
    if (sent.receiver) fail_request(j, sent.failed, "timing", s);
    else j.fail(verdict::reference_error, "reference_error", sent.error);
    return;
  }
  std::string request = timing_request(limits_of(run.options), ref, true, run.options.hold_launches, check.sketch_seed);
  answer a = s.ask(request, {}, run.options.run_timeout * 10);
  if (!check(a)) return;
  const timing_summary t = check.summary;
  e.candidate_timing = t;
  note_clocks(e, a.doc["timing"], t, run, device);
  if (worker::sample_set::hidden_work(t))
    j.flag("other_stream_work",
           fmt::format("the device stayed busy {:.4g} ms past the timed stream's end ({:.4g} ms on it); "
                       "scored until the device was done: {:.4g} ms",
                       t.tail_median_ms, t.events_median_ms(), t.score_ms));
  choose_baselines(j, ref, t);
  e.speed_of_light_ms = ref.speed_of_light_ms;
  e.roofline_ms = ref.roofline_ms;
  if (!j.failed() && t.score_ms > 0) {
    if (e.eager_timing && e.eager_timing->score_ms > 0) e.speedup = e.eager_timing->score_ms / t.score_ms;
    if (e.compiled_timing && e.compiled_timing->score_ms > 0)
      e.speedup_compiled = e.compiled_timing->score_ms / t.score_ms;
    if (e.speedup && run.options.paired_rounds > 0 && pairing_applies(t, *e.eager_timing))
      pair_speedup(j, s, ref, run, device, t, check);
  }
  if (!j.failed() && t.score_ms > 0) judge_speed(j, ref, run, device, t);
}

// A measurement found the GPU busy: the candidate's sandbox is ended, every process of it, and the
// reference's worker probes the GPU. Idle then, the candidate's processes had left the work there
// (gpu_left_busy); still busy, or not known, something else keeps the GPU, and nothing is timed:
// the run ends with that error, this evaluation not stored (gpu_busy.hpp).
void blame_or_refuse(judged& j, session& s, const reference_data& ref, const run_state& run, const busy_report& seen) {
  s.stop();
  idle_proof after;
  if (ref.worker) after = probe_gpu(*ref.worker, ended_sandbox_settle_ms, run.options.run_timeout);
  else after.failure = "the reference's worker is gone";
  busy_judgment judged_busy = judge_busy_gpu(seen, after);
  if (!judged_busy.candidate_blamed) throw input_error(judged_busy.detail);
  evaluation& e = j.e;
  e.speedup.reset();
  e.speedup_compiled.reset();
  e.paired.reset();
  j.fail(verdict::incorrect, "gpu_left_busy", judged_busy.detail);
}

}  // namespace

void time_candidate(judged& j, session& s, const reference_data& ref, const run_state& run, const std::string& device) {
  try {
    time_and_compare(j, s, ref, run, device);
  } catch (const gpu_busy_seen& busy) {
    blame_or_refuse(j, s, ref, run, busy.report());
  }
}

}  // namespace headroom::eval
