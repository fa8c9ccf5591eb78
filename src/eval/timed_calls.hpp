#pragma once
// A timing answer judged against the parent's own evidence (docs/eval.md, "Integrity inside the
// worker"). The worker reports every kept call: its times and the sketch of its outputs. The
// parent bounds the times by its own clock (each call's interval between the worker's questions,
// and what the harness itself costs around a call, measured on the reference), and afterwards
// picks calls at random, runs them again on the reference's worker with the same fresh inputs, and
// compares the sketches (and, for the calls whose outputs came back whole, the outputs). Internal
// to src/eval.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include <simdjson.h>

#include "headroom/util/dtype.hpp"
#include "headroom/worker/fresh_inputs.hpp"
#include "judged.hpp"
#include "headroom/eval/run_state.hpp"
#include "reference_data.hpp"
#include "session.hpp"
#include "timing_log.hpp"

namespace headroom::eval {

using sketch = std::array<std::optional<double>, worker::sketch_width>;  // nullopt: not finite
using record::timing_summary;

struct timed_call {
  std::size_t call = 0;
  double event_ms = 0, host_ms = 0, wall_ms = 0, tail_ms = 0;
  std::vector<sketch> outputs;  // one sketch per output (empty when not sketched)
};

// The "calls" of a timing answer; throws std::runtime_error on a malformed list.
std::vector<timed_call> parse_timed_calls(simdjson::dom::element answer);
std::vector<sketch> parse_sketches(simdjson::dom::array outputs);

// What the harness costs around a call, from a trusted worker's answer and the parent's log: the
// median over calls of (interval - wall), and of (wall - the longer of device and host).
struct call_overhead {
  double outside_ms = 0;
  double gap_ms = 0;
};
call_overhead measure_overhead(const std::vector<timed_call>& calls, const timing_log& log);

// Empty, or how the reported calls contradict what the parent saw (tampering): a call not asked
// for, or reported twice; a call whose start and end were not both announced; device or host time
// longer than the call's wall clock; a wall clock longer than the stamped interval around the call;
// or calls reported shorter than their intervals: the median over calls of (interval - wall), less
// the reference's (`reference`: measure_overhead of the reference's own timing), above
// unreported_slack_ms plus unreported_share of the median wall clock. An answer of no calls at all
// contradicts a timing request.
inline constexpr double unreported_slack_ms = 0.05;
inline constexpr double unreported_share = 0.05;
std::string contradicted_times(const std::vector<timed_call>& calls, const timing_log& log,
                               const call_overhead& reference);

// Empty, or what the parent cannot confirm of the reported times (timing_unconfirmed, an
// informative flag): every call's wall clock is longer than its device and host time by more than
// 1.5 times the reference's median gap plus 0.05 ms (a device or host time reported short).
std::string unconfirmed_times(const std::vector<timed_call>& calls, const call_overhead& reference);

// The timing summary of a candidate's answer, computed here from the calls it reported (each
// bounded by contradicted_times), not taken from the worker's own summary: the held flag, the
// hold mechanism and the empty call's cost come from the answer (the empty call's no larger than
// the least call's).
timing_summary summarize_calls(const std::vector<timed_call>& calls, simdjson::dom::element timing);

// Whether a candidate's sketch of an output agrees with the reference's: for floating outputs the
// relative norm of their difference within three times the normwise threshold of the dtype (a
// sketch estimates the normwise error with a spread of about a third); integers exactly. `why` says
// how it does not.
bool sketches_agree(const sketch& candidate, const sketch& reference, dtype type, std::string& why);

// Runs the calls whose outputs came back whole (the answer's "checked", with its payload) and
// `random_calls` chosen at random among the rest of `calls`, each once, again on the reference's
// worker, compares every one's sketch (and the whole ones' outputs), and fails `j`
// (timed_output_mismatch) where they disagree. Nothing to check against (no reference worker): no check.
void check_timed_outputs(judged& j, answer& a, const std::vector<timed_call>& calls, const timing_log& log,
                         const reference_data& ref, std::uint64_t sketch_seed, std::size_t random_calls,
                         const run_state& run);

}  // namespace headroom::eval
