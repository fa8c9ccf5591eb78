#pragma once
// Paired rounds (docs/eval.md, "Paired rounds"): when the host's speed can set a comparison's
// outcome, the candidate and the reference's worker are timed again in short turns, one after the
// other on one claimed CPU, and the speedup comes from those turns (held: each side's cost over its turns;
// with dispatch: the rounds' ratios, each order's median). Internal to src/eval (candidate_timing.cpp).
//
// Why: a speedup compares costs measured in two processes at two moments. On the H200 machine (a
// virtual machine) the host ran 1.5-3.5x slower in spells of a tenth of a second to seconds, with
// no steal time reported and nothing else running (docs/device.md, "Timing"). A call whose
// dispatch is near its device time, or that is timed with its dispatch, then costs what the host's
// speed was at its moment. Turns a fraction of a second apart see the same host.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "headroom/record/evaluation.hpp"
#include "headroom/eval/run_state.hpp"
#include "reference_data.hpp"
#include "session.hpp"

namespace headroom::eval {

using record::timing_summary;

// A side is host-sensitive when its cost follows the host: timed with its dispatch, or held with a
// median host time per call of at least half its device median.
inline constexpr double host_sensitive_share = 0.5;
bool host_sensitive(const timing_summary& t);

// Whether a comparison gets paired rounds: either side host-sensitive, and both timed the same way
// (held, or with their dispatch). Across modes the rounds could only compare across modes again
// (a reference that waits for its own stream loses every turn's hold: 0.5 s a turn for nothing).
bool pairing_applies(const timing_summary& candidate, const timing_summary& baseline);

// One side's turn: its cost, and whether its launches were held (a turn whose hold timed out was
// timed with its dispatch, a cost of another kind). Held, the two sides of that cost: the device's
// (timing_summary::device_cost_ms) and the host's median time in the call; 0 when unknown.
struct paired_turn {
  double ms = 0;
  bool held = false;
  double device_ms = 0;
  double host_ms = 0;
};

struct paired_result {
  std::vector<double> ratios;  // per round (alternating: per pair of calls): the reference's cost / the candidate's
  double speedup = 0;  // from the sides' costs (held) or from the orders' medians (paired.cpp)
  bool by_sides = false;  // the speedup divides the two sides' costs over their held turns
  double rel_spread = 0;  // (max - min) of the ratios / speedup; alternating: their interquartile range / speedup
  bool alternated = false;  // from alternating calls (time_paired's `alternate`), not turns
  double std_error = 0;  // alternating: the speedup's relative standard error, from the ratios' spread
  int mismatched = 0;  // rounds whose two turns were timed differently (held, with dispatch): no ratio
  int cpu = -1;  // the CPU both sides' timed calls ran on; -1 when not pinned
  bool candidate_failed = false;  // a candidate's turn failed (its verdict says why)
  std::string error;  // the reference side could not be timed again: the unpaired speedup stands
};

// The rounds themselves, on any two timing functions (each returns its side's turn, or nothing when
// that side failed): `rounds` rounds, the candidate first in even rounds and the reference first in
// odd ones, so that a steady drift of the host favours neither side. A round whose turns were timed
// in different ways compares different costs and gives no ratio.
//
// The speedup, when every counted turn was held and reported its two sides: each side costs the
// larger of its turns' median device cost and its turns' least host time, and the speedup divides
// the reference's cost by the candidate's. The host's speed only ever drops (a slow spell), so its
// least time over the turns is what the call dispatches in on this host; a ratio of single rounds
// instead follows whichever side a spell caught (on the H200: for three rounds the reference's
// dispatch ran at 0.072 ms, above 12_'s 0.056 ms on the device, the candidate's at 0.025-0.056, and
// the ratios' estimate said 1.13 for 12_ against itself; replayed on the recorded turns of thirteen
// such evaluations, the ratios' estimate left 4 outside 1.00 +- 0.02, the sides' costs 1, at 1.0203).
// Otherwise (timed with their dispatch, where the host's speed is inside every sample): the
// geometric mean of the two orders' medians of the rounds' ratios.
using turn_function = std::function<std::optional<paired_turn>()>;
paired_result run_paired_rounds(int rounds, const turn_function& candidate, const turn_function& reference);

// The CPU paired rounds pin both workers' timed calls to, claimed for as long as this object lives:
// the last one this process may run on that no other claim holds. Claims are locks on files named
// headroom-cpu-<n>.lock in $TMPDIR (or /tmp), so two headroom processes on one machine (one per
// GPU, say) time on two CPUs instead of sharing one. When every CPU is claimed, or the lock files
// cannot be made, the last CPU is used unclaimed, as before claims existed.
class cpu_claim {
 public:
  static cpu_claim take();
  cpu_claim(cpu_claim&& other) noexcept : cpu_(other.cpu_), fd_(other.fd_) { other.fd_ = -1; }
  cpu_claim& operator=(cpu_claim&&) = delete;
  cpu_claim(const cpu_claim&) = delete;
  ~cpu_claim();
  int cpu() const { return cpu_; }  // -1: none could be chosen (no pinning)
  bool held() const { return fd_ >= 0; }

 private:
  cpu_claim(int cpu, int fd) : cpu_(cpu), fd_(fd) {}
  int cpu_ = -1;
  int fd_ = -1;
};

// One kept call of a side's timing in alternating calls: its number in the request (warm-up calls
// counted) and its cost (its time, and any tail past the empty call's).
struct alternated_call {
  std::int64_t call = 0;
  double ms = 0;
};

// The speedup of alternating calls (call_alternation.hpp: the candidate's call i, the reference's
// call i, the candidate's call i + 1, ...). Each call is compared with its neighbour on the other
// side: the reference's call i with the candidate's call i (the candidate first) and with the
// candidate's call i + 1 (the reference first); a pair with a call that was not kept (a warm-up, a
// throttled sample) gives no ratio. The speedup is the geometric mean of the two orders' medians, as
// for rounds timed with their dispatch. The host's drift, which sets a turn's speed for a second,
// is the same for two calls a few tens of milliseconds apart: on the 2-core CPU machine, replayed on
// four minutes of one worker's calls (a GELU at 4.9-9.1 ms in half-second windows), ten seconds of
// alternating calls left a standard deviation of 2.5% around 1.00 where six rounds of turns of
// 0.83 s left 7.4%, and 2.4 s turns 3.3% in 34 s.
// The standard error (std_error) is the two orders' medians' errors combined, each reckoned as a
// timing's spread is (worker::median_rel_error: 1.2533 x the scaled median absolute deviation /
// sqrt(count), over the median).
paired_result alternated_speedup(const std::vector<alternated_call>& candidate,
                                 const std::vector<alternated_call>& reference);

inline constexpr int alternating_timings = 3;
inline constexpr double alternating_std_error = 0.01;

// Paired rounds of `candidate` (its worker, holding the timing sets from its timing) against the
// reference's own worker (ref.worker, which keeps the sets and the eager model). `held`: both sides
// timed with launches held (else with their dispatch). `check`: the candidate's checks of a timing
// answer (timed outputs, tampering); false ends the rounds (the candidate failed). `alternate`
// (calls timed with their dispatch only): instead of rounds of turns, one timing of both workers at
// once, their calls alternating (session::ask_alternating), for as long as the rounds would sample
// and for at least as many calls; then again, up to alternating_timings in all, while the
// speedup's standard error is above alternating_std_error. On the 2-core CPU machine ten seconds
// of alternating calls left 16 of 18 evaluations of a Model against itself within 1.00 +- 0.05,
// the two others at 0.945 and 1.059 with the widest spreads of ratios (bench/RESULTS.md): a
// noisier host is given more calls, a quiet one is not kept waiting.
// A reference's answer that found the GPU busy throws gpu_busy_seen (gpu_busy.hpp), as `check`
// does for the candidate's: the rounds stop there.
paired_result time_paired(session& candidate, const reference_data& ref, const run_state& run, bool held,
                          const std::function<bool(answer&)>& check, std::uint64_t sketch_seed = 0,
                          bool alternate = false);

}  // namespace headroom::eval
