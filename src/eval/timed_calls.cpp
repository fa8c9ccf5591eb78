#include "timed_calls.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "headroom/eval/check.hpp"
#include "headroom/worker/timing_stats.hpp"
#include "tensor_wire.hpp"
#include "timing_request.hpp"

namespace headroom::eval {

using record::timing_summary;
using record::verdict;

std::vector<sketch> parse_sketches(simdjson::dom::array outputs) {
  std::vector<sketch> out;
  for (simdjson::dom::element o : outputs) {
    sketch s;
    std::size_t k = 0;
    simdjson::dom::array values = o.get_array().value();
    for (simdjson::dom::element v : values) {
      if (k >= s.size()) throw std::runtime_error("a sketch with too many values");
      double x = 0;
      if (!v.get_double().get(x)) s[k] = x;
      else if (std::int64_t i = 0; !v.get_int64().get(i)) s[k] = static_cast<double>(i);
      ++k;
    }
    if (k != s.size()) throw std::runtime_error("a sketch with too few values");
    out.push_back(s);
  }
  return out;
}

std::vector<timed_call> parse_timed_calls(simdjson::dom::element answer) {
  std::vector<timed_call> calls;
  simdjson::dom::array list;
  if (answer["calls"].get_array().get(list)) return calls;
  for (simdjson::dom::element c : list) {
    timed_call t;
    std::int64_t call = -1;
    if (c["call"].get_int64().get(call) || call < 0) throw std::runtime_error("a timed call without its index");
    t.call = static_cast<std::size_t>(call);
    if (c["event_ms"].get_double().get(t.event_ms) || c["host_ms"].get_double().get(t.host_ms) ||
        c["wall_ms"].get_double().get(t.wall_ms) || c["tail_ms"].get_double().get(t.tail_ms))
      throw std::runtime_error("a timed call without its times");
    simdjson::dom::array sketches;
    if (!c["sketch"].get_array().get(sketches)) t.outputs = parse_sketches(sketches);
    calls.push_back(std::move(t));
  }
  return calls;
}

call_overhead measure_overhead(const std::vector<timed_call>& calls, const timing_log& log) {
  std::vector<double> outside, gap;
  for (const timed_call& c : calls) {
    if (!log.planned(static_cast<std::int64_t>(c.call)) || log.interval_ms(c.call) < 0) continue;
    outside.push_back(std::max(0.0, log.interval_ms(c.call) - c.wall_ms));
    gap.push_back(std::max(0.0, c.wall_ms - std::max(c.event_ms, c.host_ms)));
  }
  if (outside.empty()) return {};
  // The median: the stamps are the worker's own sends, so no wait of the parent's is in them; what
  // is left is the harness's few steps between a stamp and the timer (and a rare preemption there).
  return {worker::median_of(outside), worker::median_of(gap)};
}

std::string contradicted_times(const std::vector<timed_call>& calls, const timing_log& log,
                               const call_overhead& reference) {
  if (!log.irregular().empty()) return log.irregular();
  if (calls.empty()) return "an answer without the calls it timed";
  constexpr double slack_ms = 0.05;
  std::set<std::size_t> seen;
  for (const timed_call& c : calls) {
    if (!log.planned(static_cast<std::int64_t>(c.call)))
      return fmt::format("call {} was reported but never asked for", c.call);
    if (!seen.insert(c.call).second) return fmt::format("call {} was reported twice", c.call);
    // The device's events lie inside the call's wall clock (the host reads its clock before it
    // records the start event, and after the device's synchronisation); the two are different
    // clocks, so the bound allows their rates to differ by 2% and their readings by 20 us.
    if (c.event_ms > c.wall_ms * 1.02 + 0.02 || c.host_ms > c.wall_ms + 1e-3)
      return fmt::format("call {}: device {:.4g} ms or host {:.4g} ms longer than its wall clock {:.4g} ms", c.call,
                         c.event_ms, c.host_ms, c.wall_ms);
    double interval = log.interval_ms(c.call);
    if (interval < 0) return fmt::format("call {} was reported but its start and end were not both announced", c.call);
    if (c.wall_ms > interval + slack_ms)
      return fmt::format("call {}: a wall clock of {:.4g} ms in {:.4g} ms by the parent's clock", c.call, c.wall_ms,
                         interval);
  }
  // Shorter than the stamps: an honest call's wall clock fills its interval but for the harness's
  // steps between a stamp and the timer, as on the reference's worker; a worker that reports its
  // calls shorter than they were leaves the difference in every call. The median over calls, so
  // that a preemption between a stamp and the timer in a few calls is not the candidate's fault,
  // and a forger must under-report most calls to move the median sample (the score).
  std::vector<double> walls, excess;
  for (const timed_call& c : calls) {
    walls.push_back(c.wall_ms);
    excess.push_back(log.interval_ms(c.call) - c.wall_ms);
  }
  const double wall = worker::median_of(walls), over = worker::median_of(excess) - reference.outside_ms;
  if (over > unreported_slack_ms + unreported_share * wall)
    return fmt::format(
        "the calls took a median {:.4g} ms longer between their stamped start and end than the worker "
        "reported (its median wall clock {:.4g} ms; the reference's harness, {:.4g} ms)",
        over, wall, reference.outside_ms);
  return {};
}

std::string unconfirmed_times(const std::vector<timed_call>& calls, const call_overhead& reference) {
  std::vector<double> gaps;
  for (const timed_call& c : calls) gaps.push_back(c.wall_ms - std::max(c.event_ms, c.host_ms));
  if (gaps.empty()) return {};
  // A device or host time reported shorter than it was leaves the difference in every call's gap.
  double least_gap = *std::min_element(gaps.begin(), gaps.end());
  if (least_gap > 1.5 * reference.gap_ms + 0.05)
    return fmt::format(
        "at least {:.4g} ms of every call's wall clock is neither its device nor its host time (the "
        "reference's: {:.4g} ms)",
        least_gap, reference.gap_ms);
  return {};
}

timing_summary summarize_calls(const std::vector<timed_call>& calls, simdjson::dom::element timing) {
  timing_summary reported = parse_timing(timing);
  worker::sample_set samples;
  double least_wall = calls.empty() ? 0 : calls.front().wall_ms, least_tail = calls.empty() ? 0 : calls.front().tail_ms;
  for (const timed_call& c : calls) {
    samples.add(worker::make_sample(c.event_ms, c.wall_ms, c.host_ms, c.tail_ms, reported.held));
    least_wall = std::min(least_wall, c.wall_ms);
    least_tail = std::min(least_tail, c.tail_ms);
  }
  worker::empty_call empty;
  if (timing["empty_wall_ms"].get_double().get(empty.wall_ms)) empty.wall_ms = 0;
  if (timing["empty_tail_ms"].get_double().get(empty.tail_ms)) empty.tail_ms = 0;
  empty.wall_ms = std::clamp(empty.wall_ms, 0.0, least_wall);
  empty.tail_ms = std::clamp(empty.tail_ms, 0.0, std::max(0.0, least_tail));
  timing_summary s = samples.summarize(empty);
  s.hold_mechanism = reported.hold_mechanism;
  return s;
}

bool sketches_agree(const sketch& candidate, const sketch& reference, dtype type, std::string& why) {
  bool finite_reference = std::all_of(reference.begin(), reference.end(), [](const auto& v) { return v.has_value(); });
  if (!finite_reference) return true;  // the reference itself is not finite here: nothing to compare
  double diff = 0, norm = 0;
  for (std::size_t k = 0; k < candidate.size(); ++k) {
    if (!candidate[k]) {
      why = "a value that is not finite where the reference's is";
      return false;
    }
    double d = *candidate[k] - *reference[k];
    diff += d * d;
    norm += *reference[k] * *reference[k];
  }
  if (!is_floating(type)) {
    if (diff == 0) return true;
    why = "an integer output that differs from the reference's";
    return false;
  }
  double allowed = 3 * thresholds_for(type).normwise;
  double relative = norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
  if (relative <= allowed) return true;
  why = fmt::format("its sketch is {:.3g} from the reference's (relative; {:.3g} allowed)", relative, allowed);
  return false;
}

void check_timed_outputs(judged& j, answer& a, const std::vector<timed_call>& calls, const timing_log& log,
                         const reference_data& ref, std::uint64_t sketch_seed, std::size_t random_calls,
                         const run_state& run) {
  if (!ref.worker || ref.trials.empty()) return;
  const std::vector<tensor>& shapes = ref.output_shapes;
  // Whole outputs the worker sent back, by call.
  std::vector<std::pair<std::size_t, std::vector<tensor>>> whole;
  simdjson::dom::array checked;
  if (!a.doc["checked"].get_array().get(checked)) {
    std::size_t at = 0;
    for (simdjson::dom::element c : checked) {
      auto call = static_cast<std::size_t>(c["call"].get_int64().value());
      whole.emplace_back(call, checked.size() == 1
                                   ? wire::decode(c["outputs"].get_array().value(), std::move(a.payload))
                                   : wire::decode(c["outputs"].get_array().value(), a.payload, at));
    }
  }
  // The calls to run again, each once: those sent whole, and some chosen now, after the answer
  // arrived, among the others (a pick that fell on a call sent whole would only run it twice and
  // check one sketched call fewer). The sketch of every call run again is compared, a whole one's
  // too: its sketch is taken before its copy, so a result finished in between is still caught.
  std::vector<std::size_t> chosen;
  std::map<std::size_t, std::size_t> whole_at;  // a call sent whole: its place in `chosen`
  for (const auto& [call, outputs] : whole) {
    whole_at.emplace(call, chosen.size());
    chosen.push_back(call);
  }
  std::vector<std::pair<const timed_call*, std::size_t>> by_sketch;  // a call, its place in `chosen`
  std::vector<std::size_t> sketched;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (calls[i].outputs.empty()) continue;
    if (auto w = whole_at.find(calls[i].call); w != whole_at.end()) by_sketch.emplace_back(&calls[i], w->second);
    else sketched.push_back(i);
  }
  std::mt19937_64 rng(std::random_device{}());
  std::shuffle(sketched.begin(), sketched.end(), rng);
  for (std::size_t i = 0; i < std::min(sketched.size(), random_calls); ++i) {
    by_sketch.emplace_back(&calls[sketched[i]], chosen.size());
    chosen.push_back(calls[sketched[i]].call);
  }
  if (chosen.empty()) return;
  std::string list, symmetric;
  for (std::size_t k = 0; k < chosen.size(); ++k) {
    if (!log.planned(static_cast<std::int64_t>(chosen[k]))) {
      j.fail(verdict::incorrect, "tampering",
             fmt::format("timed call {} came back whole but was never asked for", chosen[k]));
      return;
    }
    list += fmt::format(R"({}{{"set":{},"seed":{},"whole":{}}})", k ? "," : "", log.set(chosen[k]), log.seed(chosen[k]),
                        k < whole.size());
  }
  for (std::uint64_t n : ref.symmetric) symmetric += fmt::format("{}{}", symmetric.empty() ? "" : ",", n);
  answer r = ref.worker->ask(fmt::format(R"("op":"replay","calls":[{}],"symmetric":[{}],"sketch_seed":{},{})", list,
                                         symmetric, sketch_seed, keep_heap(ref)),
                             {}, run.options.run_timeout * 2);
  if (r.failure != worker_failure::none || !r.ok) {
    // The reference failing to run again says nothing about the candidate: the check is skipped,
    // and the evaluation says so.
    j.flag("timed_outputs_unchecked", "the reference could not run the timed calls again: " + describe(r));
    return;
  }
  simdjson::dom::array ref_sketches = r.doc["sketches"].get_array().value();
  simdjson::dom::array ref_outputs = r.doc["outputs"].get_array().value();
  std::vector<std::vector<sketch>> reference_sketches;
  for (simdjson::dom::element s : ref_sketches) reference_sketches.push_back(parse_sketches(s.get_array().value()));
  std::size_t at = 0, k = 0;
  for (simdjson::dom::element metas : ref_outputs) {
    if (k < whole.size()) {
      std::vector<tensor> expected = wire::decode(metas.get_array().value(), r.payload, at);
      if (!compare_outputs(j, expected, whole[k].second, fmt::format("timed call {}", whole[k].first),
                           "timed_output_mismatch"))
        return;
    }
    ++k;
  }
  for (const auto& [call, at_replay] : by_sketch) {
    const timed_call& c = *call;
    const std::vector<sketch>& expected = reference_sketches.at(at_replay);
    if (c.outputs.size() != expected.size()) {
      j.fail(verdict::incorrect, "timed_output_mismatch",
             fmt::format("timed call {}: {} outputs sketched, the reference has {}", c.call, c.outputs.size(),
                         expected.size()));
      return;
    }
    for (std::size_t i = 0; i < expected.size(); ++i) {
      std::string why;
      dtype type = i < shapes.size() ? shapes[i].type : dtype::f32;
      if (!sketches_agree(c.outputs[i], expected[i], type, why)) {
        j.fail(verdict::incorrect, "timed_output_mismatch",
               fmt::format("timed call {}, output {}: {}", c.call, i, why));
        return;
      }
    }
  }
}

}  // namespace headroom::eval
